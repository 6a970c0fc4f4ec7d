// End-to-end tests of the page's layout and visual language: Run in the top bar
// at every size, results first, option groups collapsed, a phone without horizontal scroll,
// sharp charts, the dark theme, and axe-core's accessibility rules.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, settle, openSettled, axeViolations } from './harness.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ART = path.join(ROOT, 'test-artifacts');
let server, url, browser;

before(async () => {
  ({ server, url } = await serve(path.join(ROOT, 'dist'), '/layout-test/'));
  browser = await launch();
  fs.mkdirSync(ART, { recursive: true });
});
after(async () => { await browser?.close(); server?.close(); });

const inView = (page, sel) => page.$eval(sel, (e) => {
  const b = e.getBoundingClientRect();
  return b.height > 5 && b.top >= 0 && b.bottom <= innerHeight + 1 && b.left >= 0 && b.right <= innerWidth + 1;
});

test('Run is in view at every size; verdict, σ* chart and PMDS map above the fold on laptops', async () => {
  for (const [width, height] of [[1280, 720], [1366, 768], [390, 844]]) {
    const page = await openSettled(browser, url, { width, height }, { collapsed: true });
    assert.ok(await inView(page, '#run-button'), `Run at ${width}×${height}`);
    assert.ok(await inView(page, '#status'), `status at ${width}×${height}`);
    if (width >= 1280) {
      for (const sel of ['#verdict', '#chart-stress', '#chart-map']) assert.ok(await inView(page, sel), `${sel} at ${width}×${height}`);
    }
    // Scrolled down, the top bar stays (laptops).
    if (width >= 1280) {
      await page.$eval('#chart-support', (e) => e.scrollIntoView());
      assert.ok(await inView(page, '#run-button'), `Run after scrolling at ${width}×${height}`);
    }
    await page.close();
  }
});

test('option groups are collapsed but the live ones; a source that needs inputs opens them', async () => {
  const page = await openSettled(browser, url, { width: 1366, height: 768 }, { collapsed: true });
  const open = await page.$$eval('details.group', (ds) => ds.filter((d) => d.open).map((d) => d.querySelector('summary').textContent));
  assert.deepEqual(open, ['Encodings — live: the table and every chart follow as you change them']);
  // The live options sit right under the headline charts.
  const [chart, live] = await Promise.all(['#chart-stress', '#options-encodings'].map((s) => page.$eval(s, (e) => e.getBoundingClientRect().top)));
  assert.ok(live > chart && live - chart < 700, `live options ${live} under the chart ${chart}`);
  assert.equal(await page.$eval('#group-corpus', (d) => d.open), false);
  await page.check('#src-paste');
  assert.equal(await page.$eval('#group-corpus', (d) => d.open), true, 'pasting needs the text box');
  assert.ok(await page.isVisible('#corpus-input'));
  await page.click('#topbar-model');
  assert.equal(await page.$eval('#group-model', (d) => d.open), true);
  await page.close();
});

test('a phone (390 px): no horizontal scroll, charts fit the screen', async () => {
  const page = await openSettled(browser, url, { width: 390, height: 844 }, { collapsed: true, deviceScaleFactor: 2 });
  const { scroll, inner, widest } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth, inner: innerWidth,
    widest: Math.max(...[...document.querySelectorAll('canvas')].filter((c) => c.offsetParent).map((c) => c.getBoundingClientRect().right)),
  }));
  assert.ok(scroll <= inner, `page ${scroll} px wide on a ${inner} px screen`);
  assert.ok(widest <= inner, `a chart reaches ${widest} px`);
  await page.screenshot({ path: path.join(ART, 'phone-390x844.png') });
  await page.close();
});

test('charts are drawn sharp: as many canvas pixels as the screen shows', async () => {
  const page = await openSettled(browser, url, { width: 1366, height: 768 }, { deviceScaleFactor: 2 });
  const canvases = await page.$$eval('canvas[id^="chart-"]', (cs) => cs.filter((c) => c.offsetParent).map((c) => ({
    id: c.id, width: c.width, shown: c.getBoundingClientRect().width, nominal: Number(c.dataset.width),
  })));
  assert.ok(canvases.length >= 9);
  for (const c of canvases) {
    assert.ok(c.nominal > 0, `${c.id} has a nominal size`);
    assert.ok(c.width >= Math.floor(c.shown * 2) - 1, `${c.id}: ${c.width} canvas px for ${c.shown} CSS px at 2×`);
  }
  await page.close();
});

/** The mean brightness (0–255) of a canvas's top-left corner. */
const corner = (page, sel) => page.$eval(sel, (c) => {
  const d = c.getContext('2d').getImageData(2, 2, 8, 8).data;
  let sum = 0;
  for (let k = 0; k < d.length; k += 4) sum += (d[k] + d[k + 1] + d[k + 2]) / 3;
  return sum / (d.length / 4);
});

test('light and dark themes follow prefers-color-scheme, charts included', async () => {
  const light = await openSettled(browser, url, { width: 1366, height: 768 }, { colorScheme: 'light' });
  assert.ok(await corner(light, '#chart-stress') > 200, 'light charts are light');
  await light.screenshot({ path: path.join(ART, 'dashboard-light.png') });
  await light.close();
  const dark = await openSettled(browser, url, { width: 1366, height: 768 }, { colorScheme: 'dark' });
  for (const sel of ['#chart-stress', '#chart-map', '#chart-rank']) assert.ok(await corner(dark, sel) < 60, `${sel} is dark`);
  const bg = await dark.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
  assert.match(bg, /rgb\((\d|[1-3]\d), /, `page background ${bg}`);
  await dark.screenshot({ path: path.join(ART, 'dashboard-dark.png') });
  // Switching the system theme redraws the charts.
  await dark.emulateMedia({ colorScheme: 'light' });
  await dark.waitForFunction(() => {
    const d = document.querySelector('#chart-stress').getContext('2d').getImageData(2, 2, 1, 1).data;
    return d[0] > 200;
  });
  await dark.close();
});

test('axe-core: no serious or critical violations on the dashboard, the claims panel and every lecture step', async () => {
  for (const scheme of ['light', 'dark']) {
    const page = await openSettled(browser, url, { width: 1366, height: 768 }, { colorScheme: scheme });
    assert.deepEqual(await axeViolations(page), [], `dashboard (${scheme})`);
    assert.deepEqual(await axeViolations(page, '#claims-panel'), [], `claims panel (${scheme})`);
    await page.close();
  }
  const page = await openSettled(browser, url + '#lecture/1', { width: 1280, height: 720 });
  const steps = await page.$$eval('[data-lecture-step]', (els) => els.length);
  for (let n = 1; n <= steps; n++) {
    if (n > 1) await page.keyboard.press('PageDown');
    await page.waitForFunction((k) => !document.querySelector(`[data-lecture-step="${k}"]`).hidden, n);
    assert.deepEqual(await axeViolations(page, '#lecture'), [], `lecture step ${n}`);
  }
  // Every control is reachable by keyboard: Tab from the top reaches Run.
  await page.keyboard.press('Escape');
  await page.evaluate(() => document.activeElement?.blur());
  let reached = false;
  for (let k = 0; k < 40 && !reached; k++) {
    await page.keyboard.press('Tab');
    reached = await page.evaluate(() => document.activeElement?.id === 'run-button');
  }
  assert.ok(reached, 'Tab reaches Run');
  const ring = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  assert.notEqual(ring, 'none', 'the focused control shows a ring');
  await page.close();
});
