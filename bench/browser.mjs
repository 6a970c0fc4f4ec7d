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
});
const rows = [];
const longest = async () => page.evaluate(() => { const v = window.__longest; window.__longest = 0; return v; });

let t0 = Date.now();
await page.goto(url);
await settle(page);
rows.push({ what: 'first dashboard on load (synthetic default)', browser: (Date.now() - t0) / 1000, longest: await longest() });

await page.selectOption('#opt-tokenizer', 'whitespace');
for (const name of ['sst2', 'imdb']) {
  const file = path.join(ROOT, 'bench-data', `${name}.txt`);
  let t = Date.now();
  execFileSync(BIN, ['analyze', file, '--tokenizer', 'whitespace', '--json'], { maxBuffer: 1 << 28 });
  const native = (Date.now() - t) / 1000;
  t = Date.now();
  await page.setInputFiles('#file-input', file);
  await page.waitForFunction((n) => document.querySelector('#file-info').textContent.includes(`${n}.txt —`), name, { timeout: 120000 });
  await page.click('#run-button');
  const state = await settle(page, 600000);
  const secs = (Date.now() - t) / 1000;
  rows.push({ what: `${name}: upload to full dashboard (${state})`, browser: secs, native, ratio: secs / native, longest: await longest() });
}
await browser.close();
server.close();
const md = ['| run | browser (s) | native CLI (s) | browser / native | longest main-thread task (ms) |', '|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.what} | ${r.browser.toFixed(2)} | ${r.native?.toFixed(2) ?? ''} | ${r.ratio ? r.ratio.toFixed(2) + '×' : ''} | ${r.longest.toFixed(0)} |`)];
fs.mkdirSync(path.join(ROOT, 'bench-data'), { recursive: true });
fs.writeFileSync(path.join(ROOT, 'bench-data', 'browser.md'), md.join('\n') + '\n');
console.log(md.join('\n'));
