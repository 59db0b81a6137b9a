//! What an endpoint receives: `standard` (Standard Webhooks JSON, signed) or one chat
//! platform's incoming-webhook message (unsigned: the platform's URL carries its own secret).

use super::message::ChatMessage;
use serde_json::Value;
use std::fmt;
use std::str::FromStr;

/// An endpoint's kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum WebhookKind {
    /// Standard Webhooks JSON, signed with `webhook-id`, `webhook-timestamp`, `webhook-signature`.
    #[default]
    Standard,
    /// A Slack incoming webhook (Block Kit).
    Slack,
    /// A Microsoft Teams workflow or incoming webhook (an Adaptive Card).
    Teams,
    /// A Discord channel webhook (embeds).
    Discord,
    /// A Google Chat space webhook (`cardsV2`).
    GoogleChat,
}

/// The text was not one of the kinds.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown webhook kind {0:?}: expected one of standard, slack, teams, discord, google-chat")]
pub struct UnknownKind(pub String);

impl WebhookKind {
    /// Every kind, in the order the dashboard lists them.
    pub const ALL: [WebhookKind; 5] =
        [WebhookKind::Standard, WebhookKind::Slack, WebhookKind::Teams, WebhookKind::Discord, WebhookKind::GoogleChat];

    /// The stored and typed spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            WebhookKind::Standard => "standard",
            WebhookKind::Slack => "slack",
            WebhookKind::Teams => "teams",
            WebhookKind::Discord => "discord",
            WebhookKind::GoogleChat => "google-chat",
        }
    }

    /// The name people know it by.
    pub const fn label(self) -> &'static str {
        match self {
            WebhookKind::Standard => "Standard Webhooks (signed JSON)",
            WebhookKind::Slack => "Slack",
            WebhookKind::Teams => "Microsoft Teams",
            WebhookKind::Discord => "Discord",
            WebhookKind::GoogleChat => "Google Chat",
        }
    }

    /// Whether messages carry the Standard Webhooks signature headers (only `standard`: a
    /// chat platform's URL is its own secret, and the platform ignores or refuses the headers).
    pub const fn is_signed(self) -> bool {
        matches!(self, WebhookKind::Standard)
    }

    /// Reads a stored kind; a row written by a newer version with a kind this one does not know
    /// is delivered as `standard` (signed, the event as it is), never dropped.
    pub fn from_stored(s: &str) -> WebhookKind {
        s.parse().unwrap_or_default()
    }

    /// `url` as lists show it: whole for `standard`; for a chat kind, whose URL holds the
    /// platform's secret, only the scheme, host and first path segment (`https://hooks.slack.com/services/…`).
    pub fn shown_url(self, url: &str) -> String {
        // A parsed URL never ends in a raw ellipsis: one that does is shown already.
        if self.is_signed() || url.ends_with('…') {
            return url.to_string();
        }
        match url::Url::parse(url) {
            Ok(u) => {
                let first = u.path_segments().and_then(|mut s| s.next()).filter(|s| !s.is_empty());
                let port = u.port().map(|p| format!(":{p}")).unwrap_or_default();
                match first {
                    Some(seg) => format!("{}://{}{port}/{seg}/…", u.scheme(), u.host_str().unwrap_or_default()),
                    None => format!("{}://{}{port}/…", u.scheme(), u.host_str().unwrap_or_default()),
                }
            }
            Err(_) => "…".to_string(),
        }
    }

    /// The platform's payload for `message`; `None` for `standard` (the event is sent as it is).
    pub fn payload(self, message: &ChatMessage) -> Option<Value> {
        match self {
            WebhookKind::Standard => None,
            WebhookKind::Slack => Some(super::slack::payload(message)),
            WebhookKind::Teams => Some(super::teams::payload(message)),
            WebhookKind::Discord => Some(super::discord::payload(message)),
            WebhookKind::GoogleChat => Some(super::google_chat::payload(message)),
        }
    }
}

impl fmt::Display for WebhookKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for WebhookKind {
    type Err = UnknownKind;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        WebhookKind::ALL.into_iter().find(|k| k.as_str() == s).ok_or_else(|| UnknownKind(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_and_unknown_ones_are_refused() {
        for k in WebhookKind::ALL {
            assert_eq!(k.as_str().parse::<WebhookKind>().unwrap(), k);
        }
        assert_eq!("msteams".parse::<WebhookKind>().unwrap_err(), UnknownKind("msteams".into()));
        assert_eq!(WebhookKind::from_stored("pager"), WebhookKind::Standard, "an unknown stored kind stays signed");
        assert!(WebhookKind::Standard.is_signed());
        assert!(WebhookKind::ALL[1..].iter().all(|k| !k.is_signed()));
    }

    #[test]
    fn a_chat_url_is_shown_without_its_secret_part() {
        let slack = "https://hooks.slack.com/services/T000/B000/XXXXSECRET";
        assert_eq!(WebhookKind::Slack.shown_url(slack), "https://hooks.slack.com/services/…");
        assert_eq!(WebhookKind::Standard.shown_url(slack), slack);
        assert_eq!(WebhookKind::Discord.shown_url("http://127.0.0.1:8080/api/webhooks/1/tok"), "http://127.0.0.1:8080/api/…");
        for shown in ["http://127.0.0.1:8080/…", "https://hooks.slack.com/services/…"] {
            assert_eq!(WebhookKind::Teams.shown_url(shown), shown, "showing a shown URL changes nothing");
        }
    }
}
