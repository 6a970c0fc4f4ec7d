// End-to-end tests at scale: counts tables uploaded to the page, and large uploads read
// by the worker as a stream (slices of the File), each checked against the native CLI.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { serve, launch, settle, openSettled, table, cli, assertSameNumbers, BIN } from './harness.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
let server, url, browser;

before(async () => {
  ({ server, url } = await serve(path.join(ROOT, 'dist')));
  browser = await launch();
});
after(async () => { await browser?.close(); server?.close(); });

const open = () => openSettled(browser, url, { width: 1280, height: 800 });

async function upload(page, file) {
  const base = path.basename(file);
  await page.setInputFiles('#file-input', file);
  await page.waitForFunction((b) => document.querySelector('#file-info').textContent.includes(b), base);
  await page.click('#run-button');
  assert.equal(await settle(page), 'done', await page.$eval('#error', (e) => e.textContent));
}

const WORDS = ['the', 'cat', 'Dog', 'sat', 'on', 'a', 'mat', 'ran', '"quoted",', 'naïve', '东京', 'far', 'away'];
const corpus = (lines, seed) => Array.from({ length: lines }, (_, k) => {
  const len = 3 + ((k * 7 + seed) % 17);
  return Array.from({ length: len }, (_, i) => WORDS[(k * 3 + i * i + seed * i) % WORDS.length]).join(' ');
}).join('\n') + '\n';

test('a counts table uploaded as the corpus gives the numbers of the corpus it was counted from', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'posgeo-scale-'));
  const text = path.join(dir, 'corpus.txt');
  fs.writeFileSync(text, corpus(400, 3));
  const counts = path.join(dir, 'counts.csv.gz');
  execFileSync(BIN, ['count', text, '--mode', 'pad', '--max-len', '24', '-o', counts]);
  const page = await open();
  await page.fill('#opt-max_len', '24');
  await upload(page, counts);
  const want = cli(['--mode', 'pad', '--max-len', '24'], fs.readFileSync(text));
  assertSameNumbers(await table(page), want);
  const summary = await page.textContent('#summary');
  assert.match(summary, /counts table: counts\.csv\.gz/);
  assert.match(summary, new RegExp(`${want.sequences} sequences`));
  await page.close();
});

test('a large gzip upload is streamed by the worker and equals the CLI', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'posgeo-scale-'));
  const big = corpus(120000, 5); // about 8 MB of text: several 4 MB slices and batches
  const gz = path.join(dir, 'big.txt.gz');
  fs.writeFileSync(gz, zlib.gzipSync(big));
  const page = await open();
  await upload(page, gz);
  assertSameNumbers(await table(page), cli([], Buffer.from(big)));
  await page.close();
});


test('a large text upload is counted by several workers and equals the CLI', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'posgeo-scale-'));
  const big = corpus(400000, 7); // about 21 MB: above the page's threshold for several workers
  const file = path.join(dir, 'big.txt');
  fs.writeFileSync(file, big);
  const page = await open();
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  const k = cores > 1 ? Math.min(cores, 4) : 0;
  // Choosing the file starts the helpers (the worker's own), before the run is asked for.
  await page.setInputFiles('#file-input', file);
  for (let t = 0; t < 300 && page.workers().length < 1 + k; t++) await page.waitForTimeout(200);
  assert.equal(page.workers().length, 1 + k, 'the worker and its helpers, started on choosing the file');
  await upload(page, file);
  assertSameNumbers(await table(page), cli([], Buffer.from(big)));
  assert.equal(page.workers().length, 1 + k, 'the run counted with the helpers already started');
  const estimate = await page.textContent('#estimate');
  assert.doesNotMatch(estimate, /helper workers failed/, estimate);
  if (cores > 1) assert.match(estimate, new RegExp(`counted by ${k} workers`), estimate);
  // A second run reuses the helpers and still equals the CLI (here in pad mode).
  await page.selectOption('#opt-mode', 'pad');
  await page.click('#run-button');
  assert.equal(await settle(page), 'done', await page.$eval('#error', (e) => e.textContent));
  assertSameNumbers(await table(page), cli(['--mode', 'pad'], Buffer.from(big)));
  await page.close();
});

test('a long-sequence upload has its encodings measured by the helper workers and equals the CLI', async () => {
  // About 19 MB of 320-word lines: counted by several workers, which then (n ≥ 256 positions)
  // measure the encodings too; the numbers are the CLI's all the same.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'posgeo-scale-'));
  const big = Array.from({ length: 11000 }, (_, k) =>
    Array.from({ length: 320 }, (_, i) => WORDS[(k * 5 + i * (i % 7) + ((k * i) % 11)) % WORDS.length]).join(' ')).join('\n') + '\n';
  const file = path.join(dir, 'long.txt');
  fs.writeFileSync(file, big);
  const page = await open();
  await upload(page, file);
  const want = cli([], Buffer.from(big));
  assert.ok(want.n >= 256, `n = ${want.n}: enough positions for the helpers to measure`);
  assertSameNumbers(await table(page), want);
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  const estimate = await page.textContent('#estimate');
  assert.doesNotMatch(estimate, /helper workers failed/, estimate);
  // One helper already up (they counted) measured the five encodings that do not read the
  // spectrum while the worker computed it; then the helpers measured the other three (PMDS,
  // PMDS-R, SMACOF), one share each.
  if (cores > 1) assert.match(estimate, /, 5 encodings measured by a helper worker while the spectrum was computed/, estimate);
  if (cores > 1) assert.match(estimate, new RegExp(`encodings measured by ${Math.min(cores, 4, 3)} workers`), estimate);
  // The helpers already up (they counted) shared SMACOF's iterations too.
  if (cores > 1) assert.match(estimate, new RegExp(`SMACOF fitted by ${Math.min(cores, 4)} workers`), estimate);
  // The rank curve and the corpus's monotonicity, made meanwhile by the worker, are the CLI's.
  const summary = await page.textContent('#summary');
  assert.match(summary, new RegExp(`n = ${want.n} positions kept`), summary);
  const rate = summary.match(/monotonicity violation rate of the corpus metric itself: ([\d.e-]+)/);
  assert.ok(rate, summary);
  const v = want.corpus_monotonicity_violation_rate;
  assert.equal(rate[1], v < 1e-3 && v !== 0 ? v.toExponential(3) : v.toFixed(4));
  const curve = await page.evaluate(() => document.querySelector('#chart-rank') !== null);
  assert.ok(curve);
  await page.close();
});

for (const n of [1024, 2048]) {
  test(`a long context from a link (n = ${n}) has SMACOF fitted by helper workers and equals the CLI`, async () => {
    // n positions at the defaults (d = 768): helpers are started for SMACOF, whose iterations
    // they share by blocks of rows; from n = 2048 a helper also computes the spectrum of B and
    // is ended (its n×n matrices go with it). Every number is the CLI's.
    const synth = ['--vocab', '2000', '--positions', String(n), '--regimes', '8', '--width', '200', '--sequences', '400'];
    const text = execFileSync(BIN, ['synth', ...synth], { maxBuffer: 1 << 28 });
    const want = cli(['--max-len', String(n)], text);
    assert.equal(want.n, n);
    assert.ok(want.encodings.smacof.iterations > 1, `SMACOF iterated (${want.encodings.smacof.iterations})`);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${url}?corpus=synthetic&V=2000&n=${n}&K=8&s=200&seqs=400&max_len=${n}`);
    assert.equal(await settle(page, 300000), 'done', await page.$eval('#error', (e) => e.textContent));
    assertSameNumbers(await table(page), want);
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    const estimate = await page.textContent('#estimate');
    assert.doesNotMatch(estimate, /helper workers failed/, estimate);
    if (cores > 1) assert.match(estimate, new RegExp(`SMACOF fitted by ${Math.min(cores, 4)} workers`), estimate);
    assert.equal(/spectrum computed by a helper worker/.test(estimate), n >= 2048, estimate);
    // Meanwhile another helper measured the five encodings that do not read the spectrum
    // (nope, sinusoidal, RoPE, ALiBi, random): their numbers above are the CLI's too.
    if (cores > 1) assert.equal(/while another measured 5 encodings/.test(estimate), n >= 2048, estimate);
    const summary = await page.textContent('#summary');
    assert.match(summary, new RegExp(`SMACOF[^.]*${want.encodings.smacof.iterations} iterations`), summary);
    // The spectrum, wherever it was computed: the effective rank is the CLI's.
    assert.match(summary, new RegExp(`r_τ = ${want.effective_rank}\\b`), summary);
    await page.close();
  });
}
