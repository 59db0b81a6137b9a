// Init script (before any page script): observes paint, LCP, layout shifts and long tasks from
// the start, and exposes `__sitescanPerf.report()` returning the metrics as JSON text.
if (window.__sitescanPerf) return;
const S = { fcp: null, lcp: null, lcpInfo: null, shifts: [], longTasks: [] };
const supported = (typeof PerformanceObserver === 'function' && PerformanceObserver.supportedEntryTypes) || [];
// The clock as it is before any page script could replace it.
const now = performance.now.bind(performance);
function describeLcp(entry) {
  const el = entry.element;
  const info = { selector: null, snippet: null, tag: null, url: entry.url || null, is_image: !!entry.url, loading: null };
  if (el) {
    info.selector = __ss.selector(el);
    info.snippet = __ss.snippet(el);
    info.tag = el.localName;
    if (['img', 'image', 'video'].includes(el.localName)) info.is_image = true;
    if (el.localName === 'img') info.loading = el.getAttribute('loading');
  }
  return info;
}
const observe = (type, fn) => {
  if (!supported.includes(type)) return;
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) { try { fn(e); } catch (_) {} }
    }).observe({ type, buffered: true });
  } catch (_) {}
};
observe('paint', (e) => { if (e.name === 'first-contentful-paint') S.fcp = e.startTime; });
observe('largest-contentful-paint', (e) => { S.lcp = e.startTime; S.lcpInfo = describeLcp(e); });
observe('layout-shift', (e) => {
  const sources = [];
  for (const s of e.sources || []) {
    const n = s.node && (s.node.nodeType === 1 ? s.node : s.node.parentElement);
    if (n) sources.push(__ss.selector(n));
    if (sources.length >= 5) break;
  }
  S.shifts.push({ start_ms: e.startTime, value: e.value, recent: !!e.hadRecentInput, sources });
});
observe('longtask', (e) => S.longTasks.push({ start_ms: e.startTime, duration_ms: e.duration }));
Object.defineProperty(window, '__sitescanPerf', {
  enumerable: false,
  value: Object.freeze({
    // Milliseconds since the page last shifted its layout (not after input) or ended a long
    // task; -1 when it has done neither. The capture waits for a while of this before it reads
    // CLS and TBT, so that a banner or a task a moment after load is counted, as Lighthouse's
    // wait for a quiet CPU counts it.
    quietFor() {
      let last = -Infinity;
      for (const s of S.shifts) if (!s.recent && s.start_ms > last) last = s.start_ms;
      for (const t of S.longTasks) if (t.start_ms + t.duration_ms > last) last = t.start_ms + t.duration_ms;
      return last === -Infinity ? -1 : Math.max(0, now() - last);
    },
    report() {
      const nav = performance.getEntriesByType('navigation')[0];
      const pos = (v) => (typeof v === 'number' && v > 0 ? v : null);
      const shifts = S.shifts.filter((s) => !s.recent);
      // CLS: the largest session window (shifts < 1 s apart, window at most 5 s long).
      let cls = 0, win = 0, winStart = -Infinity, prev = -Infinity;
      for (const s of shifts) {
        if (s.start_ms - prev < 1000 && s.start_ms - winStart < 5000) win += s.value;
        else { win = s.value; winStart = s.start_ms; }
        prev = s.start_ms;
        if (win > cls) cls = win;
      }
      // TBT: the part of each long task beyond its first 50 ms that lies after FCP.
      let tbt = null;
      if (S.fcp !== null) {
        tbt = 0;
        for (const t of S.longTasks) {
          const end = t.start_ms + t.duration_ms;
          tbt += Math.max(0, end - Math.max(t.start_ms + 50, S.fcp));
        }
      }
      let depth = 0;
      const stack = document.documentElement ? [[document.documentElement, 1]] : [];
      while (stack.length) {
        const [n, d] = stack.pop();
        if (d > depth) depth = d;
        for (const c of n.children) stack.push([c, d + 1]);
      }
      return JSON.stringify({
        ttfb_ms: nav ? pos(nav.responseStart) : null,
        fcp_ms: S.fcp,
        lcp_ms: S.lcp,
        lcp_element: S.lcpInfo,
        cls: supported.includes('layout-shift') ? cls : null,
        layout_shifts: shifts.map((s) => ({ start_ms: s.start_ms, value: s.value, sources: s.sources })),
        tbt_ms: tbt,
        long_tasks: S.longTasks.slice(0, 500),
        dom_content_loaded_ms: nav ? pos(nav.domContentLoadedEventStart) : null,
        load_ms: nav ? pos(nav.loadEventStart) : null,
        dom_elements: document.getElementsByTagName('*').length,
        dom_max_depth: depth,
      });
    },
  }),
});
