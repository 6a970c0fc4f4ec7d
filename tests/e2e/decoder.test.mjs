// End-to-end tests of a decoder on the page: the shipped SmolLM2-135M-Instruct GGUF,
// fetched with its size shown first, gives the layer rows and per-layer measures (positional
// share, effective dimension) of `posgeo analyze --model <gguf>`; the per-layer chart, the
// layer map and its slider, their exports and the lecture step show them; the same file chosen
// in the model input works; a cancel in the middle of its pass keeps the last results; a
// truncated GGUF and a pytorch_model.bin whose pickle calls os.system get their messages and
// the results stay. Runs are kept small (SmolLM2 in wasm is 30 layers × 576 wide).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { serve, launch, openSettled, runAfter, table, cli } from './harness.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const GGUF = path.join(ROOT, 'www/models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf');
const GENESIS = fs.readFileSync(path.join(ROOT, 'www/corpora/kjv-genesis.txt'));
const SMALL = { max_len: '16', layer_sequences: '8' };
const LAYER_TOL = Number(process.env.POSGEO_LAYER_TOL || 1e-6);
let server, url, browser, want;

before(async () => {
  ({ server, url } = await serve(path.join(ROOT, 'dist'), '/decoder-test/'));
  browser = await launch();
  fs.mkdirSync(path.join(ROOT, 'test-artifacts'), { recursive: true });
  want = cli(['--model', GGUF, '--max-len', SMALL.max_len, '--layer-sequences', SMALL.layer_sequences], GENESIS);
});
after(async () => { await browser?.close(); server?.close(); });

const open = () => openSettled(browser, url);

async function genesisWith(page, options) {
  await page.check('#src-genesis');
  for (const [key, value] of Object.entries(options)) await page.fill(`#opt-${key}`, value);
}

/** |a − b| ≤ tol·max(1, |b|) (candle's wasm and native kernels differ by about 1e-7). */
function close(a, b, tol, what) {
  assert.ok(Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)), `${what}: page ${a} vs CLI ${b}`);
}

/** The largest relative difference of the layer rows, by metric (logged, for the record). */
function layerDifferences(shown, report) {
  const worst = {};
  for (const [name, cells] of Object.entries(shown)) {
    if (!name.startsWith('layer')) continue;
    for (const [metric, v] of Object.entries(cells)) {
      const w = report.encodings[name][metric];
      if (w === null || v === null) continue;
      const d = Math.abs(v - w) / Math.max(1, Math.abs(w));
      if (!(worst[metric]?.d >= d)) worst[metric] = { d, name };
    }
  }
  return worst;
}

/** The stress table equals the CLI's: other rows to 1e-9, the layer rows to 1e-6 (raw σ 1e-5). */
function assertSameTable(shown, report) {
  assert.deepEqual(Object.keys(shown).sort(), Object.keys(report.encodings).sort());
  console.log('layer rows, largest relative difference page vs CLI:', JSON.stringify(layerDifferences(shown, report)));
  for (const [name, cells] of Object.entries(shown)) {
    for (const [metric, v] of Object.entries(cells)) {
      const w = report.encodings[name][metric];
      if (w === null) { assert.equal(v, null, `${name}.${metric}`); continue; }
      // Raw σ is measured on the layers' own scale (late layers' states are large): it
      // carries the f32 kernels' relative difference of the states themselves (7.5e-6 seen).
      const tol = !name.startsWith('layer') ? 1e-9 : metric === 'raw_stress' ? 10 * LAYER_TOL : LAYER_TOL;
      close(v, w, tol, `${name}.${metric}`);
    }
  }
}

/** The layers table as { ℓ: { metric: number } }. */
const layerRows = (page) => page.$$eval('#layers-table tbody tr[data-layer]', (rows) => Object.fromEntries(rows.map((r) => [
  r.dataset.layer,
  Object.fromEntries([...r.querySelectorAll('td[data-metric]')].map((td) => [td.dataset.metric, Number(td.dataset.value)])),
])));

/** The per-layer measures equal the CLI's report (positional share, effective dimension). */
async function assertSameMeasures(page, report) {
  const rows = await layerRows(page);
  const measures = report.layers.measures;
  assert.equal(Object.keys(rows).length, report.layers.num_layers + 1);
  assert.equal(measures.length, report.layers.num_layers + 1);
  const d = (a, b) => Math.abs(a - b) / Math.max(1, Math.abs(b));
  const worst = (f) => Math.max(...measures.map((m) => d(rows[m.layer][f], m[f])));
  console.log('per-layer measures, largest relative difference page vs CLI:',
    worst('positional_share'), worst('effective_dimension'));
  for (const m of measures) {
    close(rows[m.layer].positional_share, m.positional_share, 1e-6, `layer ${m.layer} positional_share`);
    close(rows[m.layer].effective_dimension, m.effective_dimension, 1e-6, `layer ${m.layer} effective_dimension`);
    close(rows[m.layer].scaled_stress, report.encodings[`layer:${m.layer}`].scaled_stress, 1e-6, `layer ${m.layer} σ*`);
  }
}

const picture = (page, id) => page.$eval(id, (c) => c.toDataURL());

test("the shipped decoder's layer rows and per-layer measures equal the CLI's; its charts, exports and lecture step show them", async () => {
  const page = await open();
  assert.equal(await page.$eval('#layer-map-figure', (e) => e.hidden), true, 'no model, no layer map');
  await genesisWith(page, SMALL);
  assert.match(await page.textContent('#model-smollm2'), /98 MB/, 'the size is shown before the download');
  await page.click('#model-smollm2');
  await page.waitForFunction(() => /layers are compared in the next run/.test(document.querySelector('#model-info').textContent), null, { timeout: 120000 });
  assert.equal(await page.$eval('#model-progress', (e) => e.hidden), true, 'the download bar goes once done');
  assert.match(await page.textContent('#model-info'), /SmolLM2-135M-Instruct/);
  assert.equal(await runAfter(page, () => page.click('#run-button'), 300000), 'done', await page.textContent('#error'));
  assert.equal(want.layers.model_type, 'llama');
  assertSameTable(await table(page), want);
  await assertSameMeasures(page, want);
  // The measure toggle redraws the layers chart; the map is shown at the last layer, and the
  // slider moves it.
  assert.equal(await page.$eval('#layer-map-figure', (e) => e.hidden), false);
  assert.equal(await page.$eval('#layer-slider', (e) => [e.max, e.value].join()), `${want.layers.num_layers},${want.layers.num_layers}`);
  const stress = await picture(page, '#chart-layers');
  await page.selectOption('#layers-measure', 'positional_share');
  await page.waitForFunction((p) => document.querySelector('#chart-layers').toDataURL() !== p, stress);
  const share = await picture(page, '#chart-layers');
  await page.selectOption('#layers-measure', 'effective_dimension');
  await page.waitForFunction((p) => document.querySelector('#chart-layers').toDataURL() !== p, share);
  const last = await picture(page, '#chart-layer-map');
  await page.$eval('#layer-slider', (e) => { e.value = '3'; e.dispatchEvent(new Event('input', { bubbles: true })); });
  await page.waitForFunction((p) => document.querySelector('#chart-layer-map').toDataURL() !== p, last);
  assert.match(await page.textContent('#layer-slider-value'), /layer 3/);
  for (const chart of ['layers', 'layer-map']) {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`#${chart}-figure button[data-chart="${chart}"][data-kind="svg"]`)]);
    const svg = fs.readFileSync(await dl.path(), 'utf8');
    assert.ok(svg.includes('<svg'), `${chart} SVG`);
    if (chart === 'layers') assert.match(svg, /effective dimension/);
    if (chart === 'layer-map') assert.match(svg, /layer 3/);
  }
  const [png] = await Promise.all([page.waitForEvent('download'), page.click('#layer-map-figure button[data-chart="layer-map"][data-kind="png"]')]);
  assert.ok(fs.statSync(await png.path()).size > 1000, 'the layer map as PNG');
  await page.screenshot({ path: path.join(ROOT, 'test-artifacts', 'decoder-layers.png'), fullPage: false });
  // The lecture step words this run's numbers.
  const m = want.layers.measures;
  const peak = m.reduce((a, b) => (b.positional_share > a.positional_share ? b : a));
  await page.evaluate(() => { location.hash = '#lecture/12'; });
  const step = await page.waitForSelector('[data-lecture-step="12"]', { state: 'visible' });
  const text = await step.textContent();
  assert.match(text, /This decoder \(llama/);
  assert.ok(text.includes(`peaks at layer ${peak.layer} (`), text);
  await page.close();
});

test('the GGUF file chosen in the model input works; a cancel mid-pass keeps the results', async () => {
  const page = await open();
  await genesisWith(page, SMALL);
  await page.setInputFiles('#model-input', GGUF);
  await page.waitForFunction(() => /layers are compared/.test(document.querySelector('#model-info').textContent), null, { timeout: 120000 });
  assert.equal(await runAfter(page, () => page.click('#run-button'), 300000), 'done', await page.textContent('#error'));
  const shown = await table(page);
  assertSameTable(shown, want);
  await assertSameMeasures(page, want);
  // A longer pass, cancelled while the model reads.
  await genesisWith(page, { max_len: '64', layer_sequences: '400' });
  await page.click('#run-button');
  await page.waitForFunction(() => /model layers/.test(document.querySelector('#status').textContent), null, { timeout: 240000 });
  await page.click('#cancel-button');
  await page.waitForFunction(() => document.querySelector('#status').dataset.state === 'idle');
  assert.deepEqual(await table(page), shown, 'the last results stay');
  await page.close();
});

/** A zip of stored (uncompressed) members [name, bytes]. */
function zip(members) {
  const locals = [], centrals = [];
  let offset = 0;
  for (const [name, data] of members) {
    const n = Buffer.from(name), crc = zlib.crc32(data);
    const head = Buffer.alloc(30);
    head.writeUInt32LE(0x04034b50, 0); head.writeUInt16LE(20, 4); head.writeUInt32LE(crc, 14);
    head.writeUInt32LE(data.length, 18); head.writeUInt32LE(data.length, 22); head.writeUInt16LE(n.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0); central.writeUInt16LE(20, 4); central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16); central.writeUInt32LE(data.length, 20); central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(n.length, 28); central.writeUInt32LE(offset, 42);
    locals.push(head, n, data);
    centrals.push(central, n);
    offset += 30 + n.length + data.length;
  }
  const size = centrals.reduce((s, b) => s + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); end.writeUInt16LE(members.length, 8); end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(size, 12); end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...centrals, end]);
}

test('a truncated GGUF and a pickle that calls os.system get their messages; the results stay', async () => {
  const page = await open();
  const before = await table(page);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'posgeo-e2e-bad-decoder-'));
  const cut = path.join(dir, 'cut.gguf');
  fs.writeFileSync(cut, fs.readFileSync(GGUF).subarray(0, 1 << 20));
  const folder = path.join(dir, 'evil');
  fs.mkdirSync(folder);
  const pkl = Buffer.from('\x80\x02cposix\nsystem\nq\x00X\x02\x00\x00\x00lsq\x01\x85q\x02Rq\x03.', 'latin1');
  fs.writeFileSync(path.join(folder, 'pytorch_model.bin'), zip([['archive/data.pkl', pkl]]));
  fs.writeFileSync(path.join(folder, 'config.json'), JSON.stringify({
    model_type: 'llama', hidden_size: 8, intermediate_size: 16, num_hidden_layers: 1, num_attention_heads: 2,
    num_key_value_heads: 2, vocab_size: 300, max_position_embeddings: 64, rms_norm_eps: 1e-5, rope_theta: 10000,
  }));
  const cases = [
    [[cut], /GGUF: .*truncated/],
    [[path.join(folder, 'config.json'), path.join(folder, 'pytorch_model.bin')], /posix\.system/],
  ];
  for (const [chosen, message] of cases) {
    await page.setInputFiles('#model-input', chosen);
    await page.waitForFunction(() => /compared in the next run/.test(document.querySelector('#model-info').textContent));
    assert.equal(await runAfter(page, () => page.click('#run-button'), 120000), 'error');
    assert.match(await page.textContent('#error'), message);
    assert.deepEqual(await table(page), before, 'the last results stay');
  }
  await page.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
