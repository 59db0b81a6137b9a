// A lean contrast pass of our own (bench/act/lean-contrast.js) against axe-core's `color-contrast`
// rule, on the same pages in one Chromium: what each costs and where their verdicts differ.
//
//   node --experimental-websocket bench/act/contrast.mjs [--bench BIN] [--pages 60] [--act-rules DIR]
//   make bench-contrast
//
// Pages: the W3C ACT cases of "Text has minimum contrast" (afw4f7), served from ../shared/act-rules/;
// our own edge cases (bench/act/contrast-edges/: where a hit test and axe's grid may part); and both bench sites (the generated site and the template-heavy one, `sitescan-bench serve-site`).
// On each page, loaded at 1350x940 like a scan: the lean pass, then axe-core injected and run twice
// with one rule each, `document-title` (what any run costs: the flattened tree, the caches) and
// `color-contrast`; the rule's cost is the difference. Every element either judged is compared:
// axe's verdict (passes, violations, incomplete) against the lean one, and for a failure the ratio
// and the two colours as axe words them. The lean pass answers `fallback` where it models too little
// (a hybrid would hand those elements to axe). For the ACT cases, also the rule's outcome per case:
// a failed case needs a failure, a passed or inapplicable one none.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { arg, here, root, targetDir } from './cli.mjs';

const opts = {
  actRules: path.resolve(arg('act-rules', path.join(root, '..', 'shared', 'act-rules'))),
  bench: arg('bench', path.join(targetDir, 'release', 'sitescan-bench')),
  chromium: arg('chromium', process.env.SITESCAN_CHROMIUM || (fs.existsSync('/usr/bin/chromium-headless-shell') ? '/usr/bin/chromium-headless-shell' : '/usr/bin/chromium')),
  pages: Number(arg('pages', '60')),
  out: arg('out', path.join(root, 'bench', `contrast-results-${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, 'Z')}.json`)),
};
const lean = fs.readFileSync(path.join(here, 'lean-contrast.js'), 'utf8');
const axeSource = fs.readFileSync(path.join(root, 'browser/node_modules/axe-core/axe.min.js'), 'utf8');
const children = [];
// Each child leads its own process group: Debian's /usr/bin/chromium* are shell scripts that do
// not exec, so killing the script alone would leave the browser running.
const stop = () => { for (const c of children) { try { process.kill(-c.pid, 'SIGKILL'); } catch { c.kill(); } } };
process.on('exit', stop);

// --- pages ------------------------------------------------------------------------------------
const BASE = '/WAI/content-assets/wcag-act-rules/';
const cases = JSON.parse(fs.readFileSync(path.join(opts.actRules, BASE, 'testcases.json'), 'utf8')).testcases
  .filter((t) => t.approved && t.ruleId === 'afw4f7');
const EDGES = path.join(here, 'contrast-edges');
const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x').pathname;
  const [dir, rest] = url.startsWith('/edges/') ? [EDGES, url.slice('/edges'.length)] : [opts.actRules, url];
  const file = path.join(dir, decodeURIComponent(rest));
  if (!file.startsWith(dir + path.sep)) { res.writeHead(403); res.end(); return; }
  fs.readFile(file, (err, body) => {
    if (err) { res.writeHead(404); res.end(); return; }
    const type = { html: 'text/html; charset=utf-8', css: 'text/css', png: 'image/png', jpg: 'image/jpeg', svg: 'image/svg+xml', woff: 'font/woff', woff2: 'font/woff2' }[path.extname(file).slice(1)];
    res.writeHead(200, { 'content-type': type || 'application/octet-stream' });
    res.end(body);
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const actOrigin = `http://127.0.0.1:${server.address().port}`;
const serveSite = (template) => new Promise((resolve, reject) => {
  const child = spawn(opts.bench, ['serve-site', '--pages', String(opts.pages), ...(template ? ['--template'] : [])], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  children.push(child);
  child.on('error', reject);
  child.stdout.once('data', (d) => resolve(String(d).trim()));
});
// The site's pages, breadth first from its start page (the same origin only).
const crawl = async (start) => {
  const seen = new Set([start]);
  const queue = [start];
  for (let i = 0; i < queue.length && seen.size < opts.pages; i++) {
    const html = await (await fetch(queue[i])).text();
    for (const m of html.matchAll(/href="(\/[^"#]*)"/g)) {
      const u = new URL(m[1], start).href;
      if (seen.size >= opts.pages || seen.has(u) || /\.(css|png|jpg|js|xml|txt|ico)$/.test(u)) continue;
      seen.add(u);
      queue.push(u);
    }
  }
  return [...seen];
};
const sources = [
  { name: 'ACT afw4f7', urls: cases.map((t) => `${actOrigin}${BASE}${t.relativePath}`) },
  { name: 'edge cases', urls: fs.readdirSync(EDGES).filter((f) => f.endsWith('.html')).sort().map((f) => `${actOrigin}/edges/${f}`) },
  { name: 'bench site', urls: await crawl(await serveSite(false)) },
  { name: 'template site', urls: await crawl(await serveSite(true)) },
];

// --- Chromium over CDP ------------------------------------------------------------------------
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'sitescan-contrast-'));
const chrome = spawn(opts.chromium, ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--mute-audio', '--hide-scrollbars',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1', '--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank'], { stdio: 'ignore', detached: true });
children.push(chrome);
let port;
for (let i = 0; i < 200 && !port; i++) {
  await new Promise((r) => setTimeout(r, 100));
  try { port = fs.readFileSync(path.join(profile, 'DevToolsActivePort'), 'utf8').split('\n')[0]; } catch { /* not yet */ }
}
const ws = new WebSocket((await (await fetch(`http://127.0.0.1:${port}/json/version`)).json()).webSocketDebuggerUrl);
await new Promise((r, j) => { ws.onopen = r; ws.onerror = j; });
let id = 0;
const pending = new Map();
let onLoad = null;
ws.onmessage = (m) => {
  const d = JSON.parse(m.data);
  if (d.id && pending.has(d.id)) { pending.get(d.id)(d); pending.delete(d.id); } else if (d.method === 'Page.loadEventFired' && onLoad) onLoad();
};
const send = (method, params = {}, sessionId) => new Promise((r) => { const i = ++id; pending.set(i, r); ws.send(JSON.stringify({ id: i, method, params, sessionId })); });
const evaluate = async (sessionId, expression) => {
  const r = await send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true, timeout: 60000 }, sessionId);
  if (r.error || r.result.exceptionDetails) throw new Error(JSON.stringify(r.error || r.result.exceptionDetails).slice(0, 500));
  return r.result.result.value;
};
const { result: { targetId } } = await send('Target.createTarget', { url: 'about:blank' });
const { result: { sessionId } } = await send('Target.attachToTarget', { targetId, flatten: true });
await send('Page.enable', {}, sessionId);
await send('Emulation.setDeviceMetricsOverride', { width: 1350, height: 940, deviceScaleFactor: 1, mobile: false }, sessionId);

// In the page, after both: axe's verdict of every element it judged beside the lean one.
const COMPARE = `(() => {
  const axeRun = window.__axeContrast;
  const byEl = new Map();
  const put = (kind) => (axeRun[kind] || []).filter((x) => x.id === 'color-contrast').forEach((x) => x.nodes.forEach((n) => {
    const d = ((n.any || [])[0] || {}).data || {};
    byEl.set(n.element, { verdict: kind === 'passes' ? 'pass' : kind === 'violations' ? 'fail' : 'review', reason: d.messageKey || null, ratio: d.contrastRatio, fg: d.fgColor, bg: d.bgColor, target: n.target.join(' ') });
  }));
  ['passes', 'violations', 'incomplete'].forEach(put);
  const rows = [];
  const seen = new Set();
  for (const l of window.__leanContrast) {
    seen.add(l.el);
    const a = byEl.get(l.el) || null;
    rows.push({ axe: a && a.verdict, axeReason: a && a.reason, lean: l.verdict, leanReason: l.reason || null,
      // A pass is a pass (axe's data on a hidden element differs); a review needs the same reason;
      // a failure the same ratio and colours.
      same: !!a && a.verdict === l.verdict && (a.verdict !== 'review' || a.reason === l.reason)
        && (a.verdict !== 'fail' || (a.ratio === l.ratio && a.fg === l.fg && a.bg === l.bg)),
      axeData: a && a.verdict !== 'pass' ? [a.ratio, a.fg, a.bg] : null, leanData: l.verdict !== 'pass' ? [l.ratio, l.fg, l.bg] : null,
      where: a ? a.target : (l.el.id ? '#' + l.el.id : l.el.localName) });
  }
  for (const [el, a] of byEl) if (!seen.has(el)) rows.push({ axe: a.verdict, axeReason: a.reason, lean: null, same: false, where: a.target });
  return rows;
})()`;

const totals = [];
for (const source of sources) {
  const t = { name: source.name, pages: 0, errors: 0, leanMs: 0, axeBaseMs: 0, axeContrastMs: 0, rows: [], cases: [] };
  for (const url of source.urls) {
    try {
      const loaded = new Promise((r) => { onLoad = r; setTimeout(r, 15000); });
      await send('Page.navigate', { url }, sessionId);
      await loaded;
      await new Promise((r) => setTimeout(r, 300));
      const l = await evaluate(sessionId, lean);
      await evaluate(sessionId, `(function (define, module, exports) {${axeSource}\n}).call(window); 1`);
      const run = (rule) => evaluate(sessionId, `(async () => { const t = performance.now(); window.__axeContrast = await axe.run(document, { runOnly: { type: 'rule', values: ['${rule}'] }, elementRef: true, iframes: false }); return performance.now() - t; })()`);
      const base = await run('document-title');
      const full = await run('color-contrast');
      const rows = await evaluate(sessionId, COMPARE);
      t.pages++;
      t.leanMs += l.ms;
      t.axeBaseMs += base;
      t.axeContrastMs += full - base;
      for (const r of rows) t.rows.push({ ...r, url });
      if (source.name.startsWith('ACT')) {
        const c = cases.find((x) => url.endsWith(x.relativePath));
        t.cases.push({ id: c.testcaseId, title: c.testcaseTitle, expected: c.expected, axe: rows.some((r) => r.axe === 'fail'), lean: rows.some((r) => r.lean === 'fail') });
      }
    } catch (e) {
      t.errors++;
      console.log(`contrast: ${url}: ${e.message}`);
    }
  }
  totals.push(t);
}
ws.close();
server.close();
stop();

// --- report -----------------------------------------------------------------------------------
const count = (rows, f) => rows.filter(f).length;
console.log('\nLean contrast pass against axe-core color-contrast (elements judged by either)');
console.log('source          pages  elements  same  differ  fallback  axe fails  lean same fail  lean ms/page  axe rule ms/page');
for (const t of totals) {
  const judged = t.rows.filter((r) => r.lean !== 'fallback');
  console.log(`${t.name.padEnd(15)} ${String(t.pages).padStart(5)} ${String(t.rows.length).padStart(9)} ${String(count(judged, (r) => r.same)).padStart(5)} ${String(count(judged, (r) => !r.same)).padStart(7)} ${String(count(t.rows, (r) => r.lean === 'fallback')).padStart(9)} ${String(count(t.rows, (r) => r.axe === 'fail')).padStart(10)} ${String(count(t.rows, (r) => r.axe === 'fail' && r.same)).padStart(15)} ${(t.leanMs / Math.max(1, t.pages)).toFixed(1).padStart(13)} ${(t.axeContrastMs / Math.max(1, t.pages)).toFixed(1).padStart(17)}`);
}
for (const t of totals) {
  const kinds = new Map();
  for (const r of t.rows.filter((x) => !x.same && x.lean !== 'fallback')) {
    const k = `axe ${r.axe || 'not judged'}${r.axeReason ? ' (' + r.axeReason + ')' : ''} -> lean ${r.lean || 'not judged'}${r.leanReason ? ' (' + r.leanReason + ')' : ''}`;
    kinds.set(k, (kinds.get(k) || 0) + 1);
  }
  if (kinds.size) console.log(`\n${t.name}: differences\n` + [...kinds].sort((a, b) => b[1] - a[1]).map(([k, n]) => `  ${String(n).padStart(5)}  ${k}`).join('\n'));
  const fb = new Map();
  for (const r of t.rows.filter((x) => x.lean === 'fallback')) fb.set(r.leanReason, (fb.get(r.leanReason) || 0) + 1);
  if (fb.size) console.log(`${t.name}: fallbacks ` + [...fb].map(([k, n]) => `${k} ${n}`).join(', '));
  if (t.cases.length) {
    const ok = (c, who) => (c.expected === 'failed') === c[who];
    console.log(`${t.name}: cases where the rule's outcome matches the expected one: axe ${t.cases.filter((c) => ok(c, 'axe')).length}/${t.cases.length}, lean ${t.cases.filter((c) => ok(c, 'lean')).length}/${t.cases.length}`);
  }
}
fs.writeFileSync(opts.out, JSON.stringify({ at: new Date().toISOString(), chromium: opts.chromium, totals }, null, 1));
console.log(`\nresults written to ${opts.out}`);
process.exit(0);
