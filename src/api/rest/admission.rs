//! Admission of every REST call, as a layer around each route: authentication, the token's rate
//! limit, then the scope `auth::RPC_SCOPES` names for the RPC the route transcodes, before the
//! handler runs. The handler receives the caller as an `Extension<Admitted>`; every response
//! after authentication, the handler's answer or a refusal, says where the caller stands with
//! the rate limit.

use crate::api::auth::{Admitted, scope_of};
use crate::api::error::ApiError;
use crate::api::service::ScanApi;
use axum::extract::{Request, State};
use axum::http::header::AUTHORIZATION;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The route's RPC (`CreateScan`, ...) and the service that admits to it.
#[derive(Debug, Clone)]
pub struct Gate {
    pub api: ScanApi,
    pub rpc: &'static str,
}

/// The layer's function (`axum::middleware::from_fn_with_state` with a [`Gate`]).
pub async fn admit(State(gate): State<Gate>, mut req: Request, next: Next) -> Response {
    let auth = req.headers().get(AUTHORIZATION).and_then(|v| v.to_str().ok());
    let admitted = match gate.api.state().admit(auth).await {
        Ok(a) => a,
        Err(e) => return e.into_response(),
    };
    let rpc = format!("sitescan.v1.ScanService/{}", gate.rpc);
    let refused = match scope_of(&rpc) {
        Some(scope) => admitted.require(scope).err(),
        None => Some(ApiError::Internal(format!("{rpc} has no scope"))),
    };
    let response = match refused {
        Some(e) => e.into_response(),
        None => {
            req.extensions_mut().insert(admitted.clone());
            next.run(req).await
        }
    };
    with_rate_headers(response, &admitted)
}

fn with_rate_headers(mut response: Response, who: &Admitted) -> Response {
    for (name, value) in who.rate.headers() {
        if let Some(name) = name
            && !response.headers().contains_key(&name)
        {
            response.headers_mut().insert(name, value);
        }
    }
    response
}
