// Layout gatherer (`crates/engine/src/browser/gather/layout.rs`): reading and layout facts a browser can
// measure. `MODE` (prepended by the Rust side) picks the pass:
//   'desktop': at the page's own viewport, the reading facts (small text, long lines, justified,
//              capitals, italics), the text clipped at 200% text size and with the WCAG 1.4.12
//              spacing, and the animated-image candidates; every change is undone before it returns.
//   'reflow':  run while the Rust side emulates a 320 x 256 CSS px viewport: the text cut at the
//              viewport's right edge.
//   'restore': scrolls back to `SCROLL` ([x, y]) after the emulation was cleared.
// Returns JSON text. Bounded: at most MAX_ELEMENTS elements are read, MAX_OUT entries per list.
const MAX_ELEMENTS = 4000;
const MAX_OUT = 40;
const MAX_TEXT_NODES = 4000;
const SAMPLE = 80;
const started = performance.now();
const out = (o) => JSON.stringify(Object.assign(o, { ms: Math.round(performance.now() - started) }));
const SKIP_TEXT = new Set(['script', 'style', 'noscript', 'template', 'textarea', 'select', 'option', 'title', 'svg', 'math', 'pre', 'code', 'kbd', 'samp', 'var']);

if (MODE === 'restore') {
  window.scrollTo(SCROLL[0], SCROLL[1]);
  return out({ restored: true });
}

const root = document.body;
if (!root) return out({ skipped: 'no body' });
__ss.freezeIds();

// Elements in document order, bounded.
const elements = [];
{
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
  let n = root;
  while (n && elements.length < MAX_ELEMENTS) { elements.push(n); n = walker.nextNode(); }
}
const truncated = elements.length >= MAX_ELEMENTS;

// Visible text nodes (not in scripts, code or form controls), bounded.
const textNodes = () => {
  const list = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode(t) {
      if (!t.data || !/\S/.test(t.data)) return NodeFilter.FILTER_REJECT;
      for (let p = t.parentElement; p && p !== root; p = p.parentElement) {
        if (SKIP_TEXT.has(p.localName)) return NodeFilter.FILTER_REJECT;
      }
      return NodeFilter.FILTER_ACCEPT;
    },
  });
  let t;
  while ((t = walker.nextNode()) && list.length < MAX_TEXT_NODES) list.push(t);
  return list;
};

const rectOf = (node) => {
  const range = document.createRange();
  range.selectNodeContents(node);
  return range.getBoundingClientRect();
};

// Elements that hide their text on purpose (visually hidden, clipped to nothing): text inside
// them never counts as lost.
const hiddenBoxes = new Set();
const styles = new Map();
const readStyles = () => { for (const el of elements) {
  const cs = getComputedStyle(el);
  styles.set(el, cs);
  const r = el.getBoundingClientRect();
  const clipsAway = (cs.overflow !== 'visible' && (r.width <= 2 || r.height <= 2)) || (cs.clip && cs.clip !== 'auto') ||
    (cs.clipPath && cs.clipPath !== 'none') || cs.visibility === 'hidden' || parseFloat(cs.opacity) === 0;
  if (clipsAway) hiddenBoxes.add(el);
} };
const inHidden = (el, upTo) => {
  for (let p = el; p && p !== upTo && p !== document.documentElement; p = p.parentElement) if (hiddenBoxes.has(p)) return true;
  return false;
};
const sample = (s) => { s = __ss.collapse(s); return s.length > SAMPLE ? __ss.cut(s, SAMPLE - 1) + '…' : s; };
const entry = (el, extra) => Object.assign({ selector: __ss.selector(el), snippet: __ss.snippet(el) }, extra);

if (MODE === 'reflow') {
  const vw = document.documentElement.clientWidth;
  const se = document.scrollingElement || document.documentElement;
  const scrollWidth = se.scrollWidth;
  const clipsX = (el) => { const cs = getComputedStyle(el); return cs.overflowX !== 'visible'; };
  const trivially = scrollWidth <= vw + 1 && !clipsX(document.documentElement) && !clipsX(root);
  const result = { viewport_width: vw, scroll_width: scrollWidth, overflowing: [], truncated };
  if (trivially) return out(result);
  readStyles();
  const EXEMPT = new Set(['table', 'pre', 'code', 'kbd', 'samp', 'svg', 'math', 'canvas', 'video', 'audio', 'iframe', 'object', 'embed', 'map', 'img', 'picture']);
  const EXEMPT_ROLES = new Set(['toolbar', 'grid', 'treegrid', 'table', 'application', 'math', 'img', 'slider', 'tablist', 'menubar']);
  const reported = new Map();
  for (const t of textNodes()) {
    if (reported.size >= MAX_OUT) break;
    const parent = t.parentElement;
    if (!parent || inHidden(parent, null)) continue;
    const r = rectOf(t);
    if (r.width <= 0 || r.height <= 0) continue;
    // Cut at the right edge: begins inside the viewport, ends beyond it.
    if (!(r.left < vw - 1 && r.right > vw + 1)) continue;
    let skip = false;
    for (let p = parent; p && p !== root && p !== document.documentElement; p = p.parentElement) {
      const role = (p.getAttribute('role') || '').trim().toLowerCase();
      if (EXEMPT.has(p.localName) || EXEMPT_ROLES.has(role)) { skip = true; break; }
      const cs = getComputedStyle(p);
      if (cs.overflowX !== 'visible') {
        const pr = p.getBoundingClientRect();
        // A scroll container or a clipping box within the viewport: the text scrolls in its
        // own box (allowed), or is hidden on purpose (a carousel, an off-canvas panel).
        if (pr.right <= vw + 1) { skip = true; break; }
      }
    }
    if (skip) continue;
    // The outermost box that overflows below a box that fits.
    let el = parent;
    while (el.parentElement && el.parentElement !== root && el.parentElement !== document.documentElement &&
      el.parentElement.getBoundingClientRect().right > vw + 1) el = el.parentElement;
    const prev = reported.get(el);
    if (prev) { prev.text_right_px = Math.max(prev.text_right_px, Math.round(r.right)); continue; }
    const er = el.getBoundingClientRect();
    reported.set(el, entry(el, { text: sample(t.data), text_right_px: Math.round(r.right), width_px: Math.round(er.width) }));
  }
  result.overflowing = [...reported.values()];
  return out(result);
}

// ---- desktop pass ----
const scroll = [window.scrollX, window.scrollY];
readStyles();

// Reading facts, per text node's parent and per leaf block.
const BLOCK = new Set(['block', 'list-item', 'flow-root', 'table-cell', 'table-caption']);
const blockOf = (el) => {
  for (let p = el; p && p !== document.documentElement; p = p.parentElement) {
    const cs = styles.get(p) || getComputedStyle(p);
    if (BLOCK.has(cs.display) || /flex|grid|table/.test(cs.display)) return p;
  }
  return root;
};
const small = [];
const blocks = new Map();
const texts = textNodes();
for (const t of texts) {
  const parent = t.parentElement;
  const cs = styles.get(parent);
  if (!cs || inHidden(parent, null)) continue;
  const r = parent.getBoundingClientRect();
  if (r.width <= 2 || r.height <= 2) continue;
  const text = __ss.collapse(t.data);
  const size = parseFloat(cs.fontSize);
  if (size < 10 && text.length >= 20 && small.length < MAX_OUT && !small.some((s) => s.el === parent)) {
    small.push({ el: parent, font_size_px: size, text });
  }
  const block = blockOf(parent);
  let b = blocks.get(block);
  if (!b) { b = { chars: 0, italic: 0, letters: 0, upper: 0, transformed: 0 }; blocks.set(block, b); }
  b.chars += text.length;
  if (/^(italic|oblique)/.test(cs.fontStyle)) b.italic += text.length;
  const letters = (text.match(/\p{L}/gu) || []).length;
  b.letters += letters;
  if (cs.textTransform === 'uppercase') { b.upper += letters; b.transformed += letters; }
  else b.upper += (text.match(/\p{Lu}/gu) || []).length;
}
const runs = { long_lines: [], justified: [], all_caps: [], italic: [] };
const cjk = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/;
for (const [block, b] of blocks) {
  if (block === root || b.chars < 100) continue;
  const cs = styles.get(block) || getComputedStyle(block);
  // Only a block of running text: a flex or grid row (a navigation bar) sets its items side by side.
  if (!BLOCK.has(cs.display)) continue;
  const r = block.getBoundingClientRect();
  if (r.width <= 2 || r.height <= 2) continue;
  const size = parseFloat(cs.fontSize) || 16;
  const lh = cs.lineHeight === 'normal' ? size * 1.2 : parseFloat(cs.lineHeight) || size * 1.2;
  const padding = parseFloat(cs.paddingTop) + parseFloat(cs.paddingBottom) + parseFloat(cs.borderTopWidth) + parseFloat(cs.borderBottomWidth);
  const lines = Math.max(1, Math.round((r.height - padding) / lh));
  const text = block.textContent || '';
  const sentences = (text.match(/[.!?](\s|$)/g) || []).length;
  const info = { chars: b.chars, lines, chars_per_line: Math.round(b.chars / lines), font_size_px: size, sentences, text: sample(text) };
  if (lines >= 2 && info.chars_per_line > 80 && !cjk.test(text) && runs.long_lines.length < MAX_OUT) {
    runs.long_lines.push(entry(block, Object.assign({ width_px: Math.round(r.width) }, info)));
  }
  if (/^justify/.test(cs.textAlign) && lines >= 2 && runs.justified.length < MAX_OUT) runs.justified.push(entry(block, info));
  if (b.letters >= 60 && b.upper / b.letters >= 0.9 && runs.all_caps.length < MAX_OUT) {
    runs.all_caps.push(entry(block, Object.assign({ how: b.transformed * 2 >= b.letters ? 'text-transform' : 'literal', letters: b.letters }, info)));
  }
  if (b.italic / b.chars >= 0.8 && lines >= 2 && runs.italic.length < MAX_OUT) runs.italic.push(entry(block, info));
}
const reading = Object.assign({ small_text: small.map((s) => entry(s.el, { font_size_px: s.font_size_px, text: sample(s.text), chars: s.text.length })) }, runs);

// Boxes that clip (overflow hidden or clip) and hold text: candidates for lost text.
const clipBoxes = [];
for (const el of elements) {
  if (el === root || clipBoxes.length >= 600) continue;
  const cs = styles.get(el);
  const clipX = cs.overflowX === 'hidden' || cs.overflowX === 'clip';
  const clipY = cs.overflowY === 'hidden' || cs.overflowY === 'clip';
  if (!clipX && !clipY) continue;
  // Deliberate truncation (an ellipsis, a line clamp) is a design choice, not lost text here.
  if (cs.textOverflow === 'ellipsis' || (cs.webkitLineClamp && cs.webkitLineClamp !== 'none')) continue;
  if (hiddenBoxes.has(el) || inHidden(el, null)) continue;
  if (!/\S/.test(el.textContent || '')) continue;
  const r = el.getBoundingClientRect();
  if (r.width <= 4 || r.height <= 4) continue;
  clipBoxes.push({ el, clipX, clipY });
}
// How far the box's text reaches beyond its padding box (px, 0 when it fits), per axis.
const textNodesIn = (el) => {
  const list = [];
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  let t;
  while ((t = walker.nextNode()) && list.length < 200) {
    if (!/\S/.test(t.data)) continue;
    const p = t.parentElement;
    if (!p || SKIP_TEXT.has(p.localName) || inHidden(p, el)) continue;
    list.push(t);
  }
  return list;
};
const lost = (box) => {
  const el = box.el;
  if (el.scrollHeight <= el.clientHeight + 1 && el.scrollWidth <= el.clientWidth + 1) return { x: 0, y: 0 };
  const r = el.getBoundingClientRect();
  const left = r.left + el.clientLeft, top = r.top + el.clientTop;
  const right = left + el.clientWidth, bottom = top + el.clientHeight;
  let x = 0, y = 0, text = '';
  for (const t of textNodesIn(el)) {
    const tr = rectOf(t);
    if (tr.width <= 0 || tr.height <= 0) continue;
    const dy = box.clipY ? Math.max(tr.bottom - bottom, top - tr.top) : 0;
    const dx = box.clipX ? Math.max(tr.right - right, left - tr.left) : 0;
    if (dy > y || dx > x) text = text || t.data;
    y = Math.max(y, dy); x = Math.max(x, dx);
  }
  return { x, y, text };
};
const measure = () => clipBoxes.map(lost);
const newlyLost = (before, after, how) => {
  const found = [];
  clipBoxes.forEach((box, i) => {
    const b = before[i], a = after[i];
    const grewY = a.y > 3 && a.y > b.y + 3 && b.y <= 1;
    const grewX = a.x > 3 && a.x > b.x + 3 && b.x <= 1;
    if ((grewY || grewX) && found.length < MAX_OUT) {
      const el = box.el;
      found.push({
        el, how, axis: grewY ? 'vertical' : 'horizontal', lost_px: Math.round(grewY ? a.y : a.x),
        box_px: grewY ? el.clientHeight : el.clientWidth, text: sample(a.text || el.textContent),
      });
    }
  });
  return found;
};
// Transitions are suspended while the text grows, so the sizes read are the final ones (and
// nothing is left animating once the change is undone).
const still = document.createElement('style');
still.setAttribute('data-sitescan', 'no-transitions');
still.textContent = '*, *::before, *::after { transition: none !important; }';
const suspend = clipBoxes.length > 0;
if (suspend) (document.head || document.documentElement).appendChild(still);
const baseline = measure();

// Each change is undone from the `style` attribute exactly as it was.
const styleAttrs = [];
const restoreStyles = () => {
  // (Chromium keeps an empty `style=""` when an attribute its inline style wrote is removed
  // straight away after a style recalculation: written empty first, it goes.)
  for (const [el, attr] of styleAttrs) {
    el.setAttribute('style', attr === null ? '' : attr);
    if (attr === null) el.removeAttribute('style');
  }
  styleAttrs.length = 0;
};

// 200% text: every element's computed font size doubled (inline, !important), as a browser's
// text-only zoom scales every font size; lengths in px (a fixed height) stay as they are.
let resize = [];
let resizeSkipped = null;
if (truncated) resizeSkipped = 'more than ' + MAX_ELEMENTS + ' elements';
else if (clipBoxes.length === 0) resizeSkipped = 'no box clips its content';
else {
  const sizes = [document.documentElement, ...elements].map((el) => [el, parseFloat((styles.get(el) || getComputedStyle(el)).fontSize)]);
  try {
    for (const [el, size] of sizes) {
      if (!(size > 0) || !el.style) continue;
      styleAttrs.push([el, el.getAttribute('style')]);
      el.style.setProperty('font-size', (size * 2) + 'px', 'important');
    }
    resize = newlyLost(baseline, measure(), 'text-200');
  } finally {
    restoreStyles();
  }
}

// WCAG 1.4.12 text spacing, as its bookmarklet applies it.
let spacing = [];
let spacingSkipped = null;
if (clipBoxes.length === 0) spacingSkipped = 'no box clips its content';
else {
  const sheet = document.createElement('style');
  sheet.setAttribute('data-sitescan', 'text-spacing');
  sheet.textContent = '* { line-height: 1.5 !important; letter-spacing: 0.12em !important; word-spacing: 0.16em !important; }\n' +
    'p { margin-bottom: 2em !important; }';
  try {
    (document.head || document.documentElement).appendChild(sheet);
    spacing = newlyLost(baseline, measure(), 'text-spacing');
  } finally {
    sheet.remove();
  }
}

if (suspend) still.remove();
// Selectors and snippets of the page as it was.
const described = (list) => list.map(({ el, ...rest }) => entry(el, rest));
resize = described(resize);
spacing = described(spacing);

// Images that may animate: visible <img> elements showing a GIF, PNG or WebP (or any data: URL).
const images = [];
for (const img of document.images) {
  if (images.length >= 12) break;
  const url = img.currentSrc || img.src;
  if (!url || !/^(https?:|data:image\/(gif|png|apng|webp))/i.test(url) || url.length > 1000000) continue;
  if (!/^data:/i.test(url) && /\.(jpe?g|svg|avif|ico)(\?|#|$)/i.test(url)) continue;
  if (!__ss.visible(img)) continue;
  const r = img.getBoundingClientRect();
  // A pause mechanism near the image: a control whose name says pause or stop, within three
  // levels up; a <picture> offering a still image under prefers-reduced-motion.
  // Only boxes that hold no other image are searched (a page's main region holds every control).
  let control = false;
  for (let p = img.parentElement, depth = 0; p && p !== root && depth < 3 && !control && p.querySelectorAll('img').length === 1; p = p.parentElement, depth++) {
    for (const c of p.querySelectorAll('button, [role=button], input[type=button], input[type=checkbox], [role=switch], a[href]')) {
      const name = (c.getAttribute('aria-label') || '') + ' ' + (c.textContent || '') + ' ' + (c.value || '') + ' ' + (c.title || '');
      if (/pause|stop|freeze|still|anhalten|arr[eê]t/i.test(name)) { control = true; break; }
    }
  }
  const picture = img.parentElement && img.parentElement.localName === 'picture' ? img.parentElement : null;
  const reduced = !!picture && [...picture.querySelectorAll('source[media]')].some((s) => /prefers-reduced-motion/i.test(s.media));
  if (images.some((i) => i.url === url)) continue;
  images.push(entry(img, { url: url.length > 2048 && !/^data:/i.test(url) ? url.slice(0, 2048) : url, rendered_width: Math.round(r.width), rendered_height: Math.round(r.height), pause_control: control, reduced_motion_alternative: reduced }));
}

window.scrollTo(scroll[0], scroll[1]);
return out({
  reading,
  text_resize: { clipped: resize, skipped: resizeSkipped, boxes: clipBoxes.length },
  text_spacing: { clipped: spacing, skipped: spacingSkipped, boxes: clipBoxes.length },
  images,
  scroll,
  truncated,
  // What was read of a page over the budget (model::Sample): its checks say they judged a part.
  sampled: truncated ? { what: 'elements', read: elements.length, total: root.getElementsByTagName('*').length + 1 } : null,
});
