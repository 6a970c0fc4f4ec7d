// End-to-end tests of the claims panel: the paper's findings checked on the corpus
// on screen, each with the CLI's `--claims` numbers and verdict, a link to its lecture step.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { serve, launch, openSettled, runAfter, cli, BIN, claims, assertSameClaims } from './harness.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
let server, url, browser;

before(async () => {
  ({ server, url } = await serve(path.join(ROOT, 'dist'), '/claims-test/'));
  browser = await launch();
  fs.mkdirSync(path.join(ROOT, 'test-artifacts'), { recursive: true });
});
after(async () => { await browser?.close(); server?.close(); });

test("the claims panel shows the paper's findings with the CLI's numbers, and links to the lecture", async () => {
  const page = await openSettled(browser, url, { width: 1366, height: 768 });
  const synth = execFileSync(BIN, ['synth']);
  const shown = await claims(page);
  assert.equal(shown.length, 10);
  assertSameClaims(shown, cli(['--claims'], synth));
  assert.equal(shown.find((c) => c.key === 'layer_departs').holds, null, 'no model: not applicable');
  await page.locator('#claims-panel').scrollIntoViewIfNeeded();
  await page.locator('#claims-panel').screenshot({ path: path.join(ROOT, 'test-artifacts', 'claims.png') });
  // Another corpus: the panel follows it (Genesis), still the CLI's.
  assert.equal(await runAfter(page, async () => { await page.check('#src-genesis'); await page.click('#run-button'); }), 'done');
  const genesis = fs.readFileSync(path.join(ROOT, 'www/corpora/kjv-genesis.txt'));
  assertSameClaims(await claims(page), cli(['--claims'], genesis));
  // A finding's link opens its lecture step.
  await page.click('#claims li[data-claim="low_rank"] a');
  await page.waitForFunction(() => location.hash === '#lecture/8');
  await page.close();
});
