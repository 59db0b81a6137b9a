//! TEMPORARY interface shim until the browser engine branch lands (replaced on merge).

use crate::model::{PageError, PageSnapshot};
use crate::net::EgressGuard;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum BrowserError {
    #[error("the browser engine is not built yet")]
    NotBuilt,
}

#[derive(Debug, Clone, Default)]
pub struct CaptureOptions {
    pub axe: bool,
    pub keyboard_walk: bool,
    pub screenshot: bool,
    pub scroll: bool,
}

#[derive(Debug, Clone, Default)]
pub struct BrowserOptions {
    pub chromium: Option<PathBuf>,
    pub cdp_endpoints: Vec<String>,
    pub browsers: usize,
    pub pages_per_browser: usize,
    pub navigation_timeout: Duration,
    pub page_timeout: Duration,
    pub recycle_after_pages: usize,
    pub capture: CaptureOptions,
}

pub struct BrowserPool;

impl BrowserPool {
    pub async fn start(_o: BrowserOptions, _g: Arc<EgressGuard>) -> Result<Arc<BrowserPool>, BrowserError> {
        Err(BrowserError::NotBuilt)
    }
    pub async fn session(&self) -> Result<BrowserSession, BrowserError> {
        Err(BrowserError::NotBuilt)
    }
    pub async fn shutdown(&self) {}
}

pub struct BrowserSession;

impl BrowserSession {
    pub async fn capture(&self, url: &str) -> PageSnapshot {
        PageSnapshot {
            requested_url: url.into(),
            error: Some(PageError { kind: "internal".into(), message: "not built".into() }),
            ..Default::default()
        }
    }
    pub async fn close(self) {}
}
