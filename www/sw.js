// posgeo's service worker: keeps the explorer working offline once it has been loaded.
//
// * install: caches the page, every local file it links (the hashed app, wasm and style
//   files that Trunk writes into index.html) and the Web Worker's three files.
// * fetch (same-origin GET only): network first — a new deployment shows at once — and the
//   cache when the network fails; successful answers refresh the cache. Page URLs match
//   whatever their query string (the explorer keeps its state there).
// Nothing is ever sent anywhere: the worker only answers the page's own requests.
const CACHE = 'posgeo-v1';
const WORKER_FILES = ['worker_loader.js', 'worker.js', 'worker_bg.wasm'];

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    const page = await fetch('./', { cache: 'no-cache' });
    const html = await page.clone().text();
    await cache.put('./', page);
    const linked = [...html.matchAll(/(?:href|src)="(?:\.\/)?([\w.-]+\.(?:js|wasm|css))"/g)].map((m) => m[1]);
    await cache.addAll([...new Set([...linked, ...WORKER_FILES])]);
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) if (key !== CACHE) await caches.delete(key);
    await self.clients.claim();
  })());
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET' || new URL(req.url).origin !== self.location.origin) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    const key = new URL(req.url);
    key.search = '';
    try {
      const res = await fetch(req);
      if (res.ok) await cache.put(req.mode === 'navigate' ? new URL('./', self.location).href : key.href, res.clone());
      return res;
    } catch (err) {
      const hit = req.mode === 'navigate'
        ? await cache.match(new URL('./', self.location).href)
        : await cache.match(key.href);
      if (hit) return hit;
      throw err;
    }
  })());
});
