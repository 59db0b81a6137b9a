//! What the dashboard's handlers share.

use crate::accounts::Throttle;
use crate::app::App;
use std::sync::Arc;

/// Settings of the dashboard (from `sitescan serve`).
#[derive(Debug, Clone, Default)]
pub struct WebSettings {
    /// `--public-url`: the address people reach the service at (its scheme decides `Secure`
    /// cookies; its origin is the one POSTs must come from).
    pub public_url: Option<url::Url>,
    /// `--trusted-proxy`: peers whose `X-Forwarded-For` / `Forwarded` / `X-Forwarded-Proto`
    /// name the client and its scheme.
    pub trusted_proxies: crate::client_addr::TrustedProxies,
}

impl WebSettings {
    /// Parses `--public-url` (an http or https URL).
    pub fn parse(public_url: Option<&str>) -> Result<WebSettings, String> {
        let Some(raw) = public_url.map(str::trim).filter(|s| !s.is_empty()) else { return Ok(WebSettings::default()) };
        let url = url::Url::parse(raw).map_err(|e| format!("--public-url {raw:?}: {e}"))?;
        if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
            return Err(format!("--public-url {raw:?}: must be an http or https URL"));
        }
        Ok(WebSettings { public_url: Some(url), ..WebSettings::default() })
    }

    /// These settings with `--trusted-proxy` CIDRs.
    pub fn with_trusted_proxies(mut self, nets: Vec<ipnet::IpNet>) -> Self {
        self.trusted_proxies = crate::client_addr::TrustedProxies::new(nets);
        self
    }

    /// True when cookies must be `Secure` for every request: the public URL is https.
    pub fn secure_cookies(&self) -> bool {
        self.public_url.as_ref().is_some_and(|u| u.scheme() == "https")
    }

    /// True when this request's cookies must be `Secure`: the public URL is https, or a trusted
    /// proxy says the client reached it over https.
    pub fn secure_cookies_for(&self, client: Option<&crate::client_addr::Client>) -> bool {
        self.secure_cookies() || client.is_some_and(|c| c.forwarded_https)
    }

    /// `scheme://host[:port]` of the public URL.
    pub fn public_origin(&self) -> Option<String> {
        self.public_url.as_ref().map(|u| u.origin().ascii_serialization())
    }
}

/// Shared by every page handler: the same application the API adapts, and the dashboard's own
/// settings and sign-in throttle.
#[derive(Debug, Clone)]
pub struct WebState {
    app: Arc<App>,
    pub settings: Arc<WebSettings>,
    pub throttle: Throttle,
}

impl WebState {
    pub fn new(app: App, settings: WebSettings) -> Self {
        let throttle = app.accounts().throttle().clone();
        WebState { app: Arc::new(app), settings: Arc::new(settings), throttle }
    }

    pub fn sites(&self) -> &crate::sites::SiteService {
        self.app.sites()
    }

    pub fn scans(&self) -> &crate::scans::ScanService {
        self.app.scans()
    }

    pub fn accounts(&self) -> &crate::accounts::Accounts {
        self.app.accounts()
    }

    pub fn webhooks(&self) -> &crate::events::Webhooks {
        self.app.webhooks()
    }
}
