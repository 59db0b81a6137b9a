// Installs `__sitescanFocus`, used by the keyboard walk between Tab presses:
// probe() describes the focused element and whether focusing changed its computed rendering
// (outline, box-shadow, border, background, colour, pseudo-elements, parent), with transitions
// suspended so the end state is compared; blur()/refocus() let the walk compare pixels.
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
Object.defineProperty(window, '__sitescanFocus', {
  configurable: true,
  enumerable: false,
  value: {
    probe() {
      restore.forEach((f) => f());
      restore = [];
      const el = document.activeElement;
      current = el;
      if (!el || el === document.body || el === document.documentElement) return JSON.stringify({ none: true });
      const selector = __ss.selector(el);
      const snippet = __ss.snippet(el);
      restore = suspend([el, el.parentElement]);
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
        changed: focused !== blurred,
        refocused: document.activeElement === el,
        rect: { x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height, in_view: r.bottom > 0 && r.top < window.innerHeight && r.right > 0 && r.left < window.innerWidth },
      });
    },
    blur() { if (current) current.blur(); return 'ok'; },
    refocus() { if (current) current.focus({ preventScroll: true, focusVisible: true }); return String(document.activeElement === current); },
    finish() { restore.forEach((f) => f()); restore = []; return 'ok'; },
  },
});
return String(countFocusable());
