// Quiets a captured page before its window is reused for the scan's next URL: its timers,
// intervals and animation-frame callbacks are cancelled and its loads stopped, so that it says
// nothing more before the next document replaces it (what it still sends is told apart by its
// loader in the event log), its session storage is cleared, as a new tab's would be, and it is
// hidden, so that restoring its window draws an empty frame.
// Returns 'parked'.
const last = setTimeout(() => {}, 0);
for (let id = last; id > 0; id--) {
  clearTimeout(id); // timeouts and intervals share one id space
}
const frame = requestAnimationFrame(() => {});
for (let id = frame; id > 0; id--) {
  cancelAnimationFrame(id);
}
window.stop();
try {
  sessionStorage.clear();
} catch (e) {
  // storage denied to this document: nothing to clear
}
window.name = '';
// The window is drawn again before the next URL loads: nothing of this page needs drawing.
const root = document.documentElement;
if (root) {
  root.style.setProperty('display', 'none', 'important');
}
return 'parked';
