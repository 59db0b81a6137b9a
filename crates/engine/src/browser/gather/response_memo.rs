//! What a scan learnt from an image's response, by response (`ResponseMemo`): an image many
//! pages show (a logo, a product photo) is looked at once a scan, not once a page. Two answers
//! depend on the image's bytes alone and are remembered this way: its animation (reading the
//! bytes is a `Network.getResponseBody` round trip carrying the whole image as base64: 12 images
//! of a page of photos, about 4 MB and 60 to 90 ms) and its first look for text drawn at one size
//! over one colour (`gather::image_text`, 5 to 20 ms of the page's main thread an image).
//!
//! Only a response whose server says its bytes may be reused is remembered, and only as long as
//! the server says, the way a browser's cache reuses it: one with a validator (`ETag`,
//! `Last-Modified`: the same validator is the same representation), or one fresh for a while
//! (`Cache-Control: max-age=N` over 0, or `immutable`), kept N seconds from when its bytes were
//! read. `no-store` or `no-cache` is never remembered. The key is the response's URL, type,
//! encoding, length and validators, so a changed image under the same URL (a new `ETag`, another
//! length) is looked at again; a `data:` URL is its own key. Held by the scan's `SharedRegions`
//! (none under `--no-share`, which looks at every image on every page); bounded to `MAX_IMAGES`
//! responses.

use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::browser::events::RawEvent;

/// Responses remembered per scan (48 bytes each with their answer).
pub(crate) const MAX_IMAGES: usize = 4096;
/// The longest a response is reused without a validator (`immutable`, or a larger `max-age`).
const MAX_FRESH_SECS: u64 = 365 * 24 * 3600;

/// What a response's headers allow: reuse while `until` has not passed (`None`: as long as the
/// validators are the same).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reusable {
    pub(crate) key: [u8; 32],
    pub(crate) for_secs: Option<u64>,
}

/// What was learnt from a response, and until when it may be reused (`None`: while its
/// validators are the same).
type Learnt<V> = (V, Option<Instant>);

/// What was learnt from each response (`V`), while the server allows it to be reused.
#[derive(Debug)]
pub(crate) struct ResponseMemo<V> {
    read: Mutex<HashMap<[u8; 32], Learnt<V>>>,
    /// Answers given from here instead of the page, over the scan.
    reused: AtomicUsize,
}

impl<V> Default for ResponseMemo<V> {
    fn default() -> Self {
        ResponseMemo { read: Mutex::default(), reused: AtomicUsize::new(0) }
    }
}

impl<V: Clone> ResponseMemo<V> {
    /// What was learnt before from a response with this key, if it may still be reused.
    pub(crate) fn get(&self, key: &[u8; 32]) -> Option<V> {
        let read = self.read.lock().ok()?;
        let (value, until) = read.get(key)?;
        let known = until.is_none_or(|t| Instant::now() < t).then(|| value.clone());
        if known.is_some() {
            self.reused.fetch_add(1, Ordering::Relaxed);
        }
        known
    }

    /// Answers given from here so far.
    pub(crate) fn reused(&self) -> usize {
        self.reused.load(Ordering::Relaxed)
    }

    /// Remembers what was learnt from the response `reusable` describes.
    pub(crate) fn keep(&self, reusable: Reusable, value: V) {
        let Ok(mut read) = self.read.lock() else { return };
        if read.len() >= MAX_IMAGES && !read.contains_key(&reusable.key) {
            return;
        }
        let now = Instant::now();
        let until = reusable.for_secs.map(|s| now.checked_add(Duration::from_secs(s.min(MAX_FRESH_SECS))).unwrap_or(now));
        read.insert(reusable.key, (value, until));
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.read.lock().map(|r| r.len()).unwrap_or_default()
    }
}

impl Reusable {
    /// The key of what was learnt from this response under `more` (how it was drawn, say): reused
    /// as long as the response is.
    pub(crate) fn with(self, more: &[u8]) -> Reusable {
        let mut hash = Sha256::new();
        hash.update(self.key);
        hash.update(more);
        Reusable { key: hash.finalize().into(), for_secs: self.for_secs }
    }

    /// The key of a `data:` URL: its bytes are in it, so it may be reused for the scan.
    pub(crate) fn of_data_url(url: &str) -> Reusable {
        Reusable { key: Sha256::digest(url.as_bytes()).into(), for_secs: None }
    }
}

/// The request id of the last finished response for `url` in `events` that took at most
/// `max_bytes` on the wire.
pub(crate) fn response_for(events: &[RawEvent], url: &str, max_bytes: f64) -> Option<String> {
    let finished = |id: &str| {
        events.iter().any(|e| {
            e.method == "Network.loadingFinished"
                && e.str("requestId") == Some(id)
                && e.params.get("encodedDataLength").and_then(serde_json::Value::as_f64).is_none_or(|n| n <= max_bytes)
        })
    };
    events
        .iter()
        .rev()
        .filter(|e| e.method == "Network.responseReceived" && e.params["response"]["url"].as_str() == Some(url))
        .filter_map(|e| e.str("requestId"))
        .find(|id| finished(id))
        .map(str::to_string)
}

/// Whether the response of `request_id` in `events` may be reused, and its key.
pub(crate) fn reusable(events: &[RawEvent], request_id: &str) -> Option<Reusable> {
    let response = events.iter().rev().find(|e| e.method == "Network.responseReceived" && e.str("requestId") == Some(request_id))?.params.get("response")?;
    let headers = response.get("headers")?.as_object()?;
    let header = |name: &str| {
        headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).and_then(|(_, v)| v.as_str()).map(str::trim).filter(|v| !v.is_empty())
    };
    let cache_control = header("cache-control").unwrap_or_default().to_ascii_lowercase();
    let directives: Vec<&str> = cache_control.split(',').map(str::trim).collect();
    if directives.iter().any(|d| *d == "no-store" || *d == "no-cache" || d.starts_with("no-cache=")) {
        return None;
    }
    let (etag, modified) = (header("etag"), header("last-modified"));
    let for_secs = if etag.is_some() || modified.is_some() {
        None
    } else if directives.contains(&"immutable") {
        // Fresh for as long as a browser keeps it: a year is what servers that say so mean.
        Some(MAX_FRESH_SECS)
    } else {
        let max_age = directives.iter().filter_map(|d| d.strip_prefix("max-age=")).filter_map(|n| n.trim_matches('"').parse::<u64>().ok()).next()?;
        if max_age == 0 {
            return None;
        }
        Some(max_age.min(MAX_FRESH_SECS))
    };
    let mut hash = Sha256::new();
    let url = response.get("url").and_then(Value::as_str)?;
    let mime = response.get("mimeType").and_then(Value::as_str).unwrap_or_default();
    for part in [url, mime, header("content-type").unwrap_or_default(), header("content-encoding").unwrap_or_default(), header("content-length").unwrap_or_default(), etag.unwrap_or_default(), modified.unwrap_or_default()] {
        hash.update((part.len() as u64).to_le_bytes());
        hash.update(part.as_bytes());
    }
    Some(Reusable { key: hash.finalize().into(), for_secs })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::gather::animation::Animation;
    use serde_json::json;

    fn response(id: &str, url: &str, headers: Value) -> RawEvent {
        RawEvent { method: "Network.responseReceived".into(), params: json!({"requestId": id, "response": {"url": url, "mimeType": "image/png", "headers": headers}}) }
    }

    fn key_of(headers: Value) -> Option<Reusable> {
        reusable(&[response("1", "http://a.test/x.png", headers)], "1")
    }

    #[test]
    fn only_responses_a_cache_may_reuse_are_remembered() {
        assert_eq!(key_of(json!({"Content-Type": "image/png"})), None);
        assert_eq!(key_of(json!({"Cache-Control": "no-store, max-age=600", "ETag": "\"a\""})), None);
        assert_eq!(key_of(json!({"cache-control": "max-age=600, No-Cache"})), None);
        assert_eq!(key_of(json!({"cache-control": "max-age=0"})), None);
        assert_eq!(key_of(json!({"cache-control": "max-age=600"})).unwrap().for_secs, Some(600));
        assert_eq!(key_of(json!({"cache-control": "public, max-age=31536000, immutable"})).unwrap().for_secs, Some(365 * 24 * 3600));
        assert_eq!(key_of(json!({"ETag": "W/\"v1\""})).unwrap().for_secs, None);
        // A hostile server's largest number is a year; one past it is no number at all.
        assert_eq!(key_of(json!({"cache-control": "max-age=18446744073709551615"})).unwrap().for_secs, Some(MAX_FRESH_SECS));
        assert_eq!(key_of(json!({"cache-control": "max-age=18446744073709551616"})), None);
        assert_eq!(key_of(json!({"Last-Modified": "Tue, 01 Dec 2026 10:00:00 GMT", "cache-control": "max-age=60"})).unwrap().for_secs, None);
        assert_eq!(reusable(&[response("1", "http://a.test/x.png", json!({"etag": "a"}))], "2"), None);
    }

    #[test]
    fn a_changed_response_has_another_key() {
        let k = |h: Value| key_of(h).unwrap().key;
        let base = k(json!({"etag": "\"a\"", "content-length": "100"}));
        assert_eq!(base, k(json!({"ETag": "\"a\"", "Content-Length": "100", "Date": "now"})));
        assert_ne!(base, k(json!({"etag": "\"b\"", "content-length": "100"})));
        assert_ne!(base, k(json!({"etag": "\"a\"", "content-length": "101"})));
        assert_ne!(base, reusable(&[response("1", "http://a.test/y.png", json!({"etag": "\"a\"", "content-length": "100"}))], "1").unwrap().key);
    }

    #[test]
    fn what_was_learnt_under_more_is_keyed_apart_and_lives_as_long_as_the_response() {
        let response = key_of(json!({"cache-control": "max-age=600"})).unwrap();
        let small = response.with(b"40x40 rgb(255, 255, 255)");
        assert_eq!(small, response.with(b"40x40 rgb(255, 255, 255)"));
        assert_ne!(small.key, response.with(b"80x80 rgb(255, 255, 255)").key);
        assert_ne!(small.key, response.with(b"40x40 rgb(0, 0, 0)").key);
        assert_ne!(small.key, response.key);
        assert_eq!(small.for_secs, Some(600));
        let data = Reusable::of_data_url("data:image/png;base64,AAAA");
        assert_eq!(data.for_secs, None);
        assert_ne!(data.key, Reusable::of_data_url("data:image/png;base64,AAAB").key);
    }

    #[test]
    fn the_response_of_a_url_is_its_last_finished_one_within_the_size() {
        let finished = |id: &str, bytes: f64| RawEvent { method: "Network.loadingFinished".into(), params: json!({"requestId": id, "encodedDataLength": bytes}) };
        let url = "http://a.test/x.png";
        let events = [response("1", url, json!({})), finished("1", 10.0), response("2", url, json!({})), response("3", "http://a.test/y.png", json!({})), finished("3", 10.0)];
        // The second response for the URL never finished: the first is the page's.
        assert_eq!(response_for(&events, url, f64::INFINITY).as_deref(), Some("1"));
        assert_eq!(response_for(&events, url, 5.0), None);
        assert_eq!(response_for(&events, "http://a.test/z.png", f64::INFINITY), None);
    }

    #[test]
    fn remembers_within_the_time_the_server_allows_and_the_bound() {
        let memo = ResponseMemo::<Option<Animation>>::default();
        let still = Reusable { key: [1; 32], for_secs: None };
        let expired = Reusable { key: [2; 32], for_secs: Some(0) };
        let gif = Animation { format: "gif", frames: 3, loop_ms: 300, plays: None };
        memo.keep(still, None);
        memo.keep(expired, Some(gif));
        // Kept however far off the server puts its end (no overflow of the clock).
        let forever = Reusable { key: [4; 32], for_secs: Some(u64::MAX) };
        memo.keep(forever, Some(gif));
        assert_eq!(memo.get(&forever.key), Some(Some(gif)));
        assert_eq!(memo.get(&still.key), Some(None));
        assert_eq!(memo.get(&expired.key), None);
        assert_eq!(memo.get(&[3; 32]), None);
        assert_eq!(memo.reused(), 2);
        for i in 0..MAX_IMAGES as u32 + 10 {
            let mut key = [0; 32];
            key[..4].copy_from_slice(&i.to_le_bytes());
            key[31] = 9;
            memo.keep(Reusable { key, for_secs: None }, None);
        }
        assert_eq!(memo.len(), MAX_IMAGES);
    }
}
