import path from 'node:path';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { serve, launch, settle } from '../tests/e2e/harness.mjs';
const ROOT = path.resolve(import.meta.dirname, '..');
const { server, url } = await serve(path.resolve(ROOT, process.env.DIST || 'dist'), '/');
const browser = await launch();
const pids = () => execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' }).split('\n')
  .filter((l) => /chrom/.test(l) && /--type=renderer/.test(l)).map((l) => Number(l.trim().split(/\s+/)[0]));
const priv = () => pids().reduce((sum, p) => { try { const t = fs.readFileSync(`/proc/${p}/smaps_rollup`, 'utf8');
  const g = (k) => Number((t.match(new RegExp(`^${k}:\\s+(\\d+)`, 'm')) || [0, 0])[1]); return sum + g('Private_Clean') + g('Private_Dirty'); } catch { return sum; } }, 0) / 1024;
const page = await browser.newPage();
await page.goto(url); await settle(page); await page.waitForTimeout(4000);
console.log(process.env.DIST || 'dist', 'idle private MB', priv().toFixed(0));
await browser.close(); server.close();
