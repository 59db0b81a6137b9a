//! Binding the listener and serving the router (HTTP/1.1 and h2c on one port) until shutdown.

use super::limiter::Limiter;
use axum::serve::ListenerExt;
use super::limits::RateWindow;
use super::router;
use super::service::ScanApi;
use super::state::AppState;
use crate::app::App;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

/// What the API needs to start (the services come with the [`App`]).
#[derive(Debug, Clone)]
pub struct ApiSettings {
    pub listen: String,
    pub rate_windows: Vec<RateWindow>,
    /// `memory` (per instance) or a `redis://` URL (shared by a fleet).
    pub rate_limit_backend: String,
}

/// A bound, not yet serving, API.
pub struct Application {
    listener: tokio::net::TcpListener,
    router: axum::Router,
    addr: SocketAddr,
}

impl Application {
    /// Binds `settings.listen` (port 0 picks a free port) and builds the router over `app`.
    pub async fn build(settings: &ApiSettings, app: App) -> std::io::Result<Application> {
        Self::build_with_web(settings, app, crate::web::WebSettings::default()).await
    }

    /// `build` with the dashboard's settings (`--public-url`).
    pub async fn build_with_web(settings: &ApiSettings, app: App, web: crate::web::WebSettings) -> std::io::Result<Application> {
        let listener = tokio::net::TcpListener::bind(&settings.listen).await?;
        let addr = listener.local_addr()?;
        let limiter = Limiter::connect(&settings.rate_limit_backend, settings.rate_windows.clone())
            .await
            .map_err(|e| std::io::Error::other(format!("rate limit backend: {e}")))?;
        let state = Arc::new(AppState::with_limiter(app, limiter));
        let router = router::build_with(ScanApi::new(state), web);
        Ok(Application { listener, router, addr })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves until `shutdown` resolves, then drains in-flight requests.
    pub async fn run_until(self, shutdown: impl Future<Output = ()> + Send + 'static) -> std::io::Result<()> {
        // Replies go out at once: with Nagle's algorithm on, an HTTP/2 (gRPC) answer written as
        // a HEADERS frame then a DATA frame waits for the client's delayed ACK, ~40 ms a call.
        let listener = self.listener.tap_io(|tcp| {
            if let Err(e) = tcp.set_nodelay(true) {
                tracing::debug!(error = %e, "TCP_NODELAY not set");
            }
        });
        axum::serve(listener, self.router.into_make_service_with_connect_info::<SocketAddr>()).with_graceful_shutdown(shutdown).await
    }
}
