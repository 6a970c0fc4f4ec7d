// End-to-end tests of the lecture view: deep links, keys (a presentation clicker's
// PageUp/PageDown included), one step visible at a time, text and chart text readable at a
// projector's 1280×720, every step's chart drawn and exportable, the corpus switched
// mid-lecture, the rank slider updating live. Screenshots of every step go to test-artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch } from './harness.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SHOTS = path.join(ROOT, 'test-artifacts', 'lecture');
let server, url, browser;

before(async () => {
  ({ server, url } = await serve(path.join(ROOT, 'dist'), '/lecture/'));
  browser = await launch();
  fs.mkdirSync(SHOTS, { recursive: true });
});
after(async () => { await browser?.close(); server?.close(); });

/** Waits until the lecture's status says done (the lecture hides the dashboard's). */
async function lectureDone(page, timeout = 120000) {
  await page.waitForFunction(() => /done/.test(document.querySelector('#status').textContent)
    && document.querySelector('#status').dataset.state === 'done', null, { timeout });
}

/** The visible steps' numbers. */
const visible = (page) => page.$$eval('[data-lecture-step]', (els) =>
  els.filter((e) => !e.hidden && e.offsetParent !== null).map((e) => Number(e.dataset.lectureStep)));

async function projector(hash) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await page.goto(url + hash);
  await lectureDone(page);
  return page;
}

test('deep links open one step; keys and a clicker step through all of them', async () => {
  const page = await projector('#lecture/3');
  assert.deepEqual(await visible(page), [3]);
  assert.equal(await page.isVisible('#results'), false, 'the dashboard is hidden');
  const steps = await page.$$eval('[data-lecture-step]', (els) => els.length);
  assert.ok(steps >= 8, `${steps} steps`);
  for (const [key, want] of [['ArrowRight', 4], ['PageDown', 5], ['Space', 6], ['ArrowLeft', 5], ['PageUp', 4]]) {
    await page.keyboard.press(key);
    assert.deepEqual(await visible(page), [want], `after ${key}`);
    assert.ok((await page.evaluate(() => location.hash)) === `#lecture/${want}`);
  }
  // The page opened at #lecture starts at step 1; Escape goes back to the dashboard.
  await page.goto(url + '#lecture');
  await lectureDone(page);
  assert.deepEqual(await visible(page), [1]);
  await page.keyboard.press('Escape');
  assert.deepEqual(await visible(page), []);
  assert.equal(await page.isVisible('#results'), true);
  await page.close();
});

test('every step is readable at 1280×720: text ≥ 18 px, charts enlarged, drawn, exported', async () => {
  const page = await projector('#lecture/1');
  const steps = await page.$$eval('[data-lecture-step]', (els) => els.length);
  for (let n = 1; n <= steps; n++) {
    if (n > 1) await page.keyboard.press('PageDown');
    await page.waitForFunction((k) => !document.querySelector(`[data-lecture-step="${k}"]`).hidden, n);
    const step = `[data-lecture-step="${n}"]`;
    const info = await page.$eval(step, (s) => {
      const texts = [...s.querySelectorAll('h2, p, td, th, label, button, select')]
        .filter((e) => e.offsetParent !== null && e.textContent.trim() !== '');
      const small = texts.map((e) => [e.tagName, e.textContent.slice(0, 30), parseFloat(getComputedStyle(e).fontSize)])
        .filter((t) => t[2] < 18);
      // A chart with nothing to show yet is hidden (step 14's scatter before any training).
      const canvases = [...s.querySelectorAll('canvas')].filter((c) => c.offsetParent !== null).map((c) => {
        const r = c.getBoundingClientRect();
        // Drawn: some pixel is not transparent.
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let ink = 0;
        for (let k = 3; k < d.length; k += 4 * 97) ink += d[k] > 0 ? 1 : 0;
        // object-fit: contain shows the drawing at the smaller of the two ratios; the chart is
        // laid out at its nominal size (data-width × data-height) and drawn at the pixels shown.
        const [nw, nh] = [Number(c.dataset.width || c.width), Number(c.dataset.height || c.height)];
        const scale = Math.min(r.width / nw, r.height / nh);
        const sharp = c.width >= Math.floor(nw * scale * devicePixelRatio) - 1;
        return { scale, sharp, bottom: r.bottom, right: r.right, ink, kind: c.dataset.chartKind };
      });
      const below = [...s.querySelectorAll('*')].filter((e) => e.offsetParent !== null
        && e.getBoundingClientRect().bottom > innerHeight + 1).map((e) => e.tagName + ' ' + e.textContent.slice(0, 20));
      return { heading: s.querySelector('h2')?.textContent, small, canvases, below };
    });
    assert.ok(info.heading && info.heading.startsWith(`${n}.`), `step ${n} heading ${info.heading}`);
    assert.deepEqual(info.small, [], `step ${n}: text under 18 px`);
    assert.deepEqual(info.below, [], `step ${n}: below the screen`);
    for (const c of info.canvases) {
      // Chart labels are 12 nominal px: shown at ≥ 1.5× they are ≥ 18 px on screen, drawn sharp.
      assert.ok(c.scale >= 1.5, `step ${n} ${c.kind}: chart shown at ${c.scale.toFixed(2)}×`);
      assert.ok(c.sharp, `step ${n} ${c.kind}: drawn at fewer pixels than shown`);
      assert.ok(c.bottom <= 720 + 1 && c.right <= 1280 + 1, `step ${n} ${c.kind} off screen: ${JSON.stringify(c)}`);
      assert.ok(c.ink > 10, `step ${n} ${c.kind} is blank`);
      const [dl] = await Promise.all([
        page.waitForEvent('download'),
        page.click(`${step} button[data-chart="${c.kind}"][data-kind="svg"]`),
      ]);
      const svg = fs.readFileSync(await dl.path(), 'utf8');
      assert.ok(svg.startsWith('<svg') || svg.includes('<svg'), `step ${n} ${c.kind} export`);
    }
    await page.screenshot({ path: path.join(SHOTS, `step-${String(n).padStart(2, '0')}-1280x720.png`) });
  }
  // Step 10's three-point example, computed by the engine (step 11 is the model's layers).
  const last = await page.textContent('[data-lecture-step="10"]');
  assert.match(last, /0\.1667 = 1\/6/);
  assert.match(last, /0\.1111 = 1\/9/);
  await page.close();
});

test('the corpus switches mid-lecture and the rank slider updates the step live', async () => {
  const page = await projector('#lecture/1');
  const before = await page.textContent('[data-lecture-step="1"] table');
  await page.selectOption('#lecture-corpus', 'genesis');
  await page.waitForFunction((b) => document.querySelector('[data-lecture-step="1"] table')?.textContent !== b
    && document.querySelector('#status').dataset.state === 'done', before, { timeout: 120000 });
  const genesis = await page.textContent('[data-lecture-step="1"] table');
  assert.match(genesis, /beginning/, 'Genesis 1:1 is on screen');
  assert.deepEqual(await visible(page), [1], 'still on the same step');
  // Step 8: the slider sets the rank; the text's r and parameter count follow.
  await page.goto(url + '#lecture/8');
  await page.waitForFunction(() => /r = \d+/.test(document.querySelector('[data-lecture-step="8"]')?.textContent ?? ''), null, { timeout: 120000 });
  await page.$eval('#lecture-rank', (r) => { r.value = '2'; r.dispatchEvent(new Event('input', { bubbles: true })); });
  await page.waitForFunction(() => /rank r = 2 is/.test(document.querySelector('[data-lecture-step="8"]')?.textContent ?? ''), null, { timeout: 60000 });
  const text = await page.textContent('[data-lecture-step="8"]');
  const n = Number(/n·d = (\d+)/.exec(text)[1]) / Number(new URL(page.url()).searchParams.get('d') || 768);
  assert.ok(text.includes(`r(n + d) = ${2 * (n + Number(new URL(page.url()).searchParams.get('d') || 768))}`), text);
  assert.equal(await page.$eval('#opt-rank', (e) => e.value), '2', 'the dashboard form follows');
  await page.close();
});

test('step 15 sets English and the proteins side by side once each has run, drawn at 1280×720', async () => {
  const page = await projector('#lecture/15');
  const step = '[data-lecture-step="15"]';
  assert.match(await page.textContent(step), /No run on English yet/);
  for (const corpus of ['genesis', 'proteins']) {
    await page.evaluate(() => { document.querySelector('#status').dataset.state = 'stale'; });
    await page.selectOption('#lecture-corpus', corpus);
    await page.waitForFunction(() => document.querySelector('#status').dataset.state === 'done', null, { timeout: 120000 });
  }
  await page.waitForFunction((s) => !/No run on/.test(document.querySelector(s).textContent), step, { timeout: 60000 });
  const text = await page.textContent(step);
  assert.match(text, /English: the sinusoids' σ\* [0-9.]+ (beats|is no better than) random tables'/);
  assert.match(text, /Proteins: the sinusoids' σ\* [0-9.]+ is no better than random tables'/);
  const canvases = await page.$$eval(`${step} canvas`, (cs) => cs.filter((c) => c.offsetParent !== null).map((c) => {
    const r = c.getBoundingClientRect();
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let ink = 0;
    for (let k = 3; k < d.length; k += 4 * 97) ink += d[k] > 0 ? 1 : 0;
    return { kind: c.dataset.chartKind, bottom: r.bottom, right: r.right, ink,
      scale: Math.min(r.width / Number(c.dataset.width || c.width), r.height / Number(c.dataset.height || c.height)) };
  }));
  assert.deepEqual(canvases.map((c) => c.kind), ['heatmap', 'stress', 'map', 'heatmap', 'stress', 'map']);
  for (const c of canvases) {
    assert.ok(c.ink > 10 && c.bottom <= 721 && c.right <= 1281, JSON.stringify(c));
    assert.ok(c.scale >= 1.5, `${c.kind} shown at ${c.scale.toFixed(2)}×`);
  }
  await page.screenshot({ path: path.join(SHOTS, 'step-15-both-1280x720.png') });
  await page.close();
});
