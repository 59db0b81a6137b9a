//! `sitescan site`: tokens to publish, and an organisation's sites (add, list, verify, remove,
//! journeys and secrets), over the same `sites::SiteService` as the dashboard and OwnerService.

use super::Exit;
use super::admin::open;
use super::args::{DatabaseArgs, OrgArgs, PolicyArgs, SecretKeyArgs, SiteCommand};
use crate::model::OrgId;
use crate::sites::{META_NAME, SiteError, SiteService, TXT_PREFIX, VERIFICATION_PATH};
use crate::model::time::to_rfc3339;

/// How to publish a token, for people.
fn publish_instructions(token: &str) -> String {
    format!(
        "Publish it by any one of:\n  - a file {VERIFICATION_PATH} whose body holds the token\n  - <meta name=\"{META_NAME}\" content=\"{token}\"> in the <head> of the start page\n  - a DNS TXT record on the host: {TXT_PREFIX}{token}"
    )
}

async fn service(policy: &PolicyArgs, key: Option<&SecretKeyArgs>, db: &DatabaseArgs) -> anyhow::Result<SiteService> {
    let none = SecretKeyArgs { secret_key_file: None };
    let app = super::engine::open_app(db, super::engine::app_config(policy, key.unwrap_or(&none), db, super::engine::KeyBeside::ReadIfThere)?).await?;
    Ok(app.sites().clone())
}

fn no_policy() -> PolicyArgs {
    PolicyArgs { allow_target: Vec::new(), dns_server: None }
}

/// Prints a refusal and picks the exit code: bad input and missing sites are usage errors.
pub(super) fn refused(e: SiteError) -> anyhow::Result<Exit> {
    match e {
        SiteError::Store(e) => Err(e.into()),
        other => {
            eprintln!("error: {other}");
            Ok(Exit::Failed)
        }
    }
}

pub async fn run(command: SiteCommand) -> anyhow::Result<Exit> {
    match command {
        SiteCommand::Token => {
            let token = crate::sites::new_token();
            println!("{token}");
            eprintln!("{}\nthen run: sitescan scan URL --active --verification-token {token}", publish_instructions(&token));
        }
        SiteCommand::Add { org, url, policy, db } => {
            let sites = service(&policy, None, &db).await?;
            let site = match sites.add(OrgId::new(&org), &url, "cli").await {
                Ok(s) => s,
                Err(e) => return refused(e),
            };
            eprintln!("added site {} ({}) to organisation {org}", site.origin, site.id);
            eprintln!("{}\nthen run: sitescan site verify --org {org} {}", publish_instructions(&site.verification_token), site.id);
            println!("{}", site.verification_token);
        }
        SiteCommand::List(OrgArgs { org, db }) => {
            let sites = open(&db).await?.sites().clone();
            println!("{:<36}  {:<10}  {:<27}  ORIGIN", "ID", "OWNERSHIP", "LAST CHECKED");
            for s in sites.list(OrgId::new(&org)).await? {
                let state = match &s.verified_method {
                    Some(m) if s.verified() => format!("yes ({m})"),
                    _ => "no".to_string(),
                };
                let checked = s.last_checked_at.map_or_else(|| "never".to_string(), to_rfc3339);
                println!("{:<36}  {:<10}  {:<27}  {}", s.id, state, checked, s.origin);
            }
        }
        SiteCommand::Verify { org, site, policy, db } => {
            let sites = service(&policy, None, &db).await?;
            let row = match sites.find(OrgId::new(&org), &site).await {
                Ok(r) => r,
                Err(e) => return refused(e),
            };
            match sites.verify(OrgId::new(&org), row.id).await {
                Ok((site, Ok(v))) => {
                    println!("verified {} by the {}", site.origin, v.method.describe());
                }
                Ok((site, Err(e))) => {
                    eprintln!("not verified: {e}");
                    eprintln!("{}", publish_instructions(&site.verification_token));
                    return Ok(Exit::Failed);
                }
                Err(e) => return refused(e),
            }
        }
        SiteCommand::Remove { org, site, db } => {
            let sites = service(&no_policy(), None, &db).await?;
            let row = match sites.find(OrgId::new(&org), &site).await {
                Ok(r) => r,
                Err(e) => return refused(e),
            };
            sites.remove(OrgId::new(&org), row.id).await?;
            eprintln!("removed site {} ({})", row.origin, row.id);
        }
        SiteCommand::Journey { org, site, file, db } => {
            let sites = service(&no_policy(), None, &db).await?;
            let text = std::fs::read_to_string(&file).map_err(|e| anyhow::anyhow!("reading {}: {e}", file.display()))?;
            let row = match sites.find(OrgId::new(&org), &site).await {
                Ok(r) => r,
                Err(e) => return refused(e),
            };
            match sites.put_journey(OrgId::new(&org), row.id, &text).await {
                Ok(j) => eprintln!("stored journey {:?} for {}", j.name, row.origin),
                Err(e) => return refused(e),
            }
        }
        SiteCommand::Secret { org, site, secret, key, db } => {
            let Some((name, path)) = secret.split_once("=@") else {
                eprintln!("error: give the secret as NAME=@FILE (the value is read from the file, never from the command line)");
                return Ok(Exit::Failed);
            };
            let value = std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("reading {path}: {e}"))?;
            let value = value.strip_suffix('\n').map(|v| v.strip_suffix('\r').unwrap_or(v)).unwrap_or(&value);
            let sites = service(&no_policy(), Some(&key), &db).await?;
            let row = match sites.find(OrgId::new(&org), &site).await {
                Ok(r) => r,
                Err(e) => return refused(e),
            };
            match sites.put_secret(OrgId::new(&org), row.id, name, value).await {
                Ok(stored) => eprintln!("stored secret {} for {} (encrypted; it is not shown again)", stored.name, row.origin),
                Err(e) => return refused(e),
            }
        }
    }
    Ok(Exit::Clean)
}
