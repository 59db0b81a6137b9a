//! The dashboard and account area: server-rendered pages beside the API on the one port.
//! Pages take only the session cookie (never a bearer token); every state-changing form
//! carries a CSRF token; errors are HTML pages.

pub mod assets;
pub mod budget;
pub mod chart;
pub mod error;
pub mod forms;
pub mod pages;
pub mod router;
pub mod security;
pub mod session;
pub mod state;
pub mod templates;

pub use router::routes;
pub use state::{WebSettings, WebState};
