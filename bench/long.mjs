// Long contexts in the tab: the synthetic corpus at n positions (default 4096: 1,000 sequences,
// 2,000 types, 8 regimes of width 200) opened from a link at the defaults (max_len = n), timed
// in the page from navigation to #status turning done, against the native CLI on the same corpus
// in the same run (`posgeo synth` then `posgeo analyze`, every core and one thread); and the
// peak resident memory of Chromium's renderer processes (the tab, its worker and helpers)
// sampled every 200 ms, against the CLI's peak (/usr/bin/time).
// Usage: node bench/long.mjs   (after `trunk build --release` and `cargo build --release`;
// N=4096 by default)
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, settle } from '../tests/e2e/harness.mjs';
import { markWorkerStages, rendererRss } from './marks.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'target/release/posgeo');
const N = Number(process.env.N || 4096);
const synth = ['--vocab', '2000', '--positions', String(N), '--regimes', '8', '--width', '200', '--sequences', '1000'];
fs.mkdirSync(path.join(ROOT, 'bench-data'), { recursive: true });
const corpus = path.join(ROOT, 'bench-data', `synth${N}.txt`);
fs.writeFileSync(corpus, execFileSync(BIN, ['synth', ...synth], { maxBuffer: 1 << 30 }));

const native = (env) => {
  const t = Date.now();
  const run = spawnSync('/usr/bin/time', ['-f', '%M', BIN, 'analyze', corpus, '--max-len', String(N), '--json'],
    { maxBuffer: 1 << 28, env: { ...process.env, ...env }, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  const kb = Number(run.stderr.trim().split('\n').pop());
  return { secs: (Date.now() - t) / 1000, report: JSON.parse(run.stdout), peakMb: kb * 1024 / 1e6 };
};
const all = native({});
const one = native({ RAYON_NUM_THREADS: '1' });

const { server, url } = await serve(path.join(ROOT, 'dist'), '/');
const browser = await launch();
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
// Stage timings: when the worker's first message of each stage arrives.
await page.addInitScript(markWorkerStages);
let peak = 0;
const sampler = setInterval(() => { peak = Math.max(peak, rendererRss()); }, 200);
const t0 = Date.now();
await page.goto(`${url}?corpus=synthetic&V=2000&n=${N}&K=8&s=200&seqs=1000&max_len=${N}`);
const state = await settle(page, 1800000);
const tab = (Date.now() - t0) / 1000;
clearInterval(sampler);
const stages = await page.evaluate(() => {
  const s = window.__stages.filter((x) => x.key !== 'ready' && x.key !== 'estimate');
  return s.slice(0, -1).map((x, i) => `${x.key} ${((s[i + 1].t - x.t) / 1000).toFixed(1)}`).join(' · ');
});
const shown = await page.$$eval('#stress-table tr[data-encoding]', (rows) => Object.fromEntries(rows.map((r) => [
  r.dataset.encoding, Number(r.querySelector('td[data-metric="scaled_stress"]')?.dataset.value)])));
let worst = 0;
for (const [name, e] of Object.entries(all.report.encodings)) {
  if (name in shown) worst = Math.max(worst, Math.abs(shown[name] - e.scaled_stress));
}
console.log(JSON.stringify({ n: all.report.n, state, tab_seconds: tab, native_seconds: all.secs,
  native_one_thread_seconds: one.secs, native_peak_mb: all.peakMb, native_one_thread_peak_mb: one.peakMb,
  renderer_peak_mb: peak / 1e6, largest_sigma_star_difference: worst, worker_stages_seconds: stages }));
console.log(`| synth n=${all.report.n}, link to full dashboard (${state}) | ${tab.toFixed(1)} | ${all.secs.toFixed(1)} | ${(tab / all.secs).toFixed(2)}× | ${one.secs.toFixed(1)} | ${(peak / 1e6).toFixed(0)} | ${all.peakMb.toFixed(0)} |`);
await browser.close();
server.close();
