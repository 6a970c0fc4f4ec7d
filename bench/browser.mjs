// Browser benchmark: the built site (dist/) in headless Chromium. Measures the first
// dashboard on load (from page.goto to #status done, and by the page's own clock), upload-to-dashboard for the SST-2-sized and IMDB-sized corpora of
// bench/make_corpora.py and the IMDB-sized one of real prose of bench/stitch_corpus.py (whitespace tokenizer), the native CLI on the same files in the
// same run, and the page's longest main-thread task (Long Tasks API) during each run.
// Usage: node bench/browser.mjs   (after `trunk build --release` and bench/run.sh's corpora)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, settle } from '../tests/e2e/harness.mjs';
import { markWorkerStages } from './marks.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'target/release/posgeo');
const { server, url } = await serve(path.join(ROOT, 'dist'), '/');
const browser = await launch();
const REPS = Number(process.env.REPS || 3);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const instrument = () => {
  window.__longest = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longest = Math.max(window.__longest, e.duration);
  }).observe({ type: 'longtask', buffered: true });
  // When #status turns done: the end of drawing.
  document.addEventListener('DOMContentLoaded', () => {
    new MutationObserver(() => {
      if (document.querySelector('#status').dataset.state === 'done') window.__stages.push({ key: 'end', t: performance.now() });
    }).observe(document.querySelector('#status'), { attributes: true });
  });
};
const rows = [];
let page;
const longest = async () => page.evaluate(() => { const v = window.__longest; window.__longest = 0; return v; });
// Seconds from each stage's first message to the next one's, e.g. "counting 1.20 · distances 0.70";
// "click" runs from the click to the worker's first message, "done" from the worker's Done to
// the last chart drawn.
const stages = async () => page.evaluate(() => {
  const s = window.__stages.filter((x) => x.key !== 'ready' && x.key !== 'estimate');
  const end = s.findIndex((x) => x.key === 'end');
  const upto = end < 0 ? s : s.slice(0, end + 1);
  window.__stages = [];
  return upto.slice(0, -1).map((x, i) => `${x.key} ${((upto[i + 1].t - x.t) / 1000).toFixed(2)}`).join(' · ');
});

// First load: a fresh browser context (empty cache) each time; the median of REPS loads.
const loads = [];
for (let k = 0; k < REPS; k++) {
  if (page) await page.context().close();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  await page.addInitScript(markWorkerStages); // window.__stages: the worker's stages
  await page.addInitScript(instrument);
  const t0 = Date.now();
  await page.goto(url);
  await settle(page);
  const secs = (Date.now() - t0) / 1000;
  // The page's own clock: from navigation to #status done (without the driver's latency).
  const page_ = await page.evaluate(() => window.__stages.find((x) => x.key === 'end').t / 1000);
  loads.push({ secs, page: page_, longest: await longest(), stages: await stages() });
}
const firstLoad = loads.find((l) => l.secs === median(loads.map((l) => l.secs)));
rows.push({ what: `first dashboard on load (synthetic default), median of ${REPS}; by the page's clock from navigation ${median(loads.map((l) => l.page)).toFixed(2)} s`,
  browser: firstLoad.secs, longest: Math.max(...loads.map((l) => l.longest)), stages: firstLoad.stages });

await page.selectOption('#opt-tokenizer', 'whitespace');
for (const name of ['sst2', 'imdb', 'stitched']) {
  const file = path.join(ROOT, 'bench-data', `${name}.txt`);
  const runs = [];
  for (let k = 0; k < REPS; k++) {
    let t = Date.now();
    execFileSync(BIN, ['analyze', file, '--tokenizer', 'whitespace', '--json'], { maxBuffer: 1 << 28 });
    const native = (Date.now() - t) / 1000;
    // In-page clock: from the file input's change event to #status turning done, with the
    // run button clicked the moment the file is read (an instant user, no driver latency).
    await page.evaluate((n) => {
      window.__stages = [];
      document.querySelector('#file-input').addEventListener('change', () => {
        window.__stages.push({ key: 'upload', t: performance.now() });
      }, { once: true });
      const info = document.querySelector('#file-info');
      const mo = new MutationObserver(() => {
        if (info.textContent.includes(`${n}.txt —`)) {
          mo.disconnect();
          window.__stages.push({ key: 'click', t: performance.now() });
          document.querySelector('#run-button').click();
        }
      });
      mo.observe(info, { childList: true, characterData: true, subtree: true });
    }, name);
    await page.setInputFiles('#file-input', file);
    await page.waitForFunction(() => window.__stages.some((x) => x.key === 'end'), null, { timeout: 600000 });
    const state = await page.$eval('#status', (s) => s.dataset.state);
    const secs = await page.evaluate(() => {
      const s = window.__stages;
      return (s.find((x) => x.key === 'end').t - s.find((x) => x.key === 'upload').t) / 1000;
    });
    runs.push({ secs, native, state, longest: await longest(), stages: await stages() });
    await page.setInputFiles('#file-input', []); // so that the same file counts as a change again
  }
  const browserSecs = median(runs.map((r) => r.secs));
  const nativeSecs = median(runs.map((r) => r.native));
  const mid = runs.find((r) => r.secs === browserSecs);
  rows.push({ what: `${name}: upload to full dashboard (${mid.state}), median of ${REPS}`, browser: browserSecs, native: nativeSecs,
    ratio: browserSecs / nativeSecs, longest: Math.max(...runs.map((r) => r.longest)), stages: mid.stages });
}
await browser.close();
server.close();
const md = ['| run | browser (s) | native CLI (s) | browser / native | longest main-thread task over the runs (ms) | worker stages (s) |', '|---|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.what} | ${r.browser.toFixed(2)} | ${r.native?.toFixed(2) ?? ''} | ${r.ratio ? r.ratio.toFixed(2) + '×' : ''} | ${r.longest.toFixed(0)} | ${r.stages} |`)];
fs.mkdirSync(path.join(ROOT, 'bench-data'), { recursive: true });
fs.writeFileSync(path.join(ROOT, 'bench-data', 'browser.md'), md.join('\n') + '\n');
console.log(md.join('\n'));
