// The mesh page in Chromium (Debian's), as an operator opens it: the page
// shown (its HTML parsed: the counts and the chooser are there), the
// picture loaded (the load event: the picture is the page's one image)
// and drawn (the next animation frame after it). Prints the medians of
// RUNS fresh loads, from the navigation's start.
//
// Usage: node end2end/bench/mesh_paint.mjs BASE_URL SESSION_COOKIE [RUNS]
// (run by `cargo bench -p server --bench panel_ssr`, which starts the panel).
import { chromium } from '@playwright/test';

const [base, cookie, runs = '10'] = process.argv.slice(2);
if (!base || !cookie) {
  console.error('usage: mesh_paint.mjs BASE_URL SESSION_COOKIE [RUNS]');
  process.exit(2);
}
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
});
const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
const [name, ...value] = cookie.split('=');
await context.addCookies([{ name, value: value.join('='), url: base }]);
const samples = [];
for (let i = 0; i < Number(runs); i++) {
  // A fresh page each time, the picture not cached.
  const page = await context.newPage();
  await page.route('**/*', (route) => route.continue({ headers: { ...route.request().headers(), 'cache-control': 'no-cache' } }));
  await page.goto(`${base}/mesh`, { waitUntil: 'load' });
  samples.push(await page.evaluate(async () => {
    await new Promise((done) => requestAnimationFrame(done));
    const drawn = performance.now();
    const nav = performance.getEntriesByType('navigation')[0];
    return { shown: nav.domContentLoadedEventEnd, loaded: nav.loadEventStart, drawn };
  }));
  await page.close();
}
await browser.close();
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const figure = (key) => median(samples.map((s) => s[key])).toFixed(0);
console.log(
  `  mesh page in Chromium (median of ${samples.length} loads): page shown ${figure('shown')} ms, ` +
  `picture loaded ${figure('loaded')} ms, drawn ${figure('drawn')} ms`,
);
