// End-to-end tests of the built site (dist/) in headless Chromium. Run by scripts/test.sh
// after `trunk build --release`; POSGEO_BIN points at the native CLI for the cross-check.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { serve, launch, settle, table, cli, assertSameNumbers, BIN } from './harness.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ARTIFACTS = path.join(ROOT, 'test-artifacts');
let server, url, browser;
const foreign = [];

before(async () => {
  ({ server, url } = await serve(path.join(ROOT, 'dist'), '/some/sub/path/'));
  browser = await launch();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
});
after(async () => { await browser?.close(); server?.close(); });

async function open(query = '') {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  page.on('request', (r) => { if (!r.url().startsWith(url) && !r.url().startsWith('data:') && !r.url().startsWith('blob:')) foreign.push(r.url()); });
  await page.goto(url + query);
  assert.equal(await settle(page), 'done', await page.$eval('#status', (s) => s.textContent));
  return page;
}

const CORPUS = Array.from({ length: 60 }, (_, k) =>
  `The ${['cat', 'dog', 'bird'][k % 3]} ${['sat', 'ran', 'flew', 'slept'][k % 4]} on the ${['mat', 'rug'][k % 2]} at ${k % 5} o'clock today`).join('\n');

test('first load shows the full dashboard on the synthetic corpus, offline-safe', async () => {
  const page = await open();
  const t = await table(page);
  assert.deepEqual(Object.keys(t).sort(), ['alibi', 'nope', 'pmds', 'pmds_r', 'random', 'rope', 'sinusoidal', 'smacof']);
  assert.equal(t.nope.raw_stress, 1);
  assert.ok(t.pmds.raw_stress < 1e-10);
  // Every dashboard chart canvas has been drawn on (not blank; the lecture's draw when shown).
  const blank = await page.$$eval('#results canvas', (cs) => cs.filter((c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    for (let i = 0; i < d.length; i += 4) if (d[i] !== d[0] || d[i + 1] !== d[1] || d[i + 2] !== d[2]) return false;
    return true;
  }).map((c) => c.id));
  assert.deepEqual(blank, []);
  // The default synthetic corpus gives what the CLI gives on `posgeo synth` output.
  const synth = execFileSync(BIN, ['synth']);
  assertSameNumbers(t, cli([], synth));
  await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard.png'), fullPage: true });
  await page.setViewportSize({ width: 390, height: 800 });
  await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard-phone.png'), fullPage: true });
  assert.deepEqual(foreign, [], 'no request leaves the site');
  await page.close();
});

test('a pasted corpus gives exactly the CLI numbers for the same options', async () => {
  const page = await open();
  await page.fill('#corpus-input', CORPUS);
  await page.check('#src-paste');
  await page.selectOption('#opt-tokenizer', 'whitespace');
  await page.fill('#opt-d', '32');
  await page.fill('#opt-min_support', '3');
  await page.check('#opt-bos');
  await page.click('#run-button');
  assert.equal(await settle(page), 'done');
  assertSameNumbers(await table(page), cli(['--tokenizer', 'whitespace', '--d', '32', '--min-support', '3', '--bos'], CORPUS));
  await page.close();
});

/** A safetensors file: `tensors` as [name, dtype, shape, Float32Array|Float64Array]. */
function safetensors(tensors) {
  const header = {};
  let offset = 0;
  for (const [name, dtype, shape, values] of tensors) {
    header[name] = { dtype, shape, data_offsets: [offset, offset + values.byteLength] };
    offset += values.byteLength;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  return Buffer.concat([len, Buffer.from(json), ...tensors.map((t) => Buffer.from(t[3].buffer))]);
}

/** A version-1 .npy file of a C-order float64 matrix, as np.save writes it. */
function npy(rows, cols, values) {
  let header = `{'descr': '<f8', 'fortran_order': False, 'shape': (${rows}, ${cols}), }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const len = Buffer.alloc(2);
  len.writeUInt16LE(header.length);
  return Buffer.concat([Buffer.from([0x93]), Buffer.from('NUMPY'), Buffer.from([1, 0]), len, Buffer.from(header), Buffer.from(values.buffer)]);
}

test('a learned table from a safetensors checkpoint is compared exactly as the CLI does', async () => {
  const rows = 40;
  const wpe = Float64Array.from({ length: rows * 3 }, (_, k) => Math.sin(0.37 * k) + 0.01 * k);
  const file = path.join(os.tmpdir(), `posgeo-model-${process.pid}.safetensors`);
  fs.writeFileSync(file, safetensors([['wte.weight', 'F32', [2, 2], new Float32Array([1, 2, 3, 4])], ['wpe.weight', 'F64', [rows, 3], wpe]]));
  const page = await open();
  await page.fill('#corpus-input', CORPUS);
  await page.check('#src-paste');
  await page.setInputFiles('#learned-input', file);
  await page.waitForFunction(() => document.querySelector('#learned-info').textContent.includes('safetensors, 2 matrices'));
  assert.equal(await page.inputValue('#learned-tensor'), 'wpe.weight', 'the position table is picked by its name');
  await page.click('#run-button');
  assert.equal(await settle(page), 'done', await page.$eval('#status', (s) => s.textContent));
  const shown = await table(page);
  assert.ok('learned' in shown);
  assertSameNumbers(shown, cli(['--learned', file, '--tensor', 'wpe.weight'], CORPUS));
  // The other matrix is too short for the corpus: a clear message, the results stay.
  await page.selectOption('#learned-tensor', 'wte.weight');
  await page.click('#run-button');
  assert.equal(await settle(page), 'error');
  assert.match(await page.$eval('#error', (e) => e.textContent), /the table has 2 rows/);
  assert.deepEqual(await table(page), shown);
  // The same rows as a NumPy .npy file.
  const npyFile = path.join(os.tmpdir(), `posgeo-wpe-${process.pid}.npy`);
  fs.writeFileSync(npyFile, npy(rows, 3, wpe));
  await page.setInputFiles('#learned-input', npyFile);
  await page.waitForFunction(() => document.querySelector('#learned-info').textContent.includes('.npy — 0.00 MB, NumPy array'));
  await page.click('#run-button');
  assert.equal(await settle(page), 'done', await page.$eval('#status', (s) => s.textContent));
  assert.deepEqual(await table(page), shown);
  assertSameNumbers(shown, cli(['--learned', npyFile], CORPUS));
  // Several files at once: one row each, as --learned repeated.
  const csvFile = path.join(os.tmpdir(), `posgeo-wpe-${process.pid}.csv`);
  fs.writeFileSync(csvFile, Array.from({ length: rows }, (_, i) => `${Math.cos(i / 3)},${i % 4},${0.5 * i}`).join('\n'));
  await page.setInputFiles('#learned-input', [npyFile, csvFile]);
  await page.waitForFunction(() => document.querySelector('#learned-info').textContent.includes('2 tables'));
  await page.click('#run-button');
  assert.equal(await settle(page), 'done', await page.$eval('#error', (e) => e.textContent));
  const both = await table(page);
  assert.ok(`learned:${path.basename(npyFile)}` in both && `learned:${path.basename(csvFile)}` in both, Object.keys(both).join());
  assertSameNumbers(both, cli(['--learned', npyFile, '--learned', csvFile], CORPUS));
  // Removing the table drops the `learned` row again.
  await page.click('#learned-clear');
  await page.click('#run-button');
  assert.equal(await settle(page), 'done');
  assert.ok(!('learned' in await table(page)));
  await page.close();
});

test('uploaded files, plain and gzip, CSV with a chosen column', async () => {
  const page = await open();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'posgeo-e2e-'));
  const txt = path.join(dir, 'corpus.txt');
  fs.writeFileSync(txt, CORPUS);
  const gz = path.join(dir, 'corpus.txt.gz');
  fs.writeFileSync(gz, zlib.gzipSync(CORPUS));
  const csv = path.join(dir, 'corpus.csv.gz');
  fs.writeFileSync(csv, zlib.gzipSync('id,sentence\n' + CORPUS.split('\n').map((l, k) => `${k},"${l}"`).join('\n')));
  const want = cli([], CORPUS);
  for (const file of [txt, gz, csv]) {
    await page.setInputFiles('#file-input', file);
    await page.waitForFunction(() => document.querySelector('#file-info').textContent.includes('MB'));
    await page.click('#run-button');
    assert.equal(await settle(page), 'done', `${file}: ${await page.$eval('#error', (e) => e.textContent)}`);
    assertSameNumbers(await table(page), want);
  }
  assert.equal(await page.$eval('#file-column', (s) => s.value), 'sentence');
  await page.close();
});

test('bad input shows its message and keeps the last good results', async () => {
  const page = await open();
  const before = await table(page);
  const cases = [
    async () => { await page.fill('#corpus-input', ''); await page.check('#src-paste'); return 'paste box is empty'; },
    async () => { await page.fill('#corpus-input', 'a\nb\nc\nd\ne\nf'); await page.check('#src-paste'); return 'at least 2 are needed'; },
    async () => {
      const f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'posgeo-e2e-')), 'x.csv');
      fs.writeFileSync(f, 'id,text\n1,a b\n');
      await page.setInputFiles('#file-input', f);
      await page.waitForFunction(() => document.querySelector('#file-info').textContent.includes('MB'));
      await page.selectOption('#file-format', 'csv');
      await page.evaluate(() => { const s = document.querySelector('#file-column'); s.innerHTML = '<option value="body">body</option>'; });
      return 'column "body" not found';
    },
    async () => {
      const f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'posgeo-e2e-')), 'bin.txt');
      fs.writeFileSync(f, Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x81, 0x0a, 0xc3, 0x28]));
      await page.selectOption('#file-format', 'auto');
      await page.setInputFiles('#file-input', f);
      await page.waitForFunction(() => document.querySelector('#file-info').textContent.includes('bin.txt —'));
      return 'not valid UTF-8';
    },
    async () => { await page.check('#src-synthetic'); await page.fill('#opt-d', ''); return 'd: "" is not a valid number'; },
  ];
  for (const setup of cases) {
    const expected = await setup();
    await page.click('#run-button');
    assert.equal(await settle(page), 'error');
    const msg = await page.$eval('#error', (e) => e.textContent);
    assert.ok(msg.includes(expected), `${msg} lacks ${expected}`);
    assert.deepEqual(await table(page), before, 'old results stay on screen');
  }
  await page.close();
});

test('cancel stops a long run and keeps the results; a new run supersedes', async () => {
  const page = await open();
  const before = await table(page);
  await page.fill('#synth-seqs', '200000');
  await page.fill('#synth-n', '300');
  await page.click('#run-button');
  await page.waitForFunction(() => document.querySelector('#status').dataset.state === 'running');
  await page.click('#cancel-button');
  assert.equal(await page.$eval('#status', (s) => s.dataset.state), 'idle');
  assert.deepEqual(await table(page), before);
  // Responsive page: the worker restarted and a new run completes.
  await page.fill('#synth-seqs', '500');
  await page.fill('#synth-n', '20');
  await page.click('#run-button');
  assert.equal(await settle(page), 'done');
  await page.close();
});

test('keeps working offline once loaded: cancel, a new run and a reload with the server gone', async () => {
  const own = await serve(path.join(ROOT, 'dist'), '/offline/');
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    await page.goto(own.url);
    assert.equal(await settle(page), 'done');
    // The service worker claims the page once it has installed (and cached the site).
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 60000 });
    own.server.closeAllConnections();
    await new Promise((resolve) => own.server.close(resolve));
    // A cancel terminates the worker; its replacement must load without the network.
    await page.fill('#synth-seqs', '200000');
    await page.fill('#synth-n', '300');
    await page.click('#run-button');
    await page.waitForFunction(() => document.querySelector('#status').dataset.state === 'running');
    await page.click('#cancel-button');
    await page.fill('#synth-seqs', '500');
    await page.fill('#synth-n', '20');
    await page.click('#run-button');
    assert.equal(await settle(page), 'done', await page.$eval('#status', (s) => s.textContent));
    // So must the whole page.
    await page.reload();
    assert.equal(await settle(page), 'done', await page.$eval('#status', (s) => s.textContent));
    assert.equal(Object.keys(await table(page)).length, 8);
  } finally {
    await context.close();
    own.server.closeAllConnections();
    own.server.close();
  }
});

test('the PMDS map turns in 3-D: switch, drag, keyboard, hover and the URL', async () => {
  const page = await open();
  const pixels = () => page.$eval('#chart-map', (c) => c.toDataURL());
  const flat = await pixels();
  await page.check('#map-3d');
  const three = await pixels();
  assert.notEqual(three, flat, 'the 3-D switch redraws the map');
  const box = await page.$eval('#chart-map', (c) => {
    const r = c.getBoundingClientRect();
    return { x: r.x, y: r.y, w: r.width, h: r.height };
  });
  await page.mouse.move(box.x + box.w / 2, box.y + box.h / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.w / 2 + 60, box.y + box.h / 2 + 20, { steps: 4 });
  await page.mouse.up();
  const turned = await pixels();
  assert.notEqual(turned, three, 'dragging turns the map');
  const yaw = Number(await page.inputValue('#map-yaw'));
  const pitch = Number(await page.inputValue('#map-pitch'));
  assert.ok(yaw > 34 && pitch > 20, `sliders follow the drag: ${yaw}, ${pitch}`);
  await page.focus('#map-pitch');
  await page.keyboard.press('ArrowLeft');
  assert.equal(Number(await page.inputValue('#map-pitch')), pitch - 1);
  assert.notEqual(await pixels(), turned, 'the keyboard turns it too');
  // Hovering a drawn position reads out its three coordinates.
  let readout = '';
  for (let y = 6; y < box.h && !readout.includes('x₃'); y += 12) {
    for (let x = 6; x < box.w && !readout.includes('x₃'); x += 12) {
      await page.mouse.move(box.x + x, box.y + y);
      readout = await page.$eval('#readout-map', (e) => e.textContent);
    }
  }
  assert.match(readout, /^position \d+: x₁ = .*, x₂ = .*, x₃ = /);
  // The view is part of the link.
  const link = new URL(page.url());
  assert.equal(link.searchParams.get('map3d'), `${yaw},${pitch - 1}`);
  await page.goto(link.href);
  assert.equal(await settle(page), 'done');
  assert.ok(await page.isChecked('#map-3d'));
  assert.equal(Number(await page.inputValue('#map-yaw')), yaw);
  await page.close();
});

test('exports download and the URL carries the state', async () => {
  const page = await open('?corpus=genesis&d=48&metric=fisher_rao&min_support=10');
  assert.equal(await page.$eval('#opt-d', (e) => e.value), '48');
  assert.equal(await page.$eval('#src-genesis', (e) => e.checked), true);
  const t = await table(page);
  const genesis = fs.readFileSync(path.join(ROOT, 'www/corpora/kjv-genesis.txt'));
  const want = cli(['--d', '48', '--metric', 'fisher-rao', '--min-support', '10'], genesis);
  assertSameNumbers(t, want);
  const grab = async (id) => {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click(id)]);
    return fs.readFileSync(await dl.path(), 'utf8');
  };
  const report = JSON.parse(await grab('#export-json'));
  assert.equal(report.n, want.n);
  assert.deepEqual(report.eigenvalues.length, want.eigenvalues.length);
  assert.ok(Array.isArray(report.fisher_rao) && report.fisher_rao.length === want.n);
  const csv = await grab('#export-table');
  assert.equal(csv.split('\n')[0], 'encoding,dim,parameters,raw_stress,scaled_stress,scale,spearman,monotonicity_violation_rate,procrustes_residual');
  assert.equal((await grab('#export-matrix')).trim().split('\n').length, want.n);
  assert.equal((await grab('#export-coords')).trim().split('\n').length, want.n);
  const svg = await grab('#results button[data-chart="heatmap"][data-kind="svg"]');
  assert.ok(svg.startsWith('<svg') && svg.includes('<rect'));
  const [png] = await Promise.all([page.waitForEvent('download'), page.click('#results button[data-chart="stress"][data-kind="png"]')]);
  assert.equal(png.suggestedFilename(), 'posgeo-stress.png');
  const link = await page.$eval('#share-link', (a) => a.getAttribute('href'));
  assert.ok(link.includes('corpus=genesis') && link.includes('d=48') && link.includes('metric=fisher_rao'));
  // Hover read-out on the heatmap names i, j and D_ij, and the position's tokens.
  await page.locator('#chart-heatmap').scrollIntoViewIfNeeded();
  const box = await page.$eval('#chart-heatmap', (c) => { const r = c.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; });
  await page.mouse.move(box.x + box.w * 0.4, box.y + box.h * 0.5);
  assert.match(await page.$eval('#readout-heatmap', (e) => e.textContent), /i = \d+, j = \d+, D_ij = /);
  assert.match(await page.$eval('#position-tokens', (e) => e.textContent), /position \d+ \(N = \d+\)/);
  await page.close();
});
