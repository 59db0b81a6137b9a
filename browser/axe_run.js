// Runs axe-core (already injected) on the document and returns the results as JSON text shaped
// like sitescan's `AxeResults`.
if (!window.axe) throw new Error('axe-core is not loaded');
const MAX_NODES = 50;
const target = (t) => (Array.isArray(t) ? t.map((x) => (Array.isArray(x) ? x.join(' >>> ') : String(x))).join(' >>> ') : String(t));
// axe would serialize the markup of every element any rule looks at (the whole document for
// the page-level rules); only the reported ones need it, so it is read after the run from the
// reported element itself (`elementRef`), by the same function axe uses.
const source = (n) => {
  try {
    return n.element ? window.axe.utils.getElementSource(n.element) : '';
  } catch (e) {
    return '';
  }
};
const rule = (x) => ({
  id: x.id,
  impact: x.impact || null,
  tags: x.tags || [],
  help: x.help || '',
  description: x.description || '',
  help_url: x.helpUrl || '',
  nodes: (x.nodes || []).slice(0, MAX_NODES).map((n) => ({
    target: target(n.target),
    html: __ss.cut(source(n), 300),
    failure_summary: n.failureSummary || null,
    impact: n.impact || null,
  })),
});
window.axe.configure({ noHtml: true });
// The AAA contrast rule's verdicts come from the AA rule's run (axe_contrast.js) unless this axe
// is not shaped for it, in which case the rule runs as axe defines it.
const contrast = installEnhancedContrast(window.axe);
// Regions already judged on another page of the scan are not judged again (axe_share.js);
// `SHARE` is set by the gatherer, null when the scan shares nothing.
const sharing = installSharing(window.axe, SHARE);
let r;
try {
  r = await window.axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
    // Beyond the tags (axe_catalogue::AXE_EXTRA_RULES): AAA contrast and refresh, reported at low
    // severity, and the orientation lock, which axe tags experimental.
    rules: {
      'color-contrast-enhanced': { enabled: !contrast },
      'meta-refresh-no-exceptions': { enabled: true },
      'css-orientation-lock': { enabled: true },
    },
    resultTypes: ['violations', 'incomplete'],
    iframes: false,
    elementRef: true,
  });
} finally {
  // In the reverse order of installing: each puts back what it found.
  if (sharing) sharing.restore();
  if (contrast) contrast.restore();
}
// What this page's fresh regions got, kept before the known regions' findings join the page's.
const shared = sharing ? sharing.extract(r) : [];
if (sharing) sharing.merge(r);
// axe leaves `aria-hidden-focus` incomplete when it cannot tell whether focusable content inside
// aria-hidden stays focusable (an open modal dialog: the element may be a focus sentinel whose
// focus handler sends focus back into the dialog). Resolved here as a keyboard user meets it: each
// element of the hidden content that is in sequential focus order (tabIndex >= 0, enabled,
// rendered) is focused; one that keeps focus once its focus handlers (and a short delay) have run
// is reached by Tab while hidden from assistive technologies, a violation; when every one sends
// focus elsewhere the node passes. When the focus event is not delivered (a page without focus),
// nothing can be told and the node stays incomplete. Focus and scroll are restored after.
const HIDDEN_FOCUS_MAX = 20;
const resolveHiddenFocus = async () => {
  const at = r.incomplete.findIndex((x) => x.id === 'aria-hidden-focus');
  if (at < 0) return;
  const entry = r.incomplete[at];
  const before = document.activeElement;
  const scroll = [window.scrollX, window.scrollY];
  const failing = [];
  const open = [];
  let probed = 0;
  for (const n of entry.nodes || []) {
    const root = n.element;
    if (!root || !root.querySelectorAll) { open.push(n); continue; }
    const tabbable = [root, ...root.querySelectorAll('*')].filter((el) => el.tabIndex >= 0 && !(el.matches(':disabled'))
      && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden');
    let verdict = tabbable.length ? 'passes' : 'open';
    for (const el of tabbable) {
      if (probed++ >= HIDDEN_FOCUS_MAX) { verdict = 'open'; break; }
      let delivered = false;
      const seen = () => { delivered = true; };
      el.addEventListener('focus', seen, { capture: true, once: true });
      el.focus({ preventScroll: true });
      await new Promise((res) => setTimeout(res, 30));
      el.removeEventListener('focus', seen, { capture: true });
      if (!delivered) { verdict = 'open'; break; }
      if (document.activeElement === el) { verdict = 'fails'; break; }
    }
    if (verdict === 'fails') failing.push(n);
    else if (verdict === 'open') open.push(n);
  }
  if (before && before !== document.activeElement && typeof before.focus === 'function' && before !== document.body) before.focus({ preventScroll: true });
  else if (document.activeElement && document.activeElement !== document.body && typeof document.activeElement.blur === 'function') document.activeElement.blur();
  window.scrollTo(scroll[0], scroll[1]);
  if (open.length) entry.nodes = open;
  else r.incomplete.splice(at, 1);
  if (failing.length) {
    const found = r.violations.find((x) => x.id === 'aria-hidden-focus');
    const summary = 'Fix any of the following:\n  Focusable content inside aria-hidden keeps focus when focused (reached by Tab, hidden from assistive technologies)';
    const nodes = failing.map((n) => ({ ...n, failureSummary: summary, impact: n.impact || entry.impact }));
    if (found) found.nodes = found.nodes.concat(nodes);
    else r.violations.push({ ...entry, nodes });
  }
};
try {
  await resolveHiddenFocus();
} catch (e) {
  // Left incomplete, as axe answered.
}
// `frame-focusable-content` judges a frame's own document, which a run with `iframes: false` never
// enters. For the frames this document can read (same origin, srcdoc), the same rule is applied
// from here: a rendered <iframe>/<frame> taken out of the tab order (tabindex < 0) whose document
// holds an element in sequential focus order (tabIndex >= 0, enabled, rendered) cannot be reached
// by keyboard users while its content expects them. Only frames a user can reach otherwise are
// judged: not inert (an `inert` ancestor, or outside an open modal dialog, which makes the rest of
// the page inert), and the focusable element must show inside the frame's viewport (a frame too
// small to show it offers nothing to reach). Cross-origin frames are not judged.
// A CSS path for an element axe did not report itself (axe's getSelector needs the run's caches).
const cssPath = (el) => {
  const parts = [];
  for (let e = el; e && e.nodeType === 1 && parts.length < 12; e = e.parentElement) {
    if (e.id && /^[A-Za-z][\w-]*$/.test(e.id)) { parts.unshift('#' + e.id); break; }
    const same = e.parentElement ? Array.from(e.parentElement.children).filter((c) => c.localName === e.localName) : [];
    parts.unshift(same.length > 1 ? `${e.localName}:nth-of-type(${same.indexOf(e) + 1})` : e.localName);
  }
  return parts.join(' > ');
};
const framesOutOfTabOrder = () => {
  if (!window.axe.getRules().some((x) => x.ruleId === 'frame-focusable-content')) return;
  const nodes = [];
  let modal = null;
  try { modal = document.querySelector('dialog:modal'); } catch (e) { modal = null; }
  for (const frame of document.querySelectorAll('iframe, frame')) {
    if (nodes.length >= MAX_NODES) break;
    if (!frame.hasAttribute('tabindex') || frame.tabIndex >= 0 || frame.getClientRects().length === 0) continue;
    if (frame.closest('[inert]') || (modal && !modal.contains(frame))) continue;
    let doc = null;
    try { doc = frame.contentDocument; } catch (e) { doc = null; }
    if (!doc || !doc.documentElement) continue;
    const view = doc.defaultView;
    if (!view) continue;
    const shows = (el) => {
      const b = el.getBoundingClientRect();
      return b.width > 0 && b.height > 0 && b.right > 0 && b.bottom > 0 && b.left < view.innerWidth && b.top < view.innerHeight;
    };
    const focusable = Array.from(doc.querySelectorAll('*')).find((el) => el.tabIndex >= 0 && !el.matches(':disabled')
      && !el.closest('[inert]') && shows(el) && view.getComputedStyle(el).visibility !== 'hidden');
    if (!focusable) continue;
    nodes.push({ element: frame, target: [cssPath(frame)], impact: 'serious',
      failureSummary: 'Fix any of the following:\n  The frame is out of the tab order (tabindex < 0) but its document has focusable content' });
  }
  if (!nodes.length) return;
  const meta = window.axe.getRules().find((x) => x.ruleId === 'frame-focusable-content') || {};
  const found = r.violations.find((x) => x.id === 'frame-focusable-content');
  if (found) found.nodes = found.nodes.concat(nodes);
  else r.violations.push({ id: 'frame-focusable-content', impact: 'serious', tags: meta.tags || [], help: meta.help || '', description: meta.description || '', helpUrl: meta.helpUrl || '', nodes });
};
try {
  framesOutOfTabOrder();
} catch (e) {
  // Frames left unjudged, as axe without iframes leaves them.
}
// Text axe could not judge from styles alone is judged from rendered pixels afterwards
// (`contrast.js`): its elements are kept for that, as the reported nodes are (first MAX_NODES).
const PIXEL_REASONS = ['bgImage', 'bgGradient', 'imgNode', 'bgOverlap', 'complexTextShadows', 'fgAlpha', 'elmPartiallyObscured', 'elmPartiallyObscuring', 'pseudoContent'];
const keepPixelCandidates = () => {
  const seen = new Map();
  for (const x of r.incomplete) {
    if (x.id !== 'color-contrast' && x.id !== 'color-contrast-enhanced') continue;
    for (const n of (x.nodes || []).slice(0, MAX_NODES)) {
      const check = (n.any || []).find((c) => c && c.data) || {};
      if (!n.element || seen.has(n.element) || !PIXEL_REASONS.includes(check.data.messageKey)) continue;
      seen.set(n.element, target(n.target));
    }
  }
  window.__sitescanContrastCandidates = Array.from(seen, ([element, t]) => ({ element, target: t }));
};
try {
  keepPixelCandidates();
} catch (e) {
  // Nothing kept: those nodes stay incomplete, as axe answered.
}
return JSON.stringify({ version: window.axe.version, violations: r.violations.map(rule), incomplete: r.incomplete.map(rule), error: null, shared });
