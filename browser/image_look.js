// What an image's pixels look like, computed in the page from a canvas: the same three numbers,
// by the same arithmetic, as `Look::of` at one device pixel a CSS pixel
// (crates/engine/src/browser/image_look.rs, whose unit tests run this file under Node on their
// images and require equal results). The verdict (`may_hold_text`) is made in Rust only.
// rgba: Uint8ClampedArray or Uint8Array, row-major RGBA; returns {strong_edges, top_two, colours}.
const LOOK_SAMPLES = 65536, LOOK_STRONG_EDGE = 96, LOOK_BUCKETS = 4096;
function imageLook(rgba, w, h) {
  if (w < 2 || h < 1) return { strong_edges: 0, top_two: 0, colours: 0 };
  const step = Math.max(1, Math.ceil(Math.sqrt((w * h) / LOOK_SAMPLES)));
  const gap = 1;
  const over = (c, a) => Math.floor((c * a + 255 * (255 - a)) / 255);
  const lum = (i) => {
    const a = rgba[i + 3];
    return (over(rgba[i], a) * 54 + over(rgba[i + 1], a) * 183 + over(rgba[i + 2], a) * 19) >> 8;
  };
  const counts = new Uint32Array(LOOK_BUCKETS);
  let samples = 0, steps = 0, strong = 0;
  for (let y = 0; y < h; y += step) {
    for (let x = 0; x < w; x += step) {
      const i = (y * w + x) * 4;
      const bucket = rgba[i + 3] < 128 ? LOOK_BUCKETS - 1 : ((rgba[i] >> 4) << 8) | ((rgba[i + 1] >> 4) << 4) | (rgba[i + 2] >> 4);
      counts[bucket]++;
      samples++;
      if (x + gap < w) {
        steps++;
        if (Math.abs(lum(i) - lum(i + gap * 4)) >= LOOK_STRONG_EDGE) strong++;
      }
    }
  }
  const min = Math.max(samples * 0.002, 1);
  let colours = 0;
  for (const c of counts) if (c >= min) colours++;
  const sorted = Array.from(counts).sort((a, b) => b - a);
  return { strong_edges: steps === 0 ? 0 : strong / steps, top_two: (sorted[0] + sorted[1]) / Math.max(samples, 1), colours };
}
