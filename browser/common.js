// Helpers shared by the in-page scripts (prepended inside each script's function scope).
// Selectors are unique CSS paths (an id when it is unique, else :nth-of-type steps from the
// nearest uniquely-identified ancestor); snippets are outerHTML trimmed to ~300 characters.
const __ss = (() => {
  const MAX_SNIPPET = 300;
  const esc = (s) => (window.CSS && CSS.escape) ? CSS.escape(s) : String(s).replace(/[^a-zA-Z0-9_-]/g, (c) => '\\' + c);
  let idCounts = null;
  const idCount = (id) => {
    if (idCounts) return idCounts.get(id) || 0;
    try { return document.querySelectorAll('#' + esc(id)).length; } catch (_) { return 0; }
  };
  // Captured from this world's own prototypes (the gatherers run in an isolated world, where no
  // page script can replace them): the page's markup can still shadow a form's or the
  // document's properties by name (`<input name=action>` makes `form.action` that input), so
  // properties of those are read through their prototypes (`own`).
  const getAttr = Element.prototype.getAttribute;
  const hasAttr = Element.prototype.hasAttribute;
  const getProto = Object.getPrototypeOf;
  const describe = Object.getOwnPropertyDescriptor;
  const own = (obj, name) => {
    for (let p = getProto(obj); p; p = getProto(p)) {
      const d = describe(p, name);
      if (d) return d.get ? d.get.call(obj) : (typeof d.value === 'function' ? d.value.bind(obj) : d.value);
    }
    return undefined;
  };
  const clobberable = (el) => el === document || (el && el.nodeType === 1 && el.localName === 'form');
  const self = {
    // `obj[name]` as its prototype defines it, whatever the page's markup named (for forms and
    // the document; other elements read it directly).
    own(obj, name) { return clobberable(obj) ? own(obj, name) : obj[name]; },
    // The attribute's value, or null.
    attr(el, name) { return el && el.nodeType === 1 && hasAttr.call(el, name) ? getAttr.call(el, name) : null; },
    // `s` cut to at most `n` UTF-16 units without splitting a character in two (an emoji is two).
    cut(s, n) {
      s = String(s);
      if (s.length <= n) return s;
      let end = n;
      const c = s.charCodeAt(end - 1);
      if (c >= 0xD800 && c <= 0xDBFF) end--;
      return s.slice(0, end);
    },
    // Count ids once (for scripts that build many selectors at one moment).
    freezeIds() {
      idCounts = new Map();
      for (const el of document.querySelectorAll('[id]')) { const id = getAttr.call(el, 'id'); idCounts.set(id, (idCounts.get(id) || 0) + 1); }
    },
    selector(el) {
      if (!el || el.nodeType !== 1) return '';
      const parts = [];
      let node = el;
      while (node && node.nodeType === 1) {
        const tag = node.localName;
        const id = self.own(node, 'id');
        if (id && typeof id === 'string' && idCount(id) === 1) { parts.unshift('#' + esc(id)); break; }
        if (node === document.documentElement) { parts.unshift('html'); break; }
        const parent = node.parentElement;
        if (!parent) { parts.unshift(esc(tag)); break; }
        let sel = esc(tag);
        let index = 0, same = 0;
        for (const sib of parent.children) {
          if (sib.localName === tag) { same++; if (sib === node) index = same; }
        }
        if (same > 1) sel += ':nth-of-type(' + index + ')';
        parts.unshift(sel);
        node = parent;
      }
      return parts.join(' > ');
    },
    snippet(el) {
      if (!el || el.nodeType !== 1) return '';
      const html = self.own(el, 'outerHTML') || '';
      if (html.length <= MAX_SNIPPET) return html;
      const end = html.indexOf('>');
      if (end > 0 && end < MAX_SNIPPET - 1) return html.slice(0, end + 1) + '…';
      return self.cut(html, MAX_SNIPPET - 1) + '…';
    },
    // True when the page's only lazy content can be native lazy images: no script watches
    // scrolling (`hooks.js`) and no frame could hold more (see `scroll.js`).
    eagerOnly() {
      const hooks = window.__sitescanHooks;
      return !!hooks && !hooks.scrollWatched() && document.querySelector('iframe, frame') === null;
    },
    // Starts loading every `loading=lazy` image now and sets the attribute back (a load once
    // started is not deferred again); returns them.
    loadLazyImages() {
      const lazy = document.querySelectorAll('img[loading="lazy" i]');
      for (const img of lazy) {
        const value = img.getAttribute('loading');
        img.setAttribute('loading', 'eager');
        img.setAttribute('loading', value);
      }
      return lazy;
    },
    collapse(s) { return String(s == null ? '' : s).replace(/\s+/g, ' ').trim(); },
    visible(el) {
      if (!el || !el.isConnected) return false;
      const r = el.getBoundingClientRect();
      if (r.width <= 0 || r.height <= 0) return false;
      if (el.checkVisibility) return el.checkVisibility({ opacityProperty: true, visibilityProperty: true, contentVisibilityAuto: true });
      const cs = getComputedStyle(el);
      return cs.visibility !== 'hidden' && cs.display !== 'none' && parseFloat(cs.opacity) > 0;
    },
  };
  return self;
})();
