// A lean text-contrast pass (WCAG 1.4.3), measured against axe-core's `color-contrast` by
// bench/act/contrast.mjs. Not part of a scan: it answers whether one walk of our own could replace
// axe's rule, at what cost, and where the two disagree.
//
// One pass over the document's elements that hold text of their own. For each, the text's boxes
// (a Range per text node); the elements under each box's centre by the browser's own hit test
// (`elementsFromPoint`, one band of the page scrolled into view at a time, since hit testing
// sees only the viewport); then the backgrounds walked from the element down, blended as axe
// blends them (source-over, channels rounded), over the page's and white. Where a page needs
// more than that walk knows (opacity below 1, blend modes, filters, text shadows and strokes,
// generated content, shadow DOM), the element is answered `fallback`: a hybrid would hand those
// to axe's rule. Verdicts: `pass`, `fail` (with ratio and colours as axe words them), `review`
// (axe's "needs review" reasons: `bgOverlap`, `bgImage`, `bgGradient`, `elmPartiallyObscured`,
// `shortTextContent`, `equalRatio`) and `fallback`.
//
// Evaluates to `{ ms, results: [{ el, verdict, reason, ratio, fg, bg }] }` and keeps the results
// in `window.__leanContrast` for the comparison.
(() => {
  const started = performance.now();
  const rgba = (text) => {
    const m = /^rgba?\(([^)]*)\)$/.exec(text || '');
    if (!m) return null;
    const p = m[1].split(/[\s,/]+/).filter(Boolean).map(Number);
    if (p.length < 3 || p.some((x) => Number.isNaN(x))) return null;
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  // Source over backdrop, as axe's flattenColors with the normal blend mode.
  const over = (s, b) => {
    const a = Math.min(1, Math.max(0, s.a + b.a * (1 - s.a)));
    const ch = (cs, cb) => s.a * cs + (1 - s.a) * b.a * cb;
    if (a === 0) return { r: ch(s.r, b.r), g: ch(s.g, b.g), b: ch(s.b, b.b), a };
    return { r: Math.round(ch(s.r, b.r) / a), g: Math.round(ch(s.g, b.g) / a), b: Math.round(ch(s.b, b.b) / a), a };
  };
  const lum = (c) => {
    const f = (v) => { const x = v / 255; return x <= 0.04045 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  };
  const hex = (c) => '#' + [c.r, c.g, c.b].map((v) => (v > 15.5 ? '' : '0') + Math.round(v).toString(16)).join('');
  const WHITE = { r: 255, g: 255, b: 255, a: 1 };
  const IMAGE_ELEMENTS = new Set(['IMG', 'CANVAS', 'OBJECT', 'IFRAME', 'VIDEO', 'SVG']);
  const NOT_TEXT = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'TITLE', 'HEAD', 'OPTION', 'OPTGROUP', 'DATALIST']);
  const scrollBefore = [window.scrollX, window.scrollY];
  const styles = new Map();
  const style = (el) => { let s = styles.get(el); if (!s) { s = getComputedStyle(el); styles.set(el, s); } return s; };
  const results = [];
  const candidates = [];
  const root = document.body;
  if (!root) return { ms: 0, results };
  const all = root.querySelectorAll('*');
  const hasShadow = Array.prototype.some.call(all, (el) => el.shadowRoot);
  // Which elements axe's rule would look at, as far as cheap: form fields by their box; other
  // elements by their own text nodes, when that text is more than punctuation and symbols; not
  // disabled, inert, or the label of a disabled control.
  const FIELDS = new Set(['INPUT', 'SELECT', 'TEXTAREA']);
  const NON_TEXT_INPUT = new Set(['hidden', 'range', 'color', 'checkbox', 'radio', 'image']);
  const disabled = (el) => !!el.closest(':disabled, [aria-disabled="true"], [inert]');
  const labelsDisabled = (el) => {
    const label = el.closest('label');
    if (label && label.control && disabled(label.control)) return true;
    for (let e = el; e; e = e.parentElement) {
      if (!e.id) continue;
      const controls = document.querySelectorAll(`[aria-labelledby~="${CSS.escape(e.id)}"]`);
      if (controls.length && Array.prototype.every.call(controls, disabled)) return true;
    }
    return false;
  };
  for (const el of [root, ...all]) {
    if (NOT_TEXT.has(el.nodeName) || el.namespaceURI !== 'http://www.w3.org/1999/xhtml') continue;
    const field = FIELDS.has(el.nodeName);
    if (field && ((el.nodeName === 'INPUT' && NON_TEXT_INPUT.has(el.type)) || (el.nodeName === 'SELECT' && !el.options.length))) continue;
    let text = '';
    const rects = [];
    if (field) {
      text = el.value || el.placeholder || ' ';
      const b = el.getBoundingClientRect();
      if (b.width >= 1 && b.height >= 1) rects.push(b);
    } else {
      for (const n of el.childNodes) {
        if (n.nodeType !== 3 || !n.nodeValue.trim()) continue;
        text += n.nodeValue;
        const range = document.createRange();
        range.selectNodeContents(n);
        for (const r of range.getClientRects()) if (r.width >= 1 && r.height >= 1) rects.push(r);
      }
      if (!text.replace(/[\p{P}\p{S}\s]/gu, '')) continue;
    }
    if (disabled(el) || labelsDisabled(el) || !parseFloat(style(el).fontSize)) continue;
    if (!rects.length) { results.push({ el, verdict: 'pass', reason: 'hidden' }); continue; }
    const s = style(el);
    if (s.visibility !== 'visible' || rects.every((r) => r.right <= 0 || r.bottom <= 0)) { results.push({ el, verdict: 'pass', reason: 'hidden' }); continue; }
    candidates.push({ el, rects, text: text.trim() });
  }
  // Elements whose ancestry the walk does not model.
  const unmodelled = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const s = style(e);
      if (s.opacity !== '1' || s.mixBlendMode !== 'normal' || s.filter !== 'none' || s.backdropFilter !== 'none') return 'opacity';
    }
    const s = style(el);
    if (s.textShadow !== 'none') return 'textShadow';
    if (s.webkitTextStrokeWidth && s.webkitTextStrokeWidth !== '0px') return 'stroke';
    for (const p of ['::before', '::after']) {
      const ps = getComputedStyle(el, p);
      if (ps.content !== 'none' && ps.content !== 'normal' && (ps.backgroundColor !== 'rgba(0, 0, 0, 0)' || ps.backgroundImage !== 'none')) return 'pseudo';
    }
    return null;
  };
  const fixed = (el) => { for (let e = el; e; e = e.parentElement) if (style(e).position === 'fixed') return true; return false; };
  const invisible = (el) => { for (let e = el; e; e = e.parentElement) if (style(e).opacity === '0') return true; return false; };
  const fixedOrSticky = (el) => { for (let e = el; e; e = e.parentElement) { const p = style(e).position; if (p === 'fixed' || p === 'sticky') return true; } return false; };
  const encompasses = (el, rects) => {
    const b = el.getBoundingClientRect();
    return rects.every((r) => r.top >= b.top && r.bottom <= b.bottom && r.left >= b.left && r.right <= b.right);
  };
  const pageBackground = (stack) => {
    if (stack.includes(document.body)) return [];
    const html = rgba(style(document.documentElement).backgroundColor) || WHITE;
    const body = rgba(style(document.body).backgroundColor) || WHITE;
    const out = [];
    const bodyApplies = body.a !== 0;
    if ((body.a !== 0 && html.a === 0) || (bodyApplies && body.a !== 1)) out.unshift(body);
    if (html.a !== 0 && (!bodyApplies || body.a !== 1)) out.unshift(html);
    return out;
  };
  // Where elements that take no pointer events are (in page coordinates, turned into the band's
  // when judging): found from the style sheets' rules; a sheet that cannot be read (cross-origin)
  // leaves every element of the page to axe.
  const noPointerEls = new Set(document.querySelectorAll('[style*="pointer-events"]'));
  let unreadable = false;
  const rulesOf = (list) => { for (const r of list) { if (r.cssRules && !r.selectorText) rulesOf(r.cssRules); else if (r.style && r.style.pointerEvents === 'none' && r.selectorText) { try { for (const e of document.querySelectorAll(r.selectorText.replace(/::?(before|after|placeholder|marker|selection|first-line|first-letter)/g, ''))) noPointerEls.add(e); } catch (e) { unreadable = true; } } } };
  for (const sheet of document.styleSheets) { try { rulesOf(sheet.cssRules); } catch (e) { unreadable = true; } }
  const noPointerPage = [...noPointerEls].filter((e) => style(e).pointerEvents === 'none').map((e) => { const b = e.getBoundingClientRect(); return { left: b.left, right: b.right, top: b.top + scrollBefore[1], bottom: b.bottom + scrollBefore[1] }; });
  let noPointer = [];
  const viewport = window.innerHeight;
  const judge = (c, band) => {
    const why = unmodelled(c.el);
    if (why || hasShadow || unreadable) return { verdict: 'fallback', reason: why || (hasShadow ? 'shadowDom' : 'unreadableStyles') };
    noPointer = noPointerPage.map((b) => ({ left: b.left, right: b.right, top: b.top - band, bottom: b.bottom - band }));
    const s = style(c.el);
    if (band !== scrollBefore[1] && fixedOrSticky(c.el)) return { verdict: 'fallback', reason: 'fixed' };
    let stack = null;
    for (const r of c.rects) {
      const x = r.left + r.width / 2;
      const y = r.top + r.height / 2 + scrollBefore[1] - band;
      if (x < 0 || x >= window.innerWidth || y < 0 || y >= viewport) return { verdict: 'fallback', reason: 'outsideViewport' };
      let hits = document.elementsFromPoint(x, y);
      // What axe's grid would not stack over the text: fixed elements (axe files them apart from
      // the page's content and never stacks them over it), sticky ones once scrolled away from
      // where the page was, elements at opacity 0 (not visible to axe), and a hit that is not
      // the element's own box (its pseudo-element or overflowing content: axe stacks boxes).
      const point = (h) => Array.prototype.some.call(h.getClientRects(), (b) => x >= b.left && x < b.right && y >= b.top && y < b.bottom);
      hits = hits.filter((h) => h.contains(c.el) || (!fixed(h) && !invisible(h) && point(h)));
      if (band !== scrollBefore[1]) hits = hits.filter((h) => h.contains(c.el) || !fixedOrSticky(h));
      // An element that takes no pointer events is left out by the hit test and not by axe.
      if (noPointer.some((b) => b.left < x + 1 && b.right > x - 1 && b.top < y + 1 && b.bottom > y - 1)) return { verdict: 'fallback', reason: 'pointerEvents' };
      if (hits[0] !== c.el) return { verdict: 'review', reason: 'bgOverlap' };
      if (stack && (stack.length !== hits.length || stack.some((h, i) => h !== hits[i]))) return { verdict: 'review', reason: 'elmPartiallyObscuring' };
      stack = hits;
    }
    const layers = [];
    for (const e of stack) {
      const es = style(e);
      if (IMAGE_ELEMENTS.has(e.nodeName.toUpperCase())) return { verdict: 'review', reason: 'imgNode' };
      if (es.backgroundImage !== 'none') return { verdict: 'review', reason: es.backgroundImage.includes('gradient') ? 'bgGradient' : 'bgImage' };
      const bg = rgba(es.backgroundColor);
      if (!bg) return { verdict: 'fallback', reason: 'colorParse' };
      if (bg.a === 0) continue;
      if (es.display !== 'inline' && !encompasses(e, c.rects.map((r) => new DOMRect(r.x, r.y + scrollBefore[1] - band, r.width, r.height)))) return { verdict: 'review', reason: 'elmPartiallyObscured' };
      layers.unshift(bg);
      if (bg.a === 1) break;
    }
    const colours = pageBackground(stack).concat(layers);
    let bg = colours.length ? colours.reduce((b, f) => over(f, b)) : WHITE;
    bg = over(bg, WHITE);
    let fg = rgba(s.color);
    if (!fg) return { verdict: 'fallback', reason: 'colorParse' };
    if (fg.a < 1) fg = over(fg, bg);
    const l1 = lum(fg), l2 = lum(bg);
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    const size = parseFloat(s.fontSize);
    const weight = s.fontWeight;
    const bold = parseFloat(weight) >= 700 || weight === 'bold';
    const pt = Math.ceil(size * 72) / 96;
    const expected = (bold && pt < 14) || (!bold && pt < 18) ? 4.5 : 3;
    const truncated = Math.floor(ratio * 100) / 100;
    const out = { ratio: truncated, fg: hex(fg), bg: hex(bg), expected };
    if (truncated === 1) return { verdict: 'review', reason: 'equalRatio', ...out };
    if (ratio > expected) return { verdict: 'pass', ...out };
    if ([...c.text].length === 1) return { verdict: 'review', reason: 'shortTextContent', ...out };
    if (FIELDS.has(c.el.nodeName) && !(c.el.value || '').trim()) return { verdict: 'review', reason: 'emptyValue', ...out };
    return { verdict: 'fail', ...out };
  };
  // Page bands, top to bottom: the page is scrolled (only) when an element's text is not all in
  // view; back where the page was after.
  const centre = (r) => r.top + r.height / 2 + scrollBefore[1];
  candidates.sort((a, b) => centre(a.rects[0]) - centre(b.rects[0]));
  let band = scrollBefore[1];
  for (const c of candidates) {
    const ys = c.rects.map(centre);
    const lo = Math.min(...ys), hi = Math.max(...ys);
    // The hit test rounds: a centre keeps a pixel clear of the viewport's edge.
    if (lo < band || hi >= band + viewport - 1) { window.scrollTo(scrollBefore[0], Math.max(0, Math.floor(lo) - 1)); band = window.scrollY; }
    results.push({ el: c.el, ...judge(c, band) });
  }
  window.scrollTo(scrollBefore[0], scrollBefore[1]);
  window.__leanContrast = results;
  return { ms: performance.now() - started, count: results.length };
})();
