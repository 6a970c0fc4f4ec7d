import path from 'node:path';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { serve, launch, settle } from '../tests/e2e/harness.mjs';
import { markWorkerStages } from './marks.mjs';
const ROOT = path.resolve(import.meta.dirname, '..');
const N = 4096;
const { server, url } = await serve(path.resolve(ROOT, process.env.DIST || 'dist'), '/');
const browser = await launch();
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
await page.addInitScript(markWorkerStages);
const pids = () => execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' }).split('\n')
  .filter((l) => /chrom/.test(l) && /--type=renderer/.test(l)).map((l) => Number(l.trim().split(/\s+/)[0]));
const sample = () => {
  let priv = 0, rss = 0;
  for (const p of pids()) {
    try {
      const t = fs.readFileSync(`/proc/${p}/smaps_rollup`, 'utf8');
      const g = (k) => Number((t.match(new RegExp(`^${k}:\\s+(\\d+)`, 'm')) || [0, 0])[1]);
      priv += g('Private_Clean') + g('Private_Dirty'); rss += g('Rss');
    } catch {}
  }
  return { priv: priv / 1024, rss: rss / 1024 };
};
const samples = [];
const t0 = Date.now();
const sampler = setInterval(async () => {
  const s = sample();
  let stage = '';
  try { stage = await page.evaluate(() => (window.__stages.at(-1) || {}).key || ''); } catch {}
  samples.push({ t: (Date.now() - t0) / 1000, stage, ...s });
}, 300);
await page.goto(`${url}?corpus=synthetic&V=2000&n=${N}&K=8&s=200&seqs=1000&max_len=${N}`);
await settle(page, 1800000);
const secs = (Date.now() - t0) / 1000;
clearInterval(sampler);
const by = {};
for (const s of samples) { const b = by[s.stage] ||= { priv: 0, rss: 0, n: 0 }; b.priv = Math.max(b.priv, s.priv); b.rss = Math.max(b.rss, s.rss); b.n++; }
const peak = samples.reduce((m, s) => Math.max(m, s.priv), 0), peakRss = samples.reduce((m, s) => Math.max(m, s.rss), 0);
console.log(process.env.DIST || 'dist', 'secs', secs.toFixed(1), 'peak private', peak.toFixed(0), 'rss', peakRss.toFixed(0));
console.log(Object.entries(by).map(([k, v]) => `${k}:${v.priv.toFixed(0)}(${v.n})`).join(' '));
fs.writeFileSync('/tmp/scratch/samples-' + path.basename(process.env.DIST || 'dist') + '.json', JSON.stringify(samples));
await browser.close(); server.close();
