// pa11y (default runner, HTML_CodeSniffer) over the given pages with one shared browser and
// CONCURRENCY pages at once. Usage: node pa11y-run.mjs CONCURRENCY URL...
// Prints one JSON object on stdout.
import pa11y from 'pa11y';
import puppeteer from 'puppeteer';

const [concurrencyArg, ...urls] = process.argv.slice(2);
const concurrency = Math.max(1, Number(concurrencyArg) || 1);
const t0 = performance.now();
const browser = await puppeteer.launch({
  executablePath: process.env.CHROME_PATH,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
const launchMs = performance.now() - t0;
const pages = [];
let next = 0;
async function worker() {
  while (next < urls.length) {
    const url = urls[next++];
    const t = performance.now();
    try {
      const r = await pa11y(url, { browser, timeout: 60000 });
      pages.push({ url, ms: performance.now() - t, issues: r.issues.length });
    } catch (e) {
      pages.push({ url, ms: performance.now() - t, error: String(e && e.message || e) });
    }
  }
}
await Promise.all(Array.from({ length: concurrency }, worker));
await browser.close();
process.stdout.write(JSON.stringify({ launch_ms: launchMs, total_ms: performance.now() - t0, concurrency, pages }) + '\n');
