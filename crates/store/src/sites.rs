//! Sites: an organisation's origins, their ownership state, the journeys and (encrypted) secrets
//! stored for them, and the attestation recorded with each active scan.

use super::{Store, decode};
use super::error::StoreResult;
use sea_orm::ConnectionTrait;
use uuid::Uuid;

/// A site as stored.
#[derive(Debug, Clone, PartialEq, Eq, sea_orm::FromQueryResult)]
pub struct SiteRow {
    pub id: Uuid,
    pub org_id: String,
    /// `scheme://host[:port]`, no path.
    pub origin: String,
    pub hostname: String,
    pub verification_token: String,
    /// When ownership was last proved (`None`: never, or lost since).
    pub verified_at: Option<i64>,
    /// `file`, `meta` or `dns`.
    pub verified_method: Option<String>,
    pub last_checked_at: Option<i64>,
    /// Why the last verification failed.
    pub last_error: Option<String>,
    pub created_by: String,
    pub created_at: i64,
    /// The budget document as its owner wrote it (validated when set); `None`: no budget.
    pub budget: Option<String>,
    /// The WCAG conformance level its scans judge against (`A`, `AA`, `AAA`); `None`: the
    /// default, AA.
    pub level: Option<String>,
}

impl SiteRow {
    pub fn verified(&self) -> bool {
        self.verified_at.is_some()
    }

    /// The conformance level its scans take (`None`: the default).
    pub fn level(&self) -> Option<crate::model::Level> {
        self.level.as_deref().and_then(|l| l.parse().ok())
    }
}

/// A journey as stored (its definition is the uploaded JSON, validated on upload).
#[derive(Debug, Clone, PartialEq, Eq, sea_orm::FromQueryResult)]
pub struct JourneyRow {
    pub id: Uuid,
    pub site_id: Uuid,
    pub name: String,
    pub definition: String,
    pub created_at: i64,
}

/// A secret's name and when it was set (its value never leaves [`Store::site_secret_values`]).
#[derive(Debug, Clone, PartialEq, Eq, sea_orm::FromQueryResult)]
pub struct StoredSecret {
    pub name: String,
    pub created_at: i64,
}

/// The attestation recorded with an active scan.
#[derive(Debug, Clone, PartialEq, Eq, sea_orm::FromQueryResult)]
pub struct AttestationRow {
    pub scan_id: Uuid,
    pub site_id: Uuid,
    pub actor: String,
    pub client_addr: Option<String>,
    pub statement: String,
    pub attested_at: i64,
}

const SITE_COLUMNS: &str = "id, org_id, origin, hostname, verification_token, verified_at, verified_method, \
     last_checked_at, last_error, created_by, created_at, budget, level";



impl Store {
    /// Adds a site; `None` when the organisation already has this origin.
    pub async fn add_site(
        &self,
        org: &str,
        origin: &str,
        hostname: &str,
        token: &str,
        created_by: &str,
        now: i64,
    ) -> StoreResult<Option<SiteRow>> {
        let id = Uuid::now_v7();
        let stmt = self.stmt(
            "INSERT INTO sites (id, org_id, origin, hostname, verification_token, created_by, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING",
            vec![id.into(), org.into(), origin.into(), hostname.into(), token.into(), created_by.into(), now.into()],
        );
        if self.conn().execute_raw(stmt).await?.rows_affected() == 0 {
            return Ok(None);
        }
        self.site(org, id).await
    }

    /// One site of the organisation (`None` for another organisation's).
    pub async fn site(&self, org: &str, id: Uuid) -> StoreResult<Option<SiteRow>> {
        let stmt = self.stmt(
            &format!("SELECT {SITE_COLUMNS} FROM sites WHERE id = $1 AND org_id = $2"),
            vec![id.into(), org.into()],
        );
        self.conn().query_one_raw(stmt).await?.as_ref().map(decode).transpose()
    }

    /// A site whatever its organisation (workers, schedulers).
    pub async fn site_any_org(&self, id: Uuid) -> StoreResult<Option<SiteRow>> {
        let stmt = self.stmt(&format!("SELECT {SITE_COLUMNS} FROM sites WHERE id = $1"), vec![id.into()]);
        self.conn().query_one_raw(stmt).await?.as_ref().map(decode).transpose()
    }

    /// The organisation's site with this origin.
    pub async fn site_by_origin(&self, org: &str, origin: &str) -> StoreResult<Option<SiteRow>> {
        let stmt = self.stmt(
            &format!("SELECT {SITE_COLUMNS} FROM sites WHERE org_id = $1 AND origin = $2"),
            vec![org.into(), origin.into()],
        );
        self.conn().query_one_raw(stmt).await?.as_ref().map(decode).transpose()
    }

    /// The organisation's sites, by origin.
    pub async fn list_sites(&self, org: &str) -> StoreResult<Vec<SiteRow>> {
        let stmt = self.stmt(
            &format!("SELECT {SITE_COLUMNS} FROM sites WHERE org_id = $1 ORDER BY origin, id"),
            vec![org.into()],
        );
        self.conn().query_all_raw(stmt).await?.iter().map(decode).collect()
    }

    /// Records a verification: proved by `method`, or failed with `error` (which clears the
    /// proof: a site that lost ownership shows as unverified).
    pub async fn record_site_verification(
        &self,
        id: Uuid,
        outcome: Result<&str, &str>,
        now: i64,
    ) -> StoreResult<()> {
        let stmt = match outcome {
            Ok(method) => self.stmt(
                "UPDATE sites SET verified_at = $1, verified_method = $2, last_checked_at = $1, last_error = NULL \
                 WHERE id = $3",
                vec![now.into(), method.into(), id.into()],
            ),
            Err(error) => self.stmt(
                "UPDATE sites SET verified_at = NULL, verified_method = NULL, last_checked_at = $1, last_error = $2 \
                 WHERE id = $3",
                vec![now.into(), error.into(), id.into()],
            ),
        };
        self.conn().execute_raw(stmt).await?;
        Ok(())
    }

    /// Sets the organisation's site's budget document (`None` removes it); `false` when the
    /// organisation has no such site.
    pub async fn set_site_budget(&self, org: &str, id: Uuid, budget: Option<&str>) -> StoreResult<bool> {
        let stmt = self.stmt(
            "UPDATE sites SET budget = $1 WHERE id = $2 AND org_id = $3",
            vec![budget.map(str::to_string).into(), id.into(), org.into()],
        );
        Ok(self.conn().execute_raw(stmt).await?.rows_affected() == 1)
    }

    /// Sets the organisation's site's conformance level (`None`: back to the default); `false`
    /// when the organisation has no such site.
    pub async fn set_site_level(&self, org: &str, id: Uuid, level: Option<crate::model::Level>) -> StoreResult<bool> {
        let stmt = self.stmt(
            "UPDATE sites SET level = $1 WHERE id = $2 AND org_id = $3",
            vec![level.map(|l| l.as_str().to_string()).into(), id.into(), org.into()],
        );
        Ok(self.conn().execute_raw(stmt).await?.rows_affected() == 1)
    }

    /// Removes a site and everything stored for it (journeys, secrets, schedules, monitors);
    /// its scans stay. `false` when the organisation had no such site.
    pub async fn remove_site(&self, org: &str, id: Uuid) -> StoreResult<bool> {
        let Some(_) = self.site(org, id).await? else { return Ok(false) };
        for table in ["journeys", "site_secrets", "schedules", "monitors"] {
            let stmt = self.stmt(&format!("DELETE FROM {table} WHERE site_id = $1"), vec![id.into()]);
            self.conn().execute_raw(stmt).await?;
        }
        let stmt = self.stmt("DELETE FROM sites WHERE id = $1 AND org_id = $2", vec![id.into(), org.into()]);
        Ok(self.conn().execute_raw(stmt).await?.rows_affected() == 1)
    }

    /// Stores (or replaces) a journey by name.
    pub async fn put_journey(&self, site_id: Uuid, name: &str, definition: &str, now: i64) -> StoreResult<Uuid> {
        let delete = self.stmt("DELETE FROM journeys WHERE site_id = $1 AND name = $2", vec![site_id.into(), name.into()]);
        self.conn().execute_raw(delete).await?;
        let id = Uuid::now_v7();
        let stmt = self.stmt(
            "INSERT INTO journeys (id, site_id, name, definition, created_at) VALUES ($1, $2, $3, $4, $5)",
            vec![id.into(), site_id.into(), name.into(), definition.into(), now.into()],
        );
        self.conn().execute_raw(stmt).await?;
        Ok(id)
    }

    /// The site's journeys, by name.
    pub async fn list_journeys(&self, site_id: Uuid) -> StoreResult<Vec<JourneyRow>> {
        let stmt = self.stmt(
            "SELECT id, site_id, name, definition, created_at FROM journeys WHERE site_id = $1 ORDER BY name",
            vec![site_id.into()],
        );
        self.conn().query_all_raw(stmt).await?.iter().map(decode).collect()
    }

    /// Removes a journey; `false` when the site had none by that name.
    pub async fn remove_journey(&self, site_id: Uuid, name: &str) -> StoreResult<bool> {
        let stmt = self.stmt("DELETE FROM journeys WHERE site_id = $1 AND name = $2", vec![site_id.into(), name.into()]);
        Ok(self.conn().execute_raw(stmt).await?.rows_affected() == 1)
    }

    /// Stores (or replaces) a secret, already encrypted by the caller.
    pub async fn put_site_secret(&self, site_id: Uuid, name: &str, value_enc: &str, now: i64) -> StoreResult<()> {
        let delete =
            self.stmt("DELETE FROM site_secrets WHERE site_id = $1 AND name = $2", vec![site_id.into(), name.into()]);
        self.conn().execute_raw(delete).await?;
        let stmt = self.stmt(
            "INSERT INTO site_secrets (site_id, name, value_enc, created_at) VALUES ($1, $2, $3, $4)",
            vec![site_id.into(), name.into(), value_enc.into(), now.into()],
        );
        self.conn().execute_raw(stmt).await?;
        Ok(())
    }

    /// The site's secret names (never their values).
    pub async fn list_site_secrets(&self, site_id: Uuid) -> StoreResult<Vec<StoredSecret>> {
        let stmt = self.stmt(
            "SELECT name, created_at FROM site_secrets WHERE site_id = $1 ORDER BY name",
            vec![site_id.into()],
        );
        self.conn()
            .query_all_raw(stmt)
            .await?
            .iter()
            .map(decode)
            .collect()
    }

    /// The site's secrets, still encrypted: (name, ciphertext). Only the scan worker asks.
    pub async fn site_secret_values(&self, site_id: Uuid) -> StoreResult<Vec<(String, String)>> {
        let stmt = self.stmt(
            "SELECT name, value_enc FROM site_secrets WHERE site_id = $1 ORDER BY name",
            vec![site_id.into()],
        );
        self.conn()
            .query_all_raw(stmt)
            .await?
            .iter()
            .map(|r| Ok((r.try_get("", "name")?, r.try_get("", "value_enc")?)))
            .collect()
    }

    /// Every site secret whose sealed value starts with `prefix` (a format): (site, name, value).
    pub async fn site_secrets_with_prefix(&self, prefix: &str) -> StoreResult<Vec<(Uuid, String, String)>> {
        let stmt = self.stmt(
            "SELECT site_id, name, value_enc FROM site_secrets WHERE value_enc LIKE $1 ORDER BY site_id, name",
            vec![format!("{prefix}%").into()],
        );
        self.conn()
            .query_all_raw(stmt)
            .await?
            .iter()
            .map(|r| Ok((r.try_get("", "site_id")?, r.try_get("", "name")?, r.try_get("", "value_enc")?)))
            .collect()
    }

    /// Replaces a secret's sealed value, only if it is still `old` (another instance may have
    /// done it already).
    pub async fn replace_site_secret_value(&self, site_id: Uuid, name: &str, old: &str, new: &str) -> StoreResult<bool> {
        let stmt = self.stmt(
            "UPDATE site_secrets SET value_enc = $1 WHERE site_id = $2 AND name = $3 AND value_enc = $4",
            vec![new.into(), site_id.into(), name.into(), old.into()],
        );
        Ok(self.conn().execute_raw(stmt).await?.rows_affected() == 1)
    }

    /// Removes a secret; `false` when the site had none by that name.
    pub async fn remove_site_secret(&self, site_id: Uuid, name: &str) -> StoreResult<bool> {
        let stmt =
            self.stmt("DELETE FROM site_secrets WHERE site_id = $1 AND name = $2", vec![site_id.into(), name.into()]);
        Ok(self.conn().execute_raw(stmt).await?.rows_affected() == 1)
    }

    /// The attestation recorded with a scan.
    pub async fn attestation(&self, scan_id: Uuid) -> StoreResult<Option<AttestationRow>> {
        let stmt = self.stmt(
            "SELECT scan_id, site_id, actor, client_addr, statement, attested_at FROM scan_attestations \
             WHERE scan_id = $1",
            vec![scan_id.into()],
        );
        self.conn().query_one_raw(stmt).await?.as_ref().map(decode).transpose()
    }
}
