// The dialog probe (`crates/engine/src/browser/gather/dialogs.rs`), asked between the key presses the gatherer
// sends. MODE 'find': the controls that open a dialog (`aria-haspopup="dialog"`, or
// `aria-controls` naming a `<dialog>` or a `role=dialog|alertdialog` that is hidden now; never a
// form's submit button or a link to another document), at most `MAX` of them, kept for the other modes; JSON
// `{triggers: [{trigger, dialog}], total}` (`total`: how many such controls the page has). MODE 'focus' (INDEX):
// focuses the INDEX-th control, notes the dialogs open before and arms a guard that lets the
// next Enter act on that control only; `focused` or `missing`.
// MODE 'state' (INDEX): the dialog it opened (the named one, or one newly shown), whether it is
// modal (`:modal` or `aria-modal="true"`), and where focus is: inside it, or on an element of the
// page behind it (the body, or nothing, is neither: focus may be in the browser's own UI); JSON.
// MODE 'close' (INDEX): closes a dialog left open the way the page would (`close()` of a native
// dialog), so that a later probe starts from the page.
const MAX = 3;
const reg = (Object.prototype.hasOwnProperty.call(window, '__sitescanDialogs') && window.__sitescanDialogs) || (() => {
  const r = { list: [] };
  Object.defineProperty(window, '__sitescanDialogs', { value: r, enumerable: false });
  return r;
})();
const isDialog = (el) => !!el && (el.localName === 'dialog' || /^(dialog|alertdialog)$/i.test(el.getAttribute('role') || ''));
const shown = () => Array.from(document.querySelectorAll('dialog, [role="dialog" i], [role="alertdialog" i]')).filter((d) => __ss.visible(d));
const deepActive = () => {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return a;
};
const inside = (d, el) => {
  for (let n = el; n; n = n.parentNode || (n instanceof ShadowRoot ? n.host : null)) if (n === d) return true;
  return false;
};
if (MODE === 'find') {
  reg.list = [];
  // Controls past the first MAX are counted (the facts say how many were probed of how many),
  // among the first SCAN candidates.
  const SCAN = 2000;
  let total = 0, scanned = 0;
  for (const t of document.querySelectorAll('button, a[href], [role="button" i], input[type="button" i], summary')) {
    if (++scanned > SCAN) break;
    if (t.disabled || !__ss.visible(t)) continue;
    // A passive scan submits nothing and goes nowhere: no submit button of a form, no link to
    // another document.
    if (t.localName === 'button' && t.form && (t.getAttribute('type') || 'submit').toLowerCase() === 'submit') continue;
    if (t.localName === 'a') {
      const raw = (t.getAttribute('href') || '').trim();
      let here = false;
      try { const u = new URL(raw, document.baseURI); here = u.protocol === 'javascript:' || (u.href.split('#')[0] === location.href.split('#')[0] && raw.includes('#')); } catch (_) {}
      if (!here) continue;
    }
    const named = (t.getAttribute('aria-controls') || '').split(/\s+/).filter(Boolean).map((id) => document.getElementById(id)).find(isDialog) || null;
    const pops = (t.getAttribute('aria-haspopup') || '').trim().toLowerCase() === 'dialog';
    if (!named && !pops) continue;
    if (named && __ss.visible(named)) continue;
    total++;
    if (reg.list.length < MAX) reg.list.push({ trigger: t, dialog: named, before: [] });
  }
  return JSON.stringify({ triggers: reg.list.map((x) => ({ trigger: __ss.selector(x.trigger), dialog: x.dialog ? __ss.selector(x.dialog) : null })), total });
}
const entry = reg.list[INDEX];
if (!entry || !entry.trigger.isConnected) return MODE === 'state' ? JSON.stringify({ open: false }) : 'missing';
const dialogOf = () => {
  if (entry.dialog) return __ss.visible(entry.dialog) ? entry.dialog : null;
  return shown().find((d) => !entry.before.includes(d)) || null;
};
if (MODE === 'focus') {
  entry.before = shown();
  entry.trigger.focus({ preventScroll: false });
  // The gatherer's Enter is for this control only: if the page moves focus before it arrives
  // (to a form's submit button, say), the key does nothing there.
  if (!reg.guard) {
    reg.guard = (e) => {
      if (e.key !== 'Enter' || !reg.armed) return;
      const armed = reg.armed;
      reg.armed = null;
      if (e.composedPath()[0] !== armed) { e.preventDefault(); e.stopImmediatePropagation(); }
    };
    window.addEventListener('keydown', reg.guard, true);
  }
  const focused = deepActive() === entry.trigger;
  reg.armed = focused ? entry.trigger : null;
  return focused ? 'focused' : 'missing';
}
if (MODE === 'close') {
  const d = dialogOf();
  if (d && d.localName === 'dialog' && typeof d.close === 'function') d.close();
  return dialogOf() ? 'open' : 'closed';
}
// MODE === 'state'
const d = dialogOf();
if (!d) return JSON.stringify({ open: false });
const active = deepActive();
const onPage = !!active && active !== document.body && active !== document.documentElement;
let modal = false;
try { modal = d.matches(':modal'); } catch (_) {}
return JSON.stringify({
  open: true,
  dialog: __ss.selector(d),
  modal: modal || (d.getAttribute('aria-modal') || '').toLowerCase() === 'true',
  focus_inside: !!active && inside(d, active),
  focus_behind: onPage && !inside(d, active),
  active: active && onPage ? __ss.selector(active) : null,
});
