// Text whose contrast axe could not judge from styles (over a background image or gradient,
// under a text shadow, behind pseudo content or an overlapping element) is judged from rendered
// pixels (crates/engine/src/browser/gather/contrast.rs). `axe_run.js` keeps those elements in
// `window.__sitescanContrastCandidates`; this script installs `window.__sitescanContrast`:
// - `place(i)`: scrolls candidate i into view and returns, as JSON text, the box around its own
//   text (document coordinates, CSS pixels), its text colour with the opacity of the element
//   and its ancestors folded into the alpha, and whether it is large text; `null` when there is
//   nothing drawn to judge (detached, no text box, colour in a space other than sRGB);
// - `hide(i)` / `show(i)`: makes the element's text transparent (glyphs gone, text shadows and
//   everything behind still drawn) and puts its own inline styles back;
// - `finish()`: restores the scroll position and forgets the elements.
// Returns the number of candidates as text.
const PAD = 4;
const MAX_WIDTH = 1600;
const MAX_HEIGHT = 600;
const list = (window.__sitescanContrastCandidates || []).filter((c) => c && c.element && c.element.isConnected);
delete window.__sitescanContrastCandidates;
const scroll = [window.scrollX, window.scrollY];
const saved = new Map();
const HIDDEN = [['color', 'transparent'], ['-webkit-text-fill-color', 'transparent'], ['transition', 'none'], ['animation', 'none']];

const rgba = (value) => {
  const m = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+)(%?))?\s*\)$/.exec(String(value || '').trim());
  if (!m) return null;
  let a = m[4] === undefined ? 1 : parseFloat(m[4]);
  if (m[5] === '%') a /= 100;
  return [parseFloat(m[1]), parseFloat(m[2]), parseFloat(m[3]), Math.max(0, Math.min(1, a))];
};
// The product of the opacities of the element and its ancestors (across shadow roots).
const opacity = (el) => {
  let o = 1;
  for (let e = el; e; ) {
    if (e.nodeType === 1) o *= parseFloat(getComputedStyle(e).opacity) || 0;
    e = e.parentNode instanceof ShadowRoot ? e.parentNode.host : e.parentNode;
    if (e === document) break;
  }
  return o;
};
// The boxes of the element's own text (its text nodes, and its shadow root's); a form control
// without text nodes (an input's value) by its content box.
const textRects = (el) => {
  const rects = [];
  const range = document.createRange();
  const from = (root) => {
    for (const n of root.childNodes) {
      if (n.nodeType !== 3 || !n.data.trim()) continue;
      range.selectNodeContents(n);
      for (const r of range.getClientRects()) if (r.width > 0 && r.height > 0) rects.push(r);
    }
  };
  from(el);
  if (el.shadowRoot) from(el.shadowRoot);
  if (!rects.length && /^(input|textarea|select|button)$/.test(el.localName)) {
    const b = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    const px = (p) => parseFloat(cs[p]) || 0;
    const left = b.left + px('borderLeftWidth') + px('paddingLeft');
    const top = b.top + px('borderTopWidth') + px('paddingTop');
    const right = b.right - px('borderRightWidth') - px('paddingRight');
    const bottom = b.bottom - px('borderBottomWidth') - px('paddingBottom');
    if (right > left && bottom > top) rects.push({ left, top, right, bottom });
  }
  return rects;
};
const place = (i) => {
  const c = list[i];
  if (!c || !c.element.isConnected) return 'null';
  const el = c.element;
  el.scrollIntoView({ block: 'center', inline: 'nearest' });
  const cs = getComputedStyle(el);
  if (cs.visibility !== 'visible') return 'null';
  const fill = rgba(cs.webkitTextFillColor);
  const fg = fill && cs.webkitTextFillColor !== cs.color && fill[3] > 0 ? fill : rgba(cs.color);
  if (!fg) return 'null';
  const rects = textRects(el);
  if (!rects.length) return 'null';
  let left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity;
  for (const r of rects) {
    left = Math.min(left, r.left); top = Math.min(top, r.top);
    right = Math.max(right, r.right); bottom = Math.max(bottom, r.bottom);
  }
  // Only what the viewport shows is drawn.
  left = Math.max(left - PAD, 0); top = Math.max(top - PAD, 0);
  right = Math.min(right + PAD, window.innerWidth, left + MAX_WIDTH);
  bottom = Math.min(bottom + PAD, window.innerHeight, top + MAX_HEIGHT);
  if (right - left < 2 || bottom - top < 2) return 'null';
  const size = parseFloat(cs.fontSize) || 16;
  const weight = parseInt(cs.fontWeight, 10) || 400;
  const alpha = fg[3] * opacity(el);
  return JSON.stringify({
    target: c.target,
    clip: { x: Math.floor(left + window.scrollX), y: Math.floor(top + window.scrollY), width: Math.ceil(right - left), height: Math.ceil(bottom - top) },
    fg: [fg[0], fg[1], fg[2], alpha],
    // WCAG's large text: 18 pt (24 px), or 14 pt (18.67 px) bold.
    large: size >= 24 || (size >= 18.66 && weight >= 700),
    font_size: size,
    font_weight: weight,
  });
};
const hide = (i) => {
  const el = list[i] && list[i].element;
  if (!el) return 'false';
  if (!saved.has(i)) saved.set(i, HIDDEN.map(([p]) => [p, el.style.getPropertyValue(p), el.style.getPropertyPriority(p)]));
  for (const [p, v] of HIDDEN) el.style.setProperty(p, v, 'important');
  return 'true';
};
const show = (i) => {
  const el = list[i] && list[i].element;
  const before = saved.get(i);
  if (!el || !before) return 'false';
  for (const [p, v, priority] of before) {
    if (v) el.style.setProperty(p, v, priority);
    else el.style.removeProperty(p);
  }
  if (el.getAttribute('style') === '') el.removeAttribute('style');
  saved.delete(i);
  return 'true';
};
const finish = () => {
  for (const i of Array.from(saved.keys())) show(i);
  window.scrollTo(scroll[0], scroll[1]);
  delete window.__sitescanContrast;
  return 'true';
};
window.__sitescanContrast = { place, hide, show, finish };
return String(list.length);
