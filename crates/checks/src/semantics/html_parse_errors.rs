//! The parse errors html5ever reports for a document, with the line each was found on.
//!
//! A tree sink that builds no tree: it remembers element names (the tree builder asks for them)
//! and records every `parse_error` with the current line.

use html5ever::driver::ParseOpts;
use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::tokenizer::TokenizerOpts;
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeBuilderOpts, TreeSink};
use html5ever::{Attribute, LocalName, Namespace, QualName};
use std::borrow::Cow;
use std::cell::{Cell, Ref, RefCell};

/// One parse error: the 1-based line and html5ever's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseErrorAt {
    pub line: u64,
    pub message: String,
}

/// Parse errors kept per document (the rest are counted in `ParseOutcome::total`): a hostile
/// page of a million broken tags costs this many entries, not a million.
pub const MAX_PARSE_ERRORS: usize = 10_000;
/// Characters of one error message kept.
pub const MAX_MESSAGE_CHARS: usize = 300;

/// What parsing the document showed.
#[derive(Debug, Default)]
pub struct ParseOutcome {
    /// The first [`MAX_PARSE_ERRORS`] errors.
    pub errors: Vec<ParseErrorAt>,
    /// Every error, kept or not.
    pub total: usize,
    pub quirks: bool,
}

/// Parses `html` as a document with exact error messages.
pub fn parse_errors(html: &str) -> ParseOutcome {
    let opts = ParseOpts {
        tokenizer: TokenizerOpts {
            exact_errors: true,
            ..Default::default()
        },
        tree_builder: TreeBuilderOpts {
            exact_errors: true,
            ..Default::default()
        },
    };
    html5ever::parse_document(ErrorSink::new(), opts).one(html)
}

struct ErrorSink {
    names: RefCell<Vec<QualName>>,
    line: Cell<u64>,
    outcome: RefCell<ParseOutcome>,
}

impl ErrorSink {
    fn new() -> Self {
        // Handle 0 is the document; every other handle indexes `names`.
        ErrorSink {
            names: RefCell::new(vec![Self::blank()]),
            line: Cell::new(1),
            outcome: RefCell::default(),
        }
    }

    fn push(&self, name: QualName) -> usize {
        let mut names = self.names.borrow_mut();
        names.push(name);
        names.len() - 1
    }

    fn blank() -> QualName {
        QualName::new(None, Namespace::from(""), LocalName::from(""))
    }
}

impl TreeSink for ErrorSink {
    type Handle = usize;
    type Output = ParseOutcome;
    type ElemName<'a> = Ref<'a, QualName>;

    fn finish(self) -> ParseOutcome {
        self.outcome.into_inner()
    }

    fn parse_error(&self, msg: Cow<'static, str>) {
        let line = self.line.get().max(1);
        let mut outcome = self.outcome.borrow_mut();
        outcome.total += 1;
        if outcome.errors.len() < MAX_PARSE_ERRORS {
            let message = match msg.char_indices().nth(MAX_MESSAGE_CHARS) {
                Some((i, _)) => format!("{}…", &msg[..i]),
                None => msg.into_owned(),
            };
            outcome.errors.push(ParseErrorAt { line, message });
        }
    }

    fn set_current_line(&self, line_number: u64) {
        self.line.set(line_number);
    }

    fn get_document(&self) -> usize {
        0
    }

    fn elem_name<'a>(&'a self, target: &'a usize) -> Ref<'a, QualName> {
        Ref::map(self.names.borrow(), |n| n.get(*target).unwrap_or(&n[0]))
    }

    fn create_element(&self, name: QualName, _: Vec<Attribute>, _: ElementFlags) -> usize {
        self.push(name)
    }

    fn create_comment(&self, _: StrTendril) -> usize {
        self.push(Self::blank())
    }

    fn create_pi(&self, _: StrTendril, _: StrTendril) -> usize {
        self.push(Self::blank())
    }

    fn append(&self, _: &usize, _: NodeOrText<usize>) {}

    fn append_based_on_parent_node(&self, _: &usize, _: &usize, _: NodeOrText<usize>) {}

    fn append_doctype_to_document(&self, _: StrTendril, _: StrTendril, _: StrTendril) {}

    fn get_template_contents(&self, _: &usize) -> usize {
        self.push(Self::blank())
    }

    fn same_node(&self, x: &usize, y: &usize) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.outcome.borrow_mut().quirks = mode == QuirksMode::Quirks;
    }

    fn append_before_sibling(&self, _: &usize, _: NodeOrText<usize>) {}

    fn add_attrs_if_missing(&self, _: &usize, _: Vec<Attribute>) {}

    fn remove_from_parent(&self, _: &usize) {}

    fn reparent_children(&self, _: &usize, _: &usize) {}
}

/// A readable form of an html5ever message, or `None` for errors other checks already report
/// (no doctype, legacy doctype: `semantics.doctype-missing`).
pub fn describe(message: &str) -> Option<String> {
    if message.contains("insertion mode Initial") || message.starts_with("Bad DOCTYPE") {
        return None;
    }
    let tag = tag_name(message);
    let described = if message.starts_with("Unexpected token") {
        let mode = message
            .rsplit("insertion mode ")
            .next()
            .filter(|_| message.contains("insertion mode "));
        match (tag, message.contains("EndTag"), mode) {
            (Some(t), true, Some(m)) => {
                format!("Unexpected end tag </{t}> (no open <{t}> to close; parser state {m})")
            }
            (Some(t), false, Some(m)) => {
                format!("Unexpected start tag <{t}> (not allowed here; parser state {m})")
            }
            (_, _, Some(m)) => format!("Unexpected content (parser state {m})"),
            _ => "Unexpected token".to_string(),
        }
    } else if message.starts_with("Unexpected open tag") {
        match tag {
            Some(t) => {
                format!("Element <{t}> is never closed (still open at the end of the document)")
            }
            None => "An element is never closed".to_string(),
        }
    } else if message.starts_with("Formatting element") || message.contains("adoption agency") {
        "Misnested formatting elements (for example <b><i>..</b></i>)".to_string()
    } else if message.starts_with("Found special tag while closing generic tag") {
        "End tag closes an element while a block element inside it is still open".to_string()
    } else if message.starts_with("Unacknowledged self-closing tag") {
        match tag {
            Some(t) => format!(
                "Self-closing syntax on non-void element <{t}/> is ignored: the element stays open"
            ),
            None => "Self-closing syntax on a non-void element is ignored: the element stays open"
                .to_string(),
        }
    } else {
        message.to_string()
    };
    Some(truncate(&described, 200))
}

/// The tag name in an exact html5ever message (`name: Atom('div' ...)` or `{ns}:div`).
fn tag_name(message: &str) -> Option<String> {
    let from_atom = message.split("name: Atom(").nth(1).and_then(|rest| {
        let rest = rest.trim_start_matches(['\\', '\'']);
        let end = rest.find(['\\', '\''])?;
        Some(rest[..end].to_string())
    });
    from_atom.or_else(|| {
        let rest = message.split("}:").nth(1)?;
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        (!name.is_empty()).then_some(name)
    })
}

/// Cuts `text` to at most `max` characters, on a character boundary.
pub fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_html5_has_no_errors() {
        let doc = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Clean</title><link rel="stylesheet" href="/a.css"><script>if (a < b && c) { document.write("</div>"); }</script>
<style>p > a { color: red }</style></head>
<body><header><nav><a href="/">Home</a></nav></header>
<main><h1>Title</h1><p>One<p>Two &nbsp;&amp; &copy; <br/><img src="a.png" alt=""><input disabled>
<ul><li>a<li>b</ul><dl><dt>t<dd>d</dl><table><thead><tr><th>h<tbody><tr><td>x</table>
<svg viewBox="0 0 10 10"><path d="M0 0"/><circle r="1"/></svg><math><mi>x</mi></math>
<template><tr><td>cell</td></tr></template><my-element some-attr>x</my-element>
<picture><source srcset="a.webp"><img src="a.jpg" alt="a"></picture><dialog open>d</dialog>
<select><option>a<option selected>b</select><p>a<div>block after p</div>
<noscript><img src="pixel.gif" alt=""></noscript><!-- comment --></main>
<footer><small>&copy; 2024</small></footer></body></html>"#;
        let outcome = parse_errors(doc);
        assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
        assert!(!outcome.quirks);
    }

    #[test]
    fn a_flood_of_errors_keeps_the_first_ones_and_counts_the_rest() {
        let doc = format!("<!DOCTYPE html><title>x</title>{}", "</x>".repeat(MAX_PARSE_ERRORS + 500));
        let outcome = parse_errors(&doc);
        assert_eq!(outcome.errors.len(), MAX_PARSE_ERRORS);
        assert!(outcome.total >= MAX_PARSE_ERRORS + 500, "{}", outcome.total);
    }

    #[test]
    fn reports_misnesting_with_lines() {
        let doc = "<!DOCTYPE html>\n<title>x</title>\n<p>a</div>\n<b><i>x</b></i>\n<div>\n<span>";
        let errors = parse_errors(doc).errors;
        let described: Vec<(u64, String)> = errors
            .iter()
            .filter_map(|e| describe(&e.message).map(|d| (e.line, d)))
            .collect();
        assert_eq!(described[0].0, 3);
        assert!(
            described[0].1.starts_with("Unexpected end tag </div>"),
            "{described:?}"
        );
        assert!(
            described
                .iter()
                .any(|(l, d)| *l == 4 && d.starts_with("Misnested"))
        );
        assert!(
            described
                .iter()
                .any(|(_, d)| d.contains("<div> is never closed")),
            "{described:?}"
        );
    }

    #[test]
    fn leaves_a_missing_doctype_to_its_own_check() {
        let errors = parse_errors("<html><body>x").errors;
        assert!(!errors.is_empty());
        assert!(errors.iter().all(|e| describe(&e.message).is_none()));
    }
}
