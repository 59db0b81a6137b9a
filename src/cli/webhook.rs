//! `sitescan webhook add|list|remove|test`, and the delivery loop `serve` and `worker` run.

use super::Exit;
use super::args::{DatabaseArgs, IdArgs, OrgArgs, SecretKeyArgs, WebhookCommand};
use super::engine::{KeyBeside, open_app, secret_box};
use crate::app::{App, AppConfig};
use crate::events::{NewEndpoint, WebhookKind};
use crate::model::time::{now_us, to_rfc3339};
use crate::model::{AddressPolicy, OrgId};

/// Opens `--database` with the key of `--secret-key-file` (or `SITESCAN_SECRET_KEY`, or the key
/// file `serve` made beside an SQLite database), which must be there: `what` says what needs it.
async fn open_keyed(db: &DatabaseArgs, key: &SecretKeyArgs, policy: AddressPolicy, what: &str) -> anyhow::Result<App> {
    let secrets = secret_box(key, &db.database, KeyBeside::ReadIfThere).map_err(|e| anyhow::anyhow!("{what}: {e}"))?;
    anyhow::ensure!(
        secrets.is_some(),
        "{what}: no secret key: set {} or --secret-key-file (on SQLite, `serve` makes one beside the database on its first start)",
        crate::events::SECRET_KEY_ENV
    );
    open_app(db, AppConfig { policy, secrets, ..AppConfig::default() }).await
}

pub async fn run(cmd: WebhookCommand) -> anyhow::Result<Exit> {
    match cmd {
        WebhookCommand::Add { org, url, events, min_severity, kind, key, db } => {
            let app = open_keyed(&db, &key, AddressPolicy::default(), "cannot enable webhooks").await?;
            app.accounts().set_org(&org, None).await?;
            let (id, secret) = app.webhooks().add_by_operator(OrgId::new(&org), &NewEndpoint { url: &url, kind, events: &events, min_severity }, now_us()).await?;
            eprintln!("added {kind} webhook {id} for organisation {org}: {}", events.join(", "));
            match secret {
                Some(secret) => {
                    eprintln!("its signing secret follows; store it now: it is not shown again");
                    println!("{secret}");
                }
                None => eprintln!("{} messages are not signed: the URL is the platform's secret, keep it private", kind.label()),
            }
        }
        WebhookCommand::List(OrgArgs { org, db }) => {
            let app = super::admin::open(&db).await?;
            println!("{:<36}  {:<11}  {:<8}  {:<40}  {:<27}  URL", "ID", "KIND", "ENABLED", "EVENTS", "CREATED");
            for w in app.webhooks().list(OrgId::new(&org), 0).await?.into_iter().map(|e| e.row) {
                let enabled = if w.enabled { "yes".to_string() } else { "no".to_string() };
                let kind = WebhookKind::from_stored(&w.kind);
                let url = kind.shown_url(&w.url);
                println!("{:<36}  {:<11}  {:<8}  {:<40}  {:<27}  {url}", w.id, kind, enabled, w.events, to_rfc3339(w.created_at));
                if let Some(reason) = &w.disabled_reason {
                    println!("{:<36}  disabled: {reason}", "");
                }
            }
        }
        WebhookCommand::Remove(IdArgs { id, db }) => {
            let app = super::admin::open(&db).await?;
            if !app.webhooks().remove(None, id).await? {
                eprintln!("no webhook {id}");
                return Ok(Exit::Failed);
            }
            eprintln!("removed webhook {id}");
        }
        WebhookCommand::Test { id, policy, key, db } => {
            let policy = AddressPolicy::new(policy.allow_target);
            let app = open_keyed(&db, &key, policy.clone(), "cannot send").await?;
            let (message, last) = app.webhooks().send_test_now(id, now_us(), &app.deliverer(policy)?).await?;
            match last {
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
