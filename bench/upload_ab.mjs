// Uploads of one corpus in a built site, for A/B runs of two builds: a fresh page, then REPS
// uploads of bench-data/CORPUS.txt (default imdb) with the tokenizer TOK (default whitespace),
// each timed from the Run click to #status done, with the time the worker spent in each stage
// (from its progress messages: each stage is followed by the seconds since the message before).
// Usage: DIST=/path/to/dist REPS=4 node bench/upload_ab.mjs   (alternate two builds' DIST)
import path from 'node:path';
import { serve, launch, settle } from '../tests/e2e/harness.mjs';
import { markWorkerStages } from './marks.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const { server, url } = await serve(process.env.DIST || path.join(ROOT, 'dist'), '/');
const browser = await launch();
const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
await page.addInitScript(markWorkerStages);
await page.goto(url);
await settle(page);
await page.selectOption('#opt-tokenizer', process.env.TOK || 'whitespace');
const file = path.join(ROOT, 'bench-data', `${process.env.CORPUS || 'imdb'}.txt`);
for (let k = 0; k < Number(process.env.REPS || 3); k++) {
  await page.evaluate(() => {
    window.__done = false;
    const s = document.querySelector('#status');
    new MutationObserver((_, mo) => {
      if (s.dataset.state === 'done') { window.__done = true; mo.disconnect(); }
    }).observe(s, { attributes: true });
  });
  await page.setInputFiles('#file-input', file);
  await page.waitForFunction(() => document.querySelector('#file-info').textContent.includes('.txt —'));
  await page.evaluate(() => { window.__stages = []; window.__t1 = performance.now(); });
  const t1 = Date.now();
  await page.click('#run-button');
  await page.waitForFunction(() => window.__done, null, { timeout: 600000 });
  const secs = (Date.now() - t1) / 1000;
  const stages = await page.evaluate(() => {
    let prev = window.__t1;
    const s = window.__stages.map((x) => { const r = `${x.key} ${((x.t - prev) / 1000).toFixed(2)}`; prev = x.t; return r; });
    return `${s.join(' · ')} | drawn ${((performance.now() - prev) / 1000).toFixed(2)}`;
  });
  console.log(`run ${k} click to done ${secs} ${stages}`);
  await page.setInputFiles('#file-input', []); // so that the same file counts as a change again
}
await browser.close();
server.close();
