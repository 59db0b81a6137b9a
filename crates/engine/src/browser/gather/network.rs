//! Network gatherer: every request of the page (`NetworkRequest`), and the main document's
//! redirect chain, final URL, status, headers and MIME type, from the Network events.
//!
//! Events arrive from several chromiumoxide streams, so their relative order is not guaranteed:
//! responses are matched to redirect hops by URL, and raw response headers
//! (`responseReceivedExtraInfo`, the only source of `Set-Cookie`) by status code.

use crate::model::{Header, NetworkRequest, RedirectHop};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::HashMap;

use crate::browser::events::RawEvent;
use crate::net::{EGRESS_HEADER, NET_ERROR_HEADER};

/// Failure text recorded for requests the egress proxy refused with a 403.
pub(crate) const EGRESS_FAILURE: &str = "blocked by the sitescan egress guard";

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct Request {
    url: String,
    url_fragment: Option<String>,
    method: String,
    mixed_content_type: Option<String>,
}

#[derive(Debug, Default, Deserialize, Clone)]
#[serde(default, rename_all = "camelCase")]
struct Timing {
    send_start: f64,
    receive_headers_end: f64,
}

#[derive(Debug, Default, Deserialize, Clone)]
#[serde(default, rename_all = "camelCase")]
struct Response {
    url: String,
    status: i64,
    headers: Map<String, Value>,
    mime_type: Option<String>,
    protocol: Option<String>,
    encoded_data_length: f64,
    timing: Option<Timing>,
    from_disk_cache: bool,
    from_prefetch_cache: bool,
    from_service_worker: bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct Initiator {
    r#type: Option<String>,
    url: Option<String>,
    stack: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct WillBeSent {
    request_id: String,
    loader_id: String,
    request: Request,
    timestamp: f64,
    initiator: Initiator,
    redirect_response: Option<Response>,
    r#type: Option<String>,
    render_blocking_behavior: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct Received {
    request_id: String,
    r#type: Option<String>,
    response: Response,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct ExtraInfo {
    request_id: String,
    status_code: i64,
    headers: Map<String, Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct Finished {
    request_id: String,
    timestamp: f64,
    encoded_data_length: f64,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct Failed {
    request_id: String,
    timestamp: f64,
    error_text: String,
    blocked_reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct DataReceived {
    request_id: String,
    data_length: f64,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct WsCreated {
    request_id: String,
    url: String,
    initiator: Option<Initiator>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct WsResponse {
    request_id: String,
    timestamp: f64,
    response: WsHandshake,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct WsHandshake {
    status: i64,
    headers: Map<String, Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct WsError {
    request_id: String,
    timestamp: f64,
    error_message: String,
}

/// One hop of one request id (redirects reuse the id).
#[derive(Debug, Default)]
struct Hop {
    url: String,
    method: String,
    resource_type: Option<String>,
    initiator_type: Option<String>,
    initiator_url: Option<String>,
    start_ts: Option<f64>,
    end_ts: Option<f64>,
    render_blocking: Option<bool>,
    mixed_content_type: Option<String>,
    response: Option<Response>,
    extra: Option<(i64, Map<String, Value>)>,
}

#[derive(Debug, Default)]
struct Entry {
    hops: Vec<Hop>,
    extras: Vec<(i64, Map<String, Value>)>,
    finished: Option<Finished>,
    failed: Option<Failed>,
    data_bytes: f64,
    data_seen: bool,
    served_from_cache: bool,
    websocket: bool,
}

/// What the main document did.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct MainDocument {
    pub(crate) request_id: String,
    pub(crate) final_url: String,
    pub(crate) redirects: Vec<RedirectHop>,
    pub(crate) status: Option<u16>,
    pub(crate) headers: Vec<Header>,
    pub(crate) mime_type: Option<String>,
    pub(crate) failure: Option<String>,
    /// Refused by the egress guard (the proxy's 403 or a refused tunnel).
    pub(crate) blocked: bool,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct NetworkFacts {
    pub(crate) requests: Vec<NetworkRequest>,
    pub(crate) main: Option<MainDocument>,
}

fn parse<T: for<'de> Deserialize<'de> + Default>(ev: &RawEvent) -> T {
    serde_json::from_value(ev.params.clone()).unwrap_or_default()
}

fn initiator_parts(i: &Initiator) -> (Option<String>, Option<String>) {
    let url = i.url.clone().filter(|u| !u.is_empty()).or_else(|| {
        i.stack
            .as_ref()
            .and_then(|s| s.get("callFrames"))
            .and_then(|f| f.as_array())
            .and_then(|f| f.iter().find_map(|c| c.get("url").and_then(Value::as_str).filter(|u| !u.is_empty()).map(str::to_string)))
    });
    (i.r#type.clone(), url)
}

/// Splits CDP's header object (repeated headers joined with `\n`) into lowercased `Header`s.
pub(crate) fn headers_from(map: &Map<String, Value>) -> Vec<Header> {
    let mut out = Vec::new();
    for (name, value) in map {
        let value = match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        for v in value.split('\n') {
            out.push(Header { name: name.to_ascii_lowercase(), value: v.to_string() });
        }
    }
    out
}

fn host_port(url: &str) -> Option<(String, u16)> {
    let u = url::Url::parse(url).ok()?;
    let port = u.port_or_known_default()?;
    let host = match u.host()? {
        url::Host::Ipv6(ip) => ip.to_string(),
        h => h.to_string(),
    };
    Some((host, port))
}

/// What the egress proxy knows about a `host:port`.
pub(crate) trait ProxyRecord {
    /// The proxy refused a connection there (egress policy).
    fn blocked(&self, host: &str, port: u16) -> bool;
    /// The Chromium net error of the proxy's last failed connection there.
    fn failure(&self, host: &str, port: u16) -> Option<&'static str>;
}

impl ProxyRecord for crate::net::EgressProxy {
    fn blocked(&self, host: &str, port: u16) -> bool {
        self.blocked_reason(host, port).is_some()
    }

    fn failure(&self, host: &str, port: u16) -> Option<&'static str> {
        self.connect_failure(host, port)
    }
}

/// No proxy knowledge (unit tests, early checks).
pub(crate) struct NoProxy;

impl ProxyRecord for NoProxy {
    fn blocked(&self, _: &str, _: u16) -> bool {
        false
    }

    fn failure(&self, _: &str, _: u16) -> Option<&'static str> {
        None
    }
}

/// Builds the request list and the main document from `events`. `loader_id` names the main
/// navigation (its document request has that id); `proxy` tells which connections the egress
/// proxy refused or could not make.
pub(crate) fn gather(events: &[RawEvent], loader_id: Option<&str>, proxy: &dyn ProxyRecord) -> NetworkFacts {
    let mut order: Vec<String> = Vec::new();
    let mut entries: HashMap<String, Entry> = HashMap::new();
    let mut first_doc_ts: Option<f64> = None;
    let mut main_id: Option<String> = loader_id.map(str::to_string);
    // Request events first (their own order is kept), then everything that refers to them:
    // the streams are merged, so a response may have been logged before its request.
    let is_request = |e: &&RawEvent| e.method == "Network.requestWillBeSent" || e.method == "Network.webSocketCreated";
    let ordered = events.iter().filter(is_request).chain(events.iter().filter(|e| !is_request(e)));
    for ev in ordered {
        match ev.method.as_str() {
            "Network.requestWillBeSent" => {
                let e: WillBeSent = parse(ev);
                if e.request_id.is_empty() {
                    continue;
                }
                if !entries.contains_key(&e.request_id) {
                    order.push(e.request_id.clone());
                }
                let en = entries.entry(e.request_id.clone()).or_default();
                if let Some(redirect) = e.redirect_response.clone() {
                    match en.hops.last_mut() {
                        Some(prev) if prev.response.is_none() => {
                            prev.response = Some(redirect);
                            prev.end_ts = Some(e.timestamp);
                        }
                        _ => en.hops.push(Hop {
                            url: redirect.url.clone(),
                            method: e.request.method.clone(),
                            end_ts: Some(e.timestamp),
                            response: Some(redirect),
                            resource_type: e.r#type.clone(),
                            ..Hop::default()
                        }),
                    }
                }
                let (initiator_type, initiator_url) = initiator_parts(&e.initiator);
                let mut url = e.request.url.clone();
                if let Some(frag) = &e.request.url_fragment {
                    url.push_str(frag);
                }
                en.hops.push(Hop {
                    url,
                    method: e.request.method.clone(),
                    resource_type: e.r#type.clone(),
                    initiator_type,
                    initiator_url,
                    start_ts: Some(e.timestamp),
                    render_blocking: e.render_blocking_behavior.as_deref().map(|b| b == "Blocking"),
                    mixed_content_type: e.request.mixed_content_type.clone(),
                    ..Hop::default()
                });
                if e.r#type.as_deref() == Some("Document") && e.request_id == e.loader_id {
                    if main_id.is_none() {
                        main_id = Some(e.request_id.clone());
                    }
                    if main_id.as_deref() == Some(e.request_id.as_str()) && first_doc_ts.is_none() {
                        first_doc_ts = Some(e.timestamp);
                    }
                }
            }
            "Network.responseReceived" => {
                let e: Received = parse(ev);
                let Some(en) = entries.get_mut(&e.request_id) else { continue };
                let idx = en
                    .hops
                    .iter()
                    .rposition(|h| h.response.is_none() && strip_fragment(&h.url) == strip_fragment(&e.response.url))
                    .or_else(|| en.hops.iter().rposition(|h| h.response.is_none()))
                    .unwrap_or(en.hops.len().saturating_sub(1));
                if let Some(h) = en.hops.get_mut(idx) {
                    if e.r#type.is_some() {
                        h.resource_type = e.r#type.clone();
                    }
                    h.response = Some(e.response);
                }
            }
            "Network.responseReceivedExtraInfo" => {
                let e: ExtraInfo = parse(ev);
                if !entries.contains_key(&e.request_id) {
                    order.push(e.request_id.clone());
                }
                entries.entry(e.request_id.clone()).or_default().extras.push((e.status_code, e.headers));
            }
            "Network.loadingFinished" => {
                let e: Finished = parse(ev);
                if let Some(en) = entries.get_mut(&e.request_id) {
                    en.finished = Some(e);
                }
            }
            "Network.loadingFailed" => {
                let e: Failed = parse(ev);
                if let Some(en) = entries.get_mut(&e.request_id) {
                    en.failed = Some(e);
                }
            }
            "Network.dataReceived" => {
                let e: DataReceived = parse(ev);
                if let Some(en) = entries.get_mut(&e.request_id) {
                    en.data_bytes += e.data_length.max(0.0);
                    en.data_seen = true;
                }
            }
            "Network.requestServedFromCache" => {
                if let Some(id) = ev.str("requestId")
                    && let Some(en) = entries.get_mut(id) {
                        en.served_from_cache = true;
                    }
            }
            "Network.webSocketCreated" => {
                let e: WsCreated = parse(ev);
                if !entries.contains_key(&e.request_id) {
                    order.push(e.request_id.clone());
                }
                let (initiator_type, initiator_url) = e.initiator.as_ref().map(initiator_parts).unwrap_or_default();
                let en = entries.entry(e.request_id.clone()).or_default();
                en.websocket = true;
                en.hops.push(Hop {
                    url: e.url,
                    method: "GET".into(),
                    resource_type: Some("WebSocket".into()),
                    initiator_type,
                    initiator_url,
                    ..Hop::default()
                });
            }
            "Network.webSocketHandshakeResponseReceived" => {
                let e: WsResponse = parse(ev);
                if let Some(h) = entries.get_mut(&e.request_id).and_then(|en| en.hops.last_mut()) {
                    h.response = Some(Response { status: e.response.status, headers: e.response.headers, ..Response::default() });
                    h.end_ts = Some(e.timestamp);
                }
            }
            "Network.webSocketFrameError" => {
                let e: WsError = parse(ev);
                if let Some(en) = entries.get_mut(&e.request_id)
                    && en.failed.is_none() {
                        en.failed = Some(Failed { request_id: e.request_id.clone(), timestamp: e.timestamp, error_text: e.error_message, blocked_reason: None });
                    }
            }
            _ => {}
        }
    }
    let nav_ts = first_doc_ts.or_else(|| {
        entries.values().flat_map(|e| e.hops.iter().filter_map(|h| h.start_ts)).fold(None, |acc: Option<f64>, t| Some(acc.map_or(t, |a| a.min(t))))
    });
    let mut facts = NetworkFacts::default();
    for id in &order {
        let Some(mut en) = entries.remove(id) else { continue };
        if en.hops.is_empty() {
            continue; // ExtraInfo without any request event: nothing to report.
        }
        assign_extras(&mut en);
        let is_main = main_id.as_deref() == Some(id.as_str());
        let last = en.hops.len() - 1;
        let mut main = MainDocument { request_id: id.clone(), ..MainDocument::default() };
        for (i, hop) in en.hops.iter().enumerate() {
            let req = to_request(&en, hop, i == last, nav_ts, is_main, proxy);
            if is_main {
                if i < last {
                    main.redirects.push(RedirectHop {
                        url: req.url.clone(),
                        status: req.status.unwrap_or(0),
                        location: crate::model::header(&req.response_headers, "location").map(str::to_string),
                    });
                } else {
                    main.final_url = strip_fragment(&req.url).to_string();
                    main.status = req.status;
                    main.headers = req.response_headers.clone();
                    main.mime_type = req.mime_type.clone();
                    main.failure = req.failure.clone();
                    main.blocked = req.blocked_reason.as_deref() == Some("egress");
                }
            }
            facts.requests.push(req);
        }
        if is_main {
            facts.main = Some(main);
        }
    }
    facts
}

fn strip_fragment(url: &str) -> &str {
    url.split('#').next().unwrap_or(url)
}

/// Gives each hop with a response the raw headers of the ExtraInfo with the same status, in order.
fn assign_extras(en: &mut Entry) {
    let mut extras = std::mem::take(&mut en.extras);
    for hop in en.hops.iter_mut() {
        let Some(status) = hop.response.as_ref().map(|r| r.status) else { continue };
        if let Some(pos) = extras.iter().position(|(s, _)| *s == status) {
            hop.extra = Some(extras.remove(pos));
        }
    }
    // A response Chromium never reported (e.g. blocked by CORS) still has its raw headers.
    if let Some(hop) = en.hops.last_mut()
        && hop.response.is_none()
            && let Some(extra) = extras.into_iter().next() {
                hop.response = Some(Response { status: extra.0, ..Response::default() });
                hop.extra = Some(extra);
            }
}

fn to_request(en: &Entry, hop: &Hop, is_last: bool, nav_ts: Option<f64>, is_main: bool, proxy: &dyn ProxyRecord) -> NetworkRequest {
    let resp = hop.response.as_ref();
    let headers = match (&hop.extra, resp) {
        (Some((_, raw)), _) if !raw.is_empty() => headers_from(raw),
        (_, Some(r)) => headers_from(&r.headers),
        _ => Vec::new(),
    };
    let get = |name: &str| crate::model::header(&headers, name).map(str::to_string);
    let rel_ms = |ts: Option<f64>| -> Option<f64> { Some(((ts? - nav_ts?) * 1000.0).max(0.0)) };
    let end_ts = if is_last {
        en.finished.as_ref().map(|f| f.timestamp).or(en.failed.as_ref().map(|f| f.timestamp)).or(hop.end_ts)
    } else {
        hop.end_ts
    };
    let mut req = NetworkRequest {
        url: hop.url.clone(),
        resource_type: hop.resource_type.clone().unwrap_or_else(|| "Other".into()).to_ascii_lowercase(),
        method: if hop.method.is_empty() { "GET".into() } else { hop.method.clone() },
        status: resp.and_then(|r| u16::try_from(r.status).ok()).filter(|s| *s > 0),
        mime_type: resp.and_then(|r| r.mime_type.clone()).filter(|m| !m.is_empty()),
        protocol: resp.and_then(|r| r.protocol.clone()).filter(|p| !p.is_empty()),
        encoded_bytes: if is_last {
            en.finished.as_ref().map(|f| f.encoded_data_length.max(0.0) as u64)
        } else {
            resp.map(|r| r.encoded_data_length.max(0.0) as u64).filter(|b| *b > 0)
        },
        decoded_bytes: if is_last && (en.finished.is_some() || en.data_seen) { Some(en.data_bytes as u64) } else { None },
        content_encoding: get("content-encoding"),
        cache_control: get("cache-control"),
        expires: get("expires"),
        etag: get("etag"),
        last_modified: get("last-modified"),
        start_ms: rel_ms(hop.start_ts),
        end_ms: rel_ms(end_ts),
        ttfb_ms: resp
            .and_then(|r| r.timing.as_ref())
            .filter(|t| t.send_start >= 0.0 && t.receive_headers_end >= t.send_start)
            .map(|t| t.receive_headers_end - t.send_start),
        from_cache: is_last && en.served_from_cache || resp.is_some_and(|r| r.from_disk_cache || r.from_prefetch_cache),
        from_service_worker: resp.is_some_and(|r| r.from_service_worker),
        failure: if is_last { en.failed.as_ref().map(|f| f.error_text.clone()).filter(|t| !t.is_empty()) } else { None },
        blocked_reason: if is_last { en.failed.as_ref().and_then(|f| f.blocked_reason.clone()) } else { None },
        initiator_type: hop.initiator_type.clone(),
        initiator_url: hop.initiator_url.clone(),
        is_navigation: is_main,
        render_blocking: hop.render_blocking,
        mixed_content_type: hop.mixed_content_type.clone(),
        response_headers: headers,
    };
    // The proxy's own answers (403 refused, 502 unreachable) are not responses of the site.
    match crate::model::header(&req.response_headers, EGRESS_HEADER) {
        Some("blocked") => {
            req.failure = Some(EGRESS_FAILURE.to_string());
            req.blocked_reason = Some("egress".into());
        }
        Some("unreachable") => {
            let code = crate::model::header(&req.response_headers, NET_ERROR_HEADER).unwrap_or("net::ERR_CONNECTION_FAILED");
            req.failure = Some(code.to_string());
        }
        _ => {
            if req.status.is_none()
                && let Some((host, port)) = host_port(&req.url) {
                    if proxy.blocked(&host, port) {
                        // A refused tunnel (https, wss) fails as ERR_TUNNEL_CONNECTION_FAILED, or
                        // (websockets) with no event at all.
                        req.blocked_reason = Some("egress".into());
                        req.failure = req.failure.or_else(|| Some(EGRESS_FAILURE.to_string()));
                    } else if let Some(code) = proxy.failure(&host, port).filter(|_| req.failure.as_deref().is_some_and(|f| f.contains("TUNNEL"))) {
                        req.failure = Some(code.to_string());
                    }
                }
            return req;
        }
    }
    req.status = None;
    req.mime_type = None;
    req.response_headers.clear();
    req.content_encoding = None;
    req.cache_control = None;
    req.expires = None;
    req.etag = None;
    req.last_modified = None;
    req
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(method: &str, params: Value) -> RawEvent {
        RawEvent { method: method.into(), params }
    }

    fn sent(id: &str, url: &str, ts: f64, ty: &str, redirect: Option<Value>) -> RawEvent {
        let mut p = json!({"requestId": id, "loaderId": "L1", "request": {"url": url, "method": "GET"}, "timestamp": ts, "type": ty, "initiator": {"type": "parser", "url": "http://a.test/"}});
        if let Some(r) = redirect {
            p["redirectResponse"] = r;
        }
        ev("Network.requestWillBeSent", p)
    }

    #[test]
    fn main_document_redirect_chain_headers_and_cookies() {
        let events = vec![
            sent("L1", "http://a.test/old", 10.0, "Document", None),
            // ExtraInfo for the redirect arrives before the redirect event (different stream).
            ev("Network.responseReceivedExtraInfo", json!({"requestId": "L1", "statusCode": 301, "headers": {"Location": "/new", "Set-Cookie": "a=1; Path=/\nb=2; Secure"}})),
            sent("L1", "http://a.test/new", 10.1, "Document", Some(json!({"url": "http://a.test/old", "status": 301, "headers": {"location": "/new"}}))),
            ev("Network.loadingFinished", json!({"requestId": "L1", "timestamp": 10.5, "encodedDataLength": 1234.0})),
            ev("Network.responseReceived", json!({"requestId": "L1", "type": "Document", "response": {"url": "http://a.test/new", "status": 200, "headers": {"content-type": "text/html"}, "mimeType": "text/html", "protocol": "http/1.1", "timing": {"sendStart": 1.0, "receiveHeadersEnd": 21.0}}})),
            ev("Network.responseReceivedExtraInfo", json!({"requestId": "L1", "statusCode": 200, "headers": {"content-type": "text/html", "strict-transport-security": "max-age=63072000", "content-security-policy": "default-src 'self'"}})),
            ev("Network.dataReceived", json!({"requestId": "L1", "dataLength": 4000.0})),
        ];
        let f = gather(&events, Some("L1"), &NoProxy);
        let main = f.main.unwrap();
        assert_eq!(main.final_url, "http://a.test/new");
        assert_eq!(main.status, Some(200));
        assert_eq!(main.redirects, vec![RedirectHop { url: "http://a.test/old".into(), status: 301, location: Some("/new".into()) }]);
        assert_eq!(crate::model::header(&main.headers, "strict-transport-security"), Some("max-age=63072000"));
        assert_eq!(f.requests.len(), 2);
        let cookies: Vec<_> = crate::model::header_all(&f.requests[0].response_headers, "set-cookie").collect();
        assert_eq!(cookies, ["a=1; Path=/", "b=2; Secure"]);
        let doc = &f.requests[1];
        assert!(doc.is_navigation);
        assert_eq!((doc.encoded_bytes, doc.decoded_bytes), (Some(1234), Some(4000)));
        assert_eq!(doc.ttfb_ms, Some(20.0));
        assert!((doc.start_ms.unwrap() - 100.0).abs() < 1e-6, "{:?}", doc.start_ms);
        assert!((doc.end_ms.unwrap() - 500.0).abs() < 1e-6, "{:?}", doc.end_ms);
        assert_eq!(doc.resource_type, "document");
        assert_eq!(doc.initiator_type.as_deref(), Some("parser"));
    }

    #[test]
    fn egress_refusals_are_marked() {
        let events = vec![
            sent("L1", "http://a.test/", 1.0, "Document", None),
            sent("2", "http://10.0.0.1/x.png", 1.1, "Image", None),
            ev("Network.responseReceived", json!({"requestId": "2", "response": {"url": "http://10.0.0.1/x.png", "status": 403, "headers": {"x-sitescan-egress": "blocked"}}})),
            ev("Network.loadingFinished", json!({"requestId": "2", "timestamp": 1.2, "encodedDataLength": 200.0})),
            sent("3", "https://10.0.0.2/a.js", 1.1, "Script", None),
            ev("Network.loadingFailed", json!({"requestId": "3", "timestamp": 1.3, "errorText": "net::ERR_TUNNEL_CONNECTION_FAILED"})),
            sent("4", "https://ok.test/b.js", 1.1, "Script", None),
            ev("Network.loadingFailed", json!({"requestId": "4", "timestamp": 1.3, "errorText": "net::ERR_CONNECTION_REFUSED"})),
            sent("6", "https://gone.test/d.js", 1.1, "Script", None),
            ev("Network.loadingFailed", json!({"requestId": "6", "timestamp": 1.3, "errorText": "net::ERR_TUNNEL_CONNECTION_FAILED"})),
            sent("7", "http://gone.test/e.js", 1.1, "Script", None),
            ev("Network.responseReceived", json!({"requestId": "7", "response": {"url": "http://gone.test/e.js", "status": 502, "headers": {"x-sitescan-egress": "unreachable", "x-sitescan-net-error": "net::ERR_NAME_NOT_RESOLVED"}}})),
            ev("Network.loadingFinished", json!({"requestId": "7", "timestamp": 1.2, "encodedDataLength": 200.0})),
            sent("5", "http://a.test/c.js", 1.1, "Script", None),
            ev("Network.loadingFailed", json!({"requestId": "5", "timestamp": 1.3, "errorText": "net::ERR_BLOCKED_BY_CLIENT", "blockedReason": "csp"})),
        ];
        struct Blocks;
        impl ProxyRecord for Blocks {
            fn blocked(&self, h: &str, p: u16) -> bool {
                h == "10.0.0.2" && p == 443
            }
            fn failure(&self, h: &str, _: u16) -> Option<&'static str> {
                (h == "gone.test").then_some("net::ERR_NAME_NOT_RESOLVED")
            }
        }
        let f = gather(&events, Some("L1"), &Blocks);
        let r: HashMap<&str, &NetworkRequest> = f.requests.iter().map(|r| (r.url.as_str(), r)).collect();
        let img = r["http://10.0.0.1/x.png"];
        assert_eq!((img.status, img.blocked_reason.as_deref(), img.failure.as_deref()), (None, Some("egress"), Some(EGRESS_FAILURE)));
        assert_eq!(img.resource_type, "image");
        assert_eq!(r["https://10.0.0.2/a.js"].blocked_reason.as_deref(), Some("egress"));
        assert_eq!(r["https://ok.test/b.js"].blocked_reason, None);
        assert_eq!(r["http://a.test/c.js"].blocked_reason.as_deref(), Some("csp"));
        assert_eq!(r["https://gone.test/d.js"].failure.as_deref(), Some("net::ERR_NAME_NOT_RESOLVED"));
        let e = r["http://gone.test/e.js"];
        assert_eq!((e.status, e.failure.as_deref(), e.blocked_reason.as_deref()), (None, Some("net::ERR_NAME_NOT_RESOLVED"), None));
    }

    #[test]
    fn websockets_are_requests_too() {
        let events = vec![
            ev("Network.webSocketCreated", json!({"requestId": "9", "url": "ws://a.test/socket"})),
            ev("Network.webSocketHandshakeResponseReceived", json!({"requestId": "9", "timestamp": 2.0, "response": {"status": 101, "headers": {"Upgrade": "websocket"}}})),
        ];
        let f = gather(&events, None, &NoProxy);
        assert_eq!(f.requests[0].resource_type, "websocket");
        assert_eq!(f.requests[0].status, Some(101));
    }
}
