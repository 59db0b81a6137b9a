// Quiets a captured page before its window is reused for the scan's next URL: its timers,
// intervals and animation-frame callbacks are cancelled and its loads stopped, so that it says
// nothing more before the next document replaces it (what it still sends is told apart by its
// loader in the event log), and its session storage is cleared, as a new tab's would be.
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
return 'parked';
