// Browser benchmark of a model's layer pass: all-MiniLM-L6-v2 over the first 256 Genesis verses
// at the paper's setting (pad, max_len 64) in the built site (dist/, headless Chromium, the
// worker and its helpers), timed from the worker's first "layers" progress message to the next
// stage's, against `posgeo-bench --layers` on the same sequences in the same run (every core);
// and the peak resident memory of Chromium's renderer processes meanwhile.
// Usage: node bench/layers_browser.mjs   (after `trunk build --release` and
// `cargo build --release --bin posgeo-bench`; REPS=3 by default)
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { serve, launch, settle } from '../tests/e2e/harness.mjs';
import { markWorkerStages, rendererRss } from './marks.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const REPS = Number(process.env.REPS || 3);
const MODEL = path.join(ROOT, 'www/models/all-MiniLM-L6-v2');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const { server, url } = await serve(path.join(ROOT, 'dist'), '/');
const browser = await launch();
const page = await browser.newPage();
await page.addInitScript(markWorkerStages);
await page.goto(url);
await settle(page);
await page.check('#src-genesis');
await page.selectOption('#opt-mode', 'pad');
await page.fill('#opt-max_len', '64');
await page.fill('#opt-layer_sequences', '256');
await page.click('#model-minilm');
await page.waitForFunction(() => /layers are compared/.test(document.querySelector('#model-info').textContent), null, { timeout: 120000 });
// Peak resident memory of Chromium's renderer processes, sampled every 200 ms while the runs go.
let peak = 0;
const sampler = setInterval(() => { peak = Math.max(peak, rendererRss()); }, 200);
const tab = [];
for (let k = 0; k < REPS; k++) {
  await page.evaluate(() => { window.__stages = []; document.querySelector('#status').dataset.state = 'stale'; });
  await page.click('#run-button');
  if ((await settle(page, 600000)) !== 'done') throw new Error(await page.textContent('#status'));
  tab.push(await page.evaluate(() => {
    const m = window.__stages;
    const i = m.findIndex((x) => x.key === 'layers');
    return (m[i + 1].t - m[i].t) / 1000;
  }));
}
clearInterval(sampler);
const native = [];
for (let k = 0; k < REPS; k++) {
  const out = execFileSync(path.join(ROOT, 'target/release/posgeo-bench'), ['--layers', MODEL,
    path.join(ROOT, 'www/corpora/kjv-genesis.txt'), '--mode', 'pad', '--max-len', '64', '--layer-sequences', '256', '--repeat', '1']);
  native.push(JSON.parse(out).seconds);
}
const [t, n] = [median(tab), median(native)];
console.log(JSON.stringify({ tab_seconds: tab, native_seconds: native, renderer_peak_mb: peak / 1e6 }));
console.log(`| layer pass, MiniLM, 256 Genesis verses, pad, max_len 64 | ${t.toFixed(2)} | ${n.toFixed(2)} | ${(t / n).toFixed(2)}× |`);
await browser.close();
server.close();
