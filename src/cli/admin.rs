//! `sitescan token ...`, `sitescan org set`, `sitescan migrate`.

use super::args::{DatabaseArgs, OrgCommand, TokenCommand};
use crate::store::{Store, time::to_rfc3339};
use anyhow::Context;

async fn open(db: &DatabaseArgs) -> anyhow::Result<Store> {
    Store::open(&db.database, true).await.with_context(|| format!("opening the database {}", redact(&db.database)))
}

/// A database URL without its password, for messages.
pub fn redact(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) if u.password().is_some() => {
            let _ = u.set_password(Some("***"));
            u.to_string()
        }
        _ => url.to_string(),
    }
}

pub async fn token(cmd: TokenCommand) -> anyhow::Result<()> {
    match cmd {
        TokenCommand::Create { org, name, scope, db } => {
            validate_org(&org)?;
            let store = open(&db).await?;
            let (plaintext, token) = store.create_token(&org, name.as_deref(), &scope).await?;
            eprintln!("created token {} for organisation {} with scopes {}", token.id, token.org_id, token.scopes);
            eprintln!("store it now: it is not shown again");
            println!("{plaintext}");
        }
        TokenCommand::List { org, db } => {
            let store = open(&db).await?;
            let tokens = store.list_tokens(&org).await?;
            println!("{:<36}  {:<20}  {:<23}  {:<27}  {:<27}  REVOKED", "ID", "NAME", "SCOPES", "CREATED", "LAST USED");
            for t in tokens {
                println!(
                    "{:<36}  {:<20}  {:<23}  {:<27}  {:<27}  {}",
                    t.id,
                    t.name.as_deref().unwrap_or("-"),
                    t.scopes,
                    to_rfc3339(t.created_at),
                    t.last_used_at.map_or("-".to_string(), to_rfc3339),
                    t.revoked_at.map_or("-".to_string(), to_rfc3339),
                );
            }
        }
        TokenCommand::Revoke { id_or_token, db } => {
            let store = open(&db).await?;
            let token = store.revoke_token(id_or_token.trim()).await.context("revoking the token")?;
            eprintln!("revoked token {} of organisation {}", token.id, token.org_id);
        }
    }
    Ok(())
}

pub async fn org(cmd: OrgCommand) -> anyhow::Result<()> {
    match cmd {
        OrgCommand::Set { org, monthly_scan_quota, db } => {
            validate_org(&org)?;
            if monthly_scan_quota.is_some_and(|q| q < 0) {
                anyhow::bail!("--monthly-scan-quota must be 0 or more");
            }
            let store = open(&db).await?;
            let row = store.set_org(&org, monthly_scan_quota).await?;
            eprintln!("organisation {} has a monthly scan quota of {}", row.id, row.monthly_scan_quota);
        }
    }
    Ok(())
}

pub async fn migrate(db: DatabaseArgs) -> anyhow::Result<()> {
    let applied = crate::store::migrate(&db.database).await.context("migrating")?;
    eprintln!("{applied} migration(s) applied to {}", redact(&db.database));
    Ok(())
}

fn validate_org(org: &str) -> anyhow::Result<()> {
    let ok = !org.is_empty()
        && org.len() <= 100
        && org.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    anyhow::ensure!(ok, "organisation names are 1-100 characters of letters, digits, '-', '_' and '.'");
    Ok(())
}
