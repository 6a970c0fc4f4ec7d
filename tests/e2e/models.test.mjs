// End-to-end tests of real models on the page: the paper's setting in one click
// (all-MiniLM-L6-v2's shipped WordPiece tokenizer and position table, pad mode, max_len 64)
// equals `posgeo analyze --preset paper`; the mode switch flips it and equals the CLI in
// condition mode; an uploaded tokenizer.json counts the model's tokens as the CLI does; a
// file that is not a tokenizer gets a message naming it and the results stay.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve, launch, settle, openSettled, runAfter, table, cli, assertSameNumbers, claims, assertSameClaims } from './harness.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MODEL = path.join(ROOT, 'www/models/all-MiniLM-L6-v2');
const GENESIS = fs.readFileSync(path.join(ROOT, 'www/corpora/kjv-genesis.txt'));
let server, url, browser;

before(async () => {
  ({ server, url } = await serve(path.join(ROOT, 'dist'), '/models-test/'));
  browser = await launch();
  fs.mkdirSync(path.join(ROOT, 'test-artifacts'), { recursive: true });
});
after(async () => { await browser?.close(); server?.close(); });

const open = () => openSettled(browser, url);

test("the paper's setting in one click equals --preset paper; the mode switch flips it", async () => {
  const page = await open();
  assert.equal(await runAfter(page, () => page.click('#preset-paper')), 'done', await page.textContent('#status'));
  assert.equal(await page.$eval('#src-genesis', (e) => e.checked), true, 'Genesis replaces the synthetic corpus');
  assert.equal(await page.$eval('#opt-tokenizer', (e) => e.value), 'model');
  assert.equal(await page.$eval('#opt-mode', (e) => e.value), 'pad');
  assert.equal(await page.$eval('#opt-max_len', (e) => e.value), '64');
  const summary = await page.textContent('#summary');
  assert.match(summary, /tokenizer: all-MiniLM-L6-v2 tokenizer\.json \(WordPiece, 30522 types\), with special tokens/);
  // The preset also runs the shipped model's layers: the CLI reads the same folder.
  const pad = cli(['--preset', 'paper', '--model', MODEL, '--claims'], GENESIS);
  const shown = await table(page);
  assert.ok('learned' in shown, 'the shipped position table is compared');
  assertSameNumbers(shown, pad, 1e-4);
  // With a model, the claims panel names the layer that departs most (the CLI's).
  const panel = await claims(page);
  assertSameClaims(panel, pad);
  assert.notEqual(panel.find((c) => c.key === 'layer_departs').holds, null);
  // The learned table's Procrustes residual is in the table (equal to the CLI's above), and
  // the map overlays its aligned positions when picked.
  assert.ok(shown.learned.procrustes_residual > 0 && shown.learned.procrustes_residual < 1);
  const plain = await page.$eval('#chart-map', (c) => c.toDataURL());
  await page.selectOption('#map-overlay', 'learned');
  await page.waitForFunction((p) => document.querySelector('#chart-map').toDataURL() !== p, plain);
  await page.screenshot({ path: path.join(ROOT, 'test-artifacts', 'paper-setting.png'), fullPage: false });
  // Flip to condition: the CLI with the same shipped files in condition mode.
  assert.equal(await runAfter(page, () => page.click('#flip-mode')), 'done');
  assert.equal(await page.$eval('#opt-mode', (e) => e.value), 'condition');
  const condition = cli(['--tokenizer-file', path.join(MODEL, 'tokenizer.json.gz'), '--max-len', '64',
    '--learned', path.join(MODEL, 'position_embeddings.npy.gz'), '--model', MODEL], GENESIS);
  assertSameNumbers(await table(page), condition, 1e-4);
  // The model's own tokens in the read-outs: [CLS] stands at position 0.
  assert.equal(condition.top_tokens[0][0][0], '[CLS]');
  await page.close();
});

test('an uploaded tokenizer.json counts the model tokens; a file that is not one is named', async () => {
  const page = await open();
  await page.check('#src-genesis');
  await page.fill('#opt-max_len', '32');
  await page.setInputFiles('#tokenizer-input', path.join(MODEL, 'tokenizer.json.gz'));
  await page.waitForFunction(() => /counts the model's tokens/.test(document.querySelector('#tokenizer-info').textContent));
  assert.equal(await page.$eval('#opt-tokenizer', (e) => e.value), 'model', 'loading a tokenizer selects it');
  await page.check('#opt-no_special_tokens');
  assert.equal(await runAfter(page, () => page.click('#run-button')), 'done', await page.textContent('#status'));
  const want = cli(['--tokenizer-file', path.join(MODEL, 'tokenizer.json.gz'), '--max-len', '32', '--no-special-tokens'], GENESIS);
  assertSameNumbers(await table(page), want);
  assert.notEqual(want.top_tokens[0][0][0], '[CLS]');
  const before = await table(page);
  // Not a tokenizer: the message names the file and what it found; the results stay.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'posgeo-tok-'));
  const bad = path.join(dir, 'config.json');
  fs.writeFileSync(bad, JSON.stringify({ architectures: ['BertModel'], hidden_size: 384 }));
  await page.setInputFiles('#tokenizer-input', bad);
  await page.waitForFunction(() => /config\.json/.test(document.querySelector('#tokenizer-info').textContent));
  assert.equal(await runAfter(page, () => page.click('#run-button')), 'error');
  const error = await page.textContent('#error');
  assert.match(error, /config\.json/);
  assert.match(error, /no "model" object/);
  assert.deepEqual(await table(page), before, 'the last results stay');
  await page.close();
});
