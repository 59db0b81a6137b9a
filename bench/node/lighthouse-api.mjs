// Lighthouse through its Node API, reusing one Chrome for every page (the fastest way to run
// it over many pages). Usage:
//   node lighthouse-api.mjs [--fidelity] [--runs N] URL...
// Default: Lighthouse's default config (every category, mobile, simulated throttling).
// --fidelity: the desktop preset (1350x940, like sitescan), `throttlingMethod: provided`,
// performance only, N runs per page. Prints one JSON object on stdout.
import lighthouse from 'lighthouse';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';
import * as chromeLauncher from 'chrome-launcher';

const args = process.argv.slice(2);
const fidelity = args.includes('--fidelity');
const runsAt = args.indexOf('--runs');
const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 1;
const urls = args.filter((a, i) => !a.startsWith('--') && !(runsAt >= 0 && i === runsAt + 1));

const t0 = performance.now();
const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROME_PATH,
  chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
const launchMs = performance.now() - t0;
const pages = [];
for (const url of urls) {
  for (let r = 0; r < runs; r++) {
    const t = performance.now();
    const flags = { port: chrome.port, output: 'json', logLevel: 'error' };
    let config;
    if (fidelity) {
      flags.throttlingMethod = 'provided';
      flags.onlyCategories = ['performance'];
      config = desktopConfig;
    }
    let entry;
    try {
      const result = await lighthouse(url, flags, config);
      const lhr = result.lhr;
      const m = lhr.audits.metrics?.details?.items?.[0] ?? {};
      entry = {
        url,
        run: r,
        ms: performance.now() - t,
        runtime_error: lhr.runtimeError?.code ?? null,
        warnings: lhr.runWarnings,
        scores: Object.fromEntries(Object.entries(lhr.categories).map(([k, v]) => [k, v.score])),
        audits: Object.keys(lhr.audits).length,
        metrics: {
          ttfb_ms: m.timeToFirstByte ?? null,
          fcp_ms: m.observedFirstContentfulPaint ?? null,
          lcp_ms: m.observedLargestContentfulPaint ?? null,
          cls: m.observedCumulativeLayoutShift ?? null,
          tbt_ms: m.totalBlockingTime ?? null,
        },
      };
    } catch (e) {
      entry = { url, run: r, ms: performance.now() - t, error: String(e && e.message || e) };
    }
    pages.push(entry);
  }
}
await chrome.kill();
process.stdout.write(JSON.stringify({ launch_ms: launchMs, total_ms: performance.now() - t0, pages }) + '\n');
