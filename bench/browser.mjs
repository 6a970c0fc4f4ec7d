// Browser benchmark: the built site (dist/) in headless Chromium. Measures the first
// dashboard on load, upload-to-dashboard for the SST-2-sized and IMDB-sized corpora of
// bench/make_corpora.py (whitespace tokenizer), the native CLI on the same files in the
// same run, and the page's longest main-thread task (Long Tasks API) during each run.
// Usage: node bench/browser.mjs   (after `trunk build --release` and bench/run.sh's corpora)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, settle } from '../tests/e2e/harness.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'target/release/posgeo');
const { server, url } = await serve(path.join(ROOT, 'dist'), '/');
const browser = await launch();
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
await page.addInitScript(() => {
  window.__longest = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longest = Math.max(window.__longest, e.duration);
  }).observe({ type: 'longtask', buffered: true });
  // Stage timings: when the worker's first message of each stage arrives, and its Done.
  window.__stages = [];
  const Base = window.Worker;
  window.Worker = class extends Base {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => {
        const t = performance.now();
        let type, stage;
        if (typeof e.data === 'string') ({ type, stage } = JSON.parse(e.data));
        else type = 'done';
        const last = window.__stages[window.__stages.length - 1];
        const key = stage ?? type;
        if (!last || last.key !== key) window.__stages.push({ key, t });
      });
    }
  };
});
const rows = [];
const longest = async () => page.evaluate(() => { const v = window.__longest; window.__longest = 0; return v; });
// Seconds from each stage's first message to the next one's, e.g. "counting 1.20 · distances 0.70".
const stages = async () => page.evaluate(() => {
  const s = window.__stages.filter((x) => x.key !== 'ready');
  window.__stages = [];
  return s.slice(0, -1).map((x, i) => `${x.key} ${((s[i + 1].t - x.t) / 1000).toFixed(2)}`).join(' · ');
});

let t0 = Date.now();
await page.goto(url);
await settle(page);
rows.push({ what: 'first dashboard on load (synthetic default)', browser: (Date.now() - t0) / 1000, longest: await longest(), stages: await stages() });

await page.selectOption('#opt-tokenizer', 'whitespace');
for (const name of ['sst2', 'imdb']) {
  const file = path.join(ROOT, 'bench-data', `${name}.txt`);
  let t = Date.now();
  execFileSync(BIN, ['analyze', file, '--tokenizer', 'whitespace', '--json'], { maxBuffer: 1 << 28 });
  const native = (Date.now() - t) / 1000;
  t = Date.now();
  await page.setInputFiles('#file-input', file);
  await page.waitForFunction((n) => document.querySelector('#file-info').textContent.includes(`${n}.txt —`), name, { timeout: 120000 });
  await page.evaluate(() => { window.__stages = []; });
  await page.click('#run-button');
  const state = await settle(page, 600000);
  const secs = (Date.now() - t) / 1000;
  rows.push({ what: `${name}: upload to full dashboard (${state})`, browser: secs, native, ratio: secs / native, longest: await longest(), stages: await stages() });
}
await browser.close();
server.close();
const md = ['| run | browser (s) | native CLI (s) | browser / native | longest main-thread task (ms) | worker stages (s) |', '|---|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.what} | ${r.browser.toFixed(2)} | ${r.native?.toFixed(2) ?? ''} | ${r.ratio ? r.ratio.toFixed(2) + '×' : ''} | ${r.longest.toFixed(0)} | ${r.stages} |`)];
fs.mkdirSync(path.join(ROOT, 'bench-data'), { recursive: true });
fs.writeFileSync(path.join(ROOT, 'bench-data', 'browser.md'), md.join('\n') + '\n');
console.log(md.join('\n'));
