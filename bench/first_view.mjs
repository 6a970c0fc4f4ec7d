// The first dashboard on load, by the page's clock: for each of REPS fresh pages (default 3),
// when the worker said Ready, when each of its stages began, when it sent the result and when
// #status turned done, in ms from navigation; then the medians.
// Usage: node bench/first_view.mjs   (after `trunk build --release`; DIST= another built site)
import path from 'node:path';
import { serve, launch } from '../tests/e2e/harness.mjs';
import { markWorkerStages } from './marks.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const { server, url } = await serve(path.resolve(ROOT, process.env.DIST || 'dist'), '/');
const browser = await launch();
const runs = [];
for (let k = 0; k < Number(process.env.REPS || 3); k++) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.addInitScript(markWorkerStages);
  await page.addInitScript(() => {
    document.addEventListener('DOMContentLoaded', () => {
      window.__dcl = performance.now();
      new MutationObserver(() => {
        if (document.querySelector('#status').dataset.state === 'done' && !window.__end) window.__end = performance.now();
      }).observe(document.querySelector('#status'), { attributes: true });
    });
  });
  await page.goto(url);
  await page.waitForFunction(() => window.__end, null, { timeout: 120000 });
  const run = await page.evaluate(() => {
    const r = { dom: window.__dcl };
    for (const s of window.__stages) if (!(s.key in r)) r[s.key] = s.t;
    for (const e of performance.getEntriesByType('resource')) {
      const name = e.name.split('/').pop().replace(/-[0-9a-f]{16}/, '');
      if (/\.(wasm|js|css)$/.test(name)) r[name] = e.responseEnd;
    }
    for (const m of performance.getEntriesByType('mark')) r[m.name] = m.startTime;
    r.end = window.__end;
    return r;
  });
  console.log(Object.entries(run).map(([key, t]) => `${key} ${Math.round(t)}`).join(' · '));
  runs.push(run);
  await context.close();
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log('median:', Object.keys(runs[0]).map((key) => `${key} ${Math.round(median(runs.map((r) => r[key] ?? NaN)))}`).join(' · '));
await browser.close();
server.close();
