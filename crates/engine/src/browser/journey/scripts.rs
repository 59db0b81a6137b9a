//! The in-page scripts a journey's actions run (element lookup, pointing, the paint probe, the
//! exposure read) and what they answer.

use serde::Deserialize;

/// The page state an action found its element in.
#[derive(Debug, Deserialize, Default)]
pub(super) struct Found {
    #[serde(default)]
    pub(super) error: Option<String>,
    #[serde(default)]
    pub(super) x: f64,
    #[serde(default)]
    pub(super) y: f64,
    #[serde(default)]
    pub(super) checked: Option<bool>,
}

/// The in-page lookup of `selector`, then `body` with `el` bound; returns JSON text. `error`
/// when nothing visible matches (`missing: true` so the caller may wait for it).
pub(super) fn with_element(selector: &str, body: &str) -> String {
    let sel = serde_json::to_string(selector).unwrap_or_default();
    format!(
        r#"(() => {{
  let el;
  try {{ el = document.querySelector({sel}); }} catch (e) {{ return JSON.stringify({{error: 'invalid selector: ' + e.message, fatal: true}}); }}
  if (!el) return JSON.stringify({{error: 'no element matches the selector', missing: true}});
  const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
  if (!(r.width > 0 && r.height > 0) || cs.visibility === 'hidden' || cs.display === 'none' || Number(cs.opacity) === 0)
    return JSON.stringify({{error: 'the element matching the selector is not visible', missing: true}});
  {body}
}})()"#
    )
}

/// Scrolls the element into view and returns its centre, unless it is disabled or covered.
pub(super) const POINT_AT: &str = r#"
  if (el.disabled) return JSON.stringify({error: 'the element is disabled'});
  el.scrollIntoView({block: 'center', inline: 'center'});
  const b = el.getBoundingClientRect();
  const x = b.left + b.width / 2, y = b.top + b.height / 2;
  const hit = document.elementFromPoint(x, y);
  if (hit && hit !== el && !el.contains(hit) && !hit.contains(el)) {
    const name = hit.tagName.toLowerCase() + (hit.id ? '#' + hit.id : '');
    return JSON.stringify({error: 'the element is covered by ' + name});
  }
  window.__sitescanInput = null;
  const mark = (e) => { if (window.__sitescanInput === null) window.__sitescanInput = e.timeStamp; };
  addEventListener('pointerdown', mark, {capture: true, once: true});
  addEventListener('keydown', mark, {capture: true, once: true});
  return JSON.stringify({x, y, checked: typeof el.checked === 'boolean' ? el.checked : null});
"#;

/// From the input event to the second animation frame after it (the next paint), milliseconds.
pub(super) const PAINT_PROBE: &str = r#"new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => {
  const t0 = window.__sitescanInput;
  resolve(JSON.stringify(typeof t0 === 'number' ? performance.now() - t0 : null));
})))"#;

/// What the exposure scan reads (compared with the secrets in Rust; never logged).
pub(super) const EXPOSURE_READ: &str = r#"(() => {
  const entries = (s) => { try { const out = []; for (let i = 0; i < s.length; i++) { const k = s.key(i); out.push([k, s.getItem(k)]); } return out; } catch (e) { return []; } };
  let cookie = '';
  try { cookie = document.cookie; } catch (e) {}
  return JSON.stringify({url: location.href, text: document.body ? document.body.innerText : '', local: entries(localStorage), session: entries(sessionStorage), cookie});
})()"#;

#[derive(Debug, Deserialize, Default)]
pub(super) struct Exposure {
    pub(super) url: String,
    pub(super) text: String,
    pub(super) local: Vec<(String, Option<String>)>,
    pub(super) session: Vec<(String, Option<String>)>,
    pub(super) cookie: String,
}
