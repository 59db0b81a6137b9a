//! The dashboard's routes and their layers (security headers, the `Origin` check, HTML errors).

use super::pages::{account, auth, compare, members, scan, scans, sites, tokens, webhooks};
use super::state::WebState;
use super::{assets, security};
use axum::Router;
use axum::middleware::{from_fn, from_fn_with_state};
use axum::routing::{get, post};

/// Every dashboard route, ready to merge into the one router.
pub fn routes(state: WebState) -> Router {
    Router::new()
        .route("/", get(scans::dashboard))
        .route("/scans", post(scans::create))
        .route("/scans/{id}", get(scan::show))
        .route("/scans/{id}/events", get(scan::events))
        .route("/scans/{id}/report.html", get(scan::standalone))
        .route("/scans/{id}/screenshots/{shot}", get(scan::screenshot))
        .route("/findings", get(scans::findings))
        .route("/compare", get(compare::compare))
        .route("/login", get(auth::login_form).post(auth::login))
        .route("/logout", post(auth::logout))
        .route("/invite/{token}", get(auth::invite_form).post(auth::accept_invite))
        .route("/account/password", get(account::form).post(account::change))
        .route("/account/api-tokens", get(tokens::list).post(tokens::create))
        .route("/account/api-tokens/{id}/revoke", get(tokens::confirm).post(tokens::revoke))
        .route("/account/members", get(members::list))
        .route("/account/members/invite", post(members::invite))
        .route("/account/members/{id}/role", post(members::role))
        .route("/account/members/{id}/remove", get(members::confirm_remove).post(members::remove))
        .route("/sites", get(sites::list).post(sites::add))
        .route("/sites/{id}", get(sites::show))
        .route("/sites/{id}/verify", post(sites::verify))
        .route("/sites/{id}/scans", post(sites::start_active))
        .route("/sites/{id}/journeys", post(sites::put_journey))
        .route("/sites/{id}/journeys/remove", post(sites::remove_journey))
        .route("/sites/{id}/secrets", post(sites::put_secret))
        .route("/sites/{id}/secrets/remove", post(sites::remove_secret))
        .route("/sites/{id}/schedules", post(sites::add_schedule))
        .route("/sites/{id}/schedules/remove", post(sites::remove_schedule))
        .route("/sites/{id}/monitors", post(sites::add_monitor))
        .route("/sites/{id}/monitors/remove", post(sites::remove_monitor))
        .route("/sites/{id}/budget", post(sites::set_budget))
        .route("/sites/{id}/level", post(sites::set_level))
        .route("/settings/webhooks", get(webhooks::list).post(webhooks::add))
        .route("/settings/webhooks/{id}/test", post(webhooks::test))
        .route("/settings/webhooks/{id}/remove", post(webhooks::remove))
        .route("/assets/dashboard.css", get(assets::css))
        .route("/assets/dashboard.js", get(assets::js))
        .route("/assets/favicon.svg", get(assets::favicon))
        .route("/assets/report.css", get(assets::report_css))
        .route("/assets/report.js", get(assets::report_js))
        .layer(from_fn_with_state(state.clone(), security::origin))
        .layer(from_fn(security::html_errors))
        .layer(from_fn(security::headers))
        .layer(from_fn(security::compress))
        .with_state(state)
}
