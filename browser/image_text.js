// Lists the images whose pixels `ImageText` reads (crates/engine/src/browser/gather/image_text.rs).
// JSON text: {candidates: [...], omitted, viewport: [width, height]}. Installs
// `window.__sitescanImageText` with:
// - `looks(indexes)`: what those candidates' own pixels look like (`imageLook`, image_look.js),
//   each drawn from its decoded image onto a canvas of its `draw` size (its box's, as listed) over
//   its `draw` colour (the colour behind it), as JSON text (an array in the order asked); null
//   for one whose pixels cannot be read that way: that image is captured instead;
// - `hide()`: hides the page's own text while screenshots are taken, so that text laid over an
//   image is never read as the image's;
// - `restore()`: shows the text again (transitions the change would start are finished at
//   once, so later gatherers see the page's own colours) and scrolls back to where the page was
//   (a viewport emulated as tall as the page for the captures moves it).
//
// Candidates: rendered `img` (alt="" included: a decorative image of text is still one),
// `input type=image`, elements with role=img (an `svg` among them), named `canvas`, and
// elements without text of their own whose CSS background is an image. Skipped: hidden ones,
// those under aria-hidden, broken images, and boxes too small to hold a word or too large to
// read in one go.
const MAX_CANDIDATES = 8;
const MIN_SIDE = 12, MIN_AREA = 400, MAX_SIDE = 3000, SCAN = 20000;
// The most pixels of a candidate drawn onto a canvas (4 bytes each); larger ones are captured.
const MAX_DRAWN = 1000000;
__ss.freezeIds();
const collapse = __ss.collapse;
const attr = __ss.attr;
const byIds = (ids) => String(ids).split(/\s+/).filter(Boolean).map((id) => document.getElementById(id)).filter(Boolean).map((e) => collapse(e.textContent)).join(' ').trim();
const resolve = (raw) => {
  if (!raw) return null;
  try { return new URL(String(raw).trim(), document.baseURI).href; } catch (_) { return null; }
};
function nameOf(el) {
  const lb = attr(el, 'aria-labelledby');
  if (lb) { const t = byIds(lb); if (t) return t; }
  const al = attr(el, 'aria-label');
  if (al && al.trim()) return collapse(al);
  const t = el.localName;
  if (t === 'img' || (t === 'input' && (el.type || '').toLowerCase() === 'image')) {
    const alt = attr(el, 'alt');
    if (alt && alt.trim()) return collapse(alt);
  }
  if (t === 'svg') {
    const title = Array.from(el.children).find((c) => c.localName === 'title');
    if (title && title.textContent.trim()) return collapse(title.textContent);
  }
  const title = attr(el, 'title');
  return title ? collapse(title) : '';
}
const roleOf = (el) => (attr(el, 'role') || '').trim().toLowerCase().split(/\s+/)[0] || '';
function decorative(el) {
  const role = roleOf(el);
  if (role === 'presentation' || role === 'none') return true;
  return el.localName === 'img' && attr(el, 'alt') === '' && !attr(el, 'aria-label') && !attr(el, 'aria-labelledby') && !attr(el, 'title');
}
const hasLogo = (s) => /logo/i.test(String(s || ''));
const fileOf = (url) => {
  try { return decodeURIComponent(new URL(url).pathname.split('/').pop() || ''); } catch (_) { return ''; }
};
function logoHint(el, name, url) {
  if (/\blogo/i.test(name)) return 'name';
  if (url && !url.startsWith('data:') && hasLogo(fileOf(url))) return 'file';
  let node = el;
  for (let i = 0; node && node.nodeType === 1 && i < 4; i++, node = node.parentElement) {
    const cls = typeof node.className === 'string' ? node.className : (node.getAttribute('class') || '');
    if (hasLogo(node.id) || hasLogo(cls) || /\bbrand/i.test(cls) || /\bbrand/i.test(node.id || '')) return 'attribute';
  }
  const link = el.closest('a[href]');
  if (link) {
    try {
      const u = new URL(link.href, document.baseURI);
      if (u.origin === location.origin && (u.pathname === '/' || /^\/index\.[a-z]+$/i.test(u.pathname))) return 'home-link';
    } catch (_) { /* not a URL */ }
  }
  return null;
}
const ownText = (el) => collapse(el.innerText || el.textContent || '') !== '';
const bgUrl = (el) => {
  const bg = getComputedStyle(el).backgroundImage;
  if (!bg || bg === 'none' || bg.indexOf('url(') < 0) return null;
  const m = /url\(\s*(['"]?)(.*?)\1\s*\)/.exec(bg);
  return m ? resolve(m[2]) : null;
};

// The colour an element's box is painted over: the first ancestor's background colour that is
// opaque (white at the top, as a page with none is shown); null when what lies behind is not one
// colour (a background image, a translucent colour, an ancestor's opacity, filter or blending).
function backdropOf(el) {
  for (let node = el.parentElement; node; node = node.parentElement) {
    const cs = getComputedStyle(node);
    if (cs.backgroundImage !== 'none' || cs.opacity !== '1' || cs.filter !== 'none' || cs.mixBlendMode !== 'normal') return null;
    const m = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:[,\s/]+([\d.]+%?))?\s*\)$/.exec(cs.backgroundColor);
    if (!m) return null;
    const alpha = m[4] === undefined ? 1 : m[4].endsWith('%') ? parseFloat(m[4]) / 100 : parseFloat(m[4]);
    if (alpha >= 1) return `rgb(${m[1]}, ${m[2]}, ${m[3]})`;
    if (alpha > 0) return null;
  }
  return 'rgb(255, 255, 255)';
}
// The backdrop of an image whose box shows exactly its own pixels stretched to the box (an
// `img` drawn as is: no padding, border, rounding, fitting, transform, filter or opacity), else
// null: that image is captured as the page shows it.
function drawable(el, r) {
  if (el.localName !== 'img' || r.width * r.height > MAX_DRAWN) return null;
  const cs = getComputedStyle(el);
  const zero = ['paddingTop', 'paddingRight', 'paddingBottom', 'paddingLeft', 'borderTopWidth', 'borderRightWidth', 'borderBottomWidth', 'borderLeftWidth'].every((p) => parseFloat(cs[p]) === 0);
  const plain = cs.objectFit === 'fill' && cs.transform === 'none' && cs.filter === 'none' && cs.opacity === '1' && cs.mixBlendMode === 'normal'
    && cs.clipPath === 'none' && (cs.maskImage || cs.webkitMaskImage || 'none') === 'none' && parseFloat(cs.borderTopLeftRadius) === 0
    && parseFloat(cs.borderTopRightRadius) === 0 && parseFloat(cs.borderBottomLeftRadius) === 0 && parseFloat(cs.borderBottomRightRadius) === 0;
  return zero && plain ? backdropOf(el) : null;
}

const scrolled = [window.scrollX, window.scrollY];
const found = [];
const elements = [];
const draws = [];
const seen = new Set();
let omitted = 0;
function consider(el, kind, url) {
  if (seen.has(el)) return;
  seen.add(el);
  if (!__ss.visible(el) || el.closest('[aria-hidden="true" i]')) return;
  if (el.localName === 'img' && !(el.complete && el.naturalWidth > 0)) return;
  const r = el.getBoundingClientRect();
  if (r.width < MIN_SIDE || r.height < MIN_SIDE || r.width * r.height < MIN_AREA || r.width > MAX_SIDE || r.height > MAX_SIDE) return;
  if (found.length >= MAX_CANDIDATES) { omitted++; return; }
  const name = nameOf(el);
  const backdrop = drawable(el, r);
  const width = Math.max(1, Math.round(r.width)), height = Math.max(1, Math.round(r.height));
  // How its first look is drawn (null: it is captured as the page shows it).
  const draw = backdrop && width * height <= MAX_DRAWN ? { width, height, backdrop } : null;
  elements.push(el);
  draws.push(draw);
  found.push({
    kind, selector: __ss.selector(el), snippet: __ss.snippet(el), url: url || null, name,
    decorative: decorative(el), logo_hint: logoHint(el, name, url),
    x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height,
    in_view: r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth,
    draw,
  });
}
let scanned = 0;
const all = document.body ? document.body.getElementsByTagName('*') : [];
for (const el of all) {
  if (++scanned > SCAN) break;
  const t = el.localName;
  const role = roleOf(el);
  if (t === 'img') consider(el, role === 'img' ? 'role-img' : 'img', el.currentSrc || resolve(attr(el, 'src')));
  else if (t === 'input' && (el.type || '').toLowerCase() === 'image') consider(el, 'input-image', resolve(attr(el, 'src')));
  else if (role === 'img') consider(el, 'role-img', bgUrl(el));
  else if (t === 'canvas') { if (nameOf(el)) consider(el, 'canvas', null); }
  else if (t !== 'svg' && !(el instanceof SVGElement)) {
    const url = bgUrl(el);
    if (url && !ownText(el) && !el.querySelector('img, svg, canvas, video, iframe, input, button, select, textarea')) consider(el, 'css-background', url);
  }
}

const hidden = [];
window.__sitescanImageText = {
  looks(indexes) {
    return JSON.stringify(indexes.map((i) => {
      const el = elements[i], draw = draws[i];
      if (!el || !draw || !el.isConnected || !(el.complete && el.naturalWidth > 0)) return null;
      const { width, height, backdrop } = draw;
      try {
        const canvas = new OffscreenCanvas(width, height);
        const ctx = canvas.getContext('2d', { willReadFrequently: true });
        ctx.fillStyle = backdrop;
        ctx.fillRect(0, 0, width, height);
        ctx.imageSmoothingQuality = 'high';
        ctx.drawImage(el, 0, 0, width, height);
        // Throws for an image of another origin not shared with this one (a tainted canvas).
        return imageLook(ctx.getImageData(0, 0, width, height).data, width, height);
      } catch (_) {
        return null;
      }
    }));
  },
  // Hide the page's own text (no DOM change: an adopted style sheet).
  hide() {
    if (hidden.length || !found.length || !('adoptedStyleSheets' in document)) return 'hidden';
    const sheet = new CSSStyleSheet();
    sheet.replaceSync('*, *::before, *::after, *::marker, *::placeholder { color: transparent !important; -webkit-text-fill-color: transparent !important; text-shadow: none !important; caret-color: transparent !important; transition: none !important; }');
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    hidden.push(sheet);
    return 'hidden';
  },
  restore() {
    if (window.scrollX !== scrolled[0] || window.scrollY !== scrolled[1]) window.scrollTo(scrolled[0], scrolled[1]);
    if (!hidden.length) return 'restored';
    const before = new Set(document.getAnimations ? document.getAnimations() : []);
    document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => !hidden.includes(s));
    hidden.length = 0;
    if (document.body) void getComputedStyle(document.body).color;
    if (document.getAnimations) {
      for (const a of document.getAnimations()) {
        if (!before.has(a) && typeof CSSTransition !== 'undefined' && a instanceof CSSTransition) { try { a.finish(); } catch (_) { a.cancel(); } }
      }
    }
    return 'restored';
  },
};
return JSON.stringify({ candidates: found, omitted, viewport: [window.innerWidth, window.innerHeight] });
