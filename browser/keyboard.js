// Installs `__sitescanFocus`, used by the keyboard walk:
// probe() describes the focused element and whether focusing changed its computed rendering
// (outline, box-shadow, border, background, colour, pseudo-elements, parent), with transitions
// suspended so the end state is compared; each element met for the first time gets an index.
// record(true) probes on every trusted Tab key up (capture phase, so page handlers cannot hide
// it) into a log that take() empties: the walk presses Tab several times in one go and reads
// what each press reached at once. show(i) focuses the i-th element again (scrolled into view)
// and blur()/refocus() let the walk compare its pixels focused and blurred.
// The focused element is the deepest one: `document.activeElement`, then each open shadow
// root's `activeElement` (a web component's inner button, not its host); its selector joins the
// path through shadow roots with ` >>> `. `widget` names elements whose focus moves inside them
// while the element stays the active one (date/time inputs' fields, media controls, a select,
// a frame's document, a custom element's shadow root): the walk presses on through them rather
// than judging a trap. A press that leaves focus on the element probed last is probed without
// blurring it, since blur + focus would send a date input or a player back to its first field.
// Returns the number of focusable elements.
const FOCUSABLE = 'a[href], area[href], button, input:not([type="hidden" i]), select, textarea, iframe, summary, [tabindex], [contenteditable=""], [contenteditable="true"], audio[controls], video[controls]';
const countFocusable = () => Array.from(document.querySelectorAll(FOCUSABLE)).filter((el) => {
  if (el.disabled) return false;
  const ti = el.getAttribute('tabindex');
  if (ti !== null && Number(ti) < 0) return false;
  return __ss.visible(el);
}).length;
let current = null;
// What a focus indicator can change. Outline and border parts count only when drawn (a UA rule
// may change outline-offset of an outline that is `none`).
const PROPS = ['boxShadow', 'backgroundColor', 'backgroundImage', 'color', 'textDecorationLine', 'textDecorationColor', 'transform', 'opacity', 'filter', 'fontWeight'];
const drawn = (style, width) => style !== 'none' && style !== 'hidden' && width !== '0px';
const styleOf = (el, pseudo) => {
  const cs = getComputedStyle(el, pseudo);
  const outline = drawn(cs.outlineStyle, cs.outlineWidth) ? [cs.outlineStyle, cs.outlineWidth, cs.outlineColor, cs.outlineOffset].join(' ') : 'none';
  const border = ['Top', 'Right', 'Bottom', 'Left'].map((side) => {
    const st = cs['border' + side + 'Style'], w = cs['border' + side + 'Width'];
    return drawn(st, w) ? [st, w, cs['border' + side + 'Color']].join(' ') : 'none';
  }).join(',');
  return [outline, border].concat(PROPS.map((p) => cs[p])).join('|');
};
const signature = (el) => [styleOf(el, null), styleOf(el, '::before'), styleOf(el, '::after'), el.parentElement ? styleOf(el.parentElement, null) : ''].join('#');
const suspend = (els) => els.filter(Boolean).map((e) => {
  const prev = [e.style.getPropertyValue('transition'), e.style.getPropertyPriority('transition'), e.style.getPropertyValue('caret-color'), e.style.getPropertyPriority('caret-color')];
  e.style.setProperty('transition', 'none', 'important');
  e.style.setProperty('caret-color', 'transparent', 'important');
  return () => {
    if (prev[0]) e.style.setProperty('transition', prev[0], prev[1]); else e.style.removeProperty('transition');
    if (prev[2]) e.style.setProperty('caret-color', prev[2], prev[3]); else e.style.removeProperty('caret-color');
  };
});
let restore = [];
// Elements met by probe(), by index; the keyup log while recording.
let walked = [];
let log = null;
const deepActive = () => {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  return el;
};
// A selector inside a shadow root (ids and :nth-of-type counted within that root).
const shadowSelector = (el, root) => {
  const parts = [];
  for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
    if (node.id && root.querySelectorAll('#' + CSS.escape(node.id)).length === 1) { parts.unshift('#' + CSS.escape(node.id)); break; }
    let sel = CSS.escape(node.localName), index = 0, same = 0;
    for (const sib of (node.parentElement || root).children) {
      if (sib.localName === node.localName) { same++; if (sib === node) index = same; }
    }
    if (same > 1) sel += ':nth-of-type(' + index + ')';
    parts.unshift(sel);
  }
  return parts.join(' > ');
};
const deepSelector = (el) => {
  const parts = [];
  for (let node = el; node;) {
    const root = node.getRootNode();
    const shadow = root instanceof ShadowRoot;
    parts.unshift(shadow ? shadowSelector(node, root) : __ss.selector(node));
    node = shadow ? root.host : null;
  }
  return parts.join(' >>> ');
};
const TEMPORAL = ['date', 'time', 'datetime-local', 'month', 'week'];
const widgetOf = (top) => {
  const tag = top.localName;
  if (tag === 'input' && TEMPORAL.includes(String(top.getAttribute('type') || '').toLowerCase())) return 'temporal-input';
  if ((tag === 'video' || tag === 'audio') && top.hasAttribute('controls')) return 'media-controls';
  if (tag === 'select') return 'select';
  if (tag === 'iframe' || tag === 'frame' || tag === 'object' || tag === 'embed') return 'frame';
  if (top.shadowRoot || tag.includes('-')) return 'shadow-host';
  return '';
};
const MODAL = 'dialog[open], [aria-modal="true"]';
// The Tab order computed in the page (plan()), for a page where Tab can do nothing but what the
// browser does by default: no script listens to keys or focus, and nothing whose Tab order a script
// cannot see (shadow roots, frames, image maps, radio groups, widgets with inner focus,
// positive tabindex, editable regions, scroll containers that take focus themselves, a modal,
// focus already placed by the page or a fragment). The order is then the document order of the
// elements with a tabindex of 0 that take focus; steps() focuses them as Tab would (scrolled
// into view, focus visible) and probes each, a press's worth at a time.
let planned = null;
let next = 0;
const KEY_HANDLERS = ['onkeydown', 'onkeyup', 'onkeypress', 'onfocus', 'onblur', 'onfocusin', 'onfocusout'];
const WIDGET_TYPES = ['radio', 'date', 'time', 'datetime-local', 'month', 'week', 'color', 'file', 'range'];
const scrolls = (el) => {
  if (el === document.body || el === document.documentElement) return false;
  if (el.scrollHeight <= el.clientHeight && el.scrollWidth <= el.clientWidth) return false;
  const cs = getComputedStyle(el);
  return /(auto|scroll|overlay)/.test(cs.overflowX + ' ' + cs.overflowY);
};
// Why Tab cannot be computed here, '' when it can; `order` gets the elements Tab would visit if
// they take focus (tabindex 0, not inert), in document order, from the same pass.
const unplannable = (order) => {
  const hooks = window.__sitescanHooks;
  if (!hooks || !hooks.keyWatched) return 'no hooks';
  if (hooks.keyWatched()) return 'key listener';
  if (!hooks.focusWatched || hooks.focusWatched()) return 'focus listener';
  if (location.hash) return 'fragment';
  const active = document.activeElement;
  if (active && active !== document.body && active !== document.documentElement) return 'focus placed';
  if (document.querySelector(MODAL + ', [onkeydown], [onkeyup], [onkeypress], [onfocus], [onblur], [onfocusin], [onfocusout], [autofocus], iframe, frame, object, embed, area, [contenteditable]:not([contenteditable="false" i])')) return 'markup';
  for (const el of document.getElementsByTagName('*')) {
    if (el.shadowRoot || el.localName.includes('-')) return 'shadow root';
    if (KEY_HANDLERS.some((n) => typeof el[n] === 'function')) return 'handler';
    const t = el.tabIndex;
    if (t > 0) return 'positive tabindex';
    const tag = el.localName;
    if (tag === 'input' && WIDGET_TYPES.includes(el.type)) return 'widget';
    if ((tag === 'video' || tag === 'audio') && el.controls) return 'widget';
    if (tag === 'select' && (el.multiple || el.size > 1)) return 'widget';
    if (t < 0 && scrolls(el)) return 'scroller';
    if (t === 0 && !el.closest('[inert]')) order.push(el);
  }
  return '';
};

const onTabUp = (e) => {
  if (e.key === 'Tab' && e.isTrusted && log) log.push(window.__sitescanFocus.probe());
};
Object.defineProperty(window, '__sitescanFocus', {
  configurable: true,
  enumerable: false,
  value: {
    probe() {
      restore.forEach((f) => f());
      restore = [];
      const top = document.activeElement;
      const el = deepActive();
      if (!el || el === document.body || el === document.documentElement) {
        current = null;
        return JSON.stringify({ none: true });
      }
      const selector = deepSelector(el);
      const snippet = __ss.snippet(el);
      const widget = widgetOf(top);
      const modal = !!(top.closest && top.closest(MODAL));
      const host = el.getRootNode() instanceof ShadowRoot ? el.getRootNode().host : null;
      restore = suspend([el, el.parentElement || host]);
      if (el === current) {
        // Focus moved inside the element (or not at all): judged on the first press, not blurred now.
        return JSON.stringify({ none: false, selector, snippet, tag: el.localName, widget, modal, repeat: true, changed: true, rect: {} });
      }
      current = el;
      walked.push(el);
      const focused = signature(el);
      el.blur();
      const blurred = signature(el);
      el.focus({ preventScroll: true, focusVisible: true });
      const r = el.getBoundingClientRect();
      return JSON.stringify({
        none: false,
        selector,
        snippet,
        tag: el.localName,
        widget,
        modal,
        repeat: false,
        index: walked.length - 1,
        changed: focused !== blurred,
        refocused: deepActive() === el,
        rect: { x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height, in_view: r.bottom > 0 && r.top < window.innerHeight && r.right > 0 && r.left < window.innerWidth },
      });
    },
    // The Tab order, when the page lets it be computed: {count} or {why} it cannot be.
    plan() {
      const order = [];
      const why = unplannable(order);
      if (why) { planned = null; return JSON.stringify({ why }); }
      planned = order;
      next = 0;
      return JSON.stringify({ count: planned.length });
    },
    // Focuses the next `n` elements of the plan that take focus, as n Tab presses would, and
    // returns their probes like take(); past the last element focus leaves the document. An
    // element that the page's own focus handling turns away marks the plan wrong ({diverged}).
    steps(n) {
      const out = [];
      while (out.length < n) {
        if (!planned || next >= planned.length) {
          // Past the last element: focus leaves the document, and the walk ends there.
          if (document.activeElement && document.activeElement.blur) document.activeElement.blur();
          restore.forEach((f) => f());
          restore = [];
          current = null;
          out.push('{"none":true}');
          break;
        }
        const el = planned[next++];
        if (!el.isConnected) continue;
        const before = document.activeElement;
        let reached = false;
        const seen = () => { reached = true; };
        el.addEventListener('focus', seen, { capture: true, once: true });
        el.focus({ focusVisible: true });
        el.removeEventListener('focus', seen, { capture: true });
        if (document.activeElement !== el) {
          // Not focusable (hidden, disabled, no href): focus never reached it and stayed put.
          // Reached and sent on, or moved anywhere else, it is the page's doing (a handler the
          // hooks could not see): the walk is then pressed, from where focus was left.
          if (!reached && document.activeElement === before) continue;
          return JSON.stringify([{ diverged: true }]);
        }
        out.push(this.probe());
      }
      return '[' + out.join(',') + ']';
    },
    record(on) {
      window.removeEventListener('keyup', onTabUp, true);
      log = on ? [] : null;
      if (on) window.addEventListener('keyup', onTabUp, true);
      return 'ok';
    },
    take() { return '[' + (log ? log.splice(0) : []).join(',') + ']'; },
    // True when a frame can take focus: its document gets the keys, so the log would miss them.
    framed() { return String(Array.from(document.querySelectorAll('iframe, frame, object, embed')).some((el) => __ss.visible(el))); },
    // Back to the state before the walk, for a walk started over.
    reset() {
      restore.forEach((f) => f());
      restore = [];
      walked = [];
      current = null;
      if (document.activeElement && document.activeElement.blur) document.activeElement.blur();
      window.scrollTo(0, 0);
      return 'ok';
    },
    show(i) {
      restore.forEach((f) => f());
      restore = [];
      const el = walked[i];
      if (!el || !el.isConnected) return JSON.stringify({ none: true });
      const host = el.getRootNode() instanceof ShadowRoot ? el.getRootNode().host : null;
      restore = suspend([el, el.parentElement || host]);
      current = el;
      el.focus({ focusVisible: true });
      const r = el.getBoundingClientRect();
      return JSON.stringify({
        none: deepActive() !== el,
        rect: { x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height, in_view: r.bottom > 0 && r.top < window.innerHeight && r.right > 0 && r.left < window.innerWidth },
      });
    },
    blur() { if (current) current.blur(); return 'ok'; },
    refocus() { if (current) current.focus({ preventScroll: true, focusVisible: true }); return String(deepActive() === current); },
    finish() { window.removeEventListener('keyup', onTabUp, true); log = null; restore.forEach((f) => f()); restore = []; return 'ok'; },
  },
});
return String(countFocusable());
