// Streaming benchmark: a large upload (default /tmp/big.txt.gz) analysed in the built site
// (dist/) in headless Chromium, upload to dashboard, while the Chromium processes' resident
// memory is sampled every 250 ms (sum over the browser's processes, from /proc).
// Usage: node bench/stream.mjs [FILE]   (after `trunk build --release`)
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { serve, launch, settle } from '../tests/e2e/harness.mjs';

const FILE = process.argv[2] || '/tmp/big.txt.gz';
const ROOT = path.resolve(import.meta.dirname, '..');
const { server, url } = await serve(path.join(ROOT, 'dist'), '/');
const browser = await launch();
const page = await browser.newPage();
await page.goto(url);
await settle(page);
const rss = () => {
  const out = execFileSync('ps', ['-C', 'chromium', '-o', 'rss=']).toString();
  return out.split('\n').filter(Boolean).reduce((a, b) => a + Number(b), 0) * 1024;
};
let peak = rss();
const base = peak;
const timer = setInterval(() => { try { peak = Math.max(peak, rss()); } catch {} }, 250);
const t0 = Date.now();
await page.setInputFiles('#file-input', FILE);
await page.waitForFunction((b) => document.querySelector('#file-info').textContent.includes(b), path.basename(FILE));
await page.click('#run-button');
const status = await settle(page, 3_600_000);
clearInterval(timer);
const secs = (Date.now() - t0) / 1000;
const estimate = await page.textContent('#estimate');
const error = await page.$eval('#error', (e) => e.textContent);
console.log(JSON.stringify({ file: FILE, bytes: fs.statSync(FILE).size, status, seconds: secs, error, estimate,
  chromium_rss_before: base, chromium_rss_peak: peak }));
await browser.close();
server.close();
