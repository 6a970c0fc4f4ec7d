// Live-parameter benchmark: the built site (dist/) in headless Chromium. After a full run on
// the synthetic corpus with n positions, an encoding-only control (the ALiBi slope) moves;
// measured in the page, from the input event to (a) the stress table showing the new numbers
// and (b) #status turning done with every chart redrawn. Baseline in the same run: a full
// run (Run pressed) with the same options. Medians of REPS moves.
// Usage: node bench/live.mjs   (after `trunk build --release`)
import path from 'node:path';
import { serve, launch, settle } from '../tests/e2e/harness.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const { server, url } = await serve(path.join(ROOT, 'dist'), '/');
const browser = await launch();
const REPS = Number(process.env.REPS || 5);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Times one change in the page: `act` runs in the page; resolves {table, done} in ms. */
function timed(page, act) {
  return page.evaluate((act) => new Promise((resolve) => {
    const cell = () => document.querySelector('#stress-table tr[data-encoding="alibi"] td[data-metric="raw_stress"]');
    const old = cell()?.dataset.value;
    const status = document.querySelector('#status');
    let table = null;
    const start = performance.now();
    const check = () => {
      if (table === null && cell() && cell().dataset.value !== old) table = performance.now() - start;
      if (table !== null && status.dataset.state === 'done') { obs.disconnect(); resolve({ table, done: performance.now() - start }); }
    };
    const obs = new MutationObserver(check);
    obs.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    new Function(act)();
  }), act);
}

const rows = [];
for (const n of [64, 512]) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${url}?n=${n}&seqs=2000`);
  await settle(page, 600000);
  const live = [], full = [];
  for (let k = 0; k < REPS; k++) {
    const slope = (0.3 + 0.05 * k).toFixed(2);
    live.push(await timed(page, `const i = document.querySelector('#opt-slope'); i.value = '${slope}'; i.dispatchEvent(new Event('input'));`));
  }
  for (let k = 0; k < Math.min(REPS, 3); k++) {
    const slope = (0.7 + 0.05 * k).toFixed(2);
    await page.fill('#opt-slope', slope); // a live update first, then the full run we time
    await settle(page);
    full.push(await timed(page, `const i = document.querySelector('#opt-slope'); i.value = '${(0.9 + 0.05 * k).toFixed(2)}'; document.querySelector('#run-button').click();`));
  }
  const n_shown = await page.$eval('#summary', (s) => s.textContent.match(/n = (\d+)/)?.[1]);
  rows.push({ n: Number(n_shown), liveTable: median(live.map((t) => t.table)), liveDone: median(live.map((t) => t.done)),
    fullTable: median(full.map((t) => t.table)), fullDone: median(full.map((t) => t.done)) });
  await page.close();
}
console.log('| n | live: input → table (ms) | live: input → all charts (ms) | full run: Run → table (ms) | full run: Run → all charts (ms) | full / live (table) |');
console.log('|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| ${r.n} | ${r.liveTable.toFixed(0)} | ${r.liveDone.toFixed(0)} | ${r.fullTable.toFixed(0)} | ${r.fullDone.toFixed(0)} | ${(r.fullTable / r.liveTable).toFixed(1)}× |`);
}
await browser.close();
server.close();
