// The learning experiment in the tab against the CLI (docs/PERFORMANCE.md, "Learning"): the
// built-in synthetic corpus (`posgeo synth`) pasted into the built site (dist/, headless
// Chromium), one signal (`learned`) trained for STEPS steps (default 100) in the Learn panel —
// one training worker, one thread — timed from Train to done, against `posgeo train` with the
// same options on one thread and on every core in the same run; training tokens per second
// (steps × 32 sequences × 64 tokens over the whole time, preparation and records included).
// DEFAULT=1 also times the default run (nine signals, 400 steps) in the tab, spread over its
// training workers. PRESET=1 also times the lecture preset (the panel's button): from the press
// to the first curve point (the first record a worker posts) and to done. Usage: node bench/learn_tab.mjs (after `trunk build --release` and
// `cargo build --release --bin posgeo`); REPS=2 by default.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve, launch, settle } from '../tests/e2e/harness.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'target/release/posgeo');
const STEPS = Number(process.env.STEPS || 100);
const REPS = Number(process.env.REPS || 2);
const TOKENS = STEPS * 32 * 64;
const corpus = execFileSync(BIN, ['synth']).toString();
const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'posgeo-learn-tab-')), 'corpus.txt');
fs.writeFileSync(file, corpus);
const seconds = (f) => { const t = process.hrtime.bigint(); f(); return Number(process.hrtime.bigint() - t) / 1e9; };
const native = (threads) => Math.min(...Array.from({ length: REPS }, () => seconds(() => execFileSync(
  BIN, ['train', file, '--signals', 'learned', '--steps', String(STEPS), '--json'],
  { env: { ...process.env, RAYON_NUM_THREADS: String(threads) }, maxBuffer: 1 << 28 }))));

const { server, url } = await serve(path.join(ROOT, 'dist'), '/');
const browser = await launch();
const page = await browser.newPage();
await page.goto(url);
await settle(page);
await page.$eval('#corpus-input', (el, t) => { el.value = t; el.dispatchEvent(new Event('input', { bubbles: true })); }, corpus);
/** Trains with these signals and steps; the seconds from Train to done. */
async function train(signals, steps) {
  await page.fill('#learn-steps', String(steps));
  await page.$$eval('#learn-signals input[type=checkbox]', (boxes, on) => {
    for (const b of boxes) b.checked = on.includes(b.value);
  }, signals);
  const t = Date.now();
  await page.click('#learn-run');
  await page.waitForFunction(() => ['done', 'error'].includes(document.querySelector('#learn-status').dataset.state), null, { timeout: 3600000 });
  const state = await page.$eval('#learn-status', (s) => s.dataset.state);
  if (state !== 'done') throw new Error(await page.textContent('#learn-status'));
  return (Date.now() - t) / 1000;
}
const tab = [];
for (let k = 0; k < REPS; k++) tab.push(await train(['learned'], STEPS));
const best = Math.min(...tab);
const [one, all] = [native(1), native(os.cpus().length)];
const rate = (s) => Math.round(TOKENS / s);
console.log(JSON.stringify({
  steps: STEPS, tab_s: tab, tab_tokens_per_s: rate(best),
  native_one_thread_s: one, native_one_thread_tokens_per_s: rate(one),
  native_every_core_s: all, native_every_core_tokens_per_s: rate(all),
  tab_over_native_one_thread: +(best / one).toFixed(2),
}));
if (process.env.DEFAULT === '1') {
  const signals = ['nope', 'sinusoidal', 'random', 'pmds', 'pmds_r', 'learned', 'learned_pmds', 'rope', 'alibi', 'lowrank'];
  console.log(JSON.stringify({ default_run_tab_s: await train(signals, 400) }));
}
if (process.env.PRESET === '1') {
  const t = Date.now();
  await page.click('#learn-preset');
  await page.waitForFunction(() => Number(document.querySelector('#learn-progress').value) > 0, null, { timeout: 600000 });
  const first = (Date.now() - t) / 1000;
  await page.waitForFunction(() => ['done', 'error'].includes(document.querySelector('#learn-status').dataset.state), null, { timeout: 3600000 });
  const status = await page.textContent('#learn-status');
  console.log(JSON.stringify({ preset_first_point_s: first, preset_done_s: (Date.now() - t) / 1000, status }));
}
await browser.close();
server.close();
fs.rmSync(path.dirname(file), { recursive: true, force: true });
