//! `sitescan token ...`, `sitescan org set`, `sitescan migrate`.

use super::args::{DatabaseArgs, OrgArgs, OrgCommand, TokenCommand, UserCommand};
use crate::accounts::{IssueToken, Role, validate_org};
use crate::app::{App, AppConfig};
use crate::model::time::to_rfc3339;
use anyhow::Context;

/// Opens `--database` for a command that needs no policy or key.
pub(super) async fn open(db: &DatabaseArgs) -> anyhow::Result<App> {
    super::engine::open_app(db, AppConfig::default()).await
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
            let app = open(&db).await?;
            let (plaintext, token) = app.accounts().issue_token(IssueToken { org: &org, name: name.as_deref(), scopes: scope, ..Default::default() }).await?;
            eprintln!("created token {} for organisation {} with scopes {}", token.id, token.org_id, token.scopes);
            eprintln!("store it now: it is not shown again");
            println!("{plaintext}");
        }
        TokenCommand::List(OrgArgs { org, db }) => {
            let app = open(&db).await?;
            let tokens = app.accounts().tokens(&org).await?;
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
            let app = open(&db).await?;
            let token = app.accounts().revoke_any_token(&id_or_token).await.context("revoking the token")?;
            eprintln!("revoked token {} of organisation {}", token.id, token.org_id);
        }
    }
    Ok(())
}

pub async fn user(cmd: UserCommand) -> anyhow::Result<()> {
    match cmd {
        UserCommand::Create { org, email, role, password_stdin: _, password, db } => {
            anyhow::ensure!(
                password.is_none(),
                "a password on the command line is refused (it would leak into shell history and the process list): pipe it on stdin"
            );
            validate_org(&org)?;
            let role: Role = role.parse()?;
            let mut line = String::new();
            std::io::stdin().read_line(&mut line).context("reading the password from stdin")?;
            let password = line.trim_end_matches(['\n', '\r']);
            anyhow::ensure!(!password.is_empty(), "no password on stdin: pipe one line, e.g. `read -rs PW; printf '%s\\n' \"$PW\" | sitescan user create ...`");
            let app = open(&db).await?;
            let user = app.accounts().create_user(&org, &email, role, password).await?;
            eprintln!("created {} {} in organisation {}", user.role, user.email, user.org_id);
        }
        UserCommand::List(OrgArgs { org, db }) => {
            let app = open(&db).await?;
            println!("{:<40}  {:<6}  {:<27}  DISABLED", "EMAIL", "ROLE", "CREATED");
            for u in app.accounts().members(&org).await? {
                println!(
                    "{:<40}  {:<6}  {:<27}  {}",
                    u.email,
                    u.role.as_str(),
                    to_rfc3339(u.created_at),
                    u.disabled_at.map_or("-".to_string(), to_rfc3339)
                );
            }
        }
        UserCommand::Disable { email, db } => {
            let app = open(&db).await?;
            let user = app.accounts().disable(&email).await?;
            eprintln!("disabled {} of organisation {}; their sessions ended", user.email, user.org_id);
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
            let app = open(&db).await?;
            let row = app.accounts().set_org(&org, monthly_scan_quota).await?;
            eprintln!("organisation {} has a monthly scan quota of {}", row.id, row.monthly_scan_quota);
        }
    }
    Ok(())
}

pub async fn migrate(db: DatabaseArgs) -> anyhow::Result<()> {
    let applied = crate::app::operations::migrate(&db.database).await.context("migrating")?;
    eprintln!("{applied} migration(s) applied to {}", redact(&db.database));
    Ok(())
}
