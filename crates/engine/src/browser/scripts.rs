//! The in-page scripts of `browser/` (embedded at build time) and axe-core.
//!
//! Init scripts (`hooks.js`, `perf.js`) run in every document before its own scripts; the others
//! are evaluated on demand. Each script body shares the helpers of `common.js` and is wrapped in
//! its own function, so nothing leaks but the few `__sitescan*` globals the scripts define.

use std::sync::LazyLock;

/// Name of the CDP binding (`Runtime.addBinding`) through which in-page hooks report.
pub(crate) const BINDING: &str = "__sitescanReport";

const COMMON: &str = include_str!("../../../../browser/common.js");
const HOOKS: &str = include_str!("../../../../browser/hooks.js");
const PERF: &str = include_str!("../../../../browser/perf.js");
const COLLECTOR: &str = include_str!("../../../../browser/collector.js");
const SCROLL: &str = include_str!("../../../../browser/scroll.js");
const EAGER: &str = include_str!("../../../../browser/eager.js");
const KEYBOARD: &str = include_str!("../../../../browser/keyboard.js");
const AXE_RUN: &str = include_str!("../../../../browser/axe_run.js");
const AXE_CONTRAST: &str = include_str!("../../../../browser/axe_contrast.js");
const AXE_SHARE: &str = include_str!("../../../../browser/axe_share.js");
const REGIONS: &str = include_str!("../../../../browser/regions.js");
const CONTRAST: &str = include_str!("../../../../browser/contrast.js");
const BARRIERS: &str = include_str!("../../../../browser/barriers.js");
const LAYOUT: &str = include_str!("../../../../browser/layout.js");
const PARK: &str = include_str!("../../../../browser/park.js");
const DIALOGS: &str = include_str!("../../../../browser/dialogs.js");
const PAGE_TEXT: &str = include_str!("../../../../browser/page_text.js");
const IMAGE_TEXT: &str = include_str!("../../../../browser/image_text.js");
/// `imageLook`: `Look::of`'s numbers, computed in the page (`image_look.rs` tests that they agree).
pub(crate) const IMAGE_LOOK: &str = include_str!("../../../../browser/image_look.js");
const UNCHANGED: &str = include_str!("../../../../browser/unchanged.js");
const AXE_SOURCE: &str = include_str!(concat!(env!("OUT_DIR"), "/axe.min.js"));
const AXE_VERSION: &str = include_str!(concat!(env!("OUT_DIR"), "/axe_version.txt"));

/// Each script's answer is made well-formed text before it leaves the page: a string the page
/// cut inside an emoji (half a surrogate pair) would make the whole CDP message unreadable
/// (`lenient.rs`); the half becomes U+FFFD.
fn wrap(body: &str) -> String {
    format!("(() => {{ const __answer = (() => {{\n{COMMON}\n{body}\n}})(); return typeof __answer === 'string' ? __answer.toWellFormed() : __answer; }})()")
}

fn wrap_async(body: &str) -> String {
    format!("(async () => {{ const __answer = await (async () => {{\n{COMMON}\n{body}\n}})(); return typeof __answer === 'string' ? __answer.toWellFormed() : __answer; }})()")
}

/// Leads the scripts that read `__sitescanHooks` (the listeners the page's script added): they
/// are given them in their isolated world first (`cdp::eval_string`).
pub(crate) const HOOKS_MARK: &str = "/*sitescan:hooks*/";

fn with_hooks(script: String) -> String {
    format!("{HOOKS_MARK}{script}")
}

/// The name of the events through which the main world's `hooks.js` tells the gatherers'
/// isolated world which elements have listeners: random for the process, so that no page can
/// listen for them by name.
static HOOKS_EVENT: LazyLock<String> = LazyLock::new(|| format!("sitescan-hooks-{:016x}", rand::random::<u64>()));
const HOOKS_BRIDGE: &str = include_str!("../../../../browser/hooks_bridge.js");
/// In the isolated world: installs (once) and clears `window.__sitescanHooks`.
pub(crate) static HOOKS_LISTEN: LazyLock<String> = LazyLock::new(|| wrap(&format!("const EVENT = '{}';\n{HOOKS_BRIDGE}", *HOOKS_EVENT)));
/// In the main world: sends the listened elements to the isolated world; the flags as JSON text.
pub(crate) static HOOKS_EXPORT: LazyLock<String> =
    LazyLock::new(|| format!("(() => {{ const h = window.__sitescanHooks; return h && typeof h.exportTo === 'function' ? String(h.exportTo('{}')).toWellFormed() : ''; }})()", *HOOKS_EVENT));

/// The name `hooks.js` runs under, so that the console gatherer can look past its frames (it
/// stands between a page's `console.error` and the browser).
pub(crate) const HOOKS_SOURCE_URL: &str = "sitescan-hooks.js";
/// What `hooks.js` signs its binding reports with (a per-process random value held in its
/// closure): the binding is a function of the page's window, which the page's own script can
/// call too, and a report without it is not ours.
pub(crate) static REPORT_TOKEN: LazyLock<String> = LazyLock::new(|| format!("{:016x}{:016x}", rand::random::<u64>(), rand::random::<u64>()));
/// Init script: click/key listener tracking, console output cut to size, CSP violations,
/// deprecation reports.
pub(crate) static HOOKS_INIT: LazyLock<String> =
    LazyLock::new(|| format!("{}\n//# sourceURL={HOOKS_SOURCE_URL}", wrap(&format!("const TOKEN = '{}';\n{HOOKS}", *REPORT_TOKEN))));
/// Init script: paint, LCP, layout-shift and long-task observers.
pub(crate) static PERF_INIT: LazyLock<String> = LazyLock::new(|| wrap(PERF));
/// Returns the DOM facts as JSON text.
pub(crate) static COLLECT: LazyLock<String> = LazyLock::new(|| with_hooks(wrap(COLLECTOR)));
/// Scrolls to the bottom and back; resolves to JSON text.
pub(crate) static SCROLL_PAGE: LazyLock<String> = LazyLock::new(|| with_hooks(wrap_async(SCROLL)));
/// At `load`: starts loading native lazy images where nothing else is lazy; the count as text.
pub(crate) static EAGER_AT_LOAD: LazyLock<String> = LazyLock::new(|| with_hooks(wrap(EAGER)));
/// Installs the keyboard-walk probe; returns the focusable count as text.
pub(crate) static KEYBOARD_INSTALL: LazyLock<String> = LazyLock::new(|| with_hooks(wrap(KEYBOARD)));
/// Returns the barrier facts as JSON text (`barriers.js`).
pub(crate) static BARRIERS_COLLECT: LazyLock<String> = LazyLock::new(|| with_hooks(wrap(BARRIERS)));
/// The layout gatherer's pass `mode` (a JavaScript expression: `'desktop'`, `'reflow'`, or
/// `'restore'` followed by `const SCROLL = [x, y];`); JSON text.
pub(crate) fn layout_script(mode: &str) -> String {
    wrap(&format!("const MODE = {mode};\n{LAYOUT}"))
}
/// The dialog probe's `mode` (`'find'`, `'focus'`, `'state'` or `'close'`) for the `index`-th
/// control it found (`dialogs.js`); text.
pub(crate) fn dialogs_script(mode: &str, index: usize) -> String {
    wrap(&format!("const MODE = '{mode}';\nconst INDEX = {index};\n{DIALOGS}"))
}
/// Returns the page's rendered text as JSON text (`PageText`).
pub(crate) static PAGE_TEXT_READ: LazyLock<String> = LazyLock::new(|| wrap(PAGE_TEXT));
/// Lists the images to read; JSON text.
pub(crate) static IMAGE_TEXT_LIST: LazyLock<String> = LazyLock::new(|| wrap(&format!("{IMAGE_LOOK}\n{IMAGE_TEXT}")));
/// What the listed images at `indexes` look like from their own pixels (null where they cannot
/// be drawn), in that order: JSON text.
pub(crate) fn image_text_looks(indexes: &[usize]) -> String {
    let list = indexes.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
    format!("window.__sitescanImageText ? window.__sitescanImageText.looks([{list}]) : '[]'")
}
/// Hides the page's text until `IMAGE_TEXT_RESTORE`; returns `hidden`.
pub(crate) const IMAGE_TEXT_HIDE: &str = "window.__sitescanImageText ? window.__sitescanImageText.hide() : 'hidden'";
/// Shows the text `IMAGE_TEXT_HIDE` hid; returns `restored`.
pub(crate) const IMAGE_TEXT_RESTORE: &str = "window.__sitescanImageText ? window.__sitescanImageText.restore() : 'restored'";
/// Quiets a captured page whose window is kept for the next URL; returns `parked`.
pub(crate) static PARK_PAGE: LazyLock<String> = LazyLock::new(|| wrap(PARK));
/// Runs axe (after `AXE_INJECT`) on everything, the AAA contrast rule judged from the AA one
/// (`axe_contrast.js`); resolves to JSON text.
pub(crate) static AXE_RUN_SCRIPT: LazyLock<String> = LazyLock::new(|| axe_run_script("null"));
/// What the in-page judgements read beyond the whole-page fingerprint (`unchanged.js`); JSON text.
pub(crate) static PAGE_INPUTS: LazyLock<String> = LazyLock::new(|| wrap(UNCHANGED));
/// Finds the regions a site's pages may share and fingerprints them (`regions.js`); JSON text.
pub(crate) static FIND_REGIONS: LazyLock<String> = LazyLock::new(|| wrap(REGIONS));

/// `AXE_RUN_SCRIPT` leaving out the regions already judged on another page (`axe_share.js`):
/// `share` is the JSON `{known: [{index, entry}], fresh: [index]}` over `FIND_REGIONS`' answer.
pub(crate) fn axe_run_script(share: &str) -> String {
    wrap_async(&format!("const SHARE = {share};\n{AXE_CONTRAST}\n{AXE_SHARE}\n{AXE_RUN}"))
}
/// After `AXE_RUN_SCRIPT`: installs `window.__sitescanContrast` over the contrast nodes axe left
/// for pixels (`contrast.js`); returns their count as text.
pub(crate) static CONTRAST_INSTALL: LazyLock<String> = LazyLock::new(|| wrap(CONTRAST));
/// Defines `window.axe` without registering with a page's AMD or CommonJS loader.
pub(crate) static AXE_INJECT: LazyLock<String> =
    LazyLock::new(|| format!("(function (define, module, exports) {{\n{AXE_SOURCE}\n}}).call(window, undefined, undefined, undefined); String(typeof window.axe)"));
/// Reads the performance observers' state as JSON text.
pub(crate) const PERF_REPORT: &str = "window.__sitescanPerf ? window.__sitescanPerf.report() : ''";
/// Milliseconds since the last layout shift or long task as text, `-1` when none (`perf.js`).
pub(crate) const PERF_QUIET: &str = "window.__sitescanPerf ? String(window.__sitescanPerf.quietFor()) : ''";
/// `document.documentElement.outerHTML`.
/// The rendered document, cut in the page to as many UTF-16 units as the gatherer keeps bytes
/// (a script can make it far larger than what was served: only what is kept crosses over).
pub(crate) static RENDERED_HTML: LazyLock<String> = LazyLock::new(|| {
    let max = super::gather::document::MAX_HTML_BYTES;
    format!("(() => {{ const d = document.documentElement; if (!d) return ''; const h = d.outerHTML; return (h.length > {max} ? h.slice(0, {max}) : h).toWellFormed(); }})()")
});

/// The version of the embedded axe-core.
pub fn axe_version() -> &'static str {
    AXE_VERSION.trim()
}

/// What a region's kept verdict depends on besides its fingerprint: sitescan's version, the
/// axe-core build and every in-page script that finds, fingerprints, runs and shares (their
/// text, so any change to a rule, an option or the fingerprint starts afresh) and the viewport.
/// The kept facts of unchanged pages (`unchanged.rs`) depend the same way on the gatherers that
/// made them, in the page and in sitescan (their source, so a change between two builds of one
/// version starts afresh too). Verdicts of another generation are never given back.
pub fn region_generation(viewport: (u32, u32)) -> String {
    generation_of(&[crate_version(), AXE_VERSION.trim(), AXE_SOURCE, REGIONS, AXE_SHARE, AXE_RUN, AXE_CONTRAST, COMMON, UNCHANGED, BARRIERS, KEYBOARD, LAYOUT, DIALOGS, CONTRAST, FACTS_GATHERERS], viewport)
}

/// The source of the gatherers whose facts an unchanged page is given back (with the contrast
/// settled from pixels), and of their types.
const FACTS_GATHERERS: &str = concat!(
    include_str!("unchanged.rs"),
    include_str!("gather/contrast.rs"),
    include_str!("pixel_contrast.rs"),
    include_str!("gather/barriers.rs"),
    include_str!("gather/keyboard.rs"),
    include_str!("gather/layout.rs"),
    include_str!("gather/dialogs.rs"),
    include_str!("../../../model/src/barriers.rs"),
    include_str!("../../../model/src/layout.rs"),
    include_str!("../../../model/src/dialogs.rs"),
    include_str!("../../../model/src/snapshot.rs"),
);

fn crate_version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

fn generation_of(parts: &[&str], viewport: (u32, u32)) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for part in parts {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    h.update(viewport.0.to_le_bytes());
    h.update(viewport.1.to_le_bytes());
    format!("{:x}", h.finalize())[..32].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axe_is_embedded_with_its_version() {
        assert!(axe_version().starts_with("4."), "{}", axe_version());
        assert!(AXE_SOURCE.len() > 100_000);
        assert!(AXE_INJECT.contains("axe"));
    }

    #[test]
    fn the_generation_follows_every_input() {
        let base = generation_of(&["0.1.0", "4.10.0", "axe", "regions"], (1350, 940));
        assert_eq!(base, generation_of(&["0.1.0", "4.10.0", "axe", "regions"], (1350, 940)));
        assert_ne!(base, generation_of(&["0.1.0", "4.10.1", "axe", "regions"], (1350, 940)), "axe version");
        assert_ne!(base, generation_of(&["0.1.1", "4.10.0", "axe", "regions"], (1350, 940)), "sitescan version");
        assert_ne!(base, generation_of(&["0.1.0", "4.10.0", "axe", "regions2"], (1350, 940)), "a script");
        assert_ne!(base, generation_of(&["0.1.0", "4.10.0", "axe", "regions"], (390, 844)), "viewport");
        assert_ne!(generation_of(&["ab", "c"], (1, 1)), generation_of(&["a", "bc"], (1, 1)), "parts are delimited");
        assert_eq!(region_generation((1350, 940)).len(), 32);
    }

    #[test]
    fn scripts_are_wrapped_with_the_helpers() {
        for s in [
            &*HOOKS_INIT, &*PERF_INIT, &*COLLECT, &*SCROLL_PAGE, &*EAGER_AT_LOAD, &*KEYBOARD_INSTALL, &*AXE_RUN_SCRIPT, &*PARK_PAGE, &*CONTRAST_INSTALL, &*FIND_REGIONS,
            &*BARRIERS_COLLECT, &layout_script("'desktop'"), &*PAGE_TEXT_READ, &*IMAGE_TEXT_LIST, &*PAGE_INPUTS,
        ] {
            assert!(s.contains("const __ss"), "helpers missing");
            let s = s.split("\n//# sourceURL=").next().unwrap_or_default();
            assert!(s.trim_end().ends_with(")()"));
            assert!(s.contains(".toWellFormed()"), "answers are made well-formed");
        }
    }
}
