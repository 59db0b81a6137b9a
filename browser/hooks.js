// Init script (before any page script): remembers which elements get click or key listeners,
// whether any script listens to keys or focus at all (on an element, the document or the window: the
// keyboard walk may compute the Tab order itself only where no script can change what Tab does),
// whether a script watches scrolling (scroll or wheel listeners, intersection observers: what a
// JavaScript lazy loader or scroll effect needs; `scroll.js` asks before it scrolls), reports CSP
// violations and deprecation/intervention reports through the CDP binding.
if (window.__sitescanHooks) return;
const report = window.__sitescanReport;
const stringify = JSON.stringify;
// Every report carries TOKEN (given by the scanner, held only here): the binding is also callable
// by the page's script, and what it sends without the token is dropped.
const send = (o) => { try { o.t = TOKEN; if (typeof report === 'function') report(stringify(o)); } catch (_) {} };
// What this script calls later is taken now, before any page script can replace it.
const setHas = Set.prototype.has;
const weakHas = WeakSet.prototype.has;
const weakAdd = WeakSet.prototype.add;
const WeakRefCtor = WeakRef;
const deref = WeakRef.prototype.deref;
const lower = String.prototype.toLowerCase;
const StringCtor = String;
const set = (...names) => { const s = new Set(names); return { has: (n) => setHas.call(s, n) }; };
const weak = () => { const s = new WeakSet(); return { has: (e) => weakHas.call(s, e), add: (e) => weakAdd.call(s, e) }; };
const CLICK = set('click', 'dblclick', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'touchstart', 'touchend');
const KEY = set('keydown', 'keyup', 'keypress');
const FOCUS = set('focus', 'blur', 'focusin', 'focusout');
const SCROLL = set('scroll', 'scrollend', 'wheel');
let scrollWatched = false;
let keyWatched = false;
let focusWatched = false;
// A click, hashchange or popstate listener on the document or the window: links may be handled by
// delegation there (a router, a framework's event delegation).
let delegated = false;
// A key listener on the document or the window: keys may be handled there for any element.
let keyDelegated = false;
const clickEls = weak();
const keyEls = weak();
// The same elements in the order they were first seen, for `exportTo` (bounded: past the bound
// an element is still known here, but not to the gatherers' world).
const MAX_LISTED = 50000;
const listed = [];
const list = (el, kind) => { if (listed.length < MAX_LISTED) listed[listed.length] = [new WeakRefCtor(el), kind]; };
const proto = EventTarget.prototype;
const desc = Object.getOwnPropertyDescriptor(proto, 'addEventListener');
const orig = desc && desc.value;
if (typeof orig === 'function') {
  const wrapped = {
    addEventListener(type, listener, options) {
      try {
        const t = lower.call(StringCtor(type));
        if (SCROLL.has(t)) scrollWatched = true;
        else if (KEY.has(t)) keyWatched = true;
        else if (FOCUS.has(t)) focusWatched = true;
        if (this && this.nodeType === 1) {
          if (CLICK.has(t)) { if (!clickEls.has(this)) { clickEls.add(this); list(this, 'click'); } }
          else if (KEY.has(t) && !keyEls.has(this)) { keyEls.add(this); list(this, 'key'); }
        } else if (CLICK.has(t) || t === 'hashchange' || t === 'popstate') {
          delegated = true;
        } else if (KEY.has(t)) {
          keyDelegated = true;
        }
      } catch (_) {}
      return orig.apply(this, arguments);
    },
  }.addEventListener;
  try { Object.defineProperty(wrapped, 'toString', { value: () => orig.toString(), configurable: true }); } catch (_) {}
  Object.defineProperty(proto, 'addEventListener', Object.assign({}, desc, { value: wrapped }));
}
const io = typeof IntersectionObserver === 'function' && Object.getOwnPropertyDescriptor(IntersectionObserver.prototype, 'observe');
const observe = io && io.value;
if (typeof observe === 'function') {
  const wrapped = {
    observe() {
      scrollWatched = true;
      return observe.apply(this, arguments);
    },
  }.observe;
  try { Object.defineProperty(wrapped, 'toString', { value: () => observe.toString(), configurable: true }); } catch (_) {}
  Object.defineProperty(IntersectionObserver.prototype, 'observe', Object.assign({}, io, { value: wrapped }));
}
// Handlers set as properties (`el.onclick = f`) live in this world only: remembered as they are
// set, like listeners.
const CLICK_PROPS = ['onclick', 'ondblclick', 'onmousedown', 'onmouseup', 'onpointerdown', 'onpointerup'];
const KEY_PROPS = ['onkeydown', 'onkeyup', 'onkeypress'];
for (const [names, els, kind] of [[CLICK_PROPS, clickEls, 'click'], [KEY_PROPS, keyEls, 'key']]) {
  for (const n of names) {
    const d = typeof HTMLElement === 'function' && Object.getOwnPropertyDescriptor(HTMLElement.prototype, n);
    if (!d || typeof d.set !== 'function') continue;
    const setter = d.set;
    const wrapped = {
      set [n](v) {
        try { if (typeof v === 'function' && this && this.nodeType === 1 && !els.has(this)) { els.add(this); list(this, kind); } } catch (_) {}
        return setter.call(this, v);
      },
    };
    const ws = Object.getOwnPropertyDescriptor(wrapped, n).set;
    try { Object.defineProperty(HTMLElement.prototype, n, Object.assign({}, d, { set: ws })); } catch (_) {}
  }
}
const dispatch = EventTarget.prototype.dispatchEvent;
const EventCtor = Event;
const attrHandler = (el, names) => names.some((n) => typeof el[n] === 'function' || (el.hasAttribute && el.hasAttribute(n)));
Object.defineProperty(window, '__sitescanHooks', {
  value: Object.freeze({
    hasClick: (el) => clickEls.has(el) || attrHandler(el, ['onclick', 'ondblclick', 'onmousedown', 'onmouseup', 'onpointerdown', 'onpointerup']),
    hasKey: (el) => keyEls.has(el) || attrHandler(el, ['onkeydown', 'onkeyup', 'onkeypress']),
    // Any key listener added by addEventListener, or an on-key handler of the window or document
    // (elements' own handlers are for the caller to look at: `hasKey`).
    keyWatched: () => keyWatched || ['onkeydown', 'onkeyup', 'onkeypress'].some((n) => typeof window[n] === 'function' || typeof document[n] === 'function'),
    // A key listener of the document or the window (by addEventListener or an on-key handler):
    // an element's keys may be handled there.
    keyDelegated: () => keyDelegated || ['onkeydown', 'onkeyup', 'onkeypress'].some((n) => typeof window[n] === 'function' || typeof document[n] === 'function'),
    // The same for focus and blur listeners (a handler may move focus on).
    focusWatched: () => focusWatched || ['onfocus', 'onblur'].some((n) => typeof window[n] === 'function' || typeof document[n] === 'function'),
    // Any listener that may handle a link's activation from above (`delegated`), or such an
    // on-handler of the window or document.
    clickDelegated: () => delegated || ['onclick', 'onhashchange', 'onpopstate', 'onmousedown', 'onpointerdown'].some((n) => typeof window[n] === 'function' || typeof document[n] === 'function'),
    // Tells the gatherers' isolated world (which shares the DOM, not this world's JavaScript)
    // which elements have listeners: each is sent one event named `name + ':click'` or
    // `name + ':key'`, which that world listens for; returns the page-wide flags as JSON text.
    exportTo: (name) => {
      const n = String(name);
      const types = { click: n + ':click', key: n + ':key' };
      for (let i = 0; i < listed.length; i++) {
        const ref = listed[i][0], kind = listed[i][1];
        const el = deref.call(ref);
        if (!el) continue;
        try { dispatch.call(el, new EventCtor(types[kind], { bubbles: false, composed: true })); } catch (_) {}
      }
      const h = window.__sitescanHooks;
      // A flag the page's script made unreadable counts as set (the careful answer).
      const flag = (f) => { try { return !!f(); } catch (_) { return true; } };
      return stringify({
        keyWatched: flag(h.keyWatched), keyDelegated: flag(h.keyDelegated), focusWatched: flag(h.focusWatched),
        clickDelegated: flag(h.clickDelegated), scrollWatched: flag(h.scrollWatched),
      });
    },
    scrollWatched: () => scrollWatched || ['onscroll', 'onscrollend', 'onwheel'].some((n) => typeof window[n] === 'function' || typeof document[n] === 'function')
      || document.querySelector('[onscroll], [onscrollend], [onwheel]') !== null,
  }),
  enumerable: false,
});
// Console output, cut where the page makes it: each string argument (and an Error's message) to
// MAX_CONSOLE_CHARS, and at most MAX_CONSOLE_CALLS calls a document, so a page that logs forty
// 16 MB strings sends the scanner kilobytes through DevTools, not 640 MB. A page that puts its
// own function in a console method's place still gets it called (with the cut arguments); when
// that function calls the method it saved, the browser's own runs.
const MAX_CONSOLE_CHARS = 8192;
const MAX_CONSOLE_CALLS = 1000;
let consoleCalls = 0;
const sliceString = String.prototype.slice;
const ErrorCtor = Error;
const applyFn = Reflect.apply;
const cutText = (t, max = MAX_CONSOLE_CHARS) => {
  // Whole characters: an emoji across the cut is left out whole.
  const c = t.charCodeAt(max - 1);
  const end = c >= 0xD800 && c <= 0xDBFF ? max - 1 : max;
  return applyFn(sliceString, t, [0, end]) + '… [cut by sitescan: ' + t.length + ' characters]';
};
const cutArg = (a) => {
  try {
    if (typeof a === 'string') return a.length > MAX_CONSOLE_CHARS ? cutText(a) : a;
    if (a instanceof ErrorCtor) {
      const m = a.message;
      if (typeof m === 'string' && m.length > MAX_CONSOLE_CHARS) return 'Error: ' + cutText(m);
    }
  } catch (_) {}
  return a;
};
if (typeof console === 'object' && console) {
  for (const name of ['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir', 'dirxml', 'table', 'assert', 'group', 'groupCollapsed', 'count', 'timeLog']) {
    const d = Object.getOwnPropertyDescriptor(console, name);
    if (!d || typeof d.value !== 'function') continue;
    const native = d.value;
    let replaced = null;
    let depth = 0;
    const guarded = {
      [name](...args) {
        consoleCalls++;
        if (consoleCalls > MAX_CONSOLE_CALLS) {
          if (consoleCalls === MAX_CONSOLE_CALLS + 1) applyFn(native, console, ['[sitescan] this document logged more than ' + MAX_CONSOLE_CALLS + ' console messages; the rest are not recorded']);
          return undefined;
        }
        const cut = [];
        for (let i = 0; i < args.length; i++) cut[i] = cutArg(args[i]);
        if (replaced && depth === 0) {
          depth++;
          try { return applyFn(replaced, this, cut); } finally { depth--; }
        }
        return applyFn(native, this, cut);
      },
    }[name];
    try {
      Object.defineProperty(console, name, {
        configurable: true,
        enumerable: d.enumerable,
        get: () => guarded,
        set: (v) => { replaced = typeof v === 'function' ? v : null; },
      });
    } catch (_) {}
  }
}
const add = typeof orig === 'function' ? orig : proto.addEventListener;
add.call(document, 'securitypolicyviolation', (e) => send({
  type: 'csp',
  directive: e.effectiveDirective || e.violatedDirective || '',
  blocked_uri: e.blockedURI || '',
  source_file: e.sourceFile || null,
  line: e.lineNumber || null,
  disposition: e.disposition || null,
}), true);
if (typeof ReportingObserver === 'function') {
  try {
    new ReportingObserver((reports) => {
      for (const r of reports) {
        let body = null;
        try { body = r.body && (typeof r.body.toJSON === 'function' ? r.body.toJSON() : r.body); } catch (_) {}
        send({ type: 'report', report_type: r.type, url: r.url, body });
      }
    }, { types: ['deprecation', 'intervention'], buffered: true }).observe();
  } catch (_) {}
}
// Uncaught errors and unhandled rejections whose text is longer than MAX_CONSOLE_CHARS: the
// browser's own report would carry the whole text over DevTools, and building it holds the
// page's renderer (about half a second for 16 MB, so forty of them kept a page from loading).
// Such an error is cancelled, which keeps the browser from reporting it, and reported here cut,
// with where it was thrown (at most MAX_CONSOLE_CALLS a document), to MAX_ERROR_CHARS so that
// the note of the cut stays within what a finding shows of a message. Shorter ones are left to
// the browser. This listener is the first on the window: no page script runs before this one.
const ErrorEventCtor = ErrorEvent;
const MAX_ERROR_CHARS = 600;
const indexOfString = String.prototype.indexOf;
let errorsCut = 0;
const longText = (v) => {
  try {
    if (typeof v === 'string') return v.length > MAX_CONSOLE_CHARS ? v : null;
    if (v instanceof ErrorCtor) {
      const m = v.message;
      return typeof m === 'string' && m.length > MAX_CONSOLE_CHARS ? m : null;
    }
  } catch (_) {}
  return null;
};
const framesOf = (error) => {
  try {
    const s = error instanceof ErrorCtor ? error.stack : null;
    if (typeof s !== 'string') return null;
    const at = applyFn(indexOfString, s, ['\n    at ']);
    return at < 0 ? null : applyFn(sliceString, s, [at + 1, at + 1 + MAX_CONSOLE_CHARS]);
  } catch (_) { return null; }
};
const cutError = (e, kind, value, where) => {
  const text = longText(value);
  if (text === null) return;
  try { e.preventDefault(); } catch (_) {}
  errorsCut++;
  if (errorsCut > MAX_CONSOLE_CALLS) return;
  const prefix = value instanceof ErrorCtor ? (StringCtor(value.name || 'Error') + ': ') : '';
  send({ type: 'exception', kind, message: prefix + cutText(text, MAX_ERROR_CHARS), stack: framesOf(value), chars: text.length, ...where });
};
add.call(window, 'error', (e) => {
  if (!(e instanceof ErrorEventCtor)) return;
  cutError(e, 'exception', e.error !== undefined && e.error !== null ? e.error : e.message, { url: e.filename || null, line: e.lineno || null, column: e.colno || null });
}, true);
add.call(window, 'unhandledrejection', (e) => cutError(e, 'unhandled-rejection', e.reason, {}), true);
