// The W3C ACT rules benchmark: sitescan and axe-core on the ACT rules' test cases, in one run.
//
//   node --experimental-websocket bench/act/act.mjs [--sitescan BIN] [--rules id,id] [--act-rules DIR]
//   make bench-act                                     # the same, with the release build
//
// Reads the approved test cases from ../shared/act-rules/ (an export of w3c/wcag-act-rules; see its
// README: it is read in place, never copied into the project), serves that folder on 127.0.0.1
// (so the cases' /WAI/... URLs resolve; Chromium may reach no other host), then:
// - sitescan: one `sitescan scan` of an index page that links every case (depth 1), findings
//   mapped to ACT rules by the catalogue's `act_ids` (`sitescan checks --format json`); for a
//   binary that predates `act_ids`, by axe's own `actIds` for `accessibility.<axe-rule>` plus our
//   three own checks (focus-not-visible oj04fd, keyboard-trap 80af7b, zoom-disabled b4f0c3);
// - axe-core: the same Chromium, each case in its own tab, the embedded axe-core's default
//   `axe.run(document)` (frames left out, as sitescan runs it), violations mapped by axe's `actIds`.
// Per rule and tool, judged strictly as the ACT implementation reports do: `consistent` when every
// failed case fails and no passed or inapplicable case does; `partial` when some failed cases fail
// and no other case does; `inconsistent` when a passed or inapplicable case fails or no failed case
// does; `untested` when the tool maps nothing to the rule. Prints a table and the totals, and writes
// bench/act-results-<timestamp>.json (with every case's outcome).
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { arg, root, targetDir } from './cli.mjs';

const defaultBin = ['release', 'debug'].map((p) => path.join(targetDir, p, 'sitescan')).find((p) => fs.existsSync(p));
const opts = {
  actRules: path.resolve(arg('act-rules', path.join(root, '..', 'shared', 'act-rules'))),
  sitescan: arg('sitescan', defaultBin),
  chromium: arg('chromium', process.env.SITESCAN_CHROMIUM || '/usr/bin/chromium'),
  rules: (arg('rules', '') || '').split(',').filter(Boolean),
  concurrency: Number(arg('concurrency', '4')),
  out: arg('out', path.join(root, 'bench', `act-results-${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, 'Z')}.json`)),
  skipAxe: process.argv.includes('--skip-axe'),
  // Text in images (images of text, 0va7u6): by default as a scan reads it (images that look like
  // text); --ocr reads every image, --no-ocr none.
  ocr: process.argv.includes('--ocr') ? ['--ocr'] : process.argv.includes('--no-ocr') ? ['--no-ocr'] : [],
  label: arg('label', ''),
  // alone (default, strict): one `sitescan scan` per case; crawl: one crawl of an index of all cases.
  mode: arg('mode', 'alone'),
  scanConcurrency: Number(arg('scan-concurrency', '2')),
  // check=ACT[+ACT],...: also map these checks (how an outside measurement maps checks of a binary
  // whose catalogue does not declare them), e.g. forms.label-missing=e086e5,i18n.lang-invalid=bf051a
  extraMap: (arg('extra-map', '') || '').split(',').filter(Boolean).map((x) => x.split('=')).map(([c, a]) => [c, (a || '').split('+').filter(Boolean)]),
};
if (!['alone', 'crawl'].includes(opts.mode)) throw new Error('--mode alone|crawl');
if (!opts.sitescan || !fs.existsSync(opts.sitescan)) throw new Error('no sitescan binary: build one or pass --sitescan');
const BASE = '/WAI/content-assets/wcag-act-rules/';
const list = JSON.parse(fs.readFileSync(path.join(opts.actRules, BASE, 'testcases.json'), 'utf8')).testcases;
const cases = list.filter((t) => t.approved && (!opts.rules.length || opts.rules.includes(t.ruleId)));
const ruleNames = new Map();
for (const t of cases) if (!ruleNames.has(t.ruleId)) ruleNames.set(t.ruleId, t.ruleName);

// The WCAG level each rule is judged at: the lowest level among the success criteria it maps for
// conformance (a failure of the rule fails each of them); a rule that maps none (a best practice,
// an ARIA requirement) runs at sitescan's default, AA. `--level X` runs every rule at X instead.
const SC_LEVEL = { '1.1.1': 'A', '1.2.1': 'A', '1.2.2': 'A', '1.2.3': 'A', '1.2.5': 'AA', '1.3.1': 'A', '1.3.4': 'AA', '1.3.5': 'AA', '1.4.2': 'A',
  '1.4.3': 'AA', '1.4.4': 'AA', '1.4.5': 'AA', '1.4.6': 'AAA', '1.4.8': 'AAA', '1.4.9': 'AAA', '1.4.10': 'AA', '1.4.12': 'AA', '2.1.1': 'A',
  '2.1.3': 'AAA', '2.2.1': 'A', '2.2.2': 'A', '2.2.4': 'AAA', '2.4.1': 'A', '2.4.2': 'A', '2.4.4': 'A', '2.4.7': 'AA', '2.4.9': 'AAA',
  '2.5.3': 'A', '3.1.1': 'A', '3.1.2': 'AA', '3.2.5': 'AAA', '3.3.2': 'A', '4.1.2': 'A' };
const RANK = { A: 1, AA: 2, AAA: 3 };
const levelArg = arg('level', '');
const ruleLevel = new Map();
for (const t of cases) {
  if (ruleLevel.has(t.ruleId)) continue;
  const levels = Object.entries(t.ruleAccessibilityRequirements || {})
    .filter(([k, v]) => /^wcag2\d:/.test(k) && v && v.forConformance)
    .map(([k]) => SC_LEVEL[k.split(':')[1]])
    .filter(Boolean)
    .sort((a, b) => RANK[a] - RANK[b]);
  ruleLevel.set(t.ruleId, levelArg || levels[0] || 'AA');
}

// --- the server -------------------------------------------------------------------------------
const TYPES = { html: 'text/html; charset=utf-8', htm: 'text/html; charset=utf-8', svg: 'image/svg+xml', xml: 'application/xml', xhtml: 'application/xhtml+xml',
  js: 'text/javascript', css: 'text/css', png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp',
  mp3: 'audio/mpeg', mp4: 'video/mp4', webm: 'video/webm', ogg: 'audio/ogg', vtt: 'text/vtt', json: 'application/json', txt: 'text/plain', pdf: 'application/pdf' };
const caseUrl = (t) => `${origin}${BASE}${t.relativePath}`;
let origin = '';
const index = () => '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>ACT test cases</title></head><body><main><h1>ACT test cases</h1><ul>'
  + cases.map((t) => `<li><a href="${BASE}${t.relativePath}">${t.ruleId} ${t.testcaseTitle}</a></li>`).join('') + '</ul></main></body></html>';
const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  if (url.pathname === '/act-index.html') { res.writeHead(200, { 'content-type': TYPES.html }); res.end(index()); return; }
  const file = path.join(opts.actRules, decodeURIComponent(url.pathname));
  if (!file.startsWith(opts.actRules + path.sep)) { res.writeHead(403); res.end(); return; }
  fs.readFile(file, (err, body) => {
    if (err) { res.writeHead(404, { 'content-type': 'text/plain' }); res.end('not found'); return; }
    const ext = path.extname(file).slice(1).toLowerCase();
    res.writeHead(200, { 'content-type': TYPES[ext] || 'application/octet-stream' });
    res.end(body);
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
origin = `http://127.0.0.1:${server.address().port}`;
console.log(`act: ${cases.length} approved cases of ${ruleNames.size} rules from ${opts.actRules}, served at ${origin}`);

// --- sitescan ---------------------------------------------------------------------------------
const run = (cmd, args, env = {}) => new Promise((resolve) => {
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '', err = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { err += d; });
  child.on('close', (code) => resolve({ code, out, err }));
});
const catalogue = JSON.parse(execFileSync(opts.sitescan, ['checks', '--format', 'json'], { maxBuffer: 64 << 20 }).toString());
const axeSource = fs.readFileSync(path.join(root, 'browser/node_modules/axe-core/axe.min.js'), 'utf8');
const axeActIds = await (async () => {
  // axe's rule -> ACT ids, from the installed axe-core (the one sitescan embeds).
  const axe = (await import(path.join(root, 'browser/node_modules/axe-core/axe.js'))).default;
  return new Map(axe._audit.rules.map((r) => [r.id, r.actIds || []]));
})();
const OWN_FALLBACK = { 'accessibility.focus-not-visible': ['oj04fd'], 'accessibility.keyboard-trap': ['80af7b'], 'accessibility.zoom-disabled': ['b4f0c3'] };
const declared = catalogue.some((c) => Array.isArray(c.act_ids));
const sitescanMap = new Map();
for (const c of catalogue) {
  let ids = c.act_ids;
  if (!declared) ids = OWN_FALLBACK[c.id] || (c.id.startsWith('accessibility.') ? axeActIds.get(c.id.slice('accessibility.'.length)) : []) || [];
  if (ids && ids.length) sitescanMap.set(c.id, ids);
}
for (const [c, ids] of opts.extraMap) sitescanMap.set(c, [...new Set([...(sitescanMap.get(c) || []), ...ids])]);
// Axe findings whose rule is not catalogued (not run) cannot show up; those that are map by the
// catalogue like every check.
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sitescan-act-'));
const pages = new Map(); // url -> page (the case was scanned and listed as a page)
const sitescanFailed = new Map(); // url -> Set(check ids)
// Each case at its rule's level (`ruleLevel`); the one crawl of every case at AAA, the highest.
const scanArgs = (url, out, extra, level = 'AAA') => ['scan', url, '--allow-target', '127.0.0.1/32', '--format', 'json', '--quiet', '--level', level, ...opts.ocr, ...extra,
  '--chromium', opts.chromium, '--output', out];
const t0 = Date.now();
if (opts.mode === 'crawl') {
  // The old way: one crawl of the index page, findings attributed by their evidence URL. Cases
  // share one browser and one scan (site-wide state, deduplication across pages), so a finding can
  // land on or vanish from a case because of its neighbours.
  const reportFile = path.join(work, 'report.json');
  const scan = await run(opts.sitescan, scanArgs(`${origin}/act-index.html`, reportFile, ['--max-pages', String(cases.length + 1), '--max-depth', '1']), { RUST_LOG: 'error' });
  if (!fs.existsSync(reportFile)) throw new Error(`sitescan scan failed (${scan.code}): ${scan.err.slice(-2000)}`);
  const report = JSON.parse(fs.readFileSync(reportFile, 'utf8'));
  for (const p of report.report.pages || []) pages.set(p.url, p);
  for (const f of report.report.findings || []) {
    const url = f.evidence && f.evidence.url;
    if (!url) continue;
    if (!sitescanFailed.has(url)) sitescanFailed.set(url, new Set());
    sitescanFailed.get(url).add(f.check_id);
  }
} else {
  // Strict (the default): each case scanned alone, as an outside measurement does: its own
  // `sitescan scan` of the case URL, depth 0, one page. Every finding of that scan that carries a
  // URL (the case's own document or a frame of it) counts against the case.
  let next = 0;
  const scanCase = async (t) => {
    const url = caseUrl(t);
    const reportFile = path.join(work, `report-${t.testcaseId}.json`);
    const scan = await run(opts.sitescan, scanArgs(url, reportFile, ['--max-pages', '1', '--max-depth', '0', '--browsers', '1', '--pages-per-browser', '1'], ruleLevel.get(t.ruleId)), { RUST_LOG: 'error' });
    if (!fs.existsSync(reportFile)) { console.log(`act: sitescan scan of ${t.testcaseId} failed (${scan.code}): ${scan.err.slice(-300)}`); return; }
    const report = JSON.parse(fs.readFileSync(reportFile, 'utf8'));
    if (!(report.report.pages || []).some((p) => p.url === url)) return; // not a page sitescan lists (SVG, XML)
    pages.set(url, true);
    const fired = new Set();
    for (const f of report.report.findings || []) if (f.evidence && f.evidence.url) fired.add(f.check_id);
    sitescanFailed.set(url, fired);
  };
  await Promise.all(Array.from({ length: opts.scanConcurrency }, async () => { while (next < cases.length) await scanCase(cases[next++]); }));
}
const sitescanSeconds = (Date.now() - t0) / 1000;
console.log(`act: sitescan (${opts.mode}) scanned ${pages.size} pages in ${sitescanSeconds.toFixed(0)} s`);

// --- axe-core, bare -------------------------------------------------------------------------------
async function runAxe() {
  const profile = fs.mkdtempSync(path.join(work, 'chromium-'));
  const chrome = spawn(opts.chromium, ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--mute-audio',
    '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1', '--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank'], { stdio: 'ignore', detached: true });
  // The browser has its own process group: a run interrupted (Ctrl-C, a timeout) or failed takes it down too.
  const killChrome = () => { try { process.kill(-chrome.pid, 'SIGKILL'); } catch { /* gone already */ } };
  process.on('exit', killChrome);
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => { killChrome(); process.exit(130); });
  let port;
  for (let i = 0; i < 200 && !port; i++) {
    await new Promise((r) => setTimeout(r, 100));
    try { port = fs.readFileSync(path.join(profile, 'DevToolsActivePort'), 'utf8').split('\n')[0]; } catch { /* not yet */ }
  }
  const version = await (await fetch(`http://127.0.0.1:${port}/json/version`)).json();
  const ws = new WebSocket(version.webSocketDebuggerUrl);
  await new Promise((r, j) => { ws.onopen = r; ws.onerror = j; });
  let id = 0;
  const pending = new Map();
  const events = new Map();
  ws.onmessage = (m) => {
    const d = JSON.parse(m.data);
    if (d.id && pending.has(d.id)) { pending.get(d.id)(d); pending.delete(d.id); }
    else if (d.method && d.sessionId && events.has(d.sessionId + d.method)) events.get(d.sessionId + d.method)(d.params);
  };
  const send = (method, params = {}, sessionId) => new Promise((r) => { const i = ++id; pending.set(i, r); ws.send(JSON.stringify({ id: i, method, params, sessionId })); });
  const result = new Map();
  const runCase = async (t) => {
    const { result: { targetId } } = await send('Target.createTarget', { url: 'about:blank', newWindow: true });
    const { result: { sessionId } } = await send('Target.attachToTarget', { targetId, flatten: true });
    try {
      await send('Page.enable', {}, sessionId);
      const loaded = new Promise((r) => { events.set(sessionId + 'Page.loadEventFired', r); setTimeout(r, 15000); });
      await send('Page.navigate', { url: caseUrl(t) }, sessionId);
      await loaded;
      await new Promise((r) => setTimeout(r, 300));
      await send('Runtime.evaluate', { expression: `(function (define, module, exports) {${axeSource}\n}).call(window)`, returnByValue: true }, sessionId);
      const r = await send('Runtime.evaluate', {
        expression: "window.axe ? axe.run(document, { iframes: false, resultTypes: ['violations'] }).then((r) => JSON.stringify(r.violations.map((v) => v.id))) : Promise.resolve('null')",
        awaitPromise: true, returnByValue: true, timeout: 60000,
      }, sessionId);
      const v = r.result && r.result.result && r.result.result.value;
      result.set(caseUrl(t), v && v !== 'null' ? new Set(JSON.parse(v)) : null);
    } catch (e) {
      result.set(caseUrl(t), null);
    } finally {
      events.delete(sessionId + 'Page.loadEventFired');
      await send('Target.closeTarget', { targetId });
    }
  };
  let next = 0;
  await Promise.all(Array.from({ length: opts.concurrency }, async () => { while (next < cases.length) await runCase(cases[next++]); }));
  ws.close();
  // Debian's /usr/bin/chromium* are shell scripts that do not exec: the browser is the script's
  // child, so the whole process group goes.
  await new Promise((r) => { chrome.on('exit', r); try { process.kill(-chrome.pid, 'SIGKILL'); } catch { chrome.kill(); } setTimeout(r, 5000); });
  return result;
}
const t1 = Date.now();
const axeFailed = opts.skipAxe ? new Map() : await runAxe();
const axeSeconds = (Date.now() - t1) / 1000;
if (!opts.skipAxe) console.log(`act: axe-core ran on ${axeFailed.size} cases in ${axeSeconds.toFixed(0)} s`);

// --- verdicts ---------------------------------------------------------------------------------
const toolActs = {
  sitescan: (url) => { const ids = new Set(); for (const c of sitescanFailed.get(url) || []) for (const a of sitescanMap.get(c) || []) ids.add(a); return ids; },
  'axe-core': (url) => { const ids = new Set(); for (const r of axeFailed.get(url) || []) for (const a of axeActIds.get(r) || []) ids.add(a); return ids; },
};
const mapsTo = {
  sitescan: (rule) => [...sitescanMap.entries()].filter(([, a]) => a.includes(rule)).map(([c]) => c),
  'axe-core': (rule) => [...axeActIds.entries()].filter(([, a]) => a.includes(rule)).map(([r]) => r),
};
const tools = opts.skipAxe ? ['sitescan'] : ['sitescan', 'axe-core'];
const rules = [...ruleNames.keys()].sort();
const verdicts = {};
const detail = [];
for (const rule of rules) {
  verdicts[rule] = {};
  const rc = cases.filter((t) => t.ruleId === rule);
  for (const tool of tools) {
    const procedures = mapsTo[tool](rule);
    const outcomes = rc.map((t) => {
      const url = caseUrl(t);
      const fired = toolActs[tool](url).has(rule);
      const seen = tool === 'sitescan' ? pages.has(url) : axeFailed.get(url) !== null && axeFailed.has(url);
      return { id: t.testcaseId, title: t.testcaseTitle, url, expected: t.expected, all_fired: tool === 'sitescan' ? [...(sitescanFailed.get(url) || [])] : undefined, outcome: !seen ? 'not-run' : fired ? 'failed' : 'passed', fired: tool === 'sitescan' ? [...(sitescanFailed.get(url) || [])].filter((c) => sitescanMap.get(c)?.includes(rule)) : [...(axeFailed.get(url) || [])].filter((r) => axeActIds.get(r)?.includes(rule)) };
    });
    const failedCases = outcomes.filter((o) => o.expected === 'failed');
    const caught = failedCases.filter((o) => o.outcome === 'failed').length;
    const falseAlarms = outcomes.filter((o) => o.expected !== 'failed' && o.outcome === 'failed').length;
    let verdict;
    if (!procedures.length) verdict = 'untested';
    else if (falseAlarms > 0 || caught === 0) verdict = 'inconsistent';
    else if (caught === failedCases.length) verdict = 'consistent';
    else verdict = 'partial';
    verdicts[rule][tool] = { verdict, caught, failed: failedCases.length, false_alarms: falseAlarms, procedures, outcomes };
  }
  detail.push(rule);
}
const cell = (v) => v ? `${v.verdict}${v.verdict === 'untested' ? '' : ` ${v.caught}/${v.failed}${v.false_alarms ? ` fp${v.false_alarms}` : ''}`}` : '';
const levelOf = (rule) => (opts.mode === 'crawl' ? 'AAA' : ruleLevel.get(rule));
console.log(`\n${'rule'.padEnd(8)} ${'level'.padEnd(6)} ${'sitescan'.padEnd(24)} ${'axe-core'.padEnd(24)} name`);
for (const rule of rules) console.log(`${rule.padEnd(8)} ${levelOf(rule).padEnd(6)} ${cell(verdicts[rule].sitescan).padEnd(24)} ${cell(verdicts[rule]['axe-core']).padEnd(24)} ${ruleNames.get(rule)}`);
const totals = {};
for (const tool of tools) {
  totals[tool] = {};
  for (const rule of rules) { const v = verdicts[rule][tool].verdict; totals[tool][v] = (totals[tool][v] || 0) + 1; }
  console.log(`act: ${tool}: ${totals[tool].consistent || 0} consistent, ${totals[tool].partial || 0} partial, ${totals[tool].inconsistent || 0} inconsistent, ${totals[tool].untested || 0} untested (of ${rules.length} rules)`);
}
fs.writeFileSync(opts.out, JSON.stringify({ label: opts.label, mode: opts.mode, started: new Date(t0).toISOString(), sitescan: opts.sitescan, act_rules: opts.actRules, cases: cases.length,
  sitescan_seconds: sitescanSeconds, axe_seconds: axeSeconds, levels: Object.fromEntries(rules.map((r) => [r, levelOf(r)])), totals, verdicts }, null, 1));
console.log(`act: results written to ${opts.out}`);
server.close();
try { fs.rmSync(work, { recursive: true, force: true }); } catch { /* Chromium may still be writing its profile */ }
