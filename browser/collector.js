// Collects facts about the rendered DOM and returns them as JSON text that deserialises straight
// into sitescan's `DomFacts` (snake_case fields). Lists are capped; anchors beyond the cap are
// counted in `anchors_omitted`.
__ss.freezeIds();
const hooks = window.__sitescanHooks || { hasClick: () => false, hasKey: () => false };
const LIMIT = { anchors: 2000, images: 1000, fields: 1000, forms: 200, headings: 500, metas: 300, links: 300, media: 100, jsonld: 100, jsonldBlock: 1 << 20, jsonldPage: 4 << 20, microdata: 200, dups: 100, deprecated: 100, clickable: 100, iframes: 100, landmarks: 100, backgrounds: 100, scan: 20000 };
const HTML_NS = 'http://www.w3.org/1999/xhtml';
const attr = __ss.attr;
const collapse = __ss.collapse;
const sel = (el) => __ss.selector(el);
const snip = (el) => __ss.snippet(el);
const vis = (el) => __ss.visible(el);
const vw = window.innerWidth, vh = window.innerHeight, sx = window.scrollX, sy = window.scrollY;
const u32 = (v) => Math.max(0, Math.round(Number(v) || 0));
const resolve = (raw) => {
  if (raw === null || raw === undefined) return null;
  try { return new URL(String(raw).trim(), document.baseURI).href; } catch (_) { return null; }
};
const lower = (v) => (v === null || v === undefined ? null : String(v).toLowerCase());
const byIds = (ids) => String(ids).split(/\s+/).filter(Boolean).map((id) => document.getElementById(id)).filter(Boolean).map((e) => collapse(e.textContent)).join(' ').trim();
function contentName(root, skipControls) {
  let out = '';
  const walk = (n) => {
    for (const c of n.childNodes) {
      if (c.nodeType === 3) { out += c.textContent; continue; }
      if (c.nodeType !== 1) continue;
      if (c.getAttribute('aria-hidden') === 'true') continue;
      const t = c.localName;
      if (t === 'script' || t === 'style' || t === 'template') continue;
      if (skipControls && (t === 'input' || t === 'select' || t === 'textarea')) continue;
      if (t === 'img' || (t === 'input' && c.type === 'image') || t === 'area') { out += ' ' + (c.getAttribute('alt') || '') + ' '; continue; }
      if (t === 'svg') {
        const label = c.getAttribute('aria-label');
        const title = c.querySelector('title');
        out += ' ' + (label || (title ? title.textContent : '')) + ' ';
        continue;
      }
      if (c.getAttribute('aria-label')) { out += ' ' + c.getAttribute('aria-label') + ' '; continue; }
      walk(c);
    }
  };
  walk(root);
  return collapse(out);
}
function accessibleName(el) {
  const lb = attr(el, 'aria-labelledby');
  if (lb) { const t = byIds(lb); if (t) return t; }
  const al = attr(el, 'aria-label');
  if (al && al.trim()) return collapse(al);
  const c = contentName(el, false);
  if (c) return c;
  const t = attr(el, 'title');
  return t ? collapse(t) : '';
}
const docTop = (r) => r.top + sy;
const inFirstViewport = (r) => r.width > 0 && r.height > 0 && r.top + sy < vh && r.bottom + sy > 0 && r.left + sx < vw && r.right + sx > 0;

const out = {};
// Document
const titles = Array.from(document.getElementsByTagName('title')).filter((t) => t.namespaceURI === HTML_NS);
out.title = titles.length ? __ss.own(document, 'title') : null;
out.title_count = titles.length;
out.doctype = document.doctype ? document.doctype.name : null;
out.compat_mode = document.compatMode;
const html = document.documentElement;
out.html_lang = html ? attr(html, 'lang') : null;
out.html_dir = html ? attr(html, 'dir') : null;
out.character_set = document.characterSet || null;
out.viewport_width = u32(vw);
out.viewport_height = u32(vh);
out.document_height = u32((document.scrollingElement || html || {}).scrollHeight);
const baseEl = document.querySelector('base[href]');
out.base_href = baseEl ? baseEl.href : null;

// <meta>
out.metas = Array.from(document.getElementsByTagName('meta')).slice(0, LIMIT.metas).map((m) => ({
  name: attr(m, 'name'), property: attr(m, 'property'), http_equiv: attr(m, 'http-equiv'),
  content: attr(m, 'content'), charset: attr(m, 'charset'), selector: sel(m),
}));
// <link>
out.links = Array.from(document.querySelectorAll('link')).slice(0, LIMIT.links).map((l) => ({
  rel: collapse(attr(l, 'rel') || '').toLowerCase(),
  href_raw: attr(l, 'href'),
  href: attr(l, 'href') === null ? null : resolve(attr(l, 'href')),
  hreflang: attr(l, 'hreflang'), media: attr(l, 'media'), type_: attr(l, 'type'), sizes: attr(l, 'sizes'),
  in_head: !!l.closest('head'), selector: sel(l),
}));
// Headings (h1-h6 and role=heading)
out.headings = [];
for (const h of document.querySelectorAll('h1, h2, h3, h4, h5, h6, [role="heading"]')) {
  if (out.headings.length >= LIMIT.headings) break;
  let level = /^h[1-6]$/.test(h.localName) ? Number(h.localName[1]) : Number(attr(h, 'aria-level') || 2);
  if (!(level >= 1 && level <= 6)) level = 2;
  out.headings.push({ level, text: __ss.cut(collapse(h.innerText || h.textContent), 300), selector: sel(h), visible: vis(h) });
}
// Landmarks
const LANDMARKS = new Set(['main', 'navigation', 'banner', 'contentinfo', 'complementary', 'search', 'form', 'region']);
const SECTIONING = 'article, aside, main, nav, section';
const named = (el) => !!(collapse(attr(el, 'aria-label') || '') || (attr(el, 'aria-labelledby') && byIds(attr(el, 'aria-labelledby'))) || collapse(attr(el, 'title') || ''));
out.landmarks = [];
for (const el of document.querySelectorAll('main, nav, aside, header, footer, form, section, search, [role]')) {
  if (out.landmarks.length >= LIMIT.landmarks) break;
  let role = attr(el, 'role');
  role = role ? role.trim().split(/\s+/)[0].toLowerCase() : null;
  if (!role) {
    const t = el.localName;
    if (t === 'main') role = 'main';
    else if (t === 'nav') role = 'navigation';
    else if (t === 'aside') role = 'complementary';
    else if (t === 'search') role = 'search';
    else if (t === 'header') role = el.parentElement && el.parentElement.closest(SECTIONING) ? null : 'banner';
    else if (t === 'footer') role = el.parentElement && el.parentElement.closest(SECTIONING) ? null : 'contentinfo';
    else if (t === 'form') role = named(el) ? 'form' : null;
    else if (t === 'section') role = named(el) ? 'region' : null;
  }
  if (role && LANDMARKS.has(role)) out.landmarks.push({ role, selector: sel(el) });
}
// Anchors
out.anchors = [];
out.anchors_omitted = 0;
for (const a of document.querySelectorAll('a, [role="link"]')) {
  if (out.anchors.length >= LIMIT.anchors) { out.anchors_omitted++; continue; }
  const raw = a.localName === 'a' ? attr(a, 'href') : null;
  let href = null;
  if (raw !== null) {
    const t = raw.trim();
    if (t !== '#' && !/^javascript:/i.test(t)) {
      try { const u = new URL(t, document.baseURI); u.hash = ''; href = u.href; } catch (_) { href = null; }
    }
  }
  out.anchors.push({
    href_raw: raw, href,
    text: __ss.cut(collapse(a.innerText || a.textContent), 300),
    accessible_name: __ss.cut(accessibleName(a), 300),
    rel: attr(a, 'rel'), target: attr(a, 'target'),
    has_click_handler: hooks.hasClick(a), visible: vis(a), selector: sel(a), snippet: snip(a),
  });
}
// Images
out.images = [];
const cssSized = (el, cs) => {
  const ar = cs.aspectRatio || 'auto';
  return (ar !== 'auto' && !ar.startsWith('auto')) || (!!el.style.width && !!el.style.height && el.style.width !== 'auto' && el.style.height !== 'auto');
};
function pushImage(el, kind, srcRaw, url, natural) {
  if (out.images.length >= LIMIT.images) return;
  const r = el.getBoundingClientRect();
  const cs = getComputedStyle(el);
  out.images.push({
    kind, src_raw: srcRaw, url, alt: attr(el, 'alt'),
    natural_width: u32(natural[0]), natural_height: u32(natural[1]),
    rendered_width: u32(r.width), rendered_height: u32(r.height),
    loading: lower(attr(el, 'loading')), decoding: lower(attr(el, 'decoding')), fetchpriority: lower(attr(el, 'fetchpriority')),
    has_width_attr: el.hasAttribute('width'), has_height_attr: el.hasAttribute('height'),
    has_css_size: cssSized(el, cs),
    in_first_viewport: inFirstViewport(r), top_px: docTop(r),
    broken: kind === 'img' ? (el.complete && el.naturalWidth === 0 && !!(el.currentSrc || attr(el, 'src') || attr(el, 'srcset'))) : false,
    visible: vis(el), srcset: attr(el, 'srcset'), selector: sel(el), snippet: snip(el),
  });
}
for (const img of document.images) pushImage(img, 'img', attr(img, 'src'), img.currentSrc || resolve(attr(img, 'src')), [img.naturalWidth, img.naturalHeight]);
for (const inp of document.querySelectorAll('input[type="image" i]')) pushImage(inp, 'input-image', attr(inp, 'src'), resolve(attr(inp, 'src')), [0, 0]);
for (const im of document.querySelectorAll('svg image')) {
  const raw = im.getAttribute('href') || im.getAttribute('xlink:href');
  pushImage(im, 'svg-image', raw, resolve(raw), [0, 0]);
}
// CSS background images of elements in the first viewport.
let backgrounds = 0, scanned = 0;
if (document.body) {
  for (const el of document.body.getElementsByTagName('*')) {
    if (backgrounds >= LIMIT.backgrounds || ++scanned > LIMIT.scan) break;
    const r = el.getBoundingClientRect();
    if (!inFirstViewport(r)) continue;
    const bg = getComputedStyle(el).backgroundImage;
    if (!bg || bg === 'none' || bg.indexOf('url(') < 0) continue;
    const m = /url\(\s*(['"]?)(.*?)\1\s*\)/.exec(bg);
    if (!m) continue;
    backgrounds++;
    pushImage(el, 'css-background', m[2], resolve(m[2]), [0, 0]);
  }
}
// Media
out.media = Array.from(document.querySelectorAll('video, audio')).slice(0, LIMIT.media).map((m) => {
  const firstSource = m.querySelector('source[src]');
  let hasAudio = null;
  if (m.localName === 'audio') hasAudio = true;
  else if (typeof m.mozHasAudio === 'boolean') hasAudio = m.mozHasAudio;
  else if (typeof m.webkitAudioDecodedByteCount === 'number' && m.webkitAudioDecodedByteCount > 0) hasAudio = true;
  else if (m.audioTracks && typeof m.audioTracks.length === 'number' && m.readyState >= 1) hasAudio = m.audioTracks.length > 0;
  return {
    tag: m.localName,
    src: m.currentSrc || resolve(attr(m, 'src')) || (firstSource ? firstSource.src : null),
    autoplay: m.autoplay, muted: m.muted || m.hasAttribute('muted'), controls: m.controls, loop_: m.loop,
    has_audio: hasAudio,
    playing: !m.paused && !m.ended && m.readyState > 2,
    duration_s: Number.isFinite(m.duration) ? m.duration : null,
    tracks: Array.from(m.querySelectorAll('track')).map((t) => ({ kind: (attr(t, 'kind') || 'subtitles').toLowerCase(), srclang: attr(t, 'srclang'), src: attr(t, 'src') === null ? null : resolve(attr(t, 'src')), label: attr(t, 'label') })),
    selector: sel(m), snippet: snip(m),
  };
});
// Forms and fields
const forms = Array.from(document.forms).slice(0, LIMIT.forms);
const formIndex = new Map(forms.map((f, i) => [f, i]));
out.fields = [];
const counts = new Array(forms.length).fill(0);
for (const el of document.querySelectorAll('input, select, textarea, button')) {
  if (el.localName === 'input' && (el.type || '').toLowerCase() === 'hidden') continue;
  if (out.fields.length >= LIMIT.fields) break;
  const parts = [];
  const lb = attr(el, 'aria-labelledby');
  if (lb) { const t = byIds(lb); if (t) parts.push(t); }
  const al = attr(el, 'aria-label');
  if (al && al.trim()) parts.push(collapse(al));
  if (el.labels) for (const l of el.labels) { const t = contentName(l, true); if (t) parts.push(t); }
  const labelText = parts.length ? parts.join(' ') : null;
  const isButton = el.localName === 'button' || ['submit', 'reset', 'button', 'image'].includes((el.type || '').toLowerCase());
  let buttonName = '';
  if (isButton) buttonName = el.localName === 'button' ? contentName(el, false) : collapse(el.value || attr(el, 'alt') || '');
  const title = collapse(attr(el, 'title') || '');
  const hasLabel = !!labelText || !!title || !!buttonName;
  const placeholder = attr(el, 'placeholder');
  const fi = el.form && formIndex.has(el.form) ? formIndex.get(el.form) : null;
  if (fi !== null) counts[fi]++;
  out.fields.push({
    tag: el.localName,
    type_attr: lower(attr(el, 'type')),
    type_: String(el.type || 'text').toLowerCase(),
    name: attr(el, 'name'), id: attr(el, 'id'), autocomplete: attr(el, 'autocomplete'), placeholder,
    label_text: labelText,
    has_label: hasLabel,
    placeholder_only: !hasLabel && !!(placeholder && placeholder.trim()),
    // WAI-ARIA presentational role conflict resolution: role none/presentation is honoured only on
    // an element that is not focusable (here: disabled) and has no global ARIA attribute.
    presentational: ['none', 'presentation'].includes(((attr(el, 'role') || '').trim().split(/\s+/)[0] || '').toLowerCase())
      && el.matches(':disabled') && !Array.from(el.attributes).some((a) => a.name.startsWith('aria-')),
    visible: vis(el), required: !!el.required, form_index: fi,
    selector: sel(el), snippet: snip(el),
  });
}
// form.elements leaves out image buttons (<input type=image>), which do submit the form.
const imageButtons = Array.from(document.querySelectorAll('input[type="image" i]'));
out.forms = forms.map((f, i) => {
  const els = Array.from(__ss.own(f, 'elements')).concat(imageButtons.filter((b) => b.form === f));
  return {
    action_raw: attr(f, 'action'),
    action: (() => { const a = __ss.own(f, 'action'); return typeof a === 'string' && a ? a : null; })(),
    method: (attr(f, 'method') || 'get').toLowerCase() === 'post' ? 'post' : ((attr(f, 'method') || '').toLowerCase() === 'dialog' ? 'dialog' : 'get'),
    has_submit: els.some((e) => (e.localName === 'button' && e.type === 'submit') || (e.localName === 'input' && (e.type === 'submit' || e.type === 'image'))),
    has_password: els.some((e) => e.localName === 'input' && e.type === 'password'),
    field_count: counts[i], visible: vis(f), selector: sel(f), snippet: snip(f),
  };
});
// JSON-LD
// A block over its budget, or past the page's, is read only in part (its start, for the
// snippet) with its length: the bytes are cut here, before they cross to the scanner.
let jsonLdRead = 0;
out.json_ld = Array.from(document.getElementsByTagName('script'))
  .filter((s) => (attr(s, 'type') || '').trim().toLowerCase() === 'application/ld+json')
  .slice(0, LIMIT.jsonld)
  .map((s) => {
    const text = s.textContent || '';
    if (text.length > LIMIT.jsonldBlock || jsonLdRead + text.length > LIMIT.jsonldPage) {
      return { text: __ss.cut(text, 400), selector: sel(s), length: text.length };
    }
    jsonLdRead += text.length;
    return { text, selector: sel(s) };
  });
// Microdata
const propValue = (p) => {
  const t = p.localName;
  if (t === 'meta') return attr(p, 'content') || '';
  if (['audio', 'embed', 'iframe', 'img', 'source', 'track', 'video'].includes(t)) return resolve(attr(p, 'src')) || '';
  if (['a', 'area', 'link'].includes(t)) return resolve(attr(p, 'href')) || '';
  if (t === 'object') return resolve(attr(p, 'data')) || '';
  if (t === 'data' || t === 'meter') return attr(p, 'value') || '';
  if (t === 'time') return attr(p, 'datetime') || collapse(p.textContent);
  return __ss.cut(collapse(p.textContent), 500);
};
out.microdata = Array.from(document.querySelectorAll('[itemscope]')).slice(0, LIMIT.microdata).map((item) => {
  const properties = [];
  for (const p of item.querySelectorAll('[itemprop]')) {
    if (!p.parentElement || p.parentElement.closest('[itemscope]') !== item) continue;
    const value = p.hasAttribute('itemscope') ? '[item ' + collapse(attr(p, 'itemtype') || '') + ']' : propValue(p);
    for (const name of collapse(attr(p, 'itemprop')).split(' ').filter(Boolean)) properties.push({ name, value });
    if (properties.length >= 200) break;
  }
  return { types: collapse(attr(item, 'itemtype') || '').split(' ').filter(Boolean), properties, nested: item.hasAttribute('itemprop'), selector: sel(item) };
});
// RDFa: typeof/vocab anywhere, property outside <meta> (Open Graph metas are counted by `metas`).
out.rdfa_count = document.querySelectorAll('[typeof], [vocab]').length + document.querySelectorAll('[property]:not(meta)').length;
// Duplicate ids
const byId = new Map();
for (const el of document.querySelectorAll('[id]')) {
  const id = attr(el, 'id');
  if (!id) continue;
  if (!byId.has(id)) byId.set(id, []);
  byId.get(id).push(el);
}
out.duplicate_ids = [];
for (const [id, els] of byId) {
  if (els.length < 2) continue;
  if (out.duplicate_ids.length >= LIMIT.dups) break;
  out.duplicate_ids.push({ id, count: els.length, selectors: els.slice(0, 5).map(sel), snippet: snip(els[1]) });
}
// Deprecated elements
const DEPRECATED = 'center, font, marquee, blink, frame, frameset, big, strike, tt, acronym, applet, basefont, dir, isindex, noframes, spacer, bgsound, listing, xmp, plaintext';
out.deprecated_elements = Array.from(document.querySelectorAll(DEPRECATED)).slice(0, LIMIT.deprecated).map((el) => ({ tag: el.localName, selector: sel(el), snippet: snip(el) }));
// Non-interactive elements with a click handler but no role, tabindex or key handler.
const INTERACTIVE = new Set(['a', 'button', 'input', 'select', 'textarea', 'summary', 'label', 'option', 'details', 'area', 'audio', 'video', 'iframe', 'embed', 'object', 'html', 'body']);
out.clickable_non_interactive = [];
scanned = 0;
for (const el of document.getElementsByTagName('*')) {
  if (out.clickable_non_interactive.length >= LIMIT.clickable || ++scanned > LIMIT.scan) break;
  if (INTERACTIVE.has(el.localName) || el.namespaceURI !== HTML_NS) continue;
  if (!hooks.hasClick(el)) continue;
  if (el.hasAttribute('role') || el.hasAttribute('tabindex') || el.isContentEditable || hooks.hasKey(el)) continue;
  out.clickable_non_interactive.push({ tag: el.localName, selector: sel(el), snippet: snip(el) });
}
out.iframes = Array.from(document.querySelectorAll('iframe, frame')).slice(0, LIMIT.iframes).map((el) => ({ tag: el.localName, selector: sel(el), snippet: snip(el) }));
return JSON.stringify(out);
