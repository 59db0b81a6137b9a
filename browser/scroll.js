// Loads the page's lazy content and lets the layout shifts that brings show.
//
// A page whose only lazy content is native (`loading=lazy` images) and whose scripts watch no
// scrolling (no scroll or wheel listener, no intersection observer: `hooks.js`) and that has no
// frames is not scrolled: its lazy images are switched to eager loading and the attribute set back
// (a load once started is not deferred again), which fetches the same images without drawing the
// page a viewport at a time. Their layout shifts then happen out of view, where they would not
// count either way; an image without dimensions is `media.image-missing-dimensions`. The script
// returns once those images have loaded (or failed). The capture already started those loads
// at `load` (`eager.js`), so that they fall in the network quiet it awaits anyway; then none is
// left to wait for (`waited` 0) and no second quiet is needed.
//
// Any other page is scrolled to the bottom one viewport at a time (lazy content loads, layout
// shifts show) and back to the top. Each step waits for one rendered frame and the task after it, not a fixed delay:
// intersection observers (JavaScript lazy loaders and the native `loading=lazy` machinery) are
// computed in the frame after the scroll and notified by a task queued right behind it, so a
// frame-paced walk triggers the same loads as a slow one in a fraction of the time. Steps of one
// viewport height leave no element unseen between two frames.
const frame = () => new Promise((resolve) => {
  // A page that is not being painted gets no animation frames: a timer stands in.
  const timer = setTimeout(resolve, 50);
  requestAnimationFrame(() => { clearTimeout(timer); setTimeout(resolve, 0); });
});
if (__ss.eagerOnly()) {
  const started = performance.now();
  const lazy = __ss.loadLazyImages();
  await new Promise((resolve) => setTimeout(resolve, 0));
  // Their loads are awaited here, each to its load or error event (at most EAGER_WAIT_MS), so
  // the capture then needs only a short network quiet for what their handlers may start, not the
  // full one a scroll needs for timers and observers.
  const loading = [...lazy].filter((img) => !img.complete);
  const EAGER_WAIT_MS = 3000;
  await Promise.race([
    Promise.all(loading.map((img) => new Promise((resolve) => {
      img.addEventListener('load', resolve, { once: true });
      img.addEventListener('error', resolve, { once: true });
      if (img.complete) resolve();
    }))),
    new Promise((resolve) => setTimeout(resolve, EAGER_WAIT_MS)),
  ]);
  return JSON.stringify({ mode: 'eager', lazy: lazy.length, waited: loading.length, steps: 0, height: (document.scrollingElement || document.documentElement).scrollHeight, ms: Math.round(performance.now() - started) });
}
const frames = async (n) => { for (let i = 0; i < n; i++) await frame(); };
const step = Math.max(200, window.innerHeight);
const started = performance.now();
let y = 0, steps = 0;
while (steps < 60 && performance.now() - started < 4000) {
  const root = document.scrollingElement || document.documentElement;
  const max = (root ? root.scrollHeight : 0) - window.innerHeight;
  if (y >= max) break;
  y = Math.min(y + step, max);
  window.scrollTo(0, y);
  steps++;
  await frame();
}
await frames(2);
window.scrollTo(0, 0);
await frames(2);
return JSON.stringify({ mode: 'scroll', steps, height: (document.scrollingElement || document.documentElement).scrollHeight, ms: Math.round(performance.now() - started) });
