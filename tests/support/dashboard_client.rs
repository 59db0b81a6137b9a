//! A browser-like HTTP client for the dashboard: it keeps cookies, reads the CSRF token of the
//! last page, and never follows redirects (tests look at them).

#![allow(dead_code)]

use crate::app::{Resp, TestApp, spawn_app};
use sitescan::accounts::{Role, users};
use std::collections::BTreeMap;

pub const PASSWORD: &str = "correct horse battery staple";

pub struct Web {
    pub base: String,
    pub http: reqwest::Client,
    pub cookies: BTreeMap<String, String>,
    /// The CSRF token of the last page that had one.
    pub csrf: String,
    pub origin: Option<String>,
}

impl Web {
    pub fn new(app: &TestApp) -> Web {
        Web { base: app.base.clone(), http: app.http.clone(), cookies: BTreeMap::new(), csrf: String::new(), origin: None }
    }

    pub fn cookie_header(&self) -> String {
        self.cookies.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("; ")
    }

    fn absorb(&mut self, r: &Resp) {
        for v in r.headers.get_all("set-cookie") {
            let v = v.to_str().unwrap();
            let (pair, attrs) = v.split_once(';').unwrap_or((v, ""));
            let (k, val) = pair.split_once('=').unwrap();
            if val.is_empty() || attrs.contains("Max-Age=0") {
                self.cookies.remove(k);
            } else {
                self.cookies.insert(k.to_string(), val.to_string());
            }
        }
        if let Some(t) = csrf_of(&r.text) {
            self.csrf = t;
        }
    }

    pub async fn get(&mut self, path: &str) -> Resp {
        let mut req = self.http.get(format!("{}{path}", self.base)).header("accept", "text/html");
        if !self.cookies.is_empty() {
            req = req.header("cookie", self.cookie_header());
        }
        let r = Resp::from(req.send().await.unwrap()).await;
        self.absorb(&r);
        r
    }

    /// GETs a file: status, content type and the body's bytes.
    pub async fn get_bytes(&self, path: &str) -> (u16, String, Vec<u8>) {
        let mut req = self.http.get(format!("{}{path}", self.base));
        if !self.cookies.is_empty() {
            req = req.header("cookie", self.cookie_header());
        }
        let r = req.send().await.unwrap();
        let status = r.status().as_u16();
        let kind = r.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
        (status, kind, r.bytes().await.unwrap().to_vec())
    }

    /// POSTs a form as is (no CSRF field added).
    pub async fn post_raw(&mut self, path: &str, fields: &[(&str, &str)]) -> Resp {
        let body: String = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(fields).finish();
        let mut req = self
            .http
            .post(format!("{}{path}", self.base))
            .header("content-type", "application/x-www-form-urlencoded")
            .header("accept", "text/html")
            .body(body);
        if !self.cookies.is_empty() {
            req = req.header("cookie", self.cookie_header());
        }
        if let Some(o) = &self.origin {
            req = req.header("origin", o);
        }
        let r = Resp::from(req.send().await.unwrap()).await;
        self.absorb(&r);
        r
    }

    /// POSTs a form with the current CSRF token.
    pub async fn post(&mut self, path: &str, fields: &[(&str, &str)]) -> Resp {
        let csrf = self.csrf.clone();
        let mut all: Vec<(&str, &str)> = vec![("csrf", csrf.as_str())];
        all.extend_from_slice(fields);
        self.post_raw(path, &all).await
    }

    /// Signs in (GET the form, POST it); returns the POST's answer.
    pub async fn login(&mut self, email: &str, password: &str) -> Resp {
        let form = self.get("/login").await;
        if form.status.as_u16() == 303 {
            // Already signed in: no form is shown; post with the pre-login CSRF cookie's value
            // (signing in again over a live session).
            self.csrf = self.cookies.get("sitescan_csrf").cloned().unwrap_or_default();
        }
        self.post("/login", &[("email", email), ("password", password)]).await
    }

    pub fn session(&self) -> Option<&str> {
        self.cookies.get("sitescan_session").map(String::as_str)
    }
}

/// The value of the first `name="csrf"` hidden field.
pub fn csrf_of(html: &str) -> Option<String> {
    let i = html.find("name=\"csrf\" value=\"")?;
    let rest = &html[i + "name=\"csrf\" value=\"".len()..];
    Some(rest[..rest.find('"')?].to_string()).filter(|s| !s.is_empty())
}

/// The first `sitescan_` token in a page.
pub fn token_in(html: &str) -> Option<String> {
    let i = html.find("sitescan_")?;
    let t: String = html[i..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-').collect();
    sitescan_store::looks_like_token(&t).then_some(t)
}

#[track_caller]
pub fn redirect_to(r: &Resp, location: &str) {
    assert_eq!(r.status.as_u16(), 303, "expected a redirect to {location}; body: {}", r.text);
    assert_eq!(r.header("location"), location);
}

#[track_caller]
pub fn page(r: &Resp, status: u16) {
    assert_eq!(r.status.as_u16(), status, "body: {}", r.text);
    assert!(r.header("content-type").starts_with("text/html"), "a page, not {}", r.header("content-type"));
}

/// An app with an owner `owner@acme.test` of `acme`.
pub async fn app_with_owner() -> TestApp {
    let app = spawn_app().await;
    users::create_user(&app.store, "acme", "owner@acme.test", Role::Owner, PASSWORD).await.unwrap();
    app
}

/// A signed-in client of the owner.
pub async fn owner(app: &TestApp) -> Web {
    let mut web = Web::new(app);
    redirect_to(&web.login("owner@acme.test", PASSWORD).await, "/");
    web
}

/// Counts rows of a table.
pub async fn count(app: &TestApp, table: &str) -> i64 {
    use sea_orm::ConnectionTrait;
    let stmt = app.store.stmt(&format!("SELECT COUNT(*) AS n FROM {table}"), vec![]);
    app.store.conn().query_one_raw(stmt).await.unwrap().unwrap().try_get("", "n").unwrap()
}
