//! Receivers on 127.0.0.1 that stand in for Slack, Microsoft Teams, Discord and Google Chat
//! incoming webhooks: each checks a message against the platform's documented shape and limits
//! (written here from the platforms' documentation, independently of sitescan's builders) and
//! answers as the platform does: Slack `200 ok` or `400 invalid_blocks` / `invalid_payload`,
//! Teams `202`, Discord `204` or `400` with a JSON error, Google Chat `200` with the created
//! message or `400` with a JSON error. A receiver may also refuse its first messages whatever
//! they hold (Slack's `400 invalid_blocks`, Discord's `429` with `Retry-After`).

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    Slack,
    Teams,
    Discord,
    GoogleChat,
}

impl Platform {
    pub const ALL: [Platform; 4] = [Platform::Slack, Platform::Teams, Platform::Discord, Platform::GoogleChat];

    /// The webhook kind of the platform, as sitescan spells it.
    pub fn kind(self) -> sitescan::events::WebhookKind {
        match self {
            Platform::Slack => sitescan::events::WebhookKind::Slack,
            Platform::Teams => sitescan::events::WebhookKind::Teams,
            Platform::Discord => sitescan::events::WebhookKind::Discord,
            Platform::GoogleChat => sitescan::events::WebhookKind::GoogleChat,
        }
    }

    /// Checks a message against the platform's documented shape and limits.
    pub fn validate(self, body: &Value) -> Result<(), String> {
        match self {
            Platform::Slack => slack(body),
            Platform::Teams => teams(body),
            Platform::Discord => discord(body),
            Platform::GoogleChat => google_chat(body),
        }
    }

    fn accepted(self) -> Response {
        match self {
            Platform::Slack => (StatusCode::OK, [(header::CONTENT_TYPE, "text/html")], "ok").into_response(),
            Platform::Teams => StatusCode::ACCEPTED.into_response(),
            Platform::Discord => StatusCode::NO_CONTENT.into_response(),
            Platform::GoogleChat => {
                (StatusCode::OK, axum::Json(json!({"name": "spaces/AAAA/messages/BBBB.BBBB", "createTime": "2026-11-29T06:00:00Z"}))).into_response()
            }
        }
    }

    fn refused(self, why: &str) -> Response {
        match self {
            Platform::Slack => (StatusCode::BAD_REQUEST, [(header::CONTENT_TYPE, "text/html")], why.to_string()).into_response(),
            Platform::Teams => (StatusCode::BAD_REQUEST, axum::Json(json!({"error": {"code": "InvalidRequestContent", "message": why}}))).into_response(),
            Platform::Discord => (StatusCode::BAD_REQUEST, axum::Json(json!({"code": 50035, "message": "Invalid Form Body", "errors": {"embeds": why}}))).into_response(),
            Platform::GoogleChat => {
                (StatusCode::BAD_REQUEST, axum::Json(json!({"error": {"code": 400, "message": why, "status": "INVALID_ARGUMENT"}}))).into_response()
            }
        }
    }

    /// What the platform answers when it will not take a message right now (the scripted
    /// refusals): Slack `400 invalid_blocks`, Discord `429` with `Retry-After`, the others 400.
    fn scripted_refusal(self) -> Response {
        match self {
            Platform::Slack => self.refused("invalid_blocks"),
            Platform::Discord => (
                StatusCode::TOO_MANY_REQUESTS,
                [(header::RETRY_AFTER, "1")],
                axum::Json(json!({"message": "You are being rate limited.", "retry_after": 1.0, "global": false})),
            )
                .into_response(),
            _ => self.refused("scripted refusal"),
        }
    }
}

/// One message as received.
#[derive(Debug, Clone)]
pub struct Hit {
    /// The path and query it was posted to.
    pub uri: String,
    pub headers: HeaderMap,
    pub body: String,
    /// The verdict of the platform's validator.
    pub verdict: Result<(), String>,
}

impl Hit {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

#[derive(Clone)]
pub struct Receiver {
    pub platform: Platform,
    pub url: String,
    hits: Arc<Mutex<Vec<Hit>>>,
}

impl Receiver {
    /// A receiver that accepts every valid message.
    pub async fn start(platform: Platform) -> Receiver {
        Receiver::start_refusing(platform, 0).await
    }

    /// A receiver that refuses its first `refuse_first` messages, then accepts valid ones.
    pub async fn start_refusing(platform: Platform, refuse_first: usize) -> Receiver {
        Receiver::start_with(platform, refuse_first, None).await
    }

    /// A receiver that answers its first `refuse_first` messages `status` with `Retry-After:
    /// retry_after` (a platform that is rate limiting or down), then accepts valid ones.
    pub async fn start_rate_limited(platform: Platform, refuse_first: usize, status: u16, retry_after: String) -> Receiver {
        Receiver::start_with(platform, refuse_first, Some((status, retry_after))).await
    }

    async fn start_with(platform: Platform, refuse_first: usize, limited: Option<(u16, String)>) -> Receiver {
        let hits: Arc<Mutex<Vec<Hit>>> = Arc::default();
        let state = hits.clone();
        let app = axum::Router::new().route(
            "/hook/{*rest}",
            axum::routing::post(move |uri: axum::http::Uri, headers: HeaderMap, body: String| {
                let state = state.clone();
                let limited = limited.clone();
                async move {
                    let json_type = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| v.starts_with("application/json"));
                    let parsed: Result<Value, String> = serde_json::from_str(&body).map_err(|e| format!("not JSON: {e}"));
                    let verdict = match (&parsed, json_type) {
                        (_, false) => Err("Content-Type is not application/json".to_string()),
                        (Err(e), _) => Err(e.clone()),
                        (Ok(v), true) => platform.validate(v),
                    };
                    let n = {
                        let mut hits = state.lock().unwrap();
                        hits.push(Hit { uri: uri.to_string(), headers, body, verdict: verdict.clone() });
                        hits.len()
                    };
                    if n <= refuse_first {
                        return match limited {
                            Some((status, retry_after)) => {
                                (StatusCode::from_u16(status).unwrap(), [(header::RETRY_AFTER, retry_after)], "not now").into_response()
                            }
                            None => platform.scripted_refusal(),
                        };
                    }
                    match verdict {
                        Ok(()) => platform.accepted(),
                        Err(why) if parsed.is_err() || !json_type => platform.refused(if platform == Platform::Slack { "invalid_payload" } else { &why }),
                        Err(why) => platform.refused(if platform == Platform::Slack { "invalid_blocks" } else { &why }),
                    }
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        // A path like the platform's, with its secret in it.
        let url = format!("http://{addr}/hook/services/T000/B000/not-a-real-secret");
        Receiver { platform, url, hits }
    }

    pub fn hits(&self) -> Vec<Hit> {
        self.hits.lock().unwrap().clone()
    }
}

fn chars(v: &Value) -> usize {
    v.as_str().map_or(0, |s| s.chars().count())
}

fn string_within(v: &Value, what: &str, min: usize, max: usize) -> Result<(), String> {
    let s = v.as_str().ok_or_else(|| format!("{what} is not a string"))?;
    let n = s.chars().count();
    if n < min || n > max {
        return Err(format!("{what} has {n} characters, not {min}..={max}"));
    }
    Ok(())
}

fn only_keys(v: &Value, what: &str, allowed: &[&str]) -> Result<(), String> {
    let map = v.as_object().ok_or_else(|| format!("{what} is not an object"))?;
    match map.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(format!("{what} has an unknown key {k:?}")),
        None => Ok(()),
    }
}

fn absolute_url(v: &Value, what: &str) -> Result<(), String> {
    let s = v.as_str().ok_or_else(|| format!("{what} is not a string"))?;
    match url::Url::parse(s) {
        Ok(u) if matches!(u.scheme(), "http" | "https") => Ok(()),
        _ => Err(format!("{what} is not an absolute http(s) URL: {s}")),
    }
}

/// Slack mrkdwn: `&`, `<`, `>` are escaped; a `<` only opens a link (`<https://...|label>`).
fn slack_mrkdwn(s: &str, what: &str) -> Result<(), String> {
    let mut rest = s;
    while let Some(at) = rest.find('<') {
        let tail = &rest[at..];
        let end = tail.find('>').ok_or_else(|| format!("{what}: an unclosed '<'"))?;
        if !(tail.starts_with("<http://") || tail.starts_with("<https://") || tail.starts_with("<!") || tail.starts_with("<@") || tail.starts_with("<#")) {
            return Err(format!("{what}: a raw '<' outside a link"));
        }
        rest = &tail[end + 1..];
    }
    Ok(())
}

fn slack_text(t: &Value, what: &str, max: usize) -> Result<(), String> {
    only_keys(t, what, &["type", "text", "emoji", "verbatim"])?;
    let kind = t["type"].as_str().ok_or_else(|| format!("{what}.type is missing"))?;
    if kind != "mrkdwn" && kind != "plain_text" {
        return Err(format!("{what}.type {kind:?}"));
    }
    string_within(&t["text"], &format!("{what}.text"), 1, max)?;
    if kind == "mrkdwn" {
        slack_mrkdwn(t["text"].as_str().unwrap_or_default(), what)?;
    }
    Ok(())
}

/// <https://api.slack.com/reference/block-kit/blocks>
pub fn slack(v: &Value) -> Result<(), String> {
    only_keys(v, "message", &["text", "blocks", "attachments", "thread_ts", "mrkdwn", "unfurl_links", "unfurl_media"])?;
    string_within(&v["text"], "text", 1, 40_000)?;
    let blocks = v["blocks"].as_array().ok_or("blocks is not an array")?;
    if blocks.is_empty() || blocks.len() > 50 {
        return Err(format!("{} blocks (1..=50)", blocks.len()));
    }
    for (i, b) in blocks.iter().enumerate() {
        let what = format!("blocks[{i}]");
        match b["type"].as_str() {
            Some("header") => {
                only_keys(b, &what, &["type", "text", "block_id"])?;
                if b["text"]["type"] != "plain_text" {
                    return Err(format!("{what}: a header's text is plain_text"));
                }
                slack_text(&b["text"], &what, 150)?;
            }
            Some("section") => {
                only_keys(b, &what, &["type", "text", "fields", "block_id", "accessory"])?;
                if b.get("text").is_none() && b.get("fields").is_none() {
                    return Err(format!("{what}: a section needs text or fields"));
                }
                if let Some(t) = b.get("text") {
                    slack_text(t, &what, 3000)?;
                }
                if let Some(fields) = b.get("fields") {
                    let fields = fields.as_array().ok_or(format!("{what}.fields is not an array"))?;
                    if fields.is_empty() || fields.len() > 10 {
                        return Err(format!("{what}: {} fields (1..=10)", fields.len()));
                    }
                    for f in fields {
                        slack_text(f, &format!("{what}.fields"), 2000)?;
                    }
                }
            }
            Some("context") => {
                only_keys(b, &what, &["type", "elements", "block_id"])?;
                let elements = b["elements"].as_array().ok_or(format!("{what}.elements"))?;
                if elements.is_empty() || elements.len() > 10 {
                    return Err(format!("{what}: {} elements (1..=10)", elements.len()));
                }
                for e in elements {
                    slack_text(e, &format!("{what}.elements"), 3000)?;
                }
            }
            Some("divider") => only_keys(b, &what, &["type", "block_id"])?,
            other => return Err(format!("{what}: unexpected block type {other:?}")),
        }
    }
    Ok(())
}

/// <https://learn.microsoft.com/en-us/microsoftteams/platform/webhooks-and-connectors/how-to/connectors-using>,
/// <https://adaptivecards.io/explorer/>
pub fn teams(v: &Value) -> Result<(), String> {
    if v.to_string().len() > 28 * 1024 {
        return Err("the message is over 28 KB".into());
    }
    if v["type"] != "message" {
        return Err("type is not \"message\"".into());
    }
    let attachments = v["attachments"].as_array().ok_or("attachments is not an array")?;
    if attachments.is_empty() {
        return Err("no attachment".into());
    }
    for a in attachments {
        if a["contentType"] != "application/vnd.microsoft.card.adaptive" {
            return Err(format!("contentType {}", a["contentType"]));
        }
        let c = &a["content"];
        if c["type"] != "AdaptiveCard" {
            return Err("content.type is not AdaptiveCard".into());
        }
        let version = c["version"].as_str().ok_or("content.version is missing")?;
        if !["1.0", "1.1", "1.2", "1.3", "1.4", "1.5"].contains(&version) {
            return Err(format!("card version {version} (Teams renders up to 1.5)"));
        }
        let body = c["body"].as_array().ok_or("content.body is not an array")?;
        if body.is_empty() {
            return Err("an empty card".into());
        }
        for e in body {
            match e["type"].as_str() {
                Some("TextBlock") => string_within(&e["text"], "TextBlock.text", 1, 10_000)?,
                Some("FactSet") => {
                    let facts = e["facts"].as_array().ok_or("FactSet.facts")?;
                    for f in facts {
                        string_within(&f["title"], "Fact.title", 0, 10_000)?;
                        string_within(&f["value"], "Fact.value", 0, 10_000)?;
                    }
                }
                other => return Err(format!("unexpected card element {other:?}")),
            }
        }
        if let Some(actions) = c.get("actions") {
            for act in actions.as_array().ok_or("actions is not an array")? {
                if act["type"] != "Action.OpenUrl" {
                    return Err(format!("action type {}", act["type"]));
                }
                string_within(&act["title"], "Action.title", 1, 1000)?;
                absolute_url(&act["url"], "Action.url")?;
            }
        }
    }
    Ok(())
}

/// <https://discord.com/developers/docs/resources/webhook#execute-webhook>,
/// <https://discord.com/developers/docs/resources/message#embed-object-embed-limits>
pub fn discord(v: &Value) -> Result<(), String> {
    only_keys(v, "message", &["content", "username", "avatar_url", "tts", "embeds", "allowed_mentions", "components", "flags", "thread_name"])?;
    if let Some(c) = v.get("content") {
        string_within(c, "content", 0, 2000)?;
    }
    let embeds = v.get("embeds").map(|e| e.as_array().cloned().ok_or("embeds is not an array")).transpose()?.unwrap_or_default();
    if embeds.is_empty() && chars(&v["content"]) == 0 {
        return Err("neither content nor embeds".into());
    }
    if embeds.len() > 10 {
        return Err(format!("{} embeds (at most 10)", embeds.len()));
    }
    let mut total = 0;
    for e in &embeds {
        only_keys(e, "embed", &["title", "type", "description", "url", "timestamp", "color", "footer", "image", "thumbnail", "author", "fields"])?;
        if let Some(t) = e.get("title") {
            string_within(t, "embed.title", 0, 256)?;
        }
        if let Some(d) = e.get("description") {
            string_within(d, "embed.description", 0, 4096)?;
        }
        if let Some(u) = e.get("url") {
            absolute_url(u, "embed.url")?;
        }
        if let Some(c) = e.get("color") {
            let c = c.as_u64().ok_or("embed.color is not an integer")?;
            if c > 0xFF_FF_FF {
                return Err(format!("embed.color {c}"));
            }
        }
        if let Some(t) = e.get("timestamp") {
            chrono::DateTime::parse_from_rfc3339(t.as_str().unwrap_or_default()).map_err(|e| format!("embed.timestamp: {e}"))?;
        }
        if let Some(f) = e.get("footer") {
            string_within(&f["text"], "embed.footer.text", 1, 2048)?;
        }
        let fields = e.get("fields").map(|f| f.as_array().cloned().ok_or("embed.fields")).transpose()?.unwrap_or_default();
        if fields.len() > 25 {
            return Err(format!("{} fields (at most 25)", fields.len()));
        }
        for f in &fields {
            string_within(&f["name"], "field.name", 1, 256)?;
            string_within(&f["value"], "field.value", 1, 1024)?;
            if f.get("inline").is_some_and(|i| !i.is_boolean()) {
                return Err("field.inline is not a boolean".into());
            }
            total += chars(&f["name"]) + chars(&f["value"]);
        }
        total += chars(&e["title"]) + chars(&e["description"]) + chars(&e["footer"]["text"]) + chars(&e["author"]["name"]);
    }
    if total > 6000 {
        return Err(format!("the embeds hold {total} characters (at most 6000)"));
    }
    Ok(())
}

/// <https://developers.google.com/workspace/chat/api/reference/rest/v1/cards>
pub fn google_chat(v: &Value) -> Result<(), String> {
    if v.to_string().len() > 32_000 {
        return Err("the message is over 32,000 bytes".into());
    }
    only_keys(v, "message", &["text", "cardsV2", "thread", "fallbackText", "accessoryWidgets"])?;
    if let Some(t) = v.get("text") {
        string_within(t, "text", 0, 4096)?;
    }
    let cards = v.get("cardsV2").map(|c| c.as_array().cloned().ok_or("cardsV2 is not an array")).transpose()?.unwrap_or_default();
    if cards.is_empty() && chars(&v["text"]) == 0 {
        return Err("neither text nor cardsV2".into());
    }
    for c in &cards {
        only_keys(c, "cardsV2[]", &["cardId", "card"])?;
        string_within(&c["cardId"], "cardId", 1, 255)?;
        let card = &c["card"];
        only_keys(card, "card", &["header", "sections", "cardActions", "name", "fixedFooter", "displayStyle", "peekCardHeader"])?;
        if let Some(h) = card.get("header") {
            only_keys(h, "card.header", &["title", "subtitle", "imageUrl", "imageType", "imageAltText"])?;
            string_within(&h["title"], "card.header.title", 1, 10_000)?;
            if let Some(s) = h.get("subtitle") {
                string_within(s, "card.header.subtitle", 0, 10_000)?;
            }
        }
        let sections = card["sections"].as_array().ok_or("card.sections is not an array")?;
        if sections.is_empty() {
            return Err("a card without sections".into());
        }
        for s in sections {
            only_keys(s, "section", &["header", "widgets", "collapsible", "uncollapsibleWidgetsCount"])?;
            let widgets = s["widgets"].as_array().ok_or("section.widgets is not an array")?;
            if widgets.is_empty() || widgets.len() > 100 {
                return Err(format!("a section of {} widgets", widgets.len()));
            }
            for w in widgets {
                let map = w.as_object().ok_or("a widget is not an object")?;
                if map.len() != 1 {
                    return Err(format!("a widget is one kind of widget: {w}"));
                }
                let (kind, body) = map.iter().next().unwrap();
                match kind.as_str() {
                    "textParagraph" => string_within(&body["text"], "textParagraph.text", 1, 10_000)?,
                    "decoratedText" => {
                        only_keys(body, "decoratedText", &["topLabel", "text", "bottomLabel", "wrapText", "startIcon"])?;
                        string_within(&body["text"], "decoratedText.text", 1, 10_000)?;
                    }
                    "buttonList" => {
                        for b in body["buttons"].as_array().ok_or("buttonList.buttons")? {
                            string_within(&b["text"], "button.text", 1, 1000)?;
                            absolute_url(&b["onClick"]["openLink"]["url"], "button.onClick.openLink.url")?;
                        }
                    }
                    "divider" => {}
                    other => return Err(format!("unexpected widget {other:?}")),
                }
            }
        }
    }
    Ok(())
}
