//! Contrast gatherer: settles from rendered pixels what axe-core's contrast rules left
//! "incomplete" because styles alone could not tell the background (text over a background
//! image or gradient, under a text shadow, behind pseudo content, overlapped by another element,
//! or drawn with a transparent colour).
//!
//! For each such element (`axe_run.js` keeps them; at most `MAX_RUNS` within `MAX_TIME`) the page
//! scrolls it into view and gives the box around its own text (`contrast.js`); the box is
//! captured twice, as drawn and with the element's text transparent, and `pixel_contrast`
//! measures the text against the pixels around its glyphs. The verdict moves the node out of
//! `incomplete`: into the rule's violations when the contrast is below the rule's ratio (AA 4.5:1,
//! AAA 7:1; 3:1 and 4.5:1 for large text), out of the results when it is enough. Nodes that
//! cannot be measured (covered, clipped, nothing drawn) stay incomplete, as axe answered.
//!
//! Needs the page drawn: it runs after the keyboard walk, with the window restored.

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::page::Viewport;
use serde::Deserialize;
use std::time::Duration;

use crate::browser::cdp::{Deadline, eval_string};
use crate::browser::error::BrowserError;
use crate::browser::gather::screenshot::clip_png;
use crate::browser::instance::Instance;
use crate::browser::pixel_contrast::{DecodedImage, Measured, TextColour, hex, measure};
use crate::browser::scripts::CONTRAST_INSTALL;
use crate::model::{AxeNode, AxeResults, AxeRule};

/// Elements judged from pixels per page (two clipped screenshots each), and the time they may
/// take together; the rest stay incomplete.
pub const MAX_RUNS: usize = 16;
pub const MAX_TIME: Duration = Duration::from_millis(1500);

/// The contrast rules settled here: (axe rule, ratio for normal text, ratio for large text).
const RULES: [(&str, f64, f64); 2] = [("color-contrast", 4.5, 3.0), ("color-contrast-enhanced", 7.0, 4.5)];

#[derive(Debug, Deserialize)]
struct Clip {
    x: f64,
    y: f64,
    width: f64,
    height: f64,
}

/// One element's text as `contrast.js` placed it.
#[derive(Debug, Deserialize)]
struct Run {
    target: String,
    clip: Clip,
    fg: [f64; 4],
    large: bool,
    #[serde(default)]
    font_size: f64,
    #[serde(default)]
    font_weight: u32,
}

/// The largest box captured (CSS pixels), as `contrast.js` caps it; a page that answers larger
/// is not judged.
pub const MAX_CLIP: (f64, f64) = (1600.0 + 8.0, 600.0 + 8.0);
/// How far down or across a document a box may lie (CSS pixels).
const MAX_OFFSET: f64 = 1_000_000.0;

impl Run {
    /// The clip and text colour, when every number is finite and within bounds; the colour's
    /// channels and alpha clamped to their ranges.
    fn bounded(&self) -> Option<(Viewport, TextColour)> {
        let c = &self.clip;
        let finite = [c.x, c.y, c.width, c.height].iter().chain(self.fg.iter()).all(|v| v.is_finite());
        if !finite || !(0.0..=MAX_OFFSET).contains(&c.x) || !(0.0..=MAX_OFFSET).contains(&c.y) {
            return None;
        }
        if !(1.0..=MAX_CLIP.0).contains(&c.width) || !(1.0..=MAX_CLIP.1).contains(&c.height) {
            return None;
        }
        let clip = Viewport { x: c.x, y: c.y, width: c.width, height: c.height, scale: 1.0 };
        let rgb = [0, 1, 2].map(|i| self.fg[i].clamp(0.0, 255.0));
        Some((clip, TextColour { rgb, alpha: self.fg[3].clamp(0.0, 1.0) }))
    }
}

/// The pixel measurement of one element.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ContrastVerdict {
    pub target: String,
    pub measured: Measured,
    pub large: bool,
    pub font_size: f64,
    pub font_weight: u32,
}

/// Whether the page has anything for this gatherer (axe left a contrast node for pixels).
pub(crate) fn wanted(axe: &AxeResults) -> bool {
    axe.incomplete.iter().any(|r| RULES.iter().any(|(id, ..)| r.id == *id))
}

async fn eval(instance: &Instance, page: &Page, budget: &Deadline, expr: &str) -> Result<String, BrowserError> {
    eval_string(instance, page, "contrast", expr, budget.cap(Duration::from_secs(5))).await
}

/// Measures the kept elements and settles their contrast nodes in `axe`; returns how many were
/// measured, and whether every element was (none left incomplete for want of time).
pub(crate) async fn judge(instance: &Instance, page: &Page, budget: &Deadline, axe: &mut AxeResults) -> Result<(usize, bool), BrowserError> {
    let count: usize = eval_string(instance, page, "contrast-install", &CONTRAST_INSTALL, budget.cap(Duration::from_secs(5))).await?.parse().unwrap_or(0);
    let mut verdicts = Vec::new();
    let began = std::time::Instant::now();
    let mut complete = true;
    let measured = async {
        for i in 0..count.min(MAX_RUNS) {
            if began.elapsed() > MAX_TIME {
                tracing::debug!(judged = i, of = count, "contrast: out of time, the rest stay incomplete");
                complete = false;
                break;
            }
            let placed = eval(instance, page, budget, &format!("window.__sitescanContrast.place({i})")).await?;
            let Ok(Some(run)) = crate::browser::lenient::from_json::<Option<Run>>(&placed) else { continue };
            // The page answers in its own world and may have changed what the script reads or
            // writes: nothing it says is taken beyond these bounds.
            let Some((clip, text)) = run.bounded() else { continue };
            let shown = clip_png(instance, page, budget, clip.clone()).await?;
            eval(instance, page, budget, &format!("window.__sitescanContrast.hide({i})")).await?;
            let hidden = clip_png(instance, page, budget, clip).await;
            eval(instance, page, budget, &format!("window.__sitescanContrast.show({i})")).await?;
            let (Some(shown), Some(hidden)) = (decode(&shown), decode(&hidden?)) else { continue };
            if let Some(measured) = measure(&shown, &hidden, text) {
                verdicts.push(ContrastVerdict { target: run.target, measured, large: run.large, font_size: run.font_size, font_weight: run.font_weight });
            }
        }
        Ok::<(), BrowserError>(())
    }
    .await;
    let _ = eval(instance, page, budget, "window.__sitescanContrast ? window.__sitescanContrast.finish() : ''").await;
    measured?;
    settle(axe, &verdicts);
    Ok((verdicts.len(), complete))
}

fn decode(base64_png: &str) -> Option<DecodedImage> {
    use base64::Engine;
    let bytes = base64::engine::general_purpose::STANDARD.decode(base64_png).ok()?;
    DecodedImage::from_png(&bytes).map_err(|e| tracing::debug!(error = %e, "screenshot not decoded")).ok()
}

/// A ratio as axe words it: truncated to two decimals.
fn ratio_text(r: f64) -> String {
    format!("{:.2}", (r * 100.0).floor() / 100.0)
}

/// Moves each measured node out of the contrast rules' incomplete results and into a rule's
/// violations when the measured contrast is below what it expects. As axe words the two rules,
/// text that fails AA is reported by AA alone (AAA's minimum threshold passes it); text that meets
/// AA but not AAA is an AAA violation, also where axe, not knowing the background, had passed it.
pub(crate) fn settle(axe: &mut AxeResults, verdicts: &[ContrastVerdict]) {
    let [(aa_id, aa_normal, aa_large), (aaa_id, aaa_normal, aaa_large)] = RULES;
    for v in verdicts {
        let (aa, aaa) = if v.large { (aa_large, aaa_large) } else { (aa_normal, aaa_normal) };
        let taken: Vec<Taken> = [aa_id, aaa_id].into_iter().filter_map(|id| take_node(axe, id, &v.target)).collect();
        let Some(node) = taken.first().map(|t| t.node.clone()) else { continue };
        let (id, expected) = if v.measured.ratio < aa {
            (aa_id, aa)
        } else if v.measured.ratio < aaa {
            (aaa_id, aaa)
        } else {
            continue;
        };
        let m = &v.measured;
        let summary = format!(
            "Fix any of the following:\n  Element has insufficient color contrast of {}:1, measured from the rendered pixels around its text \
             (foreground color: {}, background color: {}, font size: {:.1}px, font weight: {}). Expected contrast ratio of {expected}:1",
            ratio_text(m.ratio),
            hex(m.foreground),
            hex(m.background),
            v.font_size,
            v.font_weight,
        );
        let failing = AxeNode { failure_summary: Some(summary), impact: Some("serious".into()), ..node };
        match axe.violations.iter_mut().find(|r| r.id == id) {
            Some(found) => found.nodes.push(failing),
            // The rule's words: from its incomplete entry when there was one, else the catalogue's
            // (the mapper falls back to them for an empty help, description and tags).
            None => {
                let meta = taken.into_iter().find(|t| t.rule.id == id).map(|t| t.rule).unwrap_or_else(|| AxeRule { id: id.into(), ..AxeRule::default() });
                axe.violations.push(AxeRule { nodes: vec![failing], impact: Some("serious".into()), ..meta })
            }
        }
    }
}

/// A node taken out of a rule's incomplete results, with the rule's metadata.
struct Taken {
    rule: AxeRule,
    node: AxeNode,
}

/// Removes `target`'s node from rule `id`'s incomplete results (and the rule when that was its
/// last node).
fn take_node(axe: &mut AxeResults, id: &str, target: &str) -> Option<Taken> {
    let at = axe.incomplete.iter().position(|r| r.id == id)?;
    let entry = &mut axe.incomplete[at];
    let i = entry.nodes.iter().position(|n| n.target == target)?;
    let node = entry.nodes.remove(i);
    let rule = AxeRule { nodes: Vec::new(), ..entry.clone() };
    if entry.nodes.is_empty() {
        axe.incomplete.remove(at);
    }
    Some(Taken { rule, node })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(target: &str) -> AxeNode {
        AxeNode { target: target.into(), html: format!("<p id=\"{target}\">"), failure_summary: Some("Fix any of the following:\n  Element's background color could not be determined due to a background image".into()), impact: Some("serious".into()) }
    }

    fn rule(id: &str, targets: &[&str]) -> AxeRule {
        AxeRule { id: id.into(), impact: Some("serious".into()), tags: vec!["wcag2aa".into()], help: "Elements must meet minimum color contrast ratio thresholds".into(), description: String::new(), help_url: String::new(), nodes: targets.iter().map(|t| node(t)).collect() }
    }

    fn verdict(target: &str, ratio: f64, large: bool) -> ContrastVerdict {
        ContrastVerdict { target: target.into(), measured: Measured { ratio, foreground: [102; 3], background: [170; 3], glyph_pixels: 100 }, large, font_size: 16.0, font_weight: 400 }
    }

    #[test]
    fn measured_nodes_leave_incomplete_as_violations_or_passes() {
        let mut axe = AxeResults {
            incomplete: vec![rule("color-contrast", &["#low", "#ok", "#unmeasured"]), rule("color-contrast-enhanced", &["#low", "#ok", "#unmeasured"])],
            ..AxeResults::default()
        };
        // 2.99:1 fails AA (and only AA reports it); 5.2:1 passes AA and fails AAA.
        settle(&mut axe, &[verdict("#low", 2.99, false), verdict("#ok", 5.2, false)]);
        let aa = axe.violations.iter().find(|r| r.id == "color-contrast").expect("AA violations");
        assert_eq!(aa.nodes.iter().map(|n| n.target.as_str()).collect::<Vec<_>>(), ["#low"]);
        let summary = aa.nodes[0].failure_summary.as_deref().unwrap();
        assert!(summary.contains("contrast of 2.99:1") && summary.contains("rendered pixels") && summary.contains("#666666") && summary.contains("#aaaaaa"), "{summary}");
        assert!(summary.contains("Expected contrast ratio of 4.5:1"), "{summary}");
        assert_eq!(aa.help, "Elements must meet minimum color contrast ratio thresholds", "the rule's own words");
        let aaa = axe.violations.iter().find(|r| r.id == "color-contrast-enhanced").expect("AAA violations");
        assert_eq!(aaa.nodes.iter().map(|n| n.target.as_str()).collect::<Vec<_>>(), ["#ok"]);
        assert_eq!(aaa.help, "Elements must meet minimum color contrast ratio thresholds", "its incomplete entry's words");
        assert!(aaa.nodes[0].failure_summary.as_deref().unwrap().contains("Expected contrast ratio of 7:1"));
        for r in &axe.incomplete {
            assert_eq!(r.nodes.iter().map(|n| n.target.as_str()).collect::<Vec<_>>(), ["#unmeasured"], "{}", r.id);
        }
    }

    #[test]
    fn large_text_has_the_lower_ratios_and_a_settled_rule_leaves_incomplete() {
        let mut axe = AxeResults { incomplete: vec![rule("color-contrast", &["#big"])], violations: vec![rule("color-contrast", &["#flat"])], ..AxeResults::default() };
        settle(&mut axe, &[verdict("#big", 3.5, true)]);
        assert!(axe.incomplete.is_empty(), "nothing left to review");
        assert_eq!(axe.violations[0].nodes.len(), 1, "3.5:1 is enough for large text");
        assert_eq!(axe.violations[1].id, "color-contrast-enhanced", "but not for AAA (4.5:1)");
        let mut axe = AxeResults { incomplete: vec![rule("color-contrast", &["#big"])], violations: vec![rule("color-contrast", &["#flat"])], ..AxeResults::default() };
        settle(&mut axe, &[verdict("#big", 2.5, true)]);
        assert_eq!(axe.violations.len(), 1, "joined to the rule's existing violations");
        assert_eq!(axe.violations[0].nodes.iter().map(|n| n.target.as_str()).collect::<Vec<_>>(), ["#flat", "#big"]);
        assert!(axe.violations[0].nodes[1].failure_summary.as_deref().unwrap().contains("Expected contrast ratio of 3:1"));
    }

    #[test]
    fn aaa_is_judged_where_axe_passed_it_for_want_of_a_background() {
        // axe passes AAA when it cannot tell the background (below AA's minimum threshold); the
        // pixels decide it: 5.7:1 meets AA and misses AAA.
        let mut axe = AxeResults { incomplete: vec![rule("color-contrast", &["#gradient"])], ..AxeResults::default() };
        settle(&mut axe, &[verdict("#gradient", 5.7, false)]);
        assert!(axe.incomplete.is_empty());
        assert_eq!(axe.violations.len(), 1);
        let aaa = &axe.violations[0];
        assert_eq!((aaa.id.as_str(), aaa.help.as_str(), aaa.nodes.len()), ("color-contrast-enhanced", "", 1), "words from the catalogue");
        // 7.5:1 meets both.
        let mut axe = AxeResults { incomplete: vec![rule("color-contrast", &["#gradient"])], ..AxeResults::default() };
        settle(&mut axe, &[verdict("#gradient", 7.5, false)]);
        assert!(axe.incomplete.is_empty() && axe.violations.is_empty());
    }

    fn run(x: f64, y: f64, width: f64, height: f64, fg: [f64; 4]) -> Run {
        Run { target: "#t".into(), clip: Clip { x, y, width, height }, fg, large: false, font_size: 16.0, font_weight: 400 }
    }

    #[test]
    fn a_page_cannot_ask_for_a_huge_box_or_feed_odd_numbers() {
        let (clip, text) = run(10.0, 20000.0, 300.0, 40.0, [300.0, -5.0, 12.0, 7.0]).bounded().expect("an ordinary box");
        assert_eq!((clip.x, clip.y, clip.width, clip.height), (10.0, 20000.0, 300.0, 40.0));
        assert_eq!((text.rgb, text.alpha), ([255.0, 0.0, 12.0], 1.0), "channels and alpha clamped");
        for bad in [
            run(0.0, 0.0, 1e9, 1e9, [0.0, 0.0, 0.0, 1.0]),
            run(0.0, 0.0, 2000.0, 40.0, [0.0, 0.0, 0.0, 1.0]),
            run(-5.0, 0.0, 100.0, 40.0, [0.0, 0.0, 0.0, 1.0]),
            run(0.0, 1e12, 100.0, 40.0, [0.0, 0.0, 0.0, 1.0]),
            run(0.0, 0.0, 0.0, 40.0, [0.0, 0.0, 0.0, 1.0]),
            run(f64::NAN, 0.0, 100.0, 40.0, [0.0, 0.0, 0.0, 1.0]),
            run(0.0, 0.0, 100.0, 40.0, [f64::INFINITY, 0.0, 0.0, 1.0]),
        ] {
            assert!(bad.bounded().is_none(), "{bad:?}");
        }
    }

    #[test]
    fn other_rules_are_untouched() {
        let mut axe = AxeResults { incomplete: vec![rule("aria-hidden-focus", &["#low"])], ..AxeResults::default() };
        settle(&mut axe, &[verdict("#low", 1.5, false)]);
        assert_eq!(axe.incomplete.len(), 1);
        assert!(axe.violations.is_empty());
        assert!(!wanted(&axe));
    }
}
