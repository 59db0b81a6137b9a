//! Accounts: users with a role in one organisation, argon2id password hashing, single-use
//! invites, login throttling, and the one code path that issues API tokens (dashboard and CLI).

pub mod error;
pub mod invites;
pub mod password;
pub mod secret;
pub mod service;
pub mod sessions;
pub mod throttle;
pub mod tokens;
pub mod users;

pub use error::{AccountError, AccountResult};
pub use invites::{INVITE_TTL_US, Invite};
pub use service::{Accounts, validate_org};
pub use sessions::SignedIn;
pub use crate::model::Organisation;
pub use password::{MAX_PASSWORD_LEN, MIN_PASSWORD_LEN};
pub use throttle::Throttle;
pub use tokens::{IssueToken, issue_token};
pub use users::{MAX_EMAIL_LEN, Role, User};
