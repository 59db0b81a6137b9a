//! Journey screenshots: the PNGs an active scan's journeys took, kept with the scan and read
//! only by its organisation (the dashboard's report page shows them).

use super::{Store, decode};
use super::error::StoreResult;
use sea_orm::ConnectionTrait;
use uuid::Uuid;

/// A stored screenshot, without its bytes.
#[derive(Debug, Clone, PartialEq, Eq, sea_orm::FromQueryResult)]
pub struct ScreenshotRow {
    pub id: Uuid,
    pub scan_id: Uuid,
    /// The journey's name and the step's index, as the findings' evidence gives them.
    pub journey: String,
    pub step: i32,
    /// The screenshot's name (a `screenshot` step's, or `step-N-failed` / `step-N-timeout`).
    pub name: String,
    pub bytes: i64,
    pub created_at: i64,
}


impl Store {
    /// Keeps a journey step's screenshot; a step already stored for the scan (a scan run again
    /// after a lost lease) keeps its first picture.
    pub async fn insert_journey_screenshot(
        &self,
        scan_id: Uuid,
        org: &str,
        journey: &str,
        step: i32,
        name: &str,
        png: Vec<u8>,
        now: i64,
    ) -> StoreResult<()> {
        let stmt = self.stmt(
            "INSERT INTO journey_screenshots (id, scan_id, org_id, journey, step, name, png, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING",
            vec![Uuid::now_v7().into(), scan_id.into(), org.into(), journey.into(), step.into(), name.into(), png.into(), now.into()],
        );
        self.conn().execute_raw(stmt).await?;
        Ok(())
    }

    /// The scan's screenshots in journey and step order; empty for another organisation's scan.
    pub async fn list_journey_screenshots(&self, org: &str, scan_id: Uuid) -> StoreResult<Vec<ScreenshotRow>> {
        let stmt = self.stmt(
            "SELECT id, scan_id, journey, step, name, CAST(LENGTH(png) AS BIGINT) AS bytes, created_at FROM journey_screenshots \
             WHERE scan_id = $1 AND org_id = $2 ORDER BY created_at, journey, step",
            vec![scan_id.into(), org.into()],
        );
        self.conn().query_all_raw(stmt).await?.iter().map(decode).collect()
    }

    /// One screenshot's PNG; `None` when it is not the organisation's or not this scan's.
    pub async fn journey_screenshot_png(&self, org: &str, scan_id: Uuid, id: Uuid) -> StoreResult<Option<Vec<u8>>> {
        let stmt = self.stmt(
            "SELECT png FROM journey_screenshots WHERE id = $1 AND scan_id = $2 AND org_id = $3",
            vec![id.into(), scan_id.into(), org.into()],
        );
        match self.conn().query_one_raw(stmt).await? {
            Some(row) => Ok(Some(row.try_get("", "png")?)),
            None => Ok(None),
        }
    }
}
