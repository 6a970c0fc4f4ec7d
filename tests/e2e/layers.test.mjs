// End-to-end tests of "Inside the model" (docs/MATH.md §14): the shipped all-MiniLM-L6-v2, fetched with
// its progress bar, gives the layer rows of `posgeo analyze --model`; an uploaded model folder
// (a small random BERT made by tests/reference/tiny_bert.py) works the same; a cancel in the
// middle of the pass keeps the last results; each bad model (unsupported config, weights that
// disagree with it or miss layers, a tokenizer beyond its vocabulary, a truncated checkpoint)
// gets a message naming its defect and the results stay; a large upload counted by helper
// workers gives the model the same first sequences as the CLI.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { serve, launch, settle, openSettled, runAfter, table, cli, assertSameNumbers } from './harness.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MODEL = path.join(ROOT, 'www/models/all-MiniLM-L6-v2');
const GENESIS = fs.readFileSync(path.join(ROOT, 'www/corpora/kjv-genesis.txt'));
const PYTHON = fs.existsSync(path.join(ROOT, '.venv/bin/python')) ? path.join(ROOT, '.venv/bin/python') : 'python3';
let server, url, browser;

before(async () => {
  ({ server, url } = await serve(path.join(ROOT, 'dist'), '/layers-test/'));
  browser = await launch();
  fs.mkdirSync(path.join(ROOT, 'test-artifacts'), { recursive: true });
});
after(async () => { await browser?.close(); server?.close(); });

const open = () => openSettled(browser, url);

/** Genesis with the given options in the form. */
async function genesisWith(page, options) {
  await page.check('#src-genesis');
  for (const [key, value] of Object.entries(options)) await page.fill(`#opt-${key}`, value);
}

/** A small random BERT folder. */
function tinyModel(tag, extra = []) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `posgeo-e2e-${tag}-`));
  execFileSync(PYTHON, [path.join(ROOT, 'tests/reference/tiny_bert.py'), dir, ...extra]);
  return dir;
}

const files = (dir) => ['config.json', 'model.safetensors', 'tokenizer.json'].map((f) => path.join(dir, f));

test("the shipped model's layer rows equal the CLI's; the chart, its CSV and the lecture step show them", async () => {
  const page = await open();
  await genesisWith(page, { max_len: '32', layer_sequences: '64' });
  assert.match(await page.textContent('#model-minilm'), /91 MB/, 'the size is shown before the download');
  await page.click('#model-minilm');
  await page.waitForFunction(() => /layers are compared in the next run/.test(document.querySelector('#model-info').textContent), null, { timeout: 120000 });
  assert.equal(await page.$eval('#model-progress', (e) => e.hidden), true, 'the download bar goes once done');
  assert.equal(await runAfter(page, () => page.click('#run-button'), 240000), 'done', await page.textContent('#status'));
  const want = cli(['--model', MODEL, '--max-len', '32', '--layer-sequences', '64'], GENESIS);
  const shown = await table(page);
  assert.ok('layer:6' in shown && 'layer-residual:0' in shown, Object.keys(shown).join(' '));
  assertSameNumbers(shown, want, 1e-4);
  // The chart has ink, the CSV holds every layer, the lecture step words the worst layer.
  const ink = await page.$eval('#chart-layers', (c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let k = 0;
    // The centroid curve's colour: the palette's wine, rgb(136, 34, 85) (crates/charts/src/palette.rs).
    for (let i = 0; i < d.length; i += 4) {
      if (Math.abs(d[i] - 136) < 40 && d[i + 1] < 90 && Math.abs(d[i + 2] - 85) < 40) k++;
    }
    return k;
  });
  assert.ok(ink > 50, `the centroid curve is drawn (${ink} wine pixels)`);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-layers')]);
  const csv = fs.readFileSync(await download.path(), 'utf8').trim().split('\n');
  assert.equal(csv[0], 'layer,centroid_scaled_stress,residual_scaled_stress,positional_share,effective_dimension');
  assert.ok(Math.abs(Number(csv[4].split(',')[1]) - want.encodings['layer:3'].scaled_stress) < 1e-4);
  const share = want.layers.measures[3].positional_share;
  assert.ok(Math.abs(Number(csv[4].split(',')[3]) - share) < 1e-6 * Math.max(1, share), 'the CSV has the positional share');
  await page.screenshot({ path: path.join(ROOT, 'test-artifacts', 'inside-the-model.png'), fullPage: false });
  await page.evaluate(() => { location.hash = '#lecture/11'; });
  const step = await page.waitForSelector('[data-lecture-step="11"]', { state: 'visible' });
  assert.match(await step.textContent(), /departs most from the corpus geometry/);
  await page.close();
});

test('an uploaded model folder works; a cancel mid-pass keeps the results', async () => {
  const dir = tinyModel('upload', ['--seed', '2', '--prefix', '--dtype', 'BF16']);
  const page = await open();
  await genesisWith(page, { max_len: '24', layer_sequences: '80' });
  await page.setInputFiles('#model-input', files(dir));
  await page.waitForFunction(() => /layers are compared/.test(document.querySelector('#model-info').textContent));
  assert.equal(await runAfter(page, () => page.click('#run-button'), 240000), 'done', await page.textContent('#status'));
  const want = cli(['--model', dir, '--max-len', '24', '--layer-sequences', '80'], GENESIS);
  const shown = await table(page);
  assertSameNumbers(shown, want, 1e-4);
  // Cancel while the shipped model reads many long sequences.
  await page.fill('#opt-max_len', '256');
  await page.fill('#opt-layer_sequences', '1500');
  await page.click('#model-minilm');
  await page.waitForFunction(() => /layers are compared/.test(document.querySelector('#model-info').textContent), null, { timeout: 120000 });
  await page.click('#run-button');
  await page.waitForFunction(() => /model layers/.test(document.querySelector('#status').textContent), null, { timeout: 120000 });
  await page.click('#cancel-button');
  await page.waitForFunction(() => document.querySelector('#status').dataset.state === 'idle');
  assert.deepEqual(await table(page), shown, 'the last results stay');
  await page.close();
});

test('a large upload counted by helper workers gives the model its first sequences, as the CLI reads them', async () => {
  // About 18 MB: above the page's threshold for several counting workers, which keep the
  // first layer_sequences sequences as text for the model (not only the examples' few).
  const dir = tinyModel('helpers', ['--seed', '3']);
  const words = 'the a cat dog sat ran on under mat rug big small red blue bird fish tree house day night'.split(' ');
  const big = Array.from({ length: 330000 }, (_, k) => {
    const len = 2 + ((k * 7) % 19);
    return Array.from({ length: len }, (_, i) => words[(k * 3 + i * i + 5 * i + (k >> 4)) % words.length]).join(' ');
  }).join('\n') + '\n';
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'posgeo-e2e-big-')), 'big.txt');
  fs.writeFileSync(file, big);
  const page = await open();
  await page.setInputFiles('#file-input', file);
  await page.waitForFunction(() => document.querySelector('#file-info').textContent.includes('big.txt'));
  for (const [key, value] of Object.entries({ max_len: '24', layer_sequences: '40' })) await page.fill(`#opt-${key}`, value);
  await page.setInputFiles('#model-input', files(dir));
  await page.waitForFunction(() => /layers are compared/.test(document.querySelector('#model-info').textContent));
  assert.equal(await runAfter(page, () => page.click('#run-button'), 240000), 'done', await page.textContent('#error'));
  const want = cli(['--model', dir, '--max-len', '24', '--layer-sequences', '40'], Buffer.from(big));
  assertSameNumbers(await table(page), want, 1e-4);
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  const estimate = await page.textContent('#estimate');
  assert.doesNotMatch(estimate, /helper workers failed/, estimate);
  if (cores > 1) assert.match(estimate, /counted by \d+ workers/, estimate);
  await page.close();
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
});

test('each bad model gets its message and the results stay', async () => {
  const page = await open();
  const before = await table(page);
  const cases = [];
  const onlyConfig = tinyModel('config');
  cases.push([[path.join(onlyConfig, 'config.json'), path.join(onlyConfig, 'tokenizer.json')], /hold no weights/]);
  const gpt = tinyModel('gpt');
  const config = JSON.parse(fs.readFileSync(path.join(gpt, 'config.json')));
  fs.writeFileSync(path.join(gpt, 'config.json'), JSON.stringify({ ...config, model_type: 't5' }));
  cases.push([files(gpt), /the architecture "t5" is not supported/]);
  for (const [key, value] of [['hidden_act', 'relu'], ['position_embedding_type', 'relative_key']]) {
    const odd = tinyModel(key);
    fs.writeFileSync(path.join(odd, 'config.json'), JSON.stringify({ ...config, [key]: value }));
    cases.push([files(odd), new RegExp(`${key} is "${value}"`)]);
  }
  const shape = tinyModel('shape');
  fs.writeFileSync(path.join(shape, 'config.json'), JSON.stringify({ ...config, intermediate_size: 36 }));
  cases.push([files(shape), /has shape \[37\] but the config implies \[36\]/]);
  const missing = tinyModel('missing');
  fs.writeFileSync(path.join(missing, 'config.json'), JSON.stringify({ ...config, num_hidden_layers: config.num_hidden_layers + 2 }));
  cases.push([files(missing), /tensor\(s\) the config needs are missing: encoder\.layer\./]);
  const cut = tinyModel('cut');
  const st = fs.readFileSync(path.join(cut, 'model.safetensors'));
  fs.writeFileSync(path.join(cut, 'model.safetensors'), st.subarray(0, st.length >> 1));
  cases.push([files(cut), /truncated/]);
  // MiniLM's tokenizer gives ids beyond the small model's vocabulary (at a max_len its
  // 40 positions cover, so that its position table fits the corpus).
  const vocab = tinyModel('vocab');
  fs.writeFileSync(path.join(vocab, 'tokenizer.json'), zlib.gunzipSync(fs.readFileSync(path.join(MODEL, 'tokenizer.json.gz'))));
  cases.push([files(vocab), /outside the model's vocabulary of/, { max_len: '32' }]);
  for (const [chosen, message, options] of cases) {
    if (options) await genesisWith(page, options);
    await page.setInputFiles('#model-input', chosen);
    await page.waitForFunction(() => /compared in the next run/.test(document.querySelector('#model-info').textContent));
    assert.equal(await runAfter(page, () => page.click('#run-button'), 240000), 'error');
    assert.match(await page.textContent('#error'), message);
    assert.deepEqual(await table(page), before, 'the last results stay');
  }
  await page.close();
});
