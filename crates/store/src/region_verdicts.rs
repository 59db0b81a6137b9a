//! Region verdicts kept per site across scans (`scan::region_cache` decides what and when):
//! rows by organisation, origin and region fingerprint, bounded per site and expired by last use.

use super::Store;
use super::error::StoreResult;
use sea_orm::{ConnectionTrait, Value};

/// Rows written by one statement (7 values each).
const INSERT_BATCH: usize = 200;
/// Fingerprints listed in one statement.
const LIST_BATCH: usize = 500;

/// Entries at least this long are kept compressed (`pack`).
const PACK_FROM: usize = 256;
/// The mark of a compressed entry (an entry as given is JSON: it starts with `{` or `[`).
const PACKED: &str = "z:";
/// Bytes an entry may unpack to at most (a scan keeps none larger than 1 MiB).
const MAX_UNPACKED: u64 = 4 << 20;

/// An entry as stored: deflated and base64-encoded behind `PACKED` when that is shorter (JSON
/// findings shrink to about a tenth), else as given.
fn pack(entry: &str) -> std::borrow::Cow<'_, str> {
    use base64::Engine;
    use std::io::Write;
    if entry.len() < PACK_FROM {
        return entry.into();
    }
    let mut z = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    match z.write_all(entry.as_bytes()).and_then(|()| z.finish()) {
        Ok(bytes) if bytes.len() * 4 / 3 + PACKED.len() < entry.len() => format!("{PACKED}{}", base64::engine::general_purpose::STANDARD.encode(bytes)).into(),
        _ => entry.into(),
    }
}

/// An entry as `pack` stored it; `None` when it does not unpack (it is then left out).
fn unpack(stored: &str) -> Option<String> {
    use base64::Engine;
    use std::io::Read;
    let Some(packed) = stored.strip_prefix(PACKED) else { return Some(stored.to_string()) };
    let bytes = base64::engine::general_purpose::STANDARD.decode(packed).ok()?;
    let mut out = String::new();
    flate2::read::DeflateDecoder::new(bytes.as_slice()).take(MAX_UNPACKED).read_to_string(&mut out).ok()?;
    Some(out)
}

pub use crate::model::crawl_store::{VerdictBounds, VerdictSite};

impl Store {
    /// The site's verdicts of its generation, most recently used first, within `bounds`:
    /// (fingerprint, findings as JSON text).
    pub async fn region_verdicts(&self, site: VerdictSite<'_>, bounds: VerdictBounds, now: i64) -> StoreResult<Vec<(String, String)>> {
        let stmt = self.stmt(
            "SELECT fp, entry, bytes FROM region_verdicts WHERE org_id = $1 AND origin = $2 AND generation = $3 AND used_at >= $4 \
             ORDER BY used_at DESC LIMIT $5",
            vec![
                site.org_id.into(),
                site.origin.into(),
                site.generation.into(),
                (now - bounds.expiry_us).into(),
                (bounds.max_entries as i64).into(),
            ],
        );
        let mut out = Vec::new();
        let mut bytes = 0u64;
        for row in self.conn().query_all_raw(stmt).await? {
            let size = row.try_get::<i64>("", "bytes")?.max(0) as u64;
            if bytes + size > bounds.max_bytes {
                break;
            }
            bytes += size;
            if let Some(entry) = unpack(&row.try_get::<String>("", "entry")?) {
                out.push((row.try_get::<String>("", "fp")?, entry));
            }
        }
        Ok(out)
    }

    /// Keeps what a scan of the site judged for the first time (`fresh`), marks the verdicts it
    /// gave back again (`used`) as used at `now`, then drops what another generation left, what
    /// expired, and the least recently used past the site's bounds.
    pub async fn save_region_verdicts(
        &self,
        site: VerdictSite<'_>,
        fresh: &[(String, String)],
        used: &[String],
        bounds: VerdictBounds,
        now: i64,
    ) -> StoreResult<()> {
        for chunk in fresh.chunks(INSERT_BATCH) {
            let mut values: Vec<Value> = Vec::with_capacity(chunk.len() * 7);
            let mut rows = Vec::with_capacity(chunk.len());
            for (i, (fp, entry)) in chunk.iter().enumerate() {
                let entry = pack(entry);
                let b = i * 7;
                rows.push(format!("(${}, ${}, ${}, ${}, ${}, ${}, ${})", b + 1, b + 2, b + 3, b + 4, b + 5, b + 6, b + 7));
                values.extend([
                    site.org_id.into(),
                    site.origin.into(),
                    fp.as_str().into(),
                    site.generation.into(),
                    entry.as_ref().into(),
                    (entry.len() as i64).into(),
                    now.into(),
                ]);
            }
            let sql = format!(
                "INSERT INTO region_verdicts (org_id, origin, fp, generation, entry, bytes, used_at) VALUES {} \
                 ON CONFLICT (org_id, origin, fp) DO UPDATE SET generation = excluded.generation, entry = excluded.entry, \
                 bytes = excluded.bytes, used_at = excluded.used_at",
                rows.join(", ")
            );
            self.conn().execute_raw(self.stmt(&sql, values)).await?;
        }
        for chunk in used.chunks(LIST_BATCH) {
            let mut values: Vec<Value> = vec![site.org_id.into(), site.origin.into(), site.generation.into(), now.into()];
            let list: Vec<String> = (0..chunk.len()).map(|i| format!("${}", i + 5)).collect();
            values.extend(chunk.iter().map(|fp| Value::from(fp.as_str())));
            let sql = format!(
                "UPDATE region_verdicts SET used_at = $4 WHERE org_id = $1 AND origin = $2 AND generation = $3 AND fp IN ({})",
                list.join(", ")
            );
            self.conn().execute_raw(self.stmt(&sql, values)).await?;
        }
        self.prune_region_verdicts(site, bounds, now).await
    }

    async fn prune_region_verdicts(&self, site: VerdictSite<'_>, bounds: VerdictBounds, now: i64) -> StoreResult<()> {
        self.conn()
            .execute_raw(self.stmt(
                "DELETE FROM region_verdicts WHERE org_id = $1 AND origin = $2 AND (generation <> $3 OR used_at < $4)",
                vec![site.org_id.into(), site.origin.into(), site.generation.into(), (now - bounds.expiry_us).into()],
            ))
            .await?;
        let rows = self
            .conn()
            .query_all_raw(self.stmt(
                "SELECT fp, bytes FROM region_verdicts WHERE org_id = $1 AND origin = $2 ORDER BY used_at DESC, fp",
                vec![site.org_id.into(), site.origin.into()],
            ))
            .await?;
        let mut bytes = 0u64;
        let mut drop = Vec::new();
        for (i, row) in rows.iter().enumerate() {
            bytes += row.try_get::<i64>("", "bytes")?.max(0) as u64;
            if i >= bounds.max_entries || bytes > bounds.max_bytes {
                drop.push(row.try_get::<String>("", "fp")?);
            }
        }
        for chunk in drop.chunks(LIST_BATCH) {
            let mut values: Vec<Value> = vec![site.org_id.into(), site.origin.into()];
            let list: Vec<String> = (0..chunk.len()).map(|i| format!("${}", i + 3)).collect();
            values.extend(chunk.iter().map(|fp| Value::from(fp.as_str())));
            let sql = format!("DELETE FROM region_verdicts WHERE org_id = $1 AND origin = $2 AND fp IN ({})", list.join(", "));
            self.conn().execute_raw(self.stmt(&sql, values)).await?;
        }
        Ok(())
    }

    /// Drops every verdict not used since `cutoff_us`, whatever its site (the retention sweep:
    /// sites no longer scanned). Returns the rows dropped.
    pub async fn expire_region_verdicts(&self, cutoff_us: i64) -> StoreResult<u64> {
        Ok(self.conn().execute_raw(self.stmt("DELETE FROM region_verdicts WHERE used_at < $1", vec![cutoff_us.into()])).await?.rows_affected())
    }

    /// (rows, bytes of findings) kept for the site.
    pub async fn region_verdict_usage(&self, org_id: &str, origin: &str) -> StoreResult<(u64, u64)> {
        let row = self
            .conn()
            .query_one_raw(self.stmt(
                "SELECT COUNT(*) AS n, CAST(COALESCE(SUM(bytes), 0) AS BIGINT) AS b FROM region_verdicts WHERE org_id = $1 AND origin = $2",
                vec![org_id.into(), origin.into()],
            ))
            .await?;
        Ok(match row {
            Some(r) => (r.try_get::<i64>("", "n")?.max(0) as u64, r.try_get::<i64>("", "b")?.max(0) as u64),
            None => (0, 0),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_stored_compressed_and_read_back_as_they_were() {
        let entry = format!("{{\"rules\":[{}]}}", (0..200).map(|i| format!("{{\"id\":\"color-contrast\",\"target\":\"#item-{i}\"}}")).collect::<Vec<_>>().join(","));
        let stored = pack(&entry);
        assert!(stored.starts_with(PACKED) && stored.len() * 5 < entry.len(), "{} bytes stored for {}", stored.len(), entry.len());
        assert_eq!(unpack(&stored).as_deref(), Some(entry.as_str()));
        // Short entries, and entries kept before compression, are read as they are.
        assert_eq!(pack("{\"rules\":{}}"), "{\"rules\":{}}");
        assert_eq!(unpack("{\"rules\":{}}").as_deref(), Some("{\"rules\":{}}"));
        assert_eq!(unpack("z:not base64!"), None);
    }

    fn site(generation: &str) -> VerdictSite<'_> {
        VerdictSite { org_id: "acme", origin: "http://127.0.0.1:8080", generation }
    }

    const BOUNDS: VerdictBounds = VerdictBounds { max_entries: 3, max_bytes: 1000, expiry_us: 1_000_000 };

    fn fresh(fps: &[&str]) -> Vec<(String, String)> {
        fps.iter().map(|fp| (fp.to_string(), format!("{{\"rules\":{{\"{fp}\":1}}}}"))).collect()
    }

    #[tokio::test]
    async fn verdicts_round_trip_per_site_and_generation() {
        let store = Store::open("sqlite::memory:", true).await.unwrap();
        store.save_region_verdicts(site("g1"), &fresh(&["a", "b"]), &[], BOUNDS, 10).await.unwrap();
        let got = store.region_verdicts(site("g1"), BOUNDS, 20).await.unwrap();
        assert_eq!(got.len(), 2);
        assert!(store.region_verdicts(site("g2"), BOUNDS, 20).await.unwrap().is_empty(), "another generation is never given back");
        let other = VerdictSite { origin: "http://127.0.0.1:8081", ..site("g1") };
        assert!(store.region_verdicts(other, BOUNDS, 20).await.unwrap().is_empty(), "another origin");
        let other_org = VerdictSite { org_id: "evil", ..site("g1") };
        assert!(store.region_verdicts(other_org, BOUNDS, 20).await.unwrap().is_empty(), "another organisation");
        // A new generation's save drops the old generation's rows.
        store.save_region_verdicts(site("g2"), &fresh(&["c"]), &[], BOUNDS, 30).await.unwrap();
        assert_eq!(store.region_verdict_usage("acme", "http://127.0.0.1:8080").await.unwrap().0, 1);
    }

    #[tokio::test]
    async fn the_least_recently_used_go_first_and_old_ones_expire() {
        let store = Store::open("sqlite::memory:", true).await.unwrap();
        store.save_region_verdicts(site("g"), &fresh(&["a", "b", "c"]), &[], BOUNDS, 10).await.unwrap();
        // `a` given back again later; `d` and `e` new: the bound of 3 keeps a, d, e.
        store.save_region_verdicts(site("g"), &fresh(&["d", "e"]), &["a".to_string()], BOUNDS, 20).await.unwrap();
        let mut got: Vec<String> = store.region_verdicts(site("g"), BOUNDS, 20).await.unwrap().into_iter().map(|(fp, _)| fp).collect();
        got.sort();
        assert_eq!(got, ["a", "d", "e"]);
        // Past the expiry nothing is given back, and the next save drops them.
        assert!(store.region_verdicts(site("g"), BOUNDS, 20 + BOUNDS.expiry_us + 1).await.unwrap().is_empty());
        store.save_region_verdicts(site("g"), &[], &[], BOUNDS, 20 + BOUNDS.expiry_us + 1).await.unwrap();
        assert_eq!(store.region_verdict_usage("acme", "http://127.0.0.1:8080").await.unwrap(), (0, 0));
        // Bytes bound too, on what is stored: entries that do not compress.
        let noise = |seed: u64| {
            let mut x = seed | 1;
            (0..400).map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                char::from(b'0' + (x % 64) as u8)
            }).collect::<String>()
        };
        let big: Vec<(String, String)> = (0..5).map(|i| (format!("big{i}"), noise(i + 1))).collect();
        assert!(big.iter().all(|(_, e)| pack(e).len() == 400), "the entries are stored as they are");
        store.save_region_verdicts(site("g"), &big, &[], BOUNDS, 100).await.unwrap();
        let (rows, bytes) = store.region_verdict_usage("acme", "http://127.0.0.1:8080").await.unwrap();
        assert!(rows <= 2 && bytes <= 1000, "{rows} rows, {bytes} bytes");
        assert_eq!(store.expire_region_verdicts(101).await.unwrap(), rows);
    }
}

