//! The barrier facts: what `browser/barriers.js` measured in a rendered page for the checks of
//! barriers that a person meets but markup rules do not decide (text styled as a heading, lines
//! that look like a list, links and images and what they say, form fields with their labels,
//! groups and hints). Raw candidates only: the checks judge them.
//!
//! Bounded: the script keeps at most `MAX_*` candidates per kind and cuts every text to
//! `MAX_BARRIER_TEXT` characters (pages are hostile); `bound` applies the same limits to facts
//! from elsewhere (a stored snapshot).

use serde::{Deserialize, Serialize};

/// Characters of any text the script copies (link names, alt texts, labels).
pub const MAX_BARRIER_TEXT: usize = 200;
/// Styled-heading candidates per page.
pub const MAX_STYLED_HEADINGS: usize = 40;
/// Visual-list candidates per page.
pub const MAX_VISUAL_LISTS: usize = 40;
/// Links per page (the rest are counted in `links_omitted`).
pub const MAX_BARRIER_LINKS: usize = 400;
/// Images per page.
pub const MAX_BARRIER_IMAGES: usize = 200;
/// Form fields per page.
pub const MAX_BARRIER_FIELDS: usize = 200;
/// Tables per page.
pub const MAX_BARRIER_TABLES: usize = 40;
/// Hover-only reveals per page.
pub const MAX_BARRIER_HOVER: usize = 30;
/// Click-only controls per page.
pub const MAX_BARRIER_CONTROLS: usize = 60;
/// Elements with words written by a style sheet kept (`LIMIT.generated`), and elements with an
/// `accesskey` (`LIMIT.accesskeys`), fieldsets (`LIMIT.fieldsets`) and idle tab stops (`LIMIT.idle`).
pub const MAX_BARRIER_GENERATED: usize = 30;

/// Passages per page (`LIMIT.passages`).
pub const MAX_BARRIER_PASSAGES: usize = 40;

/// A block of text (or an element with its own `lang` or `dir`) that holds a letter of a script
/// other than Latin, or that is laid out right to left: what a reader of the language it declares,
/// and the direction it is laid out in, would meet.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TextPassage {
    pub selector: String,
    pub snippet: String,
    /// The block's first words.
    pub text: String,
    /// The first text node in another script than Latin, when there is one.
    pub run: Option<String>,
    /// The `lang` the block inherits (its own or its nearest ancestor's, `<html>` included).
    pub lang: Option<String>,
    /// The `lang` is the block's own.
    pub lang_own: bool,
    /// The computed `direction`: `ltr` or `rtl`.
    pub direction: String,
    /// The nearest `dir` attribute, as written.
    pub dir_attr: Option<String>,
    /// `unicode-bidi: plaintext`: each paragraph takes its direction from its text.
    pub plaintext: bool,
    /// Laid out inline (a link or span in a line), not as a block of its own.
    pub inline: bool,
}

/// Elements with children shown out of the source's order, per page (`LIMIT.reordered`).
pub const MAX_BARRIER_REORDERED: usize = 20;

/// Two neighbouring children of an element, on one line, the later in the source shown first
/// (left of the earlier in a left-to-right container, right of it in a right-to-left one), with
/// three or more of its children on that line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReorderedSiblings {
    /// The parent.
    pub selector: String,
    pub snippet: String,
    /// The child first in the source, and its text.
    pub first_selector: String,
    pub first_text: String,
    /// The child next in the source, shown before it.
    pub second_selector: String,
    pub second_text: String,
    /// Both are (or hold) something Tab stops on: the focus order leaves the visual order.
    pub focusable: bool,
    /// What moved them, as far as the styles say: `float: right`, `flex-direction: row-reverse`,
    /// `order`, `grid placement`, `position: relative`, or `layout`.
    pub cause: String,
}

/// A block of text styled bigger or bolder than the page's body text, short and followed by
/// content, that is no heading.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StyledHeading {
    pub selector: String,
    pub snippet: String,
    pub text: String,
    /// The smallest font size and lightest weight of its text.
    pub font_size_px: f64,
    pub font_weight: u32,
    /// The block that follows it.
    pub next_selector: String,
}

/// Consecutive lines that start with the same bullet, or count up from 1, outside any list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct VisualList {
    /// The first line's element (`siblings`) or the block holding the lines (`br`).
    pub selector: String,
    pub snippet: String,
    pub items: usize,
    /// The bullet character, or `1.` for numbered lines.
    pub marker: String,
    /// The first lines, joined with ` / `.
    pub text: String,
    /// `siblings` (a paragraph or div per line) or `br` (lines broken by `<br>` in one block).
    pub form: String,
}

/// A visible `<a href>`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct BarrierLink {
    pub selector: String,
    pub snippet: String,
    pub href_raw: String,
    /// The resolved URL (`a.href`, fragment kept).
    pub href: String,
    /// Its accessible name (aria-labelledby, aria-label, or its content with image alts).
    pub name: String,
    pub title: Option<String>,
    /// The text of its `aria-describedby` elements.
    pub described: Option<String>,
    pub target: Option<String>,
    pub type_attr: Option<String>,
    pub role: Option<String>,
    /// A click or key handler on the link or an ancestor; `None` when the page's listeners could
    /// not be known (`hooks.js` absent).
    pub has_handler: Option<bool>,
    /// Only an image or icon inside, no text.
    pub image_only: bool,
    /// The link just before it, with nothing but white space between, going to the same URL.
    pub adjacent_same_href: Option<String>,
}

/// A visible `<img>`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct BarrierImage {
    pub selector: String,
    pub snippet: String,
    /// The alt attribute (`None` when absent).
    pub alt: Option<String>,
    pub title: Option<String>,
    /// Named by aria-label or aria-labelledby.
    pub aria_name: bool,
    pub role: Option<String>,
    /// The last path segment of the image URL, decoded.
    pub file: String,
    /// The `<figcaption>` of its `<figure>`.
    pub caption: Option<String>,
    /// Inside a link or button.
    pub in_control: bool,
}

/// A visible input (not hidden or a button), select or textarea.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct BarrierField {
    pub selector: String,
    pub snippet: String,
    pub tag: String,
    /// The effective type (`text`, `radio`, ...; `select`, `textarea` for those).
    pub type_: String,
    pub name: Option<String>,
    /// The selector of its form, empty outside any form.
    pub form: String,
    /// The text of each visible `<label>` of the field.
    pub labels: Vec<String>,
    /// Named by aria-label or aria-labelledby.
    pub aria_name: bool,
    pub title: Option<String>,
    pub placeholder: Option<String>,
    /// The name of the nearest named group (fieldset legend, named radiogroup or group).
    pub group: Option<String>,
    /// The text of its `aria-describedby` elements.
    pub described: Option<String>,
    /// Text right after the field that reads as a hint (format, length, "must", "e.g.").
    pub hint: Option<String>,
    pub hint_selector: Option<String>,
    /// The hint is (inside) one of the field's `aria-describedby` elements.
    pub hint_tied: bool,
}

/// A visible table: its shape (rows read up to 200), its header markup and the signals that tell
/// a table of data from one that only lays out the page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BarrierTable {
    pub selector: String,
    pub snippet: String,
    /// The `role` attribute, as written.
    pub role: Option<String>,
    pub rows: usize,
    /// The widest row, in columns (colspans counted).
    pub cols: usize,
    /// `<th>` cells.
    pub th: usize,
    /// `<td>` cells.
    pub td: usize,
    /// Cells made headers or tied to headers otherwise: `role=columnheader|rowheader`, or a `<td>`
    /// with `scope` or `headers`.
    pub header_attrs: usize,
    /// The caption's text, when not empty.
    pub caption: Option<String>,
    /// The `summary` attribute, when not empty.
    pub summary: Option<String>,
    /// Holds another table (the outer one lays out the page).
    pub contains_table: bool,
    /// The first table it holds that is marked up as data (header cells, a caption, or
    /// `role=table|grid|treegrid`): tables of data nested in this one's cells.
    pub holds_data_table: Option<String>,
    /// Sits inside another table.
    pub inside_table: bool,
    /// Holds headings, navigation, landmarks, paragraphs one after another, frames or video:
    /// page layout, not data.
    pub layout_content: bool,
    /// Holds form controls (a form laid out in a grid, or a data table with inputs).
    pub controls: bool,
    /// Cells with text, and how many of them read as numbers or amounts.
    pub filled: usize,
    pub numeric: usize,
    /// Characters per filled cell, on average.
    pub avg_chars: usize,
    /// Cells with a visible top border.
    pub bordered: usize,
    /// The first row (column) is set apart from the next: bold while the rest is not, or
    /// another background or colour.
    pub first_row_distinct: bool,
    pub first_col_distinct: bool,
}

/// An element that acts on a click (a listener of its own) and is no native control: what the
/// keyboard can do with it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BarrierControl {
    pub selector: String,
    pub snippet: String,
    /// The `role` and `tabindex` attributes, as written.
    pub role: Option<String>,
    pub tabindex: Option<String>,
    /// In the Tab order (a `tabindex` of 0 or more).
    pub focusable: bool,
    /// Its accessible name, roughly (aria-labelledby, aria-label, then its content).
    pub name: String,
    /// A key listener on it or on an ancestor.
    pub key_handler: bool,
    /// The mouse pointer turns into a hand over it (it looks clickable).
    pub pointer: bool,
}

/// Content a style sheet's `:hover` rule reveals, with no `:focus` twin of the rule.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HoverOnly {
    /// The element hovering over reveals the content (selector and markup).
    pub selector: String,
    pub snippet: String,
    /// The selector of the `:hover` rule, as written.
    pub rule: String,
    /// The content it reveals, hidden now (selector and text).
    pub revealed: String,
    pub revealed_text: String,
    /// The revealed content holds links or controls (a menu's sub-items).
    pub revealed_controls: bool,
    /// The trigger is, or holds, something the keyboard can focus.
    pub trigger_focusable: bool,
}

/// Words a style sheet writes into a visible element (`::before` / `::after` content).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GeneratedText {
    pub selector: String,
    pub snippet: String,
    /// `::before` or `::after`.
    pub pseudo: String,
    /// The text shown, as computed.
    pub text: String,
    /// The selector of the style rule that writes it, as written.
    pub rule: String,
}

/// An element that declares a keyboard shortcut (`accesskey`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct AccessKey {
    pub selector: String,
    pub snippet: String,
    /// The attribute's value, trimmed.
    pub key: String,
}

/// A visible fieldset with no radio button or check box in it (those are judged as groups).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct BarrierFieldset {
    pub selector: String,
    pub snippet: String,
    /// It has a `<legend>` child (maybe empty).
    pub has_legend: bool,
    /// Its name: the legend's text, else aria-labelledby or aria-label; empty when none.
    pub name: String,
    /// Fields inside (inputs that take a value, selects, text areas; not buttons).
    pub controls: usize,
}

/// An element in the tab order that does nothing (no control, no listener, nothing to scroll).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct IdleTabStop {
    pub selector: String,
    pub snippet: String,
    /// The `tabindex` attribute, as written.
    pub tabindex: Option<String>,
    pub role: Option<String>,
    pub text: String,
}

/// Everything `browser/barriers.js` gathered on one page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BarrierFacts {
    /// Time the script took in the page, in ms.
    pub ms: f64,
    /// The font size and weight that carry most of the page's text.
    pub body_font_size_px: f64,
    pub body_font_weight: u32,
    /// Whether the document or window listens to clicks, hash changes or history (a link may be
    /// handled there); `None` when unknown.
    pub click_delegation: Option<bool>,
    pub styled_headings: Vec<StyledHeading>,
    pub visual_lists: Vec<VisualList>,
    pub links: Vec<BarrierLink>,
    pub links_omitted: usize,
    pub images: Vec<BarrierImage>,
    pub fields: Vec<BarrierField>,
    pub tables: Vec<BarrierTable>,
    /// Elements that act on a click and are no native control (read only where the listener
    /// record is there: `key_delegation` is then known).
    pub controls: Vec<BarrierControl>,
    /// Whether the document or window listens to keys (keys may be handled there for any
    /// element); `None` when unknown.
    pub key_delegation: Option<bool>,
    pub hover_only: Vec<HoverOnly>,
    pub generated_text: Vec<GeneratedText>,
    pub access_keys: Vec<AccessKey>,
    pub fieldsets: Vec<BarrierFieldset>,
    /// Read only where the listener record is there (`hooks.js`).
    pub idle_stops: Vec<IdleTabStop>,
    /// Passages in a script other than Latin, or laid out right to left (at most
    /// `MAX_BARRIER_PASSAGES`).
    pub passages: Vec<TextPassage>,
    /// Elements whose children are shown on a line in another order than the source's (at most
    /// `MAX_BARRIER_REORDERED`).
    pub reordered: Vec<ReorderedSiblings>,
    /// Whether any script listens to focus or blur (it may reveal hover content on focus);
    /// `None` when unknown.
    pub focus_watched: Option<bool>,
    /// The scans the script cut at its budget (elements read for styled headings and lists).
    pub sampled: Vec<super::Sample>,
}

impl BarrierFacts {
    /// Holds the facts to the script's limits, whatever produced them.
    pub fn bound(&mut self) {
        self.styled_headings.truncate(MAX_STYLED_HEADINGS);
        self.visual_lists.truncate(MAX_VISUAL_LISTS);
        if self.links.len() > MAX_BARRIER_LINKS {
            self.links_omitted += self.links.len() - MAX_BARRIER_LINKS;
            self.links.truncate(MAX_BARRIER_LINKS);
        }
        self.images.truncate(MAX_BARRIER_IMAGES);
        self.tables.truncate(MAX_BARRIER_TABLES);
        self.controls.truncate(MAX_BARRIER_CONTROLS);
        self.hover_only.truncate(MAX_BARRIER_HOVER);
        self.generated_text.truncate(MAX_BARRIER_GENERATED);
        self.access_keys.truncate(MAX_BARRIER_GENERATED);
        self.fieldsets.truncate(MAX_BARRIER_GENERATED);
        self.idle_stops.truncate(MAX_BARRIER_GENERATED);
        self.passages.truncate(MAX_BARRIER_PASSAGES);
        self.reordered.truncate(MAX_BARRIER_REORDERED);
        self.fields.truncate(MAX_BARRIER_FIELDS);
        self.sampled.truncate(4);
        for sample in &mut self.sampled {
            *sample = std::mem::take(sample).bounded();
        }
    }

    /// What the gatherer read in part: its scans cut at the budget, and the links past
    /// `MAX_BARRIER_LINKS`.
    pub fn samples(&self) -> Vec<super::Sample> {
        let mut all = self.sampled.clone();
        if self.links_omitted > 0 {
            all.push(super::Sample::new("links", self.links.len(), self.links.len() + self.links_omitted));
        }
        all
    }
}

/// Lowercase, white space collapsed, for comparing texts.
pub fn normalize(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bound_caps_every_list_and_counts_links_left_out() {
        let mut facts = BarrierFacts { links: vec![BarrierLink::default(); MAX_BARRIER_LINKS + 5], ..Default::default() };
        facts.images = vec![BarrierImage::default(); MAX_BARRIER_IMAGES + 1];
        facts.bound();
        assert_eq!((facts.links.len(), facts.links_omitted, facts.images.len()), (MAX_BARRIER_LINKS, 5, MAX_BARRIER_IMAGES));
        assert_eq!(normalize("  Read\n more "), "read more");
    }

    #[test]
    fn deserialises_the_scripts_json() {
        let facts: BarrierFacts = serde_json::from_str(
            r#"{"ms":1.5,"body_font_size_px":16,"body_font_weight":400,"click_delegation":false,
            "links":[{"selector":"a","href":"https://a.test/","has_handler":null,"adjacent_same_href":null}],"unknown":1}"#,
        )
        .expect("json");
        assert_eq!(facts.links[0].has_handler, None);
        assert_eq!(facts.click_delegation, Some(false));
    }
}
