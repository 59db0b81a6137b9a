//! YAML a tenant sends (budgets, journeys): read without anchors or aliases, and within a size,
//! a depth and a node count, before any value is built from it. One alias can stand for a whole
//! subtree, so a 20 KiB text with nested aliases expands to gigabytes (a "billion laughs").

use serde_json::Value;

/// Nesting deeper than this is refused.
pub const MAX_DEPTH: usize = 32;
/// More values (scalars, lists, maps) than this are refused.
pub const MAX_NODES: usize = 20_000;

/// Parses `text` (at most `max_bytes`) as YAML into a JSON value, refusing anchors and aliases,
/// then nesting past `MAX_DEPTH` and more than `MAX_NODES` values. The error says which.
pub fn parse(text: &str, max_bytes: usize) -> Result<Value, String> {
    if text.len() > max_bytes {
        return Err(format!("{} bytes is over the limit of {} KiB", text.len(), max_bytes / 1024));
    }
    if let Some(what) = anchor_or_alias(text) {
        return Err(format!("YAML {what} are not accepted (write each value out)"));
    }
    let value: Value = serde_yaml::from_str(text).map_err(|e| e.to_string())?;
    within_bounds(&value)?;
    Ok(value)
}

/// `Err` when `value` nests past `MAX_DEPTH` or holds more than `MAX_NODES` values.
pub fn within_bounds(value: &Value) -> Result<(), String> {
    let mut nodes = 0usize;
    let mut stack = vec![(value, 1usize)];
    while let Some((v, depth)) = stack.pop() {
        nodes += 1;
        if nodes > MAX_NODES {
            return Err(format!("more than {MAX_NODES} values"));
        }
        if depth > MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH} levels"));
        }
        match v {
            Value::Array(items) => stack.extend(items.iter().map(|i| (i, depth + 1))),
            Value::Object(map) => stack.extend(map.values().map(|i| (i, depth + 1))),
            _ => {}
        }
    }
    Ok(())
}

/// `Some("anchors")` / `Some("aliases")` when YAML text uses either, read with the YAML
/// tokenizer's own rules for where `&name` and `*name` can start a node: after the start of a
/// line's content, a `- `, a `key: `, a `[`, `{` or `,`, outside quoted scalars and comments.
/// Anything that merely looks like one inside a plain scalar (`a*b`, `x & y`) is left alone.
pub fn anchor_or_alias(text: &str) -> Option<&'static str> {
    for line in text.lines() {
        let mut quote: Option<char> = None;
        // Whether the next non-space character starts a node.
        let mut node_start = true;
        let mut prev = ' ';
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if let Some(q) = quote {
                if c == q {
                    if q == '\'' && chars.get(i + 1) == Some(&'\'') {
                        i += 2;
                        continue;
                    }
                    quote = None;
                } else if q == '"' && c == '\\' {
                    i += 1;
                }
                prev = c;
                i += 1;
                continue;
            }
            match c {
                '#' if prev == ' ' || prev == '\t' || i == 0 => break,
                ' ' | '\t' => {}
                '"' | '\'' if node_start => quote = Some(c),
                '!' if node_start => {
                    // A tag (`!!str`, `!local`): the node it tags follows it.
                    while i < chars.len() && !matches!(chars[i], ' ' | '\t') {
                        i += 1;
                    }
                    prev = ' ';
                    continue;
                }
                '&' if node_start => return Some("anchors"),
                '*' if node_start => return Some("aliases"),
                '-' | '?' if node_start && matches!(chars.get(i + 1), None | Some(' ') | Some('\t')) => {}
                '[' | '{' | ',' => node_start = true,
                ':' if matches!(chars.get(i + 1), None | Some(' ') | Some('\t')) => node_start = true,
                _ => node_start = false,
            }
            if !matches!(c, ' ' | '\t' | '-' | '?' | '[' | '{' | ',' | ':') {
                node_start = false;
            }
            prev = c;
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_billion_laughs_is_refused_before_it_expands() {
        let mut laughs = String::from("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
        for (prev, name) in ["a", "b", "c", "d", "e", "f", "g", "h"].iter().zip(["b", "c", "d", "e", "f", "g", "h", "i"]) {
            laughs.push_str(&format!("{name}: &{name} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"));
        }
        let e = parse(&laughs, 64 * 1024).unwrap_err();
        assert!(e.contains("anchors"), "{e}");
        assert!(parse("x: *a\n", 1024).unwrap_err().contains("aliases"));
    }

    #[test]
    fn size_depth_and_nodes_are_bounded() {
        assert!(parse(&"x".repeat(2000), 1024).unwrap_err().contains("over the limit"));
        let deep = format!("{}1{}", "[".repeat(40), "]".repeat(40));
        assert!(parse(&deep, 64 * 1024).unwrap_err().contains("nested deeper"));
        let wide = format!("[{}]", vec!["1"; MAX_NODES + 1].join(","));
        assert!(parse(&wide, 1024 * 1024).unwrap_err().contains("more than"));
        assert_eq!(parse("a: 'x & *y'\nb: [1, 2]\n", 1024).unwrap()["b"][1], 2);
    }
}
