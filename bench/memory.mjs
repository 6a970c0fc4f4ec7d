// The tab's memory through a long-context run: the synthetic corpus at n positions (default
// 4096, the recipe of bench/long.mjs) opened from a link at the defaults, with the resident
// memory of Chromium's renderer processes (the tab, its worker and helpers) sampled every
// 200 ms and printed at each of the worker's stage changes (with the time of each stage's last
// progress message: SMACOF's last iteration in "encodings"), then the peak and the time to
// done. DIST picks the site directory (default dist/), to compare two builds in one session.
// Usage: node bench/memory.mjs   (after `trunk build --release`; N=4096 DIST=dist by default)
import path from 'node:path';
import { serve, launch, settle } from '../tests/e2e/harness.mjs';
import { markWorkerStages, rendererRss } from './marks.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const N = Number(process.env.N || 4096);
const { server, url } = await serve(path.resolve(ROOT, process.env.DIST || 'dist'), '/');
const browser = await launch();
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
await page.addInitScript(markWorkerStages);
const samples = [];
const sampler = setInterval(() => samples.push([Date.now(), rendererRss() / 1e6]), 200);
const t0 = Date.now();
await page.goto(`${url}?corpus=synthetic&V=2000&n=${N}&K=8&s=200&seqs=1000&max_len=${N}`);
const state = await settle(page, 1800000);
const secs = (Date.now() - t0) / 1000;
await new Promise((r) => setTimeout(r, 1000)); // the page drawing the results
clearInterval(sampler);
const stages = await page.evaluate(() => window.__stages.map((x) => ({ key: x.key, t: performance.timeOrigin + x.t, tLast: performance.timeOrigin + x.tLast })));
const estimate = await page.textContent('#estimate');
// Per stage: the largest sample from its first message to the next stage's.
const rows = stages.map((s, i) => {
  const end = stages[i + 1]?.t ?? Infinity;
  const inside = samples.filter(([t]) => t >= s.t && t < end).map(([, mb]) => mb);
  const last = s.tLast > s.t + 50 ? ` (its last message at ${((s.tLast - t0) / 1000).toFixed(1)} s)` : '';
  return `${s.key} ${((s.t - t0) / 1000).toFixed(1)} s${last}: ${inside.length ? Math.max(...inside).toFixed(0) : '-'} MB`;
});
const peak = Math.max(...samples.map(([, mb]) => mb));
console.log(JSON.stringify({ n: N, dist: process.env.DIST || 'dist', state, tab_seconds: secs, renderer_peak_mb: Math.round(peak), estimate }));
console.log(rows.join('\n'));
await browser.close();
server.close();
