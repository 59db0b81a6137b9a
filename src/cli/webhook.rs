//! `sitescan webhook add|list|remove|test`, and the delivery loop `serve` and `worker` run.

use super::Exit;
use super::admin::redact;
use super::args::{DatabaseArgs, SecretKeyArgs, WebhookCommand};
use crate::events::webhooks::{self, Deliverer, SystemClock};
use crate::events::{SecretBox, SecretError, WebhookKind};
use crate::model::AddressPolicy;
use crate::net::{EgressGuard, Fetcher, FetcherOptions};
use crate::store::Store;
use crate::store::time::{now_us, to_rfc3339};
use anyhow::Context;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How often the delivery loop looks for due messages.
pub const DELIVERY_POLL: Duration = Duration::from_secs(1);

async fn open(db: &DatabaseArgs) -> anyhow::Result<Store> {
    Store::open(&db.database, true).await.with_context(|| format!("opening the database {}", redact(&db.database)))
}

fn secret_box(key: &SecretKeyArgs) -> Result<SecretBox, SecretError> {
    SecretBox::from_env_or_file(key.secret_key_file.as_deref())
}

fn deliverer(store: Store, secrets: SecretBox, policy: AddressPolicy, dashboard: Option<url::Url>) -> anyhow::Result<Deliverer> {
    let fetcher = Fetcher::new(Arc::new(EgressGuard::new(policy)), FetcherOptions::default())?;
    Ok(Deliverer {
        store,
        fetcher: Arc::new(fetcher),
        secrets,
        clock: Arc::new(SystemClock),
        owner: crate::scan::worker::owner_id(0),
        breaker: crate::events::BreakerRule::default(),
        dashboard,
    })
}

/// Starts delivering webhooks in this process when a secret key is configured (without one,
/// no endpoint can have been added, so there is nothing to deliver; a bad key is an error).
/// Chat messages link to `dashboard` (the public URL) when there is one.
pub fn start_delivery(
    key: &SecretKeyArgs,
    policy: AddressPolicy,
    store: Store,
    dashboard: Option<url::Url>,
) -> anyhow::Result<Option<(CancellationToken, tokio::task::JoinHandle<()>)>> {
    let secrets = match secret_box(key) {
        Ok(s) => s,
        Err(SecretError::Missing) => {
            tracing::info!("no secret key: webhook delivery is off");
            return Ok(None);
        }
        Err(e) => return Err(e.into()),
    };
    let stop = CancellationToken::new();
    let handle = deliverer(store, secrets, policy, dashboard)?.spawn(DELIVERY_POLL, stop.clone());
    Ok(Some((stop, handle)))
}

pub async fn run(cmd: WebhookCommand) -> anyhow::Result<Exit> {
    match cmd {
        WebhookCommand::Add { org, url, events, min_severity, kind, key, db } => {
            let secrets = secret_box(&key).map_err(|e| anyhow::anyhow!("cannot enable webhooks: {e}"))?;
            let store = open(&db).await?;
            store.set_org(&org, None).await?;
            let (id, secret) = webhooks::add_endpoint_of_kind(&store, &secrets, &org, &url, kind, &events, min_severity, now_us()).await?;
            eprintln!("added {kind} webhook {id} for organisation {org}: {}", events.join(", "));
            match secret {
                Some(secret) => {
                    eprintln!("its signing secret follows; store it now: it is not shown again");
                    println!("{secret}");
                }
                None => eprintln!("{} messages are not signed: the URL is the platform's secret, keep it private", kind.label()),
            }
        }
        WebhookCommand::List { org, db } => {
            let store = open(&db).await?;
            println!("{:<36}  {:<11}  {:<8}  {:<40}  {:<27}  URL", "ID", "KIND", "ENABLED", "EVENTS", "CREATED");
            for w in store.list_webhooks(&org).await? {
                let enabled = if w.enabled { "yes".to_string() } else { "no".to_string() };
                let kind = WebhookKind::from_stored(&w.kind);
                let url = kind.shown_url(&w.url);
                println!("{:<36}  {:<11}  {:<8}  {:<40}  {:<27}  {url}", w.id, kind, enabled, w.events, to_rfc3339(w.created_at));
                if let Some(reason) = &w.disabled_reason {
                    println!("{:<36}  disabled: {reason}", "");
                }
            }
        }
        WebhookCommand::Remove { id, db } => {
            let store = open(&db).await?;
            if !store.remove_webhook(id).await? {
                eprintln!("no webhook {id}");
                return Ok(Exit::Failed);
            }
            eprintln!("removed webhook {id}");
        }
        WebhookCommand::Test { id, policy, key, db } => {
            let secrets = secret_box(&key).map_err(|e| anyhow::anyhow!("cannot send: {e}"))?;
            let store = open(&db).await?;
            let message = webhooks::send_test_unlimited(&store, id, now_us()).await?;
            let d = deliverer(store.clone(), secrets, AddressPolicy::new(policy.allow_target), None)?;
            d.run_once().await?;
            let log = store.webhook_deliveries(id).await?;
            match log.last() {
                Some(l) => {
                    let answer = l.status.map_or_else(|| l.error.clone().unwrap_or_default(), |s| format!("HTTP {s}"));
                    println!("test event {message}: {answer} in {} ms", l.latency_ms);
                    let delivered = l.status.is_some_and(|s| (200..300).contains(&s));
                    return Ok(if delivered { Exit::Clean } else { Exit::Failed });
                }
                None => {
                    println!("test event {message} queued");
                }
            }
        }
    }
    Ok(Exit::Clean)
}
