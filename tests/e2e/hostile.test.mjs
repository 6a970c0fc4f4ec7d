// End-to-end tests of hostile input: the page survives its worker dying, strings
// from files are never markup, and lying files get messages naming their defect.
// The fault tests mark the page `data-faults="1"`: its worker then traps on a corpus starting
// with `#posgeo:trap` (crates/web/src/worker.rs), and the page's post of a corpus starting with
// `#posgeo:unpostable` carries a value no worker can receive and one starting with
// `#posgeo:malformed` a request cut short (crates/web/src/dom/bridge.rs);
// a large upload starting with `#posgeo:helper-hang` or `#posgeo:helper-trap` makes the helper
// that counts its start spin or trap (crates/web/src/courier.rs), with a 3 s silence limit.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve, launch, settle, table, cli, assertSameNumbers } from './harness.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
let site, browser;

before(async () => {
  site = await serve(path.join(ROOT, 'dist'), '/hostile/');
  browser = await launch();
});
after(async () => { await browser?.close(); site?.server.close(); });

async function open(base) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  await page.goto(base);
  assert.equal(await settle(page), 'done');
  return page;
}

async function paste(page, text) {
  // One input event, as a real paste does (Playwright's fill is slow on big texts).
  await page.$eval('#corpus-input', (t, v) => { t.value = v; t.dispatchEvent(new Event('input')); }, text);
}

const CORPUS = Array.from({ length: 40 }, (_, k) => `a${k % 3} b${k % 5} c${k % 2} d${k % 7}`).join('\n');

/** A corpus starting with `marker` (a fault the page or worker injects) fails the run with a
 * message matching `says`; the last good results stay, and the next run works. */
async function faultNamed(marker, says) {
  const page = await open(site.url);
  await page.evaluate(() => { document.documentElement.dataset.faults = '1'; });
  const before = await table(page);
  await paste(page, `${marker}\n${CORPUS}`);
  await page.click('#run-button');
  assert.equal(await settle(page), 'error');
  const error = await page.$eval('#error', (e) => e.textContent);
  assert.match(error, says, error);
  assert.deepEqual(await table(page), before, 'the last good results stay');
  await paste(page, CORPUS);
  await page.click('#run-button');
  assert.equal(await settle(page), 'done', 'the next run works (on a fresh worker after a death)');
  assert.notDeepEqual(await table(page), before);
  await page.close();
}

test('the page survives its worker dying: a message, the results kept, a fresh worker', () =>
  faultNamed('#posgeo:trap', /the computation failed .*Earlier results are kept/));

test('a post to the worker that fails says so, naming the run, and the next run works', () =>
  faultNamed('#posgeo:unpostable', /the page could not send run \d+ to its worker \(DataCloneError: /));

test('a request the worker cannot read is named by its run, the results stay, and the next run works', () =>
  faultNamed('#posgeo:malformed', /the worker could not read run \d+'s request \(/));

const WORDS = ['the', 'cat', 'Dog', 'sat', 'on', 'a', 'mat', 'ran', 'far', 'away', 'naïve'];
const big = (lines) => Array.from({ length: lines }, (_, k) => {
  const len = 3 + ((k * 7) % 17);
  return Array.from({ length: len }, (_, i) => WORDS[(k * 3 + i * i + 5 * i) % WORDS.length]).join(' ');
}).join('\n') + '\n';

for (const [fault, says] of [['hang', /a helper gave no sign of life for 3 s and was ended/], ['trap', /a helper stopped on an error/]]) {
  test(`a helper that ${fault}s while counting is named, its part counted again, and the next run uses new helpers`, async (t) => {
    const page = await open(site.url);
    if (await page.evaluate(() => navigator.hardwareConcurrency) < 2) return t.skip('one core: no helpers');
    await page.evaluate(() => { document.documentElement.dataset.faults = '1'; });
    const text = `#posgeo:helper-${fault}\n` + big(360000); // about 18 MB: counted by helpers
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'posgeo-fault-')), 'big.txt');
    fs.writeFileSync(file, text);
    await page.setInputFiles('#file-input', file);
    await page.waitForFunction(() => document.querySelector('#file-info').textContent.includes('big.txt'));
    await page.click('#run-button');
    assert.equal(await settle(page), 'done', await page.$eval('#error', (e) => e.textContent));
    const estimate = await page.textContent('#estimate');
    assert.match(estimate, /done here after helper workers failed: counting in helpers: /, estimate);
    assert.match(estimate, says, estimate);
    const want = cli([], Buffer.from(text));
    assertSameNumbers(await table(page), want);
    // The failed helpers were ended; the next run (without the fault) counts with new ones.
    await page.evaluate(() => { delete document.documentElement.dataset.faults; });
    await page.selectOption('#opt-mode', 'pad');
    await page.click('#run-button');
    assert.equal(await settle(page), 'done', await page.$eval('#error', (e) => e.textContent));
    const again = await page.textContent('#estimate');
    assert.doesNotMatch(again, /helper workers failed/, again);
    assert.match(again, /counted by \d+ workers/, again);
    assertSameNumbers(await table(page), cli(['--mode', 'pad'], Buffer.from(text)));
    await page.close();
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });
}

test('tokens from files are text, never markup, in every read-out and export', async () => {
  const page = await open(site.url);
  await page.evaluate(() => { window.__pwned = 0; });
  const evil = '<img src=x onerror="window.__pwned=1">';
  const lines = Array.from({ length: 30 }, (_, k) => `${evil} <b>bold</b> w${k % 4} x${k % 3}`);
  await paste(page, lines.join('\n'));
  await page.selectOption('#opt-tokenizer', 'whitespace');
  await page.click('#run-button');
  assert.equal(await settle(page), 'done');
  await page.$eval('#chart-heatmap', (c) => c.scrollIntoView());
  const box = await page.$eval('#chart-heatmap', (c) => { const r = c.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; });
  let tokens = '';
  const markup = (t) => t.includes('<img') || t.includes('<b>bold</b>');
  for (let f = 0.15; f < 0.95 && !markup(tokens); f += 0.05) {
    await page.mouse.move(box.x + box.w * 0.4, box.y + box.h * f);
    tokens = await page.$eval('#position-tokens', (e) => e.textContent);
  }
  assert.ok(tokens.includes('<img') || tokens.includes('<b>bold</b>'), tokens);
  assert.equal(await page.$$eval('main img, main b', (es) => es.length), 0, 'no element was made from a token');
  assert.equal(await page.evaluate(() => window.__pwned), 0);
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
  const report = JSON.parse(fs.readFileSync(await dl.path(), 'utf8'));
  const all = report.top_tokens.flat().map(([t]) => t);
  assert.ok(all.includes('<img') && all.includes('<b>bold</b>'), 'the export carries the tokens as strings');
  await page.close();
});

test('lying files: the message names the defect, the results stay', async () => {
  const page = await open(site.url);
  const before = await table(page);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'posgeo-hostile-'));
  // An .npy header that promises 10^13 float64 values.
  let h = "{'descr': '<f8', 'fortran_order': False, 'shape': (10000000000000, 1), }";
  h += ' '.repeat(63 - ((10 + h.length) % 64)) + '\n';
  const len = Buffer.alloc(2);
  len.writeUInt16LE(h.length);
  const npy = path.join(dir, 'huge.npy');
  fs.writeFileSync(npy, Buffer.concat([Buffer.from([0x93]), Buffer.from('NUMPY'), Buffer.from([1, 0]), len, Buffer.from(h), Buffer.alloc(64)]));
  await page.setInputFiles('#learned-input', npy);
  await page.waitForFunction(() => document.querySelector('#learned-info').textContent.includes('huge.npy —'));
  await page.check('#src-synthetic');
  await page.click('#run-button');
  assert.equal(await settle(page), 'error');
  assert.match(await page.$eval('#error', (e) => e.textContent), /declares 10000000000000×1 float64 values \(80\.0 TB\), but the file holds 64 bytes/);
  assert.deepEqual(await table(page), before);
  await page.click('#learned-clear');
  // A CSV whose quote never closes.
  const csv = path.join(dir, 'quote.csv');
  fs.writeFileSync(csv, 'id,text\n1,a b\n2,"c d\n3,e f\n4,g h\n');
  await page.setInputFiles('#file-input', csv);
  await page.waitForFunction(() => document.querySelector('#file-info').textContent.includes('quote.csv —'));
  await page.click('#run-button');
  assert.equal(await settle(page), 'error');
  assert.match(await page.$eval('#error', (e) => e.textContent), /line 3: a quoted field opens here and is never closed/);
  assert.deepEqual(await table(page), before);
  await page.close();
});
