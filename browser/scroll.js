// Scrolls to the bottom in steps (lazy content loads, layout shifts show) and back to the top.
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const step = Math.max(200, Math.floor(window.innerHeight * 0.8));
const started = performance.now();
let y = 0, steps = 0;
while (steps < 40 && performance.now() - started < 6000) {
  const root = document.scrollingElement || document.documentElement;
  const max = (root ? root.scrollHeight : 0) - window.innerHeight;
  if (y >= max) break;
  y = Math.min(y + step, max);
  window.scrollTo(0, y);
  steps++;
  await sleep(120);
}
await sleep(150);
window.scrollTo(0, 0);
await sleep(100);
return JSON.stringify({ steps, height: (document.scrollingElement || document.documentElement).scrollHeight });
