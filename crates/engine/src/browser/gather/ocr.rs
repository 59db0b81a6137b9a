//! Text recognition with the Tesseract command line (Debian's `tesseract-ocr` and
//! `tesseract-ocr-eng`): a PNG goes in on stdin, the words come back as TSV. Optional at run
//! time: without the binary the `image-text` gatherer fails (its checks are reported as not run).
//!
//! `SITESCAN_TESSERACT` names the binary; `tesseract` on the PATH otherwise. It runs with one
//! thread (`OMP_THREAD_LIMIT=1`): the page's core is already counted (`cores`), and Tesseract's
//! own threads only contend with the other pages' work.

use crate::model::OcrWord;
use std::process::Stdio;
use std::sync::OnceLock;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::process::Command;

use crate::browser::error::BrowserError;

/// Longest one recognition may take.
pub const OCR_TIMEOUT: Duration = Duration::from_secs(5);
/// Most bytes of TSV read back from one recognition.
pub const MAX_OCR_OUTPUT: usize = 256 * 1024;

/// How Tesseract segments the image: sparse text (words anywhere, `--psm 11`) or one line of
/// text (`--psm 7`, for banners and buttons in decorative fonts that sparse mode misses).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    Sparse,
    Line,
}

impl Layout {
    fn psm(self) -> &'static str {
        match self {
            Layout::Sparse => "11",
            Layout::Line => "7",
        }
    }
}

fn binary() -> String {
    std::env::var("SITESCAN_TESSERACT").ok().filter(|s| !s.trim().is_empty()).unwrap_or_else(|| "tesseract".into())
}

/// The binary when it answers `--version`; why not otherwise. Asked once per process.
pub(crate) async fn available() -> Result<String, BrowserError> {
    static FOUND: OnceLock<Result<String, String>> = OnceLock::new();
    if let Some(found) = FOUND.get() {
        return found.clone().map_err(BrowserError::Ocr);
    }
    let path = binary();
    let probe = tokio::time::timeout(OCR_TIMEOUT, Command::new(&path).arg("--version").stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).kill_on_drop(true).status()).await;
    let found = match probe {
        Ok(Ok(status)) if status.success() => Ok(path),
        Ok(Ok(status)) => Err(format!("{path} --version exited with {status}")),
        Ok(Err(e)) => Err(format!("Tesseract is not installed ({path}: {e}); install tesseract-ocr and tesseract-ocr-eng")),
        Err(_) => Err(format!("{path} --version did not answer within {OCR_TIMEOUT:?}")),
    };
    FOUND.get_or_init(|| found).clone().map_err(BrowserError::Ocr)
}

/// Recognises the words of one PNG.
pub(crate) async fn recognise(binary: &str, png: &[u8], layout: Layout) -> Result<Vec<OcrWord>, BrowserError> {
    let mut child = Command::new(binary)
        .args(["stdin", "stdout", "-l", "eng", "--psm", layout.psm(), "tsv"])
        .env("OMP_THREAD_LIMIT", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| BrowserError::Ocr(format!("cannot start {binary}: {e}")))?;
    let mut stdin = child.stdin.take().ok_or_else(|| BrowserError::Ocr("no stdin".into()))?;
    let png = png.to_vec();
    let run = async move {
        // Written while the output is read: a large image would otherwise fill both pipes.
        let write = async move {
            let written = stdin.write_all(&png).await;
            drop(stdin);
            written
        };
        let (written, output) = tokio::join!(write, child.wait_with_output());
        written.map_err(|e| BrowserError::Ocr(format!("writing the image: {e}")))?;
        output.map_err(|e| BrowserError::Ocr(e.to_string()))
    };
    let output = tokio::time::timeout(OCR_TIMEOUT, run).await.map_err(|_| BrowserError::Timeout { what: "tesseract", after: OCR_TIMEOUT })??;
    if !output.status.success() {
        return Err(BrowserError::Ocr(format!("tesseract exited with {}", output.status)));
    }
    let end = output.stdout.len().min(MAX_OCR_OUTPUT);
    Ok(parse_tsv(&String::from_utf8_lossy(&output.stdout[..end])))
}

/// The words of Tesseract's TSV (level 5 rows with text), in reading order.
pub(crate) fn parse_tsv(tsv: &str) -> Vec<OcrWord> {
    tsv.lines()
        .skip(1)
        .filter_map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            if cols.len() < 12 || cols[0] != "5" {
                return None;
            }
            let text = cols[11].trim();
            let confidence = cols[10].trim().parse::<f32>().ok()?;
            (!text.is_empty() && confidence >= 0.0).then(|| OcrWord { text: text.to_string(), confidence })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_come_from_level_five_rows() {
        let tsv = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n\
                   1\t1\t0\t0\t0\t0\t0\t0\t252\t135\t-1\t\n\
                   5\t1\t1\t1\t1\t1\t30\t40\t120\t40\t94.010071\tPress\n\
                   5\t1\t1\t1\t1\t2\t160\t40\t60\t40\t93.5\tme!\n\
                   5\t1\t2\t1\t1\t1\t0\t0\t5\t5\t-1\t \n";
        let words = parse_tsv(tsv);
        assert_eq!(words.len(), 2);
        assert_eq!(words[0].text, "Press");
        assert!((words[1].confidence - 93.5).abs() < 0.01);
        assert!(parse_tsv("").is_empty());
    }

    #[tokio::test]
    async fn a_missing_binary_is_an_error_never_words() {
        let err = recognise("/nonexistent/tesseract", b"png", Layout::Sparse).await.unwrap_err();
        assert!(err.to_string().contains("cannot start"), "{err}");
    }
}
