// Shared helpers of the end-to-end tests and the browser benchmark: a static server for
// dist/ on 127.0.0.1 and a headless Debian Chromium driven by playwright-core.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';

/** The native CLI the page is checked against (POSGEO_BIN, else the debug build). */
export const BIN = process.env.POSGEO_BIN || path.resolve(import.meta.dirname, '../../target/debug/posgeo');

/** `posgeo analyze --json ARGS` on `input`. */
export function cli(args, input) {
  return JSON.parse(execFileSync(BIN, ['analyze', '--json', ...args], { input, maxBuffer: 1 << 28 }));
}

/** The page's stress table ({@link table}) equals the CLI report's numbers (1e-9 relative).
 * A model's layer rows (`layer:ℓ`, `layer-residual:ℓ`) come from f32 forward passes whose
 * matrix kernels differ between wasm and native: they agree to `layerTol` (absolute; docs/MATH.md §14
 * asks 1e-4 of each against an f64 computation). */
export function assertSameNumbers(shown, report, layerTol = 1e-4) {
  assert.deepEqual(Object.keys(shown).sort(), Object.keys(report.encodings).sort());
  for (const [name, cells] of Object.entries(shown)) {
    for (const [metric, v] of Object.entries(cells)) {
      const want = report.encodings[name][metric];
      if (want === null) { assert.equal(v, null, `${name}.${metric}`); continue; }
      const tol = name.startsWith('layer') ? layerTol : 1e-9 * Math.max(1, Math.abs(want));
      assert.ok(Math.abs(v - want) <= tol, `${name}.${metric}: page ${v} vs CLI ${want}`);
    }
  }
}

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.wasm': 'application/wasm', '.css': 'text/css', '.txt': 'text/plain', '.json': 'application/json',
};

/** Serves `root` under the URL prefix `prefix` (to prove sub-path hosting); resolves to the base URL. */
export function serve(root, prefix = '/') {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    if (!url.pathname.startsWith(prefix)) { res.writeHead(404); res.end(); return; }
    let rel = decodeURIComponent(url.pathname.slice(prefix.length)) || 'index.html';
    const file = path.join(root, path.normalize(rel).replace(/^(\.\.[/\\])+/, ''));
    fs.readFile(file, (err, data) => {
      if (err) { res.writeHead(404); res.end(); return; }
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' });
      res.end(data);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    resolve({ server, url: `http://127.0.0.1:${server.address().port}${prefix}` });
  }));
}

/** A headless Chromium. Its pages open every option group at load (the tests reach every
 * control); `browser.newPage({ collapsed: true, … })` keeps the page's own defaults. */
export async function launch() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const expand = () => document.addEventListener('DOMContentLoaded', () => {
    for (const d of document.querySelectorAll('details.group')) d.open = true;
  });
  // (browser.newPage makes its page's context with browser.newContext, options included.)
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async ({ collapsed = false, ...options } = {}) => {
    const context = await newContext(options);
    if (!collapsed) await context.addInitScript(expand);
    return context;
  };
  return browser;
}

/** axe-core's serious and critical violations on `page` (within `include`, a selector). */
export async function axeViolations(page, include = 'body') {
  await page.addScriptTag({ path: path.resolve(import.meta.dirname, '../../node_modules/axe-core/axe.min.js') });
  const found = await page.evaluate(async (sel) => {
    const r = await window.axe.run(document.querySelector(sel), { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  }, include);
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Waits until #status says done or error (for the run started after `since` runs). */
export async function settle(page, timeout = 120000) {
  await page.waitForFunction(() => {
    const s = document.querySelector('#status').dataset.state;
    return s === 'done' || s === 'error';
  }, null, { timeout });
  return page.$eval('#status', (s) => s.dataset.state);
}

/** The stress table as { encoding: { metric: number|null } }. */
export async function table(page) {
  return page.$$eval('#stress-table tbody tr', (rows) => Object.fromEntries(rows.map((r) => [
    r.dataset.encoding,
    Object.fromEntries([...r.querySelectorAll('td[data-metric]')].map((td) => [
      td.dataset.metric, td.dataset.value === 'null' ? null : Number(td.dataset.value)])),
  ])));
}

/** A new page of `browser` at `url` (`viewport` in CSS px), once its first run is done. */
export async function openSettled(browser, url, viewport = { width: 1280, height: 900 }, options = {}) {
  const page = await browser.newPage({ viewport, ...options });
  await page.goto(url);
  assert.equal(await settle(page), 'done');
  return page;
}

/** Waits for the next finished run after `action` (the state is marked stale first). */
export async function runAfter(page, action, timeout = 180000) {
  await page.evaluate(() => { document.querySelector('#status').dataset.state = 'stale'; });
  await action();
  return settle(page, timeout);
}

/** The claims panel as [{ key, holds: true|false|null, values, step }] (`#claims li`). */
export async function claims(page) {
  return page.$$eval('#claims li[data-claim]', (items) => items.map((li) => ({
    key: li.dataset.claim,
    holds: { true: true, false: false, na: null }[li.dataset.holds],
    values: JSON.parse(li.dataset.values),
    step: Number(li.querySelector('a').getAttribute('href').split('/')[1]),
  })));
}

/** The panel ({@link claims}) shows the CLI's `--claims` findings, number for number (layer
 * values to `layerTol`, as {@link assertSameNumbers}). */
export function assertSameClaims(shown, report, layerTol = 1e-4) {
  assert.deepEqual(shown.map((c) => c.key), report.claims.map((c) => c.key));
  for (const [k, c] of report.claims.entries()) {
    const s = shown[k];
    assert.equal(s.step, c.step, c.key);
    assert.deepEqual(Object.keys(s.values).sort(), Object.keys(c.values).sort(), c.key);
    for (const [field, want] of Object.entries(c.values)) {
      const tol = field.startsWith('layer') ? layerTol : 1e-9 * Math.max(1, Math.abs(want));
      assert.ok(Math.abs(s.values[field] - want) <= tol, `${c.key} ${field}: page ${s.values[field]} vs CLI ${want}`);
    }
    if (!Object.keys(c.values).some((f) => f.startsWith('layer'))) assert.equal(s.holds, c.holds, c.key);
  }
}
