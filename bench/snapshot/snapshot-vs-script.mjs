// What reading a page's computed styles costs two ways, on the same pages in one Chromium:
//   script:   in the page, `getComputedStyle` and the region fingerprint's properties
//             (`browser/regions.js`, STYLE) element by element, with each element's box, for the
//             first 3,000 elements of `body` (the fingerprint's bound);
//   snapshot: `DOMSnapshot.captureSnapshot` over DevTools, the whole page in one native call, with
//             no style, 8 of them, and all of them with the boxes, as a Rust gatherer would ask;
//             timed from here, so the transfer of its answer is in it, as it would be for sitescan.
// Each is run twice on each page after it loaded (the second run is what a warm page costs).
//
//   node --experimental-websocket bench/snapshot/snapshot-vs-script.mjs [--pages bench/real/pages] [--limit 20] [--chromium PATH]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const arg = (name, fallback) => {
  const i = process.argv.indexOf('--' + name);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const here = path.dirname(new URL(import.meta.url).pathname);
const root = path.resolve(here, '..', '..');
const dir = path.resolve(arg('pages', path.join(root, 'bench', 'real', 'pages')));
const limit = Number(arg('limit', '20'));
const chromium = arg('chromium', fs.existsSync('/usr/bin/chromium-headless-shell') ? '/usr/bin/chromium-headless-shell' : '/usr/bin/chromium');

// The fingerprint's properties, as `browser/regions.js` lists them (STYLE), and the pseudo-elements' extra ones.
const source = fs.readFileSync(path.join(root, 'browser', 'regions.js'), 'utf8');
const STYLE = JSON.parse(source.match(/const STYLE = (\[[^\]]*\]);/s)[1].replace(/'/g, '"'));
const EXTRA = ['content', 'inset', 'width', 'height'];

const server = http.createServer((req, res) => {
  const file = path.join(dir, decodeURIComponent(new URL(req.url, 'http://x').pathname));
  if (!file.startsWith(dir + path.sep)) { res.writeHead(403); res.end(); return; }
  fs.readFile(file, (err, body) => {
    if (err) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'content-type': file.endsWith('.html') ? 'text/html; charset=utf-8' : 'application/octet-stream' });
    res.end(body);
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${server.address().port}`;

const port = 9400 + Math.floor(Math.random() * 500);
const child = spawn(chromium, ['--headless', '--no-sandbox', '--disable-gpu', `--remote-debugging-port=${port}`, '--window-size=1350,940', 'about:blank'], { stdio: 'ignore', detached: true });
const stop = () => { try { process.kill(-child.pid, 'SIGKILL'); } catch { child.kill(); } };
process.on('exit', stop);
let ws;
for (let i = 0; i < 100 && !ws; i++) {
  try {
    const list = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
    ws = list.find((t) => t.type === 'page')?.webSocketDebuggerUrl;
  } catch { /* not up yet */ }
  if (!ws) await new Promise((r) => setTimeout(r, 100));
}
const sock = new WebSocket(ws);
await new Promise((r) => { sock.onopen = r; });
let next = 0;
const waiting = new Map();
sock.onmessage = (m) => {
  const d = JSON.parse(m.data);
  if (d.id && waiting.has(d.id)) { waiting.get(d.id)(d); waiting.delete(d.id); }
};
const send = (method, params = {}) => new Promise((resolve) => { const id = ++next; waiting.set(id, resolve); sock.send(JSON.stringify({ id, method, params })); });

const script = `(() => {
  const S = ${JSON.stringify(STYLE)};
  const t = performance.now();
  let n = 0, chars = 0;
  for (const el of document.body ? document.body.getElementsByTagName('*') : []) {
    if (++n > 3000) break;
    const cs = getComputedStyle(el);
    let s = '';
    for (const p of S) s += cs.getPropertyValue(p) + '|';
    const r = el.getBoundingClientRect();
    chars += s.length + String(r.x).length;
  }
  return JSON.stringify({ ms: performance.now() - t, elements: Math.min(n, 3000), all: document.getElementsByTagName('*').length });
})()`;
const timed = async (method, params) => {
  const t = performance.now();
  const r = await send(method, params);
  return [performance.now() - t, r];
};

await send('Page.enable');
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.html')).sort().slice(0, limit);
const rows = [];
console.log(`${'page'.padEnd(44)} ${'elements'.padStart(8)} ${'script ms'.padStart(10)} ${'snap none'.padStart(10)} ${'snap 8'.padStart(8)} ${'snap all'.padStart(9)} ${'KiB'.padStart(6)}`);
for (const f of files) {
  await send('Page.navigate', { url: `${origin}/${f}` });
  await new Promise((r) => setTimeout(r, 2000));
  const runs = { script: [], none: [], eight: [], all: [] };
  let elements = 0, kib = 0;
  for (let k = 0; k < 2; k++) {
    const [, s] = await timed('Runtime.evaluate', { expression: script, returnByValue: true });
    const v = JSON.parse(s.result?.result?.value || '{"ms":NaN}');
    runs.script.push(v.ms);
    elements = v.elements;
    runs.none.push((await timed('DOMSnapshot.captureSnapshot', { computedStyles: [] }))[0]);
    runs.eight.push((await timed('DOMSnapshot.captureSnapshot', { computedStyles: STYLE.slice(0, 8) }))[0]);
    const [ms, all] = await timed('DOMSnapshot.captureSnapshot', { computedStyles: [...STYLE, ...EXTRA], includeDOMRects: true });
    runs.all.push(ms);
    kib = JSON.stringify(all.result || {}).length / 1024;
  }
  const warm = Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, v[1]]));
  rows.push({ page: f, elements, kib, ...warm });
  console.log(`${f.slice(0, 44).padEnd(44)} ${String(elements).padStart(8)} ${warm.script.toFixed(1).padStart(10)} ${warm.none.toFixed(1).padStart(10)} ${warm.eight.toFixed(1).padStart(8)} ${warm.all.toFixed(1).padStart(9)} ${kib.toFixed(0).padStart(6)}`);
}
const sum = (k) => rows.reduce((a, r) => a + (Number.isFinite(r[k]) ? r[k] : 0), 0);
console.log(`\n${rows.length} pages, warm runs summed: script ${sum('script').toFixed(0)} ms; snapshot without styles ${sum('none').toFixed(0)} ms, with 8 ${sum('eight').toFixed(0)} ms, with all ${STYLE.length + EXTRA.length} and boxes ${sum('all').toFixed(0)} ms (${(sum('all') / sum('script')).toFixed(2)}x the script)`);
server.close();
stop();
process.exit(0);
