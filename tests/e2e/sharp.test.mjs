// End-to-end test of drawing resolution: every chart the page shows — the dashboard's and each
// lecture step's — is drawn at its displayed size times the device pixel ratio (a bitmap shown
// larger than it is drawn is soft on a projector), at 1280×720 and at 1920×1080, and at a
// device pixel ratio of 2.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { serve, launch, settle } from './harness.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
let server, url, browser;

before(async () => {
  ({ server, url } = await serve(path.join(ROOT, 'dist'), '/sharp/'));
  browser = await launch();
});
after(async () => { await browser?.close(); server?.close(); });

/** The visible canvases under `root`: how many, and those drawn with fewer pixels than they
 * are shown with (object-fit: contain shows the bitmap at the smaller of its two ratios). */
async function soft(page, root) {
  return page.$$eval(`${root} canvas`, (all) => {
    const canvases = all.filter((c) => c.offsetParent !== null);
    return { count: canvases.length, soft: canvases.map((c) => {
    const r = c.getBoundingClientRect();
    const [nw, nh] = [Number(c.dataset.width || c.width), Number(c.dataset.height || c.height)];
    const fit = Math.min(r.width / nw, r.height / nh);
    const need = Math.floor(nw * fit * devicePixelRatio) - 1;
    return { id: c.id || c.dataset.chartKind, shown: [Math.round(r.width), Math.round(r.height)], drawn: [c.width, c.height], need };
  }).filter((c) => c.drawn[0] < c.need) };
  });
}

for (const [width, height, scale] of [[1280, 720, 1], [1920, 1080, 1], [1280, 720, 2]]) {
  test(`every chart is drawn at its displayed size at ${width}×${height}, device pixel ratio ${scale}`, async () => {
    const page = await browser.newPage({ viewport: { width, height }, deviceScaleFactor: scale });
    await page.goto(url);
    assert.equal(await settle(page), 'done');
    // The dashboard, every chart scrolled into view (a chart is drawn for its box on screen).
    for (const id of await page.$$eval('#results canvas, main canvas', (cs) => cs.filter((c) => c.offsetParent !== null).map((c) => c.id).filter(Boolean))) {
      await page.$eval(`#${id}`, (c) => c.scrollIntoView());
    }
    await page.waitForTimeout(300);
    const dashboard = await soft(page, 'body');
    assert.ok(dashboard.count >= 8, `the dashboard's charts are there (${dashboard.count})`);
    assert.deepEqual(dashboard.soft, [], 'dashboard charts drawn with fewer pixels than shown');
    // Every lecture step.
    await page.goto(url + '#lecture/1');
    await page.waitForFunction(() => document.querySelector('#status').dataset.state === 'done', null, { timeout: 120000 });
    const steps = await page.$$eval('[data-lecture-step]', (els) => els.length);
    let charts = 0;
    for (let n = 1; n <= steps; n++) {
      if (n > 1) await page.keyboard.press('PageDown');
      await page.waitForFunction((k) => !document.querySelector(`[data-lecture-step="${k}"]`).hidden, n);
      await page.waitForTimeout(150);
      const step = await soft(page, `[data-lecture-step="${n}"]`);
      charts += step.count;
      assert.deepEqual(step.soft, [], `lecture step ${n}`);
    }
    assert.ok(charts >= 10, `the lecture's charts are there (${charts} over ${steps} steps)`);
    await page.close();
  });
}
