// The regions of a page that a site's other pages may repeat, each with a fingerprint of
// everything axe-core's element rules read about it. A region judged on one page of a scan is
// not judged again on a page where its fingerprint is the same: its findings are given back on
// that page's own elements (`axe_share.js`).
//
// Regions are the blocks outside `main` (the children of `body`, and of any wrapper that holds
// `main`, recursively, that do not hold it: header, navigation, footer, cookie banner, sidebars)
// and `main` itself. Within a scan the blocks outside `main` repeat from page to page; across
// scans of a site (the verdicts kept per site), `main` repeats too wherever the page did not
// change, so an unchanged page is judged from what its regions got last time. A region is left out when it is too small to be worth it, too large to
// fingerprint cheaply (alone, or with the regions before it on the page), or holds what the
// fingerprint cannot see (a shadow root, a slot, an image map whose image may be elsewhere).
//
// The fingerprint reads:
// - the page's viewport, scroll position and whether a modal dialog is open;
// - every ancestor up to `html`: tag, role, ARIA, inert/hidden/lang/dir, the computed styles,
//   and its horizontal extent (its height follows the page's length, which nothing here reads);
// - the region's subtree: tags, every attribute, text, form state, focus, scroll offsets, each
//   element's box relative to the region and its computed styles, with `::before`/`::after`
//   content and paint (read on the elements a style rule can give them content: `pseudoHosts`);
// - every id the region refers to (labels, ARIA relations, fragment links): what it resolves to,
//   inside the region (where) or outside it (its markup and styles);
// - every element outside the region that refers to an id defined inside it (`label for`,
//   `aria-owns`, ...), with its markup and styles;
// - every element outside the region whose box overlaps the region's (paint behind or above its
//   text), and every focusable element outside it within 24 px of one of its own (target
//   spacing).
// Returns JSON text: {regions: [{fp, size}] in the order of `window.__sitescanRegions`, page:
// the whole page's fingerprint or null (below)}.
const MIN_ELEMENTS = 8;
const MAX_ELEMENTS = 1500;
const MAX_REGIONS = 16;
// Elements fingerprinted on one page at most: a page without `main`, whose content blocks are
// all "regions", costs a bounded pass, not a second reading of the whole page.
const BUDGET = 3000;
const NEAR = 24;
// The computed styles axe-core's element rules read (visibility, colours and what blends them,
// fonts, decorations, clipping, stacking); what only moves boxes shows in the boxes themselves.
const STYLE = ['display', 'visibility', 'opacity', 'color', 'background-color', 'background-image', 'font-size', 'font-weight',
  'font-style', 'font-family', 'text-shadow', 'text-decoration-line', 'text-decoration-style', 'text-decoration-color',
  'text-indent', 'overflow-x', 'overflow-y', 'position', 'z-index', 'clip', 'clip-path', 'transform', 'filter', 'mix-blend-mode',
  'content-visibility', 'pointer-events', 'border-bottom-style', 'border-bottom-width', 'border-bottom-color',
  '-webkit-text-stroke-width', '-webkit-text-stroke-color', '-webkit-text-fill-color', 'direction', 'white-space'];
const PSEUDO = ['content', 'display', 'visibility', 'opacity', 'color', 'background-color', 'background-image', 'position',
  'z-index', 'inset', 'width', 'height', 'font-size', 'font-weight', 'text-shadow'];
const REFS = ['aria-labelledby', 'aria-describedby', 'aria-controls', 'aria-owns', 'aria-activedescendant', 'aria-details',
  'aria-errormessage', 'aria-flowto', 'for', 'headers', 'form', 'list', 'popovertarget', 'commandfor', 'anchor'];
const INCOMING = REFS.map((a) => '[' + a + ']').join(',');
const FOCUSABLE = 'a[href], area[href], button, input, select, textarea, summary, iframe, [tabindex], [onclick], [contenteditable], '
  + ['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'slider',
    'spinbutton', 'combobox', 'textbox', 'searchbox', 'treeitem', 'gridcell'].map((r) => '[role~="' + r + '" i]').join(', ');
const SKIP = new Set(['script', 'style', 'template', 'link', 'meta', 'noscript', 'base', 'title']);
const ANCESTOR_ATTRS = /^(role|aria-.*|inert|hidden|lang|xml:lang|dir|contenteditable|tabindex)$/;

// Two 53-bit string hashes (cyrb53, seeded) as hex.
const hash = (s, seed) => {
  let h1 = 0xdeadbeef ^ seed, h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, '0');
};
const digest = (s) => hash(s, 1) + hash(s, 2);
const px = (v) => Math.round(v * 64) / 64;
const styles = (el, pseudo, list) => {
  const cs = getComputedStyle(el, pseudo);
  let out = '';
  for (const p of list) out += cs.getPropertyValue(p) + '|';
  return out;
};
const attrs = (el, only) => {
  let out = '';
  for (const a of el.attributes) if (!only || only.test(a.name)) out += ' ' + a.name + '=' + JSON.stringify(a.value);
  return out;
};
const tokens = (v) => String(v || '').trim().split(/\s+/).filter(Boolean);
const isMain = (el) => el.localName === 'main' || tokens(el.getAttribute('role'))[0] === 'main';
const holdsMain = (el) => isMain(el) || el.querySelector('main') !== null || Array.from(el.querySelectorAll('[role]')).some(isMain);

// The candidate regions.
const regions = [];
const visit = (parent) => {
  for (const el of parent.children) {
    if (SKIP.has(el.localName)) continue;
    if (isMain(el)) regions.push(el);
    else if (holdsMain(el)) visit(el);
    else regions.push(el);
  }
};
if (document.body) visit(document.body);

// Each region's elements (DFS order) and whether it can be fingerprinted.
const inRegion = new Map();
const kept = [];
let budget = BUDGET;
for (const root of regions) {
  if (kept.length >= MAX_REGIONS) break;
  const els = [root];
  let ok = true;
  for (const el of root.getElementsByTagName('*')) {
    if (els.length >= MAX_ELEMENTS || el.shadowRoot || el.localName === 'slot' || el.localName === 'map') { ok = false; break; }
    els.push(el);
  }
  if (!ok || root.shadowRoot || els.length < MIN_ELEMENTS || els.length > budget) continue;
  budget -= els.length;
  const region = { root, els, parts: [], order: new Map() };
  els.forEach((el, i) => { region.order.set(el, i); inRegion.set(el, region); });
  kept.push(region);
}

const view = [innerWidth, innerHeight, devicePixelRatio, scrollX, scrollY, document.compatMode,
  !!document.querySelector('dialog:modal, [aria-modal="true" i]'), !!document.fullscreenElement].join(',');

// Who refers to which id, from anywhere on the page.
const referrers = new Map();
if (kept.length) {
  for (const el of document.querySelectorAll(INCOMING)) {
    for (const a of REFS) {
      for (const id of tokens(el.getAttribute(a))) {
        if (!referrers.has(id)) referrers.set(id, []);
        referrers.get(id).push(el);
      }
    }
  }
}
// The elements whose `::before` or `::after` may have content, or null for every element. A
// pseudo-element has content only where a rule for it declares `content` (or `all`), so only
// the elements those rules' selectors match now, without the pseudo-element, can have any; and
// `q`, whose quotes come from the browser's own style sheet. A style sheet that cannot be read
// (another origin's), a selector this cannot take apart (quoted or escaped text, nesting,
// `@scope`, another pseudo-element) or an open shadow root anywhere (`::slotted()::before`)
// leaves every element to be read. So does a page with more such selectors than `MAX_PSEUDO_SELECTORS`
// (an icon font's thousand `.icon-x::before`), or more rules than `MAX_RULES` in all: reading
// every element's pseudo-elements is bounded by `BUDGET`, and cheaper than matching that many
// selectors; the page's style sheets cannot make this walk cost more than that.
const PSEUDO_RULE = /::?(before|after)(?![\w-])/gi;
const MAX_RULES = 10000;
const MAX_PSEUDO_SELECTORS = 100;
const EMPTY = document.createDocumentFragment();
const pseudoHosts = () => {
  const selectors = [];
  let rules = 0;
  const take = (list, nested) => {
    for (const rule of list) {
      if (++rules > MAX_RULES) return false;
      // `style.content` first: a rule's selector text is serialized anew on every read.
      const style = rule.style;
      const text = style && (style.content || style.all) ? rule.selectorText : undefined;
      if (text !== undefined && /before|after/i.test(text)) {
        if (nested || /["'\\&]/.test(text)) return false;
        const parts = text.replace(PSEUDO_RULE, '').split(',').map((part) => part.trim());
        // `::before` alone (or `*::before`) is every element.
        if (parts.some((part) => part === '' || part === '*')) return false;
        // Parsed alone (it throws if it does not parse without its pseudo-element), against an
        // empty fragment: matched below with the others in one pass over the page.
        EMPTY.querySelector(parts.join(','));
        selectors.push(...parts);
        if (selectors.length > MAX_PSEUDO_SELECTORS) return false;
      }
      if (rule.styleSheet && !take(rule.styleSheet.cssRules, nested)) return false;
      const inner = rule.cssRules;
      if (inner && inner.length && !take(inner, nested || 'selectorText' in rule || (typeof CSSScopeRule !== 'undefined' && rule instanceof CSSScopeRule))) return false;
    }
    return true;
  };
  try {
    for (const sheet of [...document.styleSheets, ...(document.adoptedStyleSheets || [])]) if (!take(sheet.cssRules, false)) return null;
    for (const el of document.getElementsByTagName('*')) if (el.shadowRoot) return null;
    const hosts = new Set(document.getElementsByTagName('q'));
    if (selectors.length) for (const el of document.querySelectorAll(selectors.join(','))) hosts.add(el);
    return hosts;
  } catch (e) {
    return null;
  }
};
const hosts = kept.length ? pseudoHosts() : null;

// One element as the fingerprint reads it, its box relative to `box`.
const element = (el, box) => {
  // An element without boxes (display: none, an option of a closed select) has no position.
  const rects = el.getClientRects().length;
  const r = el.getBoundingClientRect();
  let s = '<' + el.localName + attrs(el) + (rects ? ' #' + px(r.x - box.x) + ',' + px(r.y - box.y) + ',' + px(r.width) + ',' + px(r.height)
    + ',' + rects : ' #none') + ' ' + styles(el, null, STYLE);
  for (const p of !hosts || hosts.has(el) ? ['::before', '::after'] : []) {
    const content = getComputedStyle(el, p).getPropertyValue('content');
    if (content && content !== 'none' && content !== 'normal') s += p + styles(el, p, PSEUDO);
  }
  if ('value' in el && (el.localName === 'input' || el.localName === 'textarea' || el.localName === 'select')) s += ' =' + JSON.stringify(String(el.value));
  if (el.localName === 'input') s += ' ' + el.checked + el.indeterminate;
  if (el.localName === 'select') s += ' ' + el.selectedIndex;
  if (el.scrollTop || el.scrollLeft) s += ' ~' + el.scrollTop + ',' + el.scrollLeft;
  if (document.activeElement === el) s += ' *focus';
  for (const n of el.childNodes) if (n.nodeType === 3) s += '"' + n.data;
  return s;
};
const describe = (el) => el.localName + attrs(el) + '{' + __ss.cut(el.textContent || '', 2000) + '}' + styles(el, null, STYLE);

for (const region of kept) {
  const { root, parts, order } = region;
  const box = root.getBoundingClientRect();
  parts.push(view, px(box.x), px(box.width), px(box.height));
  for (let a = root.parentElement; a; a = a.parentElement) {
    const r = a.getBoundingClientRect();
    parts.push('^' + a.localName + attrs(a, ANCESTOR_ATTRS) + styles(a, null, STYLE) + px(r.x) + ',' + px(r.width)
      + ',' + (r.top <= box.top && r.bottom >= box.bottom));
  }
  const refer = (el, name, value) => {
    for (const id of name === 'href' ? [value.slice(1)] : tokens(value)) {
      let target = document.getElementById(id);
      if (!target && name === 'href' && id) target = document.getElementsByName(id)[0] || null;
      if (!target) parts.push('@' + id + ':none');
      else if (order.has(target)) parts.push('@' + id + ':in' + order.get(target));
      else parts.push('@' + id + ':out' + describe(target));
    }
  };
  for (const el of region.els) {
    parts.push(element(el, box));
    for (const a of REFS) {
      const v = el.getAttribute(a);
      if (v) refer(el, a, v);
    }
    const href = el.getAttribute('href');
    if (href && href.startsWith('#')) refer(el, 'href', href);
    if (el.id) {
      for (const from of referrers.get(el.id) || []) if (!order.has(from)) parts.push('<-' + el.id + describe(from));
    }
  }
}

// Elements outside every region that overlap a region's box or sit near it.
if (kept.length) {
  const boxes = kept.map((region) => {
    const ancestors = new Set();
    for (let a = region.root.parentElement; a; a = a.parentElement) ancestors.add(a);
    const targets = region.els.filter((el) => el.matches(FOCUSABLE)).map((el) => el.getBoundingClientRect());
    return { region, ancestors, targets, box: region.root.getBoundingClientRect() };
  });
  const within = (r, b, d) => r.right > b.left - d && r.left < b.right + d && r.bottom > b.top - d && r.top < b.bottom + d;
  for (const el of document.body ? document.body.getElementsByTagName('*') : []) {
    const own = inRegion.get(el);
    const r = el.getBoundingClientRect();
    if (r.width <= 0 && r.height <= 0) continue;
    for (const { region, ancestors, targets, box } of boxes) {
      if (own === region || ancestors.has(el)) continue;
      const overlaps = within(r, box, 0);
      // Target spacing: a focusable element near one of the region's.
      const near = !overlaps && within(r, box, NEAR) && el.matches(FOCUSABLE) && targets.some((t) => within(r, t, NEAR));
      if (!overlaps && !near) continue;
      region.parts.push((overlaps ? '[]' : '..') + el.localName + attrs(el) + ' #' + px(r.x - box.x) + ',' + px(r.y - box.y) + ','
        + px(r.width) + ',' + px(r.height) + ' ' + styles(el, null, STYLE));
    }
  }
}

const fps = kept.map((region) => digest(region.parts.join('\n')));

// The whole page, when everything axe-core reads of it is covered: the document (doctype, `html`
// and its styles, every element of `head` with its attributes, the title), the text of every
// style sheet (rules whose effect no computed style shows: `@media (orientation)` for
// `css-orientation-lock`), and `body` child by child through the wrappers that hold `main`: a
// region by its fingerprint, a block too small to be a region element by element (as regions
// are read, in page coordinates), stray text, and the markup of scripts and styles. A block
// too large for a region, or holding what the fingerprint cannot see (a shadow root, a slot, an
// image map, a frame), a style sheet that cannot be read (another origin's), or a page with
// adopted style sheets leaves the page without one: then it is judged as usual. A page whose
// fingerprint is unchanged gets the whole of its axe-core results back (`axe.rs`).
const wholePage = () => {
  if (!kept.length || !document.body || !document.head || (document.adoptedStyleSheets && document.adoptedStyleSheets.length)) return null;
  const page = [view, document.compatMode, document.doctype ? document.doctype.name + '|' + document.doctype.publicId + '|' + document.doctype.systemId : '-',
    document.title, '<html' + attrs(document.documentElement) + styles(document.documentElement, null, STYLE)];
  for (const el of document.head.getElementsByTagName('*')) page.push('h<' + el.localName + attrs(el) + '{' + (el.localName === 'script' ? '' : el.textContent) + '}');
  // A sheet's rules, and those of the sheets it imports.
  const sheet = (s, depth) => {
    if (depth > 8) throw new Error('imports nested too deep');
    page.push('css ' + (s.href || '') + '|' + (s.media ? s.media.mediaText : '') + '|' + s.disabled);
    for (const rule of s.cssRules) {
      page.push(rule.cssText);
      if (rule.styleSheet) sheet(rule.styleSheet, depth + 1);
    }
  };
  try {
    for (const s of document.styleSheets) sheet(s, 0);
  } catch (e) {
    return null;
  }
  const regionOf = new Map(kept.map((region, i) => [region.root, i]));
  const origin = { x: 0, y: 0 };
  const cover = (parent) => {
    page.push('{' + parent.localName + attrs(parent) + styles(parent, null, STYLE));
    for (const n of parent.childNodes) {
      if (n.nodeType === 3) {
        if (n.data.trim()) page.push('"' + n.data);
        continue;
      }
      if (n.nodeType !== 1) continue;
      if (regionOf.has(n)) {
        page.push('#' + fps[regionOf.get(n)]);
      } else if (SKIP.has(n.localName)) {
        page.push('s<' + n.localName + attrs(n) + '{' + (n.localName === 'style' ? n.textContent : '') + '}');
      } else if (!isMain(n) && holdsMain(n)) {
        if (!cover(n)) return false;
      } else {
        const els = [n, ...n.getElementsByTagName('*')];
        if (els.length >= MIN_ELEMENTS || els.some((e) => e.shadowRoot || ['slot', 'map', 'iframe', 'frame', 'object', 'embed'].includes(e.localName))) return false;
        for (const e of els) page.push(element(e, origin));
      }
    }
    page.push('}');
    return true;
  };
  return cover(document.body) ? digest(page.join('\n')) : null;
};

window.__sitescanRegions = kept.map((region) => region.root);
return JSON.stringify({ regions: kept.map((region, i) => ({ fp: fps[i], size: region.els.length })), page: wholePage() });
