//! The `cargo fuzz` harnesses run as a plain test on the stable toolchain: each over its seed
//! corpus (`fuzz/corpus/<target>/`) and then over deterministic mutations of it (bit flips, byte
//! and block insertions, deletions, splices, dictionary tokens) for `SITESCAN_FUZZ_SECONDS` per
//! harness (default 3). A failing input is written to `fuzz/artifacts/<target>/` and reported.
//! The coverage-guided run is `cargo +nightly fuzz run <target>` (see tests/README.md "Reliability").

use crate::fuzz_harness;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Tokens the mutator splices in (URL, robots.txt, XML and cursor syntax).
const DICTIONARY: &[&str] = &[
    "http://", "https://", "://", "@", ":", "[", "]", "::ffff:", "0x", "%2e", "%00", "%", ".", "..", "/", "\\", "#", "?", "localhost",
    "127.0.0.1", "0177", "2130706433", "xn--", "ａ", "。", "\u{200b}", "User-agent:", "Disallow:", "Allow:", "Sitemap:", "Crawl-delay:",
    "*", "$", "\n", "\r\n", "\0", "<url>", "</url>", "<loc>", "</loc>", "<urlset>", "</urlset>", "<sitemapindex>", "<!DOCTYPE x [",
    "<!ENTITY a \"&b;&b;\">", "&amp;", "&#x41;", "&#1114112;", "&lol;", "<![CDATA[", "]]>", "<?xml version=\"1.0\"?>", "AAAA", "____", "----",
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }
}

fn mutate(rng: &mut Rng, corpus: &[Vec<u8>], input: &[u8]) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..=rng.below(4) {
        let at = rng.below(out.len() + 1);
        match rng.below(8) {
            0 if !out.is_empty() => {
                let i = rng.below(out.len());
                out[i] ^= 1 << rng.below(8);
            }
            1 => out.insert(at, rng.next() as u8),
            2 if !out.is_empty() => {
                let len = rng.below(out.len() - at.min(out.len()) + 1).min(16);
                out.drain(at.min(out.len())..(at + len).min(out.len()));
            }
            3 | 4 => {
                let t = DICTIONARY[rng.below(DICTIONARY.len())].as_bytes();
                out.splice(at..at, t.iter().copied());
            }
            5 => {
                let other = &corpus[rng.below(corpus.len())];
                let from = rng.below(other.len());
                let len = rng.below(other.len() - from + 1);
                out.splice(at..at, other[from..from + len].iter().copied());
            }
            6 if !out.is_empty() && out.len() < 1 << 16 => {
                // Repeat a block (long inputs, deep nesting).
                let from = rng.below(out.len());
                let len = rng.below(out.len() - from + 1).min(64);
                let block = out[from..from + len].to_vec();
                for _ in 0..rng.below(64) {
                    out.splice(at.min(out.len())..at.min(out.len()), block.iter().copied());
                }
            }
            _ => {
                if !out.is_empty() {
                    let i = rng.below(out.len());
                    out[i] = b"\0\xff/:.%@[]<>&;\n"[rng.below(14)];
                }
            }
        }
    }
    out
}

fn corpus_of(name: &str) -> Vec<Vec<u8>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus").join(name);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    files.sort();
    let corpus: Vec<Vec<u8>> = files.iter().filter_map(|f| std::fs::read(f).ok()).collect();
    assert!(!corpus.is_empty(), "the seed corpus {} is empty", dir.display());
    corpus
}

fn budget() -> Duration {
    let secs = std::env::var("SITESCAN_FUZZ_SECONDS").ok().and_then(|s| s.parse::<f64>().ok()).unwrap_or(3.0);
    Duration::from_secs_f64(secs)
}

fn run(name: &str) -> usize {
    let harness = fuzz_harness::HARNESSES.iter().find(|(n, _)| *n == name).unwrap().1;
    let corpus = corpus_of(name);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ name.len() as u64);
    let mut cases = 0usize;
    let began = Instant::now();
    let mut inputs: Vec<Vec<u8>> = corpus.clone();
    let mut i = 0;
    loop {
        let input = if i < corpus.len() {
            corpus[i].clone()
        } else {
            let parent = rng.below(inputs.len());
            mutate(&mut rng, &corpus, &inputs[parent])
        };
        i += 1;
        let result = catch_unwind(AssertUnwindSafe(|| harness(&input)));
        cases += 1;
        if let Err(e) = result {
            let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz/artifacts").join(name);
            let _ = std::fs::create_dir_all(&dir);
            let file = dir.join(format!("crash-{cases}"));
            let _ = std::fs::write(&file, &input);
            let why = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default();
            panic!("{name}: input {:?} failed after {cases} cases: {why} (saved to {})", String::from_utf8_lossy(&input), file.display());
        }
        // Keep some mutants as parents so mutations compound.
        if i > corpus.len() && rng.below(8) == 0 && inputs.len() < 4096 {
            inputs.push(input);
        }
        if i >= corpus.len() && began.elapsed() >= budget() {
            break;
        }
    }
    eprintln!("fuzz: {name}: {cases} cases in {:?} ({} seeds)", began.elapsed(), corpus.len());
    cases
}

#[test]
fn fuzz_target_parse() {
    assert!(run("target_parse") > 100);
}

#[test]
fn fuzz_cursor_decode() {
    assert!(run("cursor_decode") > 100);
}

#[test]
fn fuzz_robots_txt() {
    assert!(run("robots_txt") > 100);
}

#[test]
fn fuzz_robots_lines() {
    assert!(run("robots_lines") > 100);
}

#[test]
fn fuzz_sitemap() {
    assert!(run("sitemap") > 100);
}
