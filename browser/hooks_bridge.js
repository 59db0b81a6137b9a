// In the gatherers' isolated world: `window.__sitescanHooks`, answering as the main world's
// (`hooks.js`) does, from what that world tells this one. `EVENT` (defined before this script)
// is the event name the main world's `exportTo` sends each element with a listener; `flags(f)`
// takes its page-wide flags. Each call forgets what the previous one was told, so the answer is
// the page's as it is now.
// An element with `id=__sitescanHooks` is named on `window` too: only our own property counts.
if (!Object.prototype.hasOwnProperty.call(window, '__sitescanHooks')) {
  let click = new WeakSet();
  let key = new WeakSet();
  let flags = null;
  const target = (e) => { const path = e.composedPath(); return path.length ? path[0] : e.target; };
  addEventListener(EVENT + ':click', (e) => { click.add(target(e)); e.stopImmediatePropagation(); }, true);
  addEventListener(EVENT + ':key', (e) => { key.add(target(e)); e.stopImmediatePropagation(); }, true);
  const attrHandler = (el, names) => names.some((n) => el.hasAttribute && el.hasAttribute(n));
  const flag = (n) => (flags ? flags[n] === true : true);
  Object.defineProperty(window, '__sitescanHooks', {
    enumerable: false,
    value: Object.freeze({
      reset() { click = new WeakSet(); key = new WeakSet(); flags = null; },
      flags(f) { flags = f && typeof f === 'object' ? f : null; return 'ok'; },
      known: () => flags !== null,
      hasClick: (el) => click.has(el) || attrHandler(el, ['onclick', 'ondblclick', 'onmousedown', 'onmouseup', 'onpointerdown', 'onpointerup']),
      hasKey: (el) => key.has(el) || attrHandler(el, ['onkeydown', 'onkeyup', 'onkeypress']),
      keyWatched: () => flag('keyWatched'),
      keyDelegated: () => flag('keyDelegated'),
      focusWatched: () => flag('focusWatched'),
      clickDelegated: () => flag('clickDelegated'),
      scrollWatched: () => flag('scrollWatched'),
    }),
  });
}
window.__sitescanHooks.reset();
return 'listening';
