// A large upload's first run against its second: for each of REPS fresh pages (default 3), the
// first dashboard, IDLE ms of nothing (default 1500), then bench-data/$CORPUS.txt (default
// imdb, from bench/make_corpora.py) uploaded twice with the whitespace tokenizer, Run clicked
// CLICK_DELAY ms after the file is read (default 0). Prints seconds from the click to the full
// dashboard, and from the click to the worker's first message (the helpers' counting), per
// page and as medians; V=1 adds the worker's stages. DIST= another built site to compare.
// Usage: node bench/first_upload.mjs   (after `trunk build --release`)
import path from 'node:path';
import { serve, launch, settle } from '../tests/e2e/harness.mjs';
import { markWorkerStages } from './marks.mjs';
const ROOT = path.resolve(import.meta.dirname, '..');
const { server, url } = await serve(path.resolve(ROOT, process.env.DIST || 'dist'), '/');
const browser = await launch();
const name = process.env.CORPUS || 'imdb';
const file = path.join(ROOT, 'bench-data', `${name}.txt`);
const out = [];
for (let k = 0; k < Number(process.env.REPS || 3); k++) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.addInitScript(markWorkerStages);
  await page.addInitScript(() => {
    document.addEventListener('DOMContentLoaded', () => {
      new MutationObserver(() => {
        const clicked = window.__stages.some((x) => x.key === 'click');
        if (clicked && document.querySelector('#status').dataset.state === 'done') window.__stages.push({ key: 'end', t: performance.now() });
      }).observe(document.querySelector('#status'), { attributes: true });
    });
  });
  await page.goto(url);
  await settle(page);
  await page.waitForTimeout(Number(process.env.IDLE || 1500));
  await page.selectOption('#opt-tokenizer', 'whitespace');
  const row = [];
  for (const warm of [0, 1]) {
    await page.evaluate(([n, d]) => {
      window.__stages = [];
      document.querySelector('#file-input').addEventListener('change', () => window.__stages.push({ key: 'upload', t: performance.now() }), { once: true });
      const info = document.querySelector('#file-info');
      const mo = new MutationObserver(() => {
        if (info.textContent.includes(`${n}.txt —`)) { mo.disconnect(); setTimeout(() => { window.__stages.push({ key: 'click', t: performance.now() }); document.querySelector('#run-button').click(); }, d); }
      });
      mo.observe(info, { childList: true, characterData: true, subtree: true });
    }, [name, Number(process.env.CLICK_DELAY || 0)]);
    await page.setInputFiles('#file-input', file);
    await page.waitForFunction(() => window.__stages.some((x) => x.key === 'end'), null, { timeout: 600000 });
    const r = await page.evaluate(() => {
      const s = window.__stages; const t = (k) => s.find((x) => x.key === k).t;
      const click = t('click'); const first = s[s.findIndex((x) => x.key === 'click') + 1].t;
      const st = s.filter((x) => x.key !== 'ready' && x.key !== 'estimate');
      const stages = st.slice(0, -1).map((x, i) => `${x.key} ${((st[i + 1].t - x.t) / 1000).toFixed(2)}`).join(' · ');
      return { secs: (t('end') - t('click')) / 1000, click: (first - click) / 1000, stages };
    });
    row.push(r);
    await page.setInputFiles('#file-input', []);
  }
  out.push(row);
  console.log(`cold ${row[0].secs.toFixed(2)} (click ${row[0].click.toFixed(2)})  warm ${row[1].secs.toFixed(2)} (click ${row[1].click.toFixed(2)})`);
  if (process.env.V) console.log('  cold', row[0].stages, '\n  warm', row[1].stages);
  await context.close();
}
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(process.env.DIST || 'dist', 'median cold', med(out.map((r) => r[0].secs)).toFixed(2), 'warm', med(out.map((r) => r[1].secs)).toFixed(2));
await browser.close(); server.close();
