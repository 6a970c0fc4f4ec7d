// End-to-end tests of the Learn panel (docs/MATH.md §16): a pasted corpus trained
// in the page gives `posgeo train --json`'s numbers with the same options (table, finding,
// CSV) with its runs spread over several training workers, the lecture's two training steps
// report that training's numbers, its charts are drawn and exported, a cancel mid-training sets the status to idle,
// keeps the last results and leaves the page usable, a run that diverges keeps its records
// while the others finish, and the analysis keeps running beside a training.
//
// The same code runs in the page and in the CLI, on the same data, initial weights and
// batches, but not on the same f32 arithmetic: candle's matrix products and row sums take
// wasm's simd128 kernels in the page (4 lanes, multiply then add) and AVX2/AVX-512 kernels
// with fused multiply-adds natively (8 or 16 lanes), so f32 results differ in their last
// bits — already the held-out loss at step 0, before any update (about 6e-8 relative for
// nope). Training does not amplify it over these steps (at most about 2e-7 relative at step
// 20). So what comes out of the f32 model (losses, a trainable table's σ*, separation,
// monotonicity) is checked to 1e-5 relative; what does not (a fixed signal's σ*, computed in
// f64: 1e-9) or is a count (accuracy) and the finding's ρ (ranks) exactly or to 1e-9.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve, launch, openSettled, runAfter, settle, table, BIN } from './harness.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ARTIFACTS = path.join(ROOT, 'test-artifacts');
const PYTHON = fs.existsSync(path.join(ROOT, '.venv/bin/python')) ? path.join(ROOT, '.venv/bin/python') : 'python3';
let server, url, browser, corpusFile, corpus;

before(async () => {
  ({ server, url } = await serve(path.join(ROOT, 'dist'), '/learn-test/'));
  browser = await launch();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  corpus = execFileSync(BIN, ['synth', '--positions', '12', '--vocab', '40', '--sequences', '300']).toString();
  corpusFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'posgeo-e2e-learn-')), 'corpus.txt');
  fs.writeFileSync(corpusFile, corpus);
});
after(async () => {
  await browser?.close();
  server?.close();
  if (corpusFile) fs.rmSync(path.dirname(corpusFile), { recursive: true, force: true });
});

const SMALL = { steps: '20', every: '10', d_model: '16', heads: '2', batch: '8' };
const SIGNALS = ['nope', 'sinusoidal', 'learned'];
const METRICS = ['held_loss', 'held_accuracy', 'scaled_stress', 'separation', 'monotonicity'];
/** The tolerance of a number (see the header): relative 1e-5 where the f32 model's kernels
 * differ between wasm and native, 1e-9 for the f64 geometry, exact for counts. */
function tolerance(signal, metric) {
  if (metric === 'held_accuracy') return 0;
  const trainable = signal === 'learned' || signal === 'learned_pmds' || signal === 'lowrank';
  return metric === 'held_loss' || trainable ? 1e-5 : 1e-9;
}

/** `posgeo train CORPUS --json` with the panel's options. */
function train(options, signals) {
  const flags = Object.entries(options).flatMap(([k, v]) => [`--${k.replace('_', '-')}`, v]);
  const args = ['train', corpusFile, '--json', '--claims', '--signals', signals.join(','), ...flags];
  const out = execFileSync(BIN, args, { maxBuffer: 1 << 28 });
  return JSON.parse(out);
}

/** Pastes text as a real paste does: the value set, one input event. */
async function paste(page, text) {
  await page.$eval('#corpus-input', (el, t) => {
    el.value = t;
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, text);
}

/** The panel's options and signals. */
async function setLearn(page, options, signals) {
  for (const [key, value] of Object.entries(options)) await page.fill(`#learn-${key}`, value);
  await page.$$eval('#learn-signals input[type=checkbox]', (boxes, on) => {
    for (const b of boxes) b.checked = on.includes(b.value);
  }, signals);
}

/** Presses Train and waits for the training to end; its state. */
async function trained(page, timeout = 240000) {
  await page.click('#learn-run');
  await page.waitForFunction(() => ['done', 'error'].includes(document.querySelector('#learn-status').dataset.state), null, { timeout });
  return page.$eval('#learn-status', (s) => s.dataset.state);
}

/** The results table as { signal: { metric: number|null } }. */
async function learnTable(page) {
  return page.$$eval('#learn-table tbody tr', (rows) => Object.fromEntries(rows.map((r) => [
    r.dataset.signal,
    Object.fromEntries([...r.querySelectorAll('td[data-metric]')].map((td) => [
      td.dataset.metric, td.dataset.value === 'null' ? null : Number(td.dataset.value)])),
  ])));
}

/** The shown numbers against the CLI's: |page − CLI| per metric, and the largest. */
function differences(shown, want) {
  const diffs = [];
  assert.deepEqual(Object.keys(shown), want.signals.map((s) => s.signal));
  for (const s of want.signals) {
    for (const m of METRICS) {
      const w = s[m];
      const v = shown[s.signal][m];
      if (w === null || w === undefined) { assert.equal(v, null, `${s.signal}.${m}`); continue; }
      const tol = tolerance(s.signal, m) * Math.max(1, Math.abs(w));
      diffs.push({ at: `${s.signal}.${m}`, page: v, cli: w, diff: Math.abs(v - w), tol });
    }
  }
  return diffs;
}

test("training in the page gives posgeo train's numbers; the charts, the CSV and the link follow", async () => {
  const page = await openSettled(browser, url, { width: 1280, height: 900 }, { acceptDownloads: true });
  await paste(page, corpus);
  assert.equal(await page.isChecked('#src-paste'), true);
  await setLearn(page, SMALL, SIGNALS);
  assert.equal(await page.$eval('#learn-status', (s) => s.dataset.state), 'idle');
  // The time estimate follows the options before Train: twice the steps, twice the arithmetic.
  const work = async () => {
    const m = (await page.textContent('#learn-estimate')).match(/estimated time: .+ — 3 runs of ([0-9.]+) ([MGT])FLOP each/);
    assert.ok(m, await page.textContent('#learn-estimate'));
    return Number(m[1]) * { M: 1e6, G: 1e9, T: 1e12 }[m[2]];
  };
  await page.fill('#learn-steps', String(2 * Number(SMALL.steps)));
  const twice = await work();
  await page.fill('#learn-steps', SMALL.steps);
  const base = await work();
  // (Each is rounded to two or three digits.)
  assert.ok(base > 0 && Math.abs(twice / base - 2) <= 0.1, `${base} FLOP, and ${twice} at twice the steps`);
  assert.match(await page.textContent('#learn-estimate'), /posgeo's measured speed in a browser tab/);
  // Four cores reported, whatever the machine: three signals, so three workers, one signal each.
  await page.evaluate(() => Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => 4 }));
  assert.equal(await trained(page), 'done', await page.textContent('#learn-status'));
  assert.equal(await page.$eval('#learn-status', (s) => s.dataset.workers), '3');
  assert.match(await page.textContent('#learn-status'), /on 3 workers/);
  assert.match(await page.textContent('#learn-estimate'), /as fast as your last training here/);
  const want = train(SMALL, SIGNALS);
  const shown = await learnTable(page);
  const diffs = differences(shown, want);
  const worst = diffs.reduce((a, b) => (b.diff > a.diff ? b : a));
  console.log(`largest |page − CLI| over ${diffs.length} numbers: ${worst.diff} at ${worst.at}`);
  for (const d of diffs) assert.ok(d.diff <= d.tol, `${d.at}: page ${d.page} vs CLI ${d.cli} (tolerance ${d.tol})`);
  assert.ok(diffs.filter((d) => d.tol === 1e-9).length >= 2, 'the fixed signals\' σ* are checked to 1e-9');
  const rho = await page.$eval('#learn-finding', (f) => f.dataset.rho);
  if (want.finding.rho === null) assert.equal(rho, 'null');
  else assert.ok(Math.abs(Number(rho) - want.finding.rho) <= 1e-9, `ρ: page ${rho} vs CLI ${want.finding.rho}`);
  assert.ok((await page.textContent('#learn-finding')).startsWith(want.finding.sentence));
  assert.match(await page.textContent('#learn-status'), /trained in/);
  // The paper's training claims, as `posgeo train --claims` reads them.
  const claims = await page.$$eval('#learn-claims li[data-claim]', (items) => items.map((li) => ({
    key: li.dataset.claim, holds: { true: true, false: false, na: null }[li.dataset.holds] })));
  assert.deepEqual(claims, want.claims.map((c) => ({ key: c.key, holds: c.holds })));
  // The loss chart has each signal's colour (crates/charts/src/palette.rs): sinusoidal blue, learned orange.
  const ink = await page.$eval('#chart-learn-loss', (c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const near = (i, [r, g, b]) => Math.abs(d[i] - r) < 30 && Math.abs(d[i + 1] - g) < 30 && Math.abs(d[i + 2] - b) < 30;
    let blue = 0, orange = 0;
    for (let i = 0; i < d.length; i += 4) { if (near(i, [0, 114, 178])) blue++; if (near(i, [230, 159, 0])) orange++; }
    return { blue, orange };
  });
  assert.ok(ink.blue > 50 && ink.orange > 50, JSON.stringify(ink));
  // The CSV holds every record, as the CLI's runs.
  const [csvDownload] = await Promise.all([page.waitForEvent('download'), page.click('#export-learn-csv')]);
  const lines = fs.readFileSync(await csvDownload.path(), 'utf8').trim().split('\n');
  assert.equal(lines[0], 'signal,seed,step,train_loss,held_loss,held_accuracy,scaled_stress,spearman,monotonicity,separation');
  assert.equal(lines.length - 1, want.runs.reduce((k, r) => k + r.records.length, 0));
  const last = lines.find((l) => l.startsWith('learned,1,20,')).split(',');
  const record = want.runs.find((r) => r.signal === 'learned').records.at(-1);
  assert.ok(Math.abs(Number(last[4]) - record.held_loss) <= 1e-5 * record.held_loss, `${last[4]} vs ${record.held_loss}`);
  assert.ok(Math.abs(Number(last[9]) - record.table.separation) <= 1e-5, `${last[9]} vs ${record.table.separation}`);
  assert.equal(Number(last[5]), record.held_accuracy);
  const [svg] = await Promise.all([page.waitForEvent('download'), page.click('#learn button[data-learn-chart="learn-scatter"][data-kind="svg"]')]);
  assert.match(fs.readFileSync(await svg.path(), 'utf8'), /^<svg[\s\S]*sinusoidal/);
  assert.equal(svg.suggestedFilename(), 'posgeo-learn-scatter.svg');
  const [png] = await Promise.all([page.waitForEvent('download'), page.click('#learn button[data-learn-chart="learn-loss"][data-kind="png"]')]);
  assert.equal(png.suggestedFilename(), 'posgeo-learn-loss.png');
  await learnedTables(page, want, shown);
  assert.match(await page.$eval('#share-link', (a) => a.getAttribute('href')), /learn_steps=20/);
  await page.locator('#learn').screenshot({ path: path.join(ARTIFACTS, 'learn.png') });
  await lectureSteps(page, want);
  await page.close();
});

/** The learned table's downloads: its row's .npy and every final table in one safetensors
 * file, as NumPy and the safetensors package read them; the CLI's final table; and the .npy
 * measured again as the analysis's learned table gives the σ* the panel reported. */
async function learnedTables(page, want, shown) {
  const npyButton = '#learn-table tr[data-signal="learned"] button[data-learn-npy]';
  const [npyDownload] = await Promise.all([page.waitForEvent('download'), page.click(npyButton)]);
  assert.equal(npyDownload.suggestedFilename(), 'posgeo-learned-seed1.npy');
  assert.equal(await page.$$eval('#learn-table button[data-learn-npy]', (b) => b.length), 1, 'only the trainable row');
  const [stDownload] = await Promise.all([page.waitForEvent('download'), page.click('#export-learn-tables')]);
  assert.equal(stDownload.suggestedFilename(), 'posgeo-learned-tables.safetensors');
  const npyFile = path.join(path.dirname(corpusFile), 'learned.npy');
  fs.copyFileSync(await npyDownload.path(), npyFile);
  const read = `
import json, sys
import numpy as np
from safetensors.numpy import load_file
a, b = np.load(sys.argv[1]), load_file(sys.argv[2])
print(json.dumps({"shape": list(a.shape), "dtype": str(a.dtype), "names": sorted(b),
                  "same": bool(np.array_equal(b["learned.seed1"], a)), "table": a.ravel().tolist()}))`;
  const got = JSON.parse(execFileSync(PYTHON, ['-c', read, npyFile, await stDownload.path()]));
  assert.deepEqual([got.shape, got.dtype, got.names, got.same], [[want.n, 16], 'float32', ['learned.seed1'], true]);
  const cliTable = want.runs.find((r) => r.signal === 'learned').table;
  assert.equal(cliTable.length, got.table.length);
  const scale = Math.max(...cliTable.map(Math.abs));
  const worst = Math.max(...cliTable.map((v, k) => Math.abs(v - got.table[k])));
  assert.ok(worst <= 1e-4 * scale, `the final table: page vs CLI ${worst} (scale ${scale})`);
  await page.setInputFiles('#learned-input', npyFile);
  await page.waitForFunction(() => document.querySelector('#learned-info').textContent.includes('NumPy array'));
  await page.click('#run-button');
  assert.equal(await settle(page), 'done', await page.$eval('#status', (s) => s.textContent));
  const again = (await table(page)).learned.scaled_stress;
  const reported = shown.learned.scaled_stress;
  assert.ok(Math.abs(again - reported) <= 1e-9 * reported, `σ* measured again ${again} vs reported ${reported}`);
}

/** The numbers in a text (as the lecture writes them: 4 significant digits or so). */
const numbers = (text) => [...text.matchAll(/-?\d+(?:\.\d+)?(?:e[-+]?\d+)?/g)].map((m) => Number(m[0]));
const shows = (text, v) => numbers(text).some((x) => Math.abs(x - v) <= 1e-3 * Math.max(1e-3, Math.abs(v)));

/** Lecture steps 13 and 14 report the training just done (the CLI's numbers). */
async function lectureSteps(page, want) {
  const open = async (n) => {
    await page.evaluate((k) => { location.hash = `#lecture/${k}`; }, n);
    await page.waitForFunction((k) => !document.querySelector(`[data-lecture-step="${k}"]`).hidden
      && !/No training yet/.test(document.querySelector(`[data-lecture-step="${k}"]`).textContent), n);
    return page.textContent(`[data-lecture-step="${n}"]`);
  };
  const learned = want.signals.find((s) => s.signal === 'learned');
  const separates = await open(13);
  assert.match(separates, /learned: the separation (rose|fell|stayed) from/);
  assert.ok(shows(separates, learned.separation), `separation ${learned.separation} in: ${separates}`);
  assert.ok(shows(separates, learned.scaled_stress), `σ* ${learned.scaled_stress} in: ${separates}`);
  const finding = await open(14);
  if (want.finding.rho !== null) assert.ok(shows(finding, want.finding.rho), `ρ ${want.finding.rho} in: ${finding}`);
  assert.ok(finding.includes(want.finding.sentence), finding);
  for (const s of want.signals) assert.ok(shows(finding, s.held_loss), `${s.signal} loss ${s.held_loss} in: ${finding}`);
  const ink = await page.$eval('[data-lecture-step="14"] canvas[data-chart-kind="learn-scatter"]', (c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let k = 0;
    for (let i = 3; i < d.length; i += 4 * 97) k += d[i] > 0 ? 1 : 0;
    return c.offsetParent === null ? -1 : k;
  });
  assert.ok(ink > 10, `the scatter is shown and drawn (${ink})`);
  await page.screenshot({ path: path.join(ARTIFACTS, 'lecture-learn-14.png') });
  await page.evaluate(() => { location.hash = ''; });
}

test('a cancel mid-training sets idle, keeps the last results and leaves the page usable', async () => {
  const page = await openSettled(browser, url, { width: 1280, height: 900 });
  await paste(page, corpus);
  await setLearn(page, SMALL, SIGNALS);
  assert.equal(await trained(page), 'done');
  const before = await learnTable(page);
  const finding = await page.textContent('#learn-finding');
  // A long training; the analysis runs beside it, in its own worker.
  await setLearn(page, { ...SMALL, steps: '100000' }, SIGNALS);
  await page.click('#learn-run');
  await page.waitForFunction(() => /training nope/.test(document.querySelector('#learn-status').textContent), null, { timeout: 60000 });
  assert.equal(await page.$eval('#learn-cancel', (b) => b.disabled), false);
  assert.equal(await runAfter(page, () => page.click('#run-button')), 'done', 'the analysis runs while a training does');
  await page.click('#learn-cancel');
  await page.waitForFunction(() => document.querySelector('#learn-status').dataset.state === 'idle');
  assert.match(await page.textContent('#learn-status'), /cancelled/);
  assert.equal(await page.$eval('#learn-cancel', (b) => b.disabled), true);
  assert.deepEqual(await learnTable(page), before, 'the last results stay');
  assert.equal(await page.textContent('#learn-finding'), finding);
  // The page goes on: a new training gives the same numbers again (each run is seeded).
  await setLearn(page, SMALL, SIGNALS);
  assert.equal(await trained(page), 'done');
  assert.deepEqual(await learnTable(page), before);
  assert.equal(await runAfter(page, () => page.click('#run-button')), 'done');
  await page.close();
});

test('a run that diverges keeps its curve up to the failure, the others finish, and the next training works', async () => {
  // The fault `#posgeo:diverge` (asked by `data-faults`): the learned table's runs return a
  // NaN loss after 12 steps, in every training worker, as a learning rate far too large does.
  const page = await openSettled(browser, url);
  await page.evaluate(() => { document.documentElement.dataset.faults = '1'; });
  await paste(page, `#posgeo:diverge\n${corpus}`);
  await setLearn(page, SMALL, SIGNALS);
  assert.equal(await trained(page), 'done');
  assert.match(await page.textContent('#learn-finding'), /learned \(seed 1\): learned \(seed 1\) diverged at step 12: the training loss is NaN/);
  assert.deepEqual(Object.keys(await learnTable(page)), ['nope', 'sinusoidal'], 'the diverged run is left out of the finding');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#export-learn-csv')]);
  const rows = fs.readFileSync(await dl.path(), 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));
  const steps = (signal) => rows.filter((r) => r[0] === signal).map((r) => Number(r[2]));
  assert.deepEqual(steps('nope'), [0, 10, 20]);
  assert.deepEqual(steps('sinusoidal'), [0, 10, 20]);
  assert.deepEqual(steps('learned'), [0, 10], 'its records up to the failure');
  assert.ok(rows.filter((r) => r[0] === 'learned').every((r) => Number.isFinite(Number(r[4]))));
  // Without the fault, the same page trains every signal.
  await page.evaluate(() => { delete document.documentElement.dataset.faults; });
  assert.equal(await trained(page), 'done');
  assert.deepEqual(Object.keys(await learnTable(page)), SIGNALS);
  await page.close();
});

test('bad options and a counts table are messages, and the last results stay', async () => {
  const page = await openSettled(browser, url);
  await paste(page, corpus);
  await setLearn(page, { ...SMALL, d_model: '18' }, SIGNALS);
  assert.equal(await trained(page), 'error');
  assert.match(await page.textContent('#learn-status'), /d_model/);
  await setLearn(page, SMALL, []);
  assert.equal(await trained(page), 'error');
  assert.match(await page.textContent('#learn-status'), /signals/);
  await paste(page, 'position,token,count\n0,a,3\n1,b,2\n');
  await setLearn(page, SMALL, SIGNALS);
  assert.equal(await trained(page), 'error');
  assert.match(await page.textContent('#learn-status'), /counts table/);
  assert.deepEqual(await learnTable(page), {}, 'nothing was trained');
  await page.close();
});

test("lecture step 13 trains the lecture preset in place, draws the tables as they learn, and equals posgeo train --preset lecture", async () => {
  const page = await openSettled(browser, url, { width: 1280, height: 720 }, { acceptDownloads: true });
  await paste(page, corpus);
  await page.evaluate(() => { location.hash = '#lecture/13'; });
  await page.waitForFunction(() => !document.querySelector('[data-lecture-step="13"]').hidden);
  assert.match(await page.textContent('[data-lecture-step="13"]'), /No training yet/);
  await page.click('#lecture-train');
  // The tables move while they learn: the map is drawn before the training ends.
  await page.waitForFunction(() => document.querySelector('#learn-status').dataset.state === 'running');
  await page.waitForFunction(() => [...document.querySelectorAll('[data-lecture-step="13"] canvas[data-chart-kind]')]
    .some((c) => c.offsetParent !== null), null, { timeout: 240000 });
  await page.waitForFunction(() => ['done', 'error'].includes(document.querySelector('#learn-status').dataset.state), null, { timeout: 240000 });
  assert.equal(await page.$eval('#learn-status', (s) => s.dataset.state), 'done', await page.textContent('#learn-status'));
  // The preset's options are in the panel.
  assert.equal(await page.$eval('#learn-steps', (e) => e.value), '400');
  assert.equal(await page.$eval('#learn-every', (e) => e.value), '20');
  assert.equal(await page.$eval('#learn-batch', (e) => e.value), '16');
  const drawn = await page.$$eval('[data-lecture-step="13"] canvas', (cs) => cs.filter((c) => c.offsetParent !== null).map((c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let ink = 0;
    for (let k = 3; k < d.length; k += 4 * 97) ink += d[k] > 0 ? 1 : 0;
    return { kind: c.dataset.chartKind, ink };
  }));
  assert.equal(drawn.length, 2, JSON.stringify(drawn));
  for (const c of drawn) assert.ok(c.ink > 10, `${c.kind} is blank`);
  assert.match(await page.textContent('[data-lecture-step="13"]'), /learned: the separation/);
  // The CLI's preset: the same verdicts, and the same numbers as far as f32 allows. Over 400
  // steps the last-bit differences of wasm's and AVX2's f32 kernels (see the header) grow to
  // about 1e-3 relative in the losses (at 20 steps they are 2e-7), so the losses are checked to
  // 1e-2 here; the fixed signals' σ* (f64 geometry) still to 1e-9. The held-out accuracy and
  // the learned table's monotonicity violation rate are counts of discrete events (a position
  // right, a triple out of order), which such drift flips a few at a time: the rate to 0.05.
  const want = JSON.parse(execFileSync(BIN, ['train', corpusFile, '--json', '--claims', '--preset', 'lecture'], { maxBuffer: 1 << 28 }));
  const diffs = differences(await learnTable(page), want);
  for (const d of diffs) {
    const tol = d.tol === 1e-9 * Math.max(1, Math.abs(d.cli)) ? d.tol : 1e-2 * Math.max(1, Math.abs(d.cli));
    if (d.at.endsWith('held_accuracy')) continue;
    const within = d.at.endsWith('monotonicity') ? 0.05 : tol;
    assert.ok(d.diff <= within, `${d.at}: page ${d.page} vs CLI ${d.cli} (tolerance ${within})`);
  }
  const claims = await page.$$eval('#learn-claims li[data-claim]', (items) => items.map((li) => ({
    key: li.dataset.claim, holds: { true: true, false: false, na: null }[li.dataset.holds] })));
  assert.deepEqual(claims, want.claims.map((c) => ({ key: c.key, holds: c.holds })));
  // Early on the two still agree to f32's 1e-5: the same run, drifting apart in the last bits.
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => document.querySelector('#lecture').hidden);
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#export-learn-csv')]);
  const rows = fs.readFileSync(await dl.path(), 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));
  let early = 0;
  for (const run of want.runs) {
    const rec = run.records.find((r) => r.step === 20);
    const row = rows.find((r) => r[0] === run.signal && Number(r[2]) === 20);
    assert.ok(rec && row, `${run.signal} at step 20`);
    const v = Number(row[4]);
    assert.ok(Math.abs(v - rec.held_loss) <= 1e-5 * Math.max(1, rec.held_loss), `${run.signal} step 20: page ${v} vs CLI ${rec.held_loss}`);
    early += 1;
  }
  assert.equal(early, 4);
  await page.screenshot({ path: path.join(ARTIFACTS, 'lecture-step-13-trained-1280x720.png') });
  await page.close();
});
