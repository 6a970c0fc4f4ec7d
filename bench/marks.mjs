// What the browser benchmarks share: the worker's stage marks and the renderer's memory.
import { execFileSync } from 'node:child_process';

/** An init script (page.addInitScript): every Worker the page starts pushes
 * `{ key, t }` onto `window.__stages` when its messages change stage (`key`: the progress
 * message's stage, else its type; "done" for the binary results). */
export function markWorkerStages() {
  window.__stages = [];
  const Base = window.Worker;
  window.Worker = class extends Base {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => {
        const key = typeof e.data === 'string' ? (JSON.parse(e.data).stage ?? JSON.parse(e.data).type) : 'done';
        const last = window.__stages[window.__stages.length - 1];
        if (!last || last.key !== key) window.__stages.push({ key, t: performance.now(), tLast: performance.now() });
        else last.tLast = performance.now();
      });
    }
  };
}

/** Resident bytes of Chromium's renderer processes (a tab, its workers and helpers run there). */
export function rendererRss() {
  const out = execFileSync('ps', ['-eo', 'rss,args'], { encoding: 'utf8' });
  return out.split('\n').filter((l) => /chrom/.test(l) && /--type=renderer/.test(l))
    .reduce((sum, l) => sum + Number(l.trim().split(/\s+/)[0]), 0) * 1024;
}
