//! A page seen unchanged is not judged again in the page: besides axe-core's results (kept by
//! `gather/axe.rs` under the whole-page fingerprint of `browser/regions.js`), the facts of the
//! other in-page judgements (barriers, the keyboard walk, layout, dialogs) are kept for the next
//! scan of the site and given back while everything they read is the same.
//!
//! What they read beyond the whole-page fingerprint (the document with its head, every style
//! sheet's rules, each element's box and styles) is in the key too:
//! - the page's address and base URL (links resolve against them);
//! - every script element's type, source and inline text (`browser/unchanged.js`);
//! - the body of every script, `fetch` and XHR response the page received, from the network record
//!   (`Network.getResponseBody`, no new request): what a handler does lives there.
//!
//! A page without a whole-page fingerprint, or with a frame, object or embed, or with such a
//! response still in flight or unreadable, has no key and is judged in full. The facts are only
//! ever given back with axe-core's results, so no gatherer runs after a skipped one.
//!
//! axe-core's results of a page whose contrast had to be settled from pixels are kept with what
//! those pixels read beyond the fingerprint (`pixel_inputs`: the bodies of its images, fonts and
//! media as well as its scripts and data), and given back only while those are the same.
//!
//! Every page is still rendered and measured: network, console, cookies, metrics, the DOM facts,
//! the text, the HTML and the image text are gathered afresh, and so are the layout facts' image
//! animations (an image's bytes can change under the same markup).

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::network::GetResponseBodyParams;
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};
use std::time::Duration;

use super::cdp::{Deadline, STEP_TIMEOUT, eval_string, run};
use super::events::RawEvent;
use super::gather::layout::Candidate;
use super::instance::Instance;
use super::options::CaptureOptions;
use super::scripts::PAGE_INPUTS;
use super::shared_regions::{MAX_ENTRY_BYTES, SharedRegions};
use crate::model::{BarrierFacts, DialogFacts, KeyboardWalk, LayoutFacts};

/// Responses whose bodies are read for a key, at most; a page that loads more is judged in full.
const MAX_BODIES: usize = 128;
/// Bytes of one body read for the key, at most (a larger one leaves the page without a key).
const MAX_BODY_BYTES: f64 = 8.0 * 1024.0 * 1024.0;
/// Bodies asked of the browser at once.
const BODIES_AT_ONCE: usize = 8;
/// How long reading the page's inputs may take.
const INPUTS_TIMEOUT: Duration = Duration::from_secs(5);

/// The network record's resource types whose bodies can change what a page does.
const BEHAVIOUR: &[&str] = &["Script", "XHR", "Fetch"];
/// ... or how it is drawn: what the contrast settled from pixels reads beyond the whole-page
/// fingerprint (the image behind a text, the font it is drawn in, a canvas a script paints).
const PIXELS: &[&str] = &["Script", "XHR", "Fetch", "Image", "Font", "Media"];

/// The facts of an unchanged page, as kept.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Facts {
    pub(crate) barriers: Option<BarrierFacts>,
    pub(crate) keyboard: Option<KeyboardWalk>,
    pub(crate) layout: Option<LayoutFacts>,
    /// The images whose animation is read again each time (`layout::animations`).
    pub(crate) images: Vec<Candidate>,
    pub(crate) dialogs: Option<DialogFacts>,
}

/// The key of the facts of a page whose whole-page fingerprint is `page_fp`, when everything they
/// read is covered; `None` leaves the page to be judged in full.
pub(crate) async fn key(instance: &Instance, page: &Page, budget: &Deadline, events: &[RawEvent], page_fp: &str, capture: &CaptureOptions) -> Option<String> {
    let inputs = match eval_string(instance, page, "unchanged", &PAGE_INPUTS, budget.cap(INPUTS_TIMEOUT)).await {
        Ok(text) if text != "null" => text,
        Ok(_) => return None,
        Err(e) => {
            tracing::debug!(error = %e, "page inputs not read");
            return None;
        }
    };
    let mut h = Sha256::new();
    let mut part = |bytes: &[u8]| {
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    part(page_fp.as_bytes());
    part(&[u8::from(capture.keyboard_walk), u8::from(capture.layout)]);
    part(inputs.as_bytes());
    part(bodies(instance, page, budget, events, BEHAVIOUR).await?.as_bytes());
    Some(format!("facts:{:x}", h.finalize()))
}

/// What the pixels of the page's text may depend on beyond its whole-page fingerprint: the
/// bodies of its scripts, data, images, fonts and media (`PIXELS`) as received before `events`
/// ended; `None` when one cannot be read.
pub(crate) async fn pixel_inputs(instance: &Instance, page: &Page, budget: &Deadline, events: &[RawEvent]) -> Option<String> {
    bodies(instance, page, budget, events, PIXELS).await
}

/// A digest of the responses of `kinds` in `events`: each one's address and body (or why it
/// failed); `None` when one is in flight, too large or unreadable.
async fn bodies(instance: &Instance, page: &Page, budget: &Deadline, events: &[RawEvent], kinds: &[&str]) -> Option<String> {
    let mut h = Sha256::new();
    let mut part = |bytes: &[u8]| {
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    let responses = responses(events, kinds)?;
    // The bodies are asked for a few at a time (each is a round trip to the browser), and hashed
    // as they come, in the page's order.
    let reads: Vec<_> = responses.iter().map(|response| digest_of(instance, page, budget, response)).collect();
    let mut digests = futures::stream::iter(reads).buffered(BODIES_AT_ONCE);
    for response in &responses {
        let digest = digests.next().await.flatten()?;
        part(response.url.as_bytes());
        part(&digest);
    }
    Some(format!("{:x}", h.finalize()))
}

/// The digest of one response's body (or of why it failed); `None` when it cannot be read.
async fn digest_of(instance: &Instance, page: &Page, budget: &Deadline, response: &Response) -> Option<Vec<u8>> {
    let mut h = Sha256::new();
    match &response.ended {
        Ended::Failed(why) => h.update(format!("failed {why}").as_bytes()),
        Ended::Finished => {
            let params = GetResponseBodyParams::new(response.request_id.clone());
            let body = run(instance, page, "Network.getResponseBody", budget.cap(STEP_TIMEOUT), params).await.ok()?;
            h.update([u8::from(body.base64_encoded)]);
            h.update(body.body.as_bytes());
        }
    }
    Some(h.finalize().to_vec())
}

/// One response of a kind in `BEHAVIOUR`.
#[derive(Debug, PartialEq)]
struct Response {
    request_id: String,
    url: String,
    ended: Ended,
}

#[derive(Debug, PartialEq)]
enum Ended {
    Finished,
    Failed(String),
}

/// The page's responses of `kinds` in the order they were asked for; `None` when one is still in
/// flight, too large, or there are more than `MAX_BODIES`.
fn responses(events: &[RawEvent], kinds: &[&str]) -> Option<Vec<Response>> {
    let mut ended: HashMap<&str, Ended> = HashMap::new();
    let mut too_large: HashSet<&str> = HashSet::new();
    for e in events {
        let Some(id) = e.str("requestId") else { continue };
        match e.method.as_str() {
            "Network.loadingFinished" => {
                if e.params.get("encodedDataLength").and_then(serde_json::Value::as_f64).is_some_and(|n| n > MAX_BODY_BYTES) {
                    too_large.insert(id);
                }
                ended.insert(id, Ended::Finished);
            }
            "Network.loadingFailed" => {
                ended.insert(id, Ended::Failed(e.str("errorText").unwrap_or_default().to_string()));
            }
            _ => {}
        }
    }
    let mut out: Vec<Response> = Vec::new();
    for e in events.iter().filter(|e| e.method == "Network.requestWillBeSent") {
        let (Some(id), Some(kind)) = (e.str("requestId"), e.str("type")) else { continue };
        if !kinds.contains(&kind) || out.iter().any(|r| r.request_id == id) {
            continue; // A redirect keeps its request's id: the request is read once, as it ended.
        }
        let ended = ended.remove(id)?;
        if too_large.contains(id) {
            return None;
        }
        out.push(Response { request_id: id.to_string(), url: e.params["request"]["url"].as_str().unwrap_or_default().to_string(), ended });
    }
    (out.len() <= MAX_BODIES).then_some(out)
}

/// The facts kept under `key`, when the scan knows them.
pub(crate) fn given_back(shared: &SharedRegions, key: &str) -> Option<Facts> {
    let entry = shared.get(key)?;
    crate::browser::lenient::from_json(&entry).ok()
}

/// Keeps `facts` under `key` for the page's next scan, unless they are too large to keep.
pub(crate) fn keep(shared: &SharedRegions, key: &str, facts: &Facts) {
    if let Ok(entry) = serde_json::to_string(facts)
        && entry.len() <= MAX_ENTRY_BYTES
    {
        shared.keep(key, entry);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(method: &str, params: serde_json::Value) -> RawEvent {
        RawEvent { method: method.into(), params }
    }

    fn sent(id: &str, kind: &str, url: &str) -> RawEvent {
        event("Network.requestWillBeSent", json!({"requestId": id, "type": kind, "request": {"url": url}}))
    }

    #[test]
    fn reads_the_scripts_and_data_the_page_received_and_leaves_the_rest() {
        let events = vec![
            sent("1", "Document", "http://a.test/"),
            sent("2", "Script", "http://a.test/app.js"),
            sent("3", "Image", "http://a.test/x.png"),
            sent("4", "Fetch", "http://a.test/data.json"),
            sent("5", "Script", "http://a.test/gone.js"),
            event("Network.loadingFinished", json!({"requestId": "2", "encodedDataLength": 900})),
            event("Network.loadingFinished", json!({"requestId": "4", "encodedDataLength": 90})),
            event("Network.loadingFinished", json!({"requestId": "3", "encodedDataLength": 4000})),
            event("Network.loadingFailed", json!({"requestId": "5", "errorText": "net::ERR_ABORTED"})),
        ];
        let got = responses(&events, BEHAVIOUR).unwrap();
        assert_eq!(responses(&events, PIXELS).unwrap().len(), 4, "and the image, for the pixels");
        let urls: Vec<(&str, &Ended)> = got.iter().map(|r| (r.url.as_str(), &r.ended)).collect();
        assert_eq!(
            urls,
            vec![
                ("http://a.test/app.js", &Ended::Finished),
                ("http://a.test/data.json", &Ended::Finished),
                ("http://a.test/gone.js", &Ended::Failed("net::ERR_ABORTED".into()))
            ]
        );
    }

    #[test]
    fn a_script_still_in_flight_or_too_large_leaves_the_page_without_a_key() {
        let in_flight = vec![sent("2", "Script", "http://a.test/app.js")];
        assert_eq!(responses(&in_flight, BEHAVIOUR), None);
        let large = vec![sent("2", "XHR", "http://a.test/big"), event("Network.loadingFinished", json!({"requestId": "2", "encodedDataLength": 9e9}))];
        assert_eq!(responses(&large, BEHAVIOUR), None);
        let many: Vec<RawEvent> = (0..=MAX_BODIES)
            .flat_map(|i| [sent(&i.to_string(), "Script", "http://a.test/s.js"), event("Network.loadingFinished", json!({"requestId": i.to_string()}))])
            .collect();
        assert_eq!(responses(&many, BEHAVIOUR), None);
        assert_eq!(responses(&[], BEHAVIOUR), Some(vec![]));
    }

    #[test]
    fn kept_facts_are_given_back_as_they_were() {
        let shared = SharedRegions::default();
        let facts = Facts {
            keyboard: Some(KeyboardWalk { focusable_count: 3, trapped_at: Some("#menu".into()), ..KeyboardWalk::default() }),
            images: vec![serde_json::from_value(json!({"url": "http://a.test/a.gif", "pause_control": true})).unwrap()],
            ..Facts::default()
        };
        assert!(given_back(&shared, "facts:k").is_none());
        keep(&shared, "facts:k", &facts);
        let back = given_back(&shared, "facts:k").unwrap();
        assert_eq!(back.keyboard, facts.keyboard);
        assert_eq!(back.images, facts.images);
    }
}
