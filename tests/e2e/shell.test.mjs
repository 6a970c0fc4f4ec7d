// End-to-end tests of the page shell: a run pressed while a file is still being
// read waits for it; messages name the page's own controls; the option controls are built
// from the option tables; a page missing an element says which at start.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve, launch, settle, table } from './harness.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = process.env.POSGEO_BIN || path.join(ROOT, 'target/debug/posgeo');
let server, url, browser;

before(async () => {
  ({ server, url } = await serve(path.join(ROOT, 'dist'), '/shell/'));
  browser = await launch();
  fs.mkdirSync(path.join(ROOT, 'test-artifacts'), { recursive: true });
});
after(async () => { await browser?.close(); server?.close(); });

async function open(base = url) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(base);
  assert.equal(await settle(page), 'done');
  return page;
}

const CORPUS = Array.from({ length: 40 }, (_, k) => `w${k % 3} x${k % 5} y${k % 2} z${k % 7} v${k % 4}`).join('\n');

test('Run pressed while the file is still being read waits for it and runs that file', async () => {
  const page = await open();
  // Reading takes 1.5 s: the browser's file reading, slowed down.
  await page.evaluate(() => {
    const read = Blob.prototype.arrayBuffer;
    Blob.prototype.arrayBuffer = function () { return new Promise((ok) => setTimeout(() => ok(read.call(this)), 1500)); };
  });
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'posgeo-shell-')), 'slow.txt');
  fs.writeFileSync(file, CORPUS);
  await page.setInputFiles('#file-input', file);
  assert.ok(await page.isChecked('#src-file'), 'choosing a file selects it as the corpus at once');
  await page.click('#run-button');
  const waiting = await page.$eval('#status', (s) => [s.dataset.state, s.textContent]);
  assert.equal(waiting[0], 'running');
  assert.match(waiting[1], /waiting for slow\.txt/);
  assert.equal(await settle(page), 'done');
  const want = JSON.parse(execFileSync(BIN, ['analyze', '--json'], { input: CORPUS }));
  const shown = await table(page);
  for (const [name, cells] of Object.entries(shown)) {
    const v = cells.scaled_stress, w = want.encodings[name].scaled_stress;
    assert.ok(Math.abs(v - w) <= 1e-9 * Math.max(1, Math.abs(w)), `${name}: ${v} vs ${w}`);
  }
  await page.close();
});

test('invalid UTF-8 names the page checkbox, not a CLI flag; ticking it works', async () => {
  const page = await open();
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'posgeo-shell-')), 'bad.txt');
  fs.writeFileSync(file, Buffer.concat([Buffer.from(CORPUS + '\n'), Buffer.from([0xff, 0xfe, 0x0a]), Buffer.from(CORPUS)]));
  await page.setInputFiles('#file-input', file);
  await page.waitForFunction(() => document.querySelector('#file-info').textContent.includes('bad.txt —'));
  await page.click('#run-button');
  assert.equal(await settle(page), 'error');
  const msg = await page.$eval('#error', (e) => e.textContent);
  assert.match(msg, /line 41: the input is not valid UTF-8/);
  assert.match(msg, /skip invalid UTF-8 lines/);
  assert.ok(!msg.includes('--lossy'), msg);
  const label = await page.$eval('label[for="file-lossy"]', (l) => l.textContent);
  assert.ok(msg.includes(label), `the message names the control "${label}"`);
  await page.check('#file-lossy');
  await page.click('#run-button');
  assert.equal(await settle(page), 'done');
  await page.close();
});

test('the option controls are the declared options, with their defaults', async () => {
  const page = await open();
  const ids = await page.$$eval('[data-option-group] [id^="opt-"]', (es) => es.map((e) => e.id));
  assert.deepEqual(ids, ['opt-tokenizer', 'opt-lowercase', 'opt-bos', 'opt-kmer', 'opt-no_special_tokens', 'opt-mode', 'opt-max_len', 'opt-min_support',
    'opt-alpha', 'opt-top_k', 'opt-metric', 'opt-tau', 'opt-energy', 'opt-layer_sequences', 'opt-layer_skip', 'opt-d', 'opt-base', 'opt-head_dim', 'opt-slope',
    'opt-sigma', 'opt-seed', 'opt-smacof_iter', 'opt-rank']);
  assert.equal(await page.inputValue('#opt-max_len'), '512');
  assert.equal(await page.inputValue('#opt-metric'), 'hellinger');
  assert.equal(await page.inputValue('#synth-n'), '64');
  assert.equal(await page.$eval('#opt-head_dim', (e) => e.step), '2');
  // Every control has a label with its help line.
  const unlabelled = await page.$$eval('[data-option-group] [id], #synth-options [id]', (es) =>
    es.filter((e) => !document.querySelector(`label[for="${e.id}"] .help`)).map((e) => e.id));
  assert.deepEqual(unlabelled, []);
  await page.close();
});

test('a page missing an element says which one at start', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'posgeo-broken-'));
  fs.cpSync(path.join(ROOT, 'dist'), dir, { recursive: true });
  const html = path.join(dir, 'index.html');
  fs.writeFileSync(html, fs.readFileSync(html, 'utf8').replace('id="estimate"', 'id="estimate-gone"'));
  const broken = await serve(dir, '/broken/');
  try {
    const page = await browser.newPage();
    await page.goto(broken.url);
    await page.waitForSelector('#fatal');
    assert.match(await page.$eval('#fatal', (e) => e.textContent), /missing #estimate$/);
    await page.close();
  } finally {
    broken.server.close();
  }
});

test('live parameters: an encoding-only control updates the table to the numbers of a full run', async () => {
  const page = await open();
  const before = await table(page);
  const synth = execFileSync(BIN, ['synth']);
  // Typing into the ALiBi slope updates the results without pressing Run.
  await page.fill('#opt-slope', '0.125');
  await page.waitForFunction((old) => {
    const cell = document.querySelector('#stress-table tr[data-encoding="alibi"] td[data-metric="raw_stress"]');
    return document.querySelector('#status').dataset.state === 'done' && cell && cell.dataset.value !== String(old);
  }, before.alibi.raw_stress);
  const want = JSON.parse(execFileSync(BIN, ['analyze', '--json', '--slope', '0.125'], { input: synth }));
  const shown = await table(page);
  for (const [name, cells] of Object.entries(shown)) {
    for (const [metric, v] of Object.entries(cells)) {
      const w = want.encodings[name][metric];
      if (w === null) { assert.equal(v, null); continue; }
      assert.ok(Math.abs(v - w) <= 1e-9 * Math.max(1, Math.abs(w)), `${name}.${metric}: ${v} vs ${w}`);
    }
  }
  assert.match(new URL(page.url()).search, /slope=0\.125/, 'the link follows');
  // The verdict names the best fixed encoding by the numbers in the table.
  const fixed = ['sinusoidal', 'rope', 'alibi'].sort((a, b) => shown[a].scaled_stress - shown[b].scaled_stress);
  assert.match(await page.$eval('#verdict', (e) => e.textContent), new RegExp(`^On this corpus ${fixed[0]} fits best among the fixed encodings`));
  assert.equal(await page.$eval('#verdict', (e) => e.textContent), want.verdict.sentence, 'the CLI\'s verdict, band and all');
  // A geometry option does not update live: it waits for Run.
  await page.fill('#opt-max_len', '10');
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(await table(page), shown);
  await page.close();
});

test('the first screen answers the question: verdict and stress chart above the fold at 1366×768', async () => {
  const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
  await page.goto(url);
  assert.equal(await settle(page), 'done');
  for (const sel of ['#verdict', '#chart-stress']) {
    const r = await page.$eval(sel, (e) => { const b = e.getBoundingClientRect(); return { top: b.top, bottom: b.bottom, h: b.height }; });
    assert.ok(r.h > 10 && r.top >= 0 && r.bottom <= 768, `${sel} at ${JSON.stringify(r)}`);
  }
  assert.match(await page.$eval('#verdict', (e) => e.textContent), /^On this corpus (sinusoidal|rope|alibi) fits best among the fixed encodings \(σ\* = /);
  await page.screenshot({ path: path.join(ROOT, 'test-artifacts', 'first-screen-1366x768.png') });
  await page.close();
});

test('encodings seen as geometry: D beside a*·δ of the picked encoding, with read-outs', async () => {
  const page = await open();
  await page.$eval('#chart-geometry', (c) => c.scrollIntoView());
  const box = await page.$eval('#chart-geometry', (c) => { const r = c.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.w ?? r.width, h: r.height }; });
  const readout = async () => {
    for (let f = 0.3; f < 0.9; f += 0.1) {
      await page.mouse.move(box.x + box.w * 0.75, box.y + box.h * f);
      const t = await page.$eval('#readout-geometry', (e) => e.textContent);
      if (t) return t;
    }
    return '';
  };
  assert.match(await readout(), /^positions \d+\.\.\d+ × \d+\.\.\d+: D = [\d.]+, a\*·δ \(sinusoidal\) = [\d.]+$/);
  const before = await page.$eval('#chart-geometry', (c) => c.toDataURL());
  await page.selectOption('#shepard-select', 'pmds');
  assert.notEqual(await page.$eval('#chart-geometry', (c) => c.toDataURL()), before, 'the picker redraws it');
  // PMDS is exact on the default corpus: both panels show the same block.
  const m = (await readout()).match(/D = ([\d.]+), a\*·δ \(pmds\) = ([\d.]+)/);
  assert.ok(m && m[1] === m[2], `pmds reproduces D: ${m}`);
  // The panels are painted as one image: along a row through the plot, the coloured pixels
  // form two runs (D, then a*·δ), and for PMDS each cell has the same colour in both.
  const rows = await page.$eval('#chart-geometry', (c) => {
    const ctx = c.getContext('2d');
    return [0.3, 0.5, 0.7].map((f) => {
      const { data } = ctx.getImageData(0, Math.round(c.height * f), c.width, 1);
      const runs = [];
      let last = -2;
      for (let x = 0; x < c.width; x++) {
        const [r, g, b] = data.slice(4 * x, 4 * x + 3);
        if (r === g && g === b) continue; // white, black and grey: axes, text, the gap
        if (x !== last + 1) runs.push([]);
        runs[runs.length - 1].push([r, g, b].join());
        last = x;
      }
      return runs;
    });
  });
  for (const runs of rows) {
    const long = runs.filter((r) => r.length > 20);
    assert.equal(long.length, 2, `two painted panels in a row: ${runs.map((r) => r.length)}`);
    const [a, b] = long;
    assert.ok(Math.abs(a.length - b.length) <= 1, `panels of equal width: ${a.length} vs ${b.length}`);
    // Cell by cell the same colours (runs of equal pixels, whatever each cell's width).
    const cells = (run) => run.filter((c, i) => i === 0 || c !== run[i - 1]);
    assert.deepEqual(cells(b), cells(a), 'a*·δ of PMDS paints D');
    assert.ok(cells(a).length > 3, 'the panel shows several colours');
  }
  await page.close();
});

test('Theorem 1, live: without positions the readout cannot tell "dog bites man" from "man bites dog"', async () => {
  const page = await open();
  const result = () => page.$eval('#theorem-result', (e) => ({
    eq: Number(e.dataset.equivarianceError), change: Number(e.dataset.readoutChange), text: e.textContent }));
  await page.click('#theorem-reverse');
  assert.equal(await page.$eval('#theorem-order', (e) => e.textContent), 'man bites dog');
  let r = await result();
  assert.ok(r.eq < 1e-12 && r.change < 1e-12 && /cannot tell/.test(r.text), JSON.stringify(r));
  for (const signal of ['sinusoidal', 'rope']) {
    await page.selectOption('#theorem-signal', signal);
    r = await result();
    assert.ok(r.eq > 1e-6 && r.change > 1e-6 && /tell the orders apart/.test(r.text), `${signal}: ${JSON.stringify(r)}`);
  }
  // ALiBi sees |i − j| only: blind to the exact reverse, not to a swap.
  await page.selectOption('#theorem-signal', 'alibi');
  assert.ok((await result()).change < 1e-12);
  await page.click('#theorem-original');
  await page.click('#theorem-swap');
  assert.equal(await page.$eval('#theorem-order', (e) => e.textContent), 'bites dog man');
  assert.ok((await result()).change > 1e-6);
  // A new sentence starts from its typed order.
  await page.fill('#theorem-text', 'the cat sat on the mat');
  assert.equal(await page.$eval('#theorem-order', (e) => e.textContent), 'the cat sat on the mat');
  await page.close();
});
