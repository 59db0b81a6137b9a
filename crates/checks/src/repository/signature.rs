//! Content signatures: what the first bytes of a probe's answer must look like to be the artifact
//! it was asked for, and not an error page, a login page or a soft 404. Pure functions.

use crate::model::ProbeAnswer;
use regex::bytes::Regex;
use std::sync::LazyLock;

static HEX: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?$").expect("commit id regex"));
static ENV_LINE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=").expect("env regex"));
static PEM: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY-----").expect("pem regex"));
static SOURCES_CONTENT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r#""sourcesContent"\s*:\s*\[\s*""#).expect("source map regex"));

/// The file name the probe asked for (last path segment, lowercased).
pub fn file_name(answer: &ProbeAnswer) -> String {
    let path = answer.url.split(['?', '#']).next().unwrap_or_default();
    path.trim_end_matches('/').rsplit('/').next().unwrap_or_default().to_ascii_lowercase()
}

fn text(answer: &ProbeAnswer) -> String {
    String::from_utf8_lossy(&answer.body).into_owned()
}

/// True when the answer reads as an HTML document.
pub fn looks_like_html(answer: &ProbeAnswer) -> bool {
    let head: String = text(answer).chars().take(1024).collect::<String>().to_ascii_lowercase();
    let start = head.trim_start();
    start.starts_with("<!doctype html") || start.starts_with("<html") || head.contains("<html") || head.contains("<body")
}

/// A version-control file: `.git/HEAD` is `ref: refs/...` or a 40-hex commit id; `.git/config`
/// has a `[core]` section; `.svn/entries` starts with a format number or the XML entries;
/// `.hg/requires` lists repository features; `.bzr/branch-format` names Bazaar.
pub fn vcs(answer: &ProbeAnswer) -> Option<&'static str> {
    if looks_like_html(answer) {
        return None;
    }
    let body = text(answer);
    let t = body.trim();
    let url = answer.url.to_ascii_lowercase();
    if url.ends_with("/.git/head") {
        if t.starts_with("ref: refs/") {
            return Some("a git HEAD (ref: refs/...)");
        }
        if HEX.is_match(t.as_bytes()) {
            return Some("a git HEAD (a detached commit id)");
        }
    } else if url.ends_with("/.git/config") {
        if t.contains("[core]") && (t.contains("repositoryformatversion") || t.contains("bare =")) {
            return Some("a git config ([core] section)");
        }
    } else if url.ends_with("/.svn/entries") {
        let first = t.lines().next().unwrap_or_default().trim();
        if (first.parse::<u32>().is_ok_and(|n| (8..=40).contains(&n))) || t.contains("<wc-entries") {
            return Some("a Subversion entries file");
        }
    } else if url.ends_with("/.hg/requires") {
        let known = ["revlogv1", "store", "fncache", "dotencode", "generaldelta", "sparserevlog", "revlog-compression-zstd", "share-safe"];
        let lines: Vec<&str> = t.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        if !lines.is_empty() && lines.iter().any(|l| known.contains(l)) && lines.iter().all(|l| l.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')) {
            return Some("a Mercurial requires file");
        }
    } else if url.ends_with("/.bzr/branch-format") && t.starts_with("Bazaar") {
        return Some("a Bazaar branch-format file");
    }
    None
}

/// An environment file: mostly `KEY=value` lines. Returns the variable names (never the values).
pub fn env_file(answer: &ProbeAnswer) -> Option<Vec<String>> {
    if looks_like_html(answer) {
        return None;
    }
    let line_re = &*ENV_LINE;
    let body = text(answer);
    let mut keys = Vec::new();
    let mut other = 0usize;
    for line in body.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        match line_re.captures(line.as_bytes()).and_then(|c| c.get(1)) {
            Some(k) => keys.push(String::from_utf8_lossy(k.as_bytes()).into_owned()),
            None => other += 1,
        }
    }
    // A truncated last line may not parse; most lines must.
    (!keys.is_empty() && keys.len() >= other * 2).then_some(keys)
}

/// A PEM private key (`-----BEGIN ... PRIVATE KEY-----`): returns its header.
pub fn private_key(answer: &ProbeAnswer) -> Option<String> {
    PEM.find(&answer.body)
        .map(|m| String::from_utf8_lossy(m.as_bytes()).into_owned())
}

/// A backup, archive, dump or swap copy, by its name and its magic bytes or content.
pub fn backup_file(answer: &ProbeAnswer) -> Option<&'static str> {
    let name = file_name(answer);
    let b = &answer.body;
    if b.starts_with(b"PK\x03\x04") || b.starts_with(b"PK\x05\x06") {
        return Some("a zip archive (PK)");
    }
    if b.starts_with(&[0x1f, 0x8b]) {
        return Some("a gzip archive");
    }
    if b.len() > 262 && &b[257..262] == b"ustar" {
        return Some("a tar archive");
    }
    if b.starts_with(b"7z\xbc\xaf\x27\x1c") {
        return Some("a 7-Zip archive");
    }
    if b.starts_with(b"b0VIM ") {
        return Some("a Vim swap file");
    }
    if looks_like_html(answer) && !name.contains(".htm") {
        return None;
    }
    let t = text(answer);
    if name.ends_with(".sql") || name.ends_with(".sql.bak") || name.ends_with(".dump") {
        let dump = ["CREATE TABLE", "INSERT INTO", "-- MySQL dump", "PostgreSQL database dump", "-- MariaDB dump", "BEGIN TRANSACTION;"];
        if dump.iter().any(|d| t.contains(d)) {
            return Some("a SQL database dump");
        }
    }
    let copy = [".bak", ".old", ".orig", ".save", "~", ".backup"];
    if copy.iter().any(|e| name.ends_with(e)) {
        if t.contains("<?php") {
            return Some("a backup copy of PHP source (<?php)");
        }
        if name.contains(".htm") && (t.contains("<html") || t.contains("<!DOCTYPE") || t.contains("<!doctype")) {
            return Some("a backup copy of an HTML page");
        }
    }
    None
}

/// A source map with the original sources (`sourcesContent` with at least one string). Only the
/// first bytes are read, so a long map is judged by its opening: JSON with `version`, `mappings`
/// or `sources`, and a `sourcesContent` array whose first item is a string.
pub fn source_map(answer: &ProbeAnswer) -> Option<usize> {
    let t = text(answer);
    let json = t.trim_start().trim_start_matches(")]}'").trim_start();
    if !json.starts_with('{') {
        return None;
    }
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(json) {
        let n = v.get("sourcesContent")?.as_array()?.iter().filter(|s| s.as_str().is_some_and(|s| !s.is_empty())).count();
        return (n > 0).then_some(n);
    }
    let has_content = SOURCES_CONTENT.is_match(json.as_bytes());
    (has_content && json.contains("\"version\"")).then_some(1)
}

/// A server status or info page.
pub fn server_status(answer: &ProbeAnswer) -> Option<&'static str> {
    let t = text(answer);
    if t.contains("Apache Server Status") {
        return Some("Apache Server Status");
    }
    if t.contains("Apache Server Information") {
        return Some("Apache Server Information");
    }
    if t.contains("PHP Version") && (t.contains("phpinfo()") || t.contains("PHP License") || t.contains("Zend Engine")) {
        return Some("phpinfo()");
    }
    if t.starts_with("Active connections:") && t.contains("server accepts handled requests") {
        return Some("nginx stub_status");
    }
    None
}

/// An auto-generated directory index: its title and the entries it links to.
pub fn directory_listing(answer: &ProbeAnswer) -> Option<usize> {
    let t = text(answer);
    let index = t.contains("<title>Index of /") || t.contains("<h1>Index of /") || t.contains("Directory listing for /") || t.contains("[To Parent Directory]");
    if !index {
        return None;
    }
    let links = t.matches("<a href=").count() + t.matches("<A HREF=").count();
    (links > 0).then_some(links)
}

/// Editor or operating-system leftovers, by their magic bytes or shape.
pub fn editor_leftover(answer: &ProbeAnswer) -> Option<&'static str> {
    let name = file_name(answer);
    let b = &answer.body;
    if name == ".ds_store" && b.starts_with(&[0x00, 0x00, 0x00, 0x01, 0x42, 0x75, 0x64, 0x31]) {
        return Some("a macOS .DS_Store (Bud1)");
    }
    if name == "thumbs.db" && b.starts_with(&[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]) {
        return Some("a Windows Thumbs.db (OLE compound file)");
    }
    if looks_like_html(answer) {
        return None;
    }
    let t = text(answer);
    if answer.url.contains("/.idea/") && t.contains("<project version=") {
        return Some("a JetBrains .idea project file");
    }
    if answer.url.contains("/.vscode/") && t.trim_start().starts_with('{') && t.contains("\":") {
        return Some("a VS Code settings file");
    }
    None
}

/// The evidence every repository finding carries: what was asked, how it answered, which
/// signature matched. Never the content itself (it may be a secret).
pub fn evidence(answer: &ProbeAnswer, signature: &str) -> serde_json::Map<String, serde_json::Value> {
    crate::evidence! {
        "url" => answer.url,
        "status" => answer.status,
        "content_type" => answer.content_type,
        "signature" => signature,
        "bytes_read" => answer.body.len(),
        "source" => answer.source,
    }
}
