// End-to-end tests of biological sequences (docs/MATH.md §17): the shipped proteins in one
// click with the options that suit them, the random band and the three claims with the CLI's
// numbers, and FASTA uploads (plain under any name, gzip) counted as the CLI counts them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { serve, launch, openSettled, runAfter, settle, cli, table, claims, assertSameNumbers, assertSameClaims } from './harness.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PROTEINS = fs.readFileSync(path.join(ROOT, 'www/corpora/proteins.faa'));
const OPTIONS = ['--tokenizer', 'chars', '--max-len', '256'];
let server, url, browser;

before(async () => {
  ({ server, url } = await serve(path.join(ROOT, 'dist'), '/proteins-test/'));
  browser = await launch();
});
after(async () => { await browser?.close(); server?.close(); });

test('the shipped proteins load in one click, with the band, the verdict and the claims of the CLI', async () => {
  const page = await openSettled(browser, url, { width: 1366, height: 768 });
  assert.equal(await runAfter(page, () => page.check('#src-proteins')), 'done', await page.$eval('#error', (e) => e.textContent));
  // The options that suit proteins are in the form.
  assert.equal(await page.$eval('#opt-tokenizer', (s) => s.value), 'chars');
  assert.equal(await page.$eval('#opt-max_len', (s) => s.value), '256');
  const want = cli([...OPTIONS, '--claims'], PROTEINS);
  assertSameNumbers(await table(page), want);
  const shown = await claims(page);
  assert.equal(shown.length, 10);
  assertSameClaims(shown, want);
  for (const key of ['sinusoids_close', 'sinusoids_beat_random', 'sinusoids_follow_order']) {
    assert.ok(shown.some((c) => c.key === key), key);
  }
  assert.ok(Object.keys(shown.find((c) => c.key === 'sinusoids_beat_random').values).includes('random_band.scaled_stress.min'));
  // The verdict is the CLI's, held against the band.
  assert.equal(await page.$eval('#verdict', (e) => e.textContent), want.verdict.sentence);
  assert.equal(want.verdict.best_by_stress, null, want.verdict.sentence);
  // The summary names the band.
  const summary = await page.$eval('#summary', (e) => e.textContent);
  assert.ok(summary.includes('32 random tables score σ*'), summary);
  await page.close();
});

test('a FASTA upload, under any name and gzipped, gives the CLI numbers', async () => {
  const page = await openSettled(browser, url);
  assert.equal(await runAfter(page, () => page.check('#src-proteins')), 'done');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'posgeo-e2e-'));
  const records = PROTEINS.toString().split('>').slice(1, 121).map((r) => '>' + r).join('');
  const plain = path.join(dir, 'my-proteins.txt');
  fs.writeFileSync(plain, records);
  const gz = path.join(dir, 'my-proteins.faa.gz');
  fs.writeFileSync(gz, zlib.gzipSync(records));
  const want = cli(OPTIONS, records);
  assert.equal(want.sequences, 120);
  for (const file of [plain, gz]) {
    await page.setInputFiles('#file-input', file);
    await page.waitForFunction(() => document.querySelector('#file-info').textContent.includes('MB'));
    await page.click('#run-button');
    assert.equal(await settle(page), 'done', `${file}: ${await page.$eval('#error', (e) => e.textContent)}`);
    assertSameNumbers(await table(page), want);
  }
  // A malformed FASTA gets its line named, and the results stay.
  const before = await table(page);
  const bad = path.join(dir, 'bad.fasta');
  fs.writeFileSync(bad, '>a\nMKV\n>b\n>c\nLL\n');
  await page.setInputFiles('#file-input', bad);
  await page.waitForFunction(() => document.querySelector('#file-info').textContent.includes('MB'));
  await page.click('#run-button');
  assert.equal(await settle(page), 'error');
  const message = await page.$eval('#error', (e) => e.textContent);
  assert.ok(message.includes('line 3') && message.includes('no residues'), message);
  assert.deepEqual(await table(page), before);
  await page.close();
});
