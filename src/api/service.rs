//! The one implementation of `sitescan.v1.ScanService`. gRPC calls it directly; the REST handlers
//! build the same request messages and call it in-process.

use super::auth::Admitted;
use super::convert::{finding_to_proto, mode_to_proto, report_to_proto, scan_to_proto, status_to_proto};
use super::error::ApiError;
use super::state::AppState;
use crate::model::{ScanMode, ScanReport, Severity, Target, TriggeredBy};
use crate::proto::google::api::HttpBody;
use crate::proto::v1 as pb;
use crate::store::{CreateOutcome, CursorKind, FindingFilter, Position};
use std::sync::Arc;
use tonic::{Request, Response, Status};
use uuid::Uuid;

/// Page size bounds of `ListScans`.
pub const SCANS_LIMIT: (i64, i64, i64) = (1, 50, 100);
/// Page size bounds of `ListFindings` (min, default, max).
pub const FINDINGS_LIMIT: (i64, i64, i64) = (1, 100, 200);
/// Media type of `GetScanReport` in HTML.
pub const REPORT_HTML_CONTENT_TYPE: &str = "text/html; charset=utf-8";
/// Media type of `GetScanReport` in SARIF.
pub const REPORT_SARIF_CONTENT_TYPE: &str = "application/sarif+json";
/// Longest `check_id` filter accepted.
const MAX_CHECK_ID_LEN: usize = 200;

/// The service.
#[derive(Debug, Clone)]
pub struct ScanApi {
    state: Arc<AppState>,
}

impl ScanApi {
    pub fn new(state: Arc<AppState>) -> Self {
        ScanApi { state }
    }

    pub fn state(&self) -> &Arc<AppState> {
        &self.state
    }

    /// The caller of `rpc` (its method name): admitted by the REST handler already (for the
    /// same RPC, by the same table), or now from the gRPC metadata.
    async fn admitted<T>(&self, req: &Request<T>, rpc: &str) -> Result<Admitted, Status> {
        if let Some(admitted) = req.extensions().get::<Admitted>() {
            return Ok(admitted.clone());
        }
        let auth = req.metadata().get("authorization").and_then(|v| v.to_str().ok());
        self.state.admit_for(auth, &format!("sitescan.v1.ScanService/{rpc}")).await.map_err(ApiError::into_status)
    }

    async fn create(&self, who: &Admitted, req: pb::CreateScanRequest) -> Result<pb::CreateScanResponse, ApiError> {
        let target = Target::parse(&req.target, &self.state.policy).map_err(|e| ApiError::invalid("target", e.to_string()))?;
        match self.state.store.create_scan(who.org(), &target, ScanMode::Passive, TriggeredBy::Api, None).await? {
            CreateOutcome::Created(row) => Ok(pb::CreateScanResponse {
                id: row.id.to_string(),
                status: status_to_proto(row.status()) as i32,
                mode: mode_to_proto(row.mode()) as i32,
                target: row.target_url,
            }),
            CreateOutcome::QuotaExceeded(q) => {
                crate::metrics::metrics().quota_exceeded.inc();
                Err(ApiError::QuotaExceeded(q))
            }
        }
    }

    async fn list(&self, who: &Admitted, req: pb::ListScansRequest) -> Result<pb::ListScansResponse, ApiError> {
        let limit = check_limit(req.limit, SCANS_LIMIT)?;
        let cursor = self.cursor(CursorKind::Scans, req.cursor.as_deref())?;
        let page = self.state.store.list_scans(who.org(), limit, cursor).await?;
        Ok(pb::ListScansResponse { scans: page.rows.iter().map(scan_to_proto).collect(), next_cursor: page.next_cursor })
    }

    /// The typed report of a scan of the caller's organisation (another organisation's scan,
    /// or an id that is no UUID, is NotFound).
    async fn get(&self, who: &Admitted, req: pb::GetScanRequest) -> Result<ScanReport, ApiError> {
        let id = Uuid::parse_str(&req.scan_id).map_err(|_| ApiError::NotFound)?;
        self.state.store.scan_report(who.org(), id, req.include_findings).await?.ok_or(ApiError::NotFound)
    }

    /// `GetScan` with its answer still typed: the gRPC method turns it into `GetScanResponse`,
    /// the REST handler into the JSON body.
    pub async fn get_scan_report_typed(&self, req: Request<pb::GetScanRequest>) -> Result<Response<ScanReport>, Status> {
        let who = self.admitted(&req, "GetScan").await?;
        let result = self.get(&who, req.into_inner()).await;
        respond(&who, result)
    }

    /// The report as a document: the body of `get` with findings, rendered as HTML or SARIF.
    async fn report(&self, who: &Admitted, req: pb::GetScanReportRequest) -> Result<HttpBody, ApiError> {
        let format = match pb::ReportFormat::try_from(req.format) {
            Ok(f @ (pb::ReportFormat::Html | pb::ReportFormat::Sarif)) => f,
            _ => return Err(ApiError::invalid("format", "must be REPORT_FORMAT_HTML or REPORT_FORMAT_SARIF")),
        };
        let report = self.get(who, pb::GetScanRequest { scan_id: req.scan_id, include_findings: true }).await?;
        let (content_type, rendered) = match format {
            pb::ReportFormat::Sarif => (REPORT_SARIF_CONTENT_TYPE, crate::report::sarif::render(&report)),
            _ => (REPORT_HTML_CONTENT_TYPE, crate::report::html::render(&report)),
        };
        let data = rendered.map_err(|e| ApiError::Internal(format!("rendering the report: {e}")))?;
        Ok(HttpBody { content_type: content_type.to_string(), data: data.into_bytes(), extensions: Vec::new() })
    }

    async fn findings(&self, who: &Admitted, req: pb::ListFindingsRequest) -> Result<pb::ListFindingsResponse, ApiError> {
        let mut issues = Vec::new();
        let limit = check_limit(req.limit, FINDINGS_LIMIT);
        let cursor = self.cursor(CursorKind::Findings, req.cursor.as_deref());
        let mut filter = FindingFilter::default();
        if let Some(list) = req.severity.as_deref() {
            match parse_severities(list) {
                Ok(s) => filter.severities = s,
                Err(e) => issues.push(e),
            }
        }
        if let Some(since) = req.since.as_deref() {
            match chrono::DateTime::parse_from_rfc3339(since.trim()) {
                Ok(t) => filter.since = Some(t.timestamp_micros()),
                Err(_) => issues.push(super::error::Issue::new(
                    "since",
                    "must be an RFC 3339 date-time such as 2026-01-31T00:00:00Z",
                )),
            }
        }
        if let Some(check) = req.check_id.as_deref() {
            if check.len() > MAX_CHECK_ID_LEN {
                issues.push(super::error::Issue::new("check_id", format!("must be at most {MAX_CHECK_ID_LEN} characters")));
            } else if !check.is_empty() {
                filter.check_id = Some(check.to_string());
            }
        }
        let (limit, cursor) = match (limit, cursor) {
            (Ok(l), Ok(c)) if issues.is_empty() => (l, c),
            (l, c) => {
                for err in [l.err(), c.err()].into_iter().flatten() {
                    if let ApiError::InvalidInput(mut more) = err {
                        issues.append(&mut more);
                    }
                }
                return Err(ApiError::InvalidInput(issues));
            }
        };
        let page = self.state.store.list_findings(who.org(), &filter, limit, cursor).await?;
        Ok(pb::ListFindingsResponse {
            findings: page.rows.iter().map(finding_to_proto).collect(),
            next_cursor: page.next_cursor,
        })
    }

    fn cursor(&self, kind: CursorKind, cursor: Option<&str>) -> Result<Option<Position>, ApiError> {
        match cursor.map(str::trim) {
            None | Some("") => Ok(None),
            Some(c) => self
                .state
                .store
                .cursors()
                .decode(kind, c)
                .map(Some)
                .map_err(|e| ApiError::invalid("cursor", e.to_string())),
        }
    }
}

fn check_limit(limit: Option<i64>, (min, default, max): (i64, i64, i64)) -> Result<u64, ApiError> {
    match limit {
        None => Ok(default as u64),
        Some(l) if (min..=max).contains(&l) => Ok(l as u64),
        Some(_) => Err(ApiError::invalid("limit", format!("must be an integer from {min} to {max}"))),
    }
}

fn parse_severities(list: &str) -> Result<Vec<Severity>, super::error::Issue> {
    let mut out = Vec::new();
    for part in list.split(',') {
        let part = part.trim();
        let severity = part.parse::<Severity>().map_err(|_| {
            super::error::Issue::new(
                "severity",
                format!("unknown severity {part:?}: expected a comma-separated list of critical, high, medium, low, info"),
            )
        })?;
        if !out.contains(&severity) {
            out.push(severity);
        }
    }
    Ok(out)
}

/// Wraps a result in a gRPC response carrying the rate-limit headers as metadata.
fn respond<T>(who: &Admitted, result: Result<T, ApiError>) -> Result<Response<T>, Status> {
    let headers = who.rate.headers();
    match result {
        Ok(body) => {
            let mut response = Response::new(body);
            *response.metadata_mut() = tonic::metadata::MetadataMap::from_headers(headers);
            Ok(response)
        }
        Err(err) => {
            let mut status = err.into_status();
            let meta = status.metadata_mut();
            for (name, value) in headers.iter() {
                if !meta.contains_key(name.as_str())
                    && let Ok(v) = tonic::metadata::MetadataValue::try_from(value.as_bytes())
                    && let Ok(k) = tonic::metadata::MetadataKey::from_bytes(name.as_str().as_bytes())
                {
                    meta.insert(k, v);
                }
            }
            Err(status)
        }
    }
}

/// The stream `WatchScan` answers with.
pub type WatchStream = std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<pb::ScanProgress, Status>> + Send>>;

impl ScanApi {
    async fn watch(&self, who: &Admitted, req: pb::WatchScanRequest) -> Result<WatchStream, ApiError> {
        use tokio_stream::StreamExt;
        let id = Uuid::parse_str(&req.scan_id).map_err(|_| ApiError::NotFound)?;
        let scan = self.state.store.scan(who.org(), id).await?.ok_or(ApiError::NotFound)?;
        let rx = crate::events::watch(self.state.store.clone(), scan, crate::events::WATCH_POLL);
        let stream = tokio_stream::wrappers::ReceiverStream::new(rx).map(|item| match item {
            Ok(p) => Ok(pb::ScanProgress {
                scan: Some(scan_to_proto(&p.scan)),
                pages_done: p.pages_done,
                pages_found: p.pages_found(),
                phase: p.phase().map(|ph| ph.as_str().to_string()).unwrap_or_default(),
                page_status: p.page.as_ref().and_then(|pg| pg.status).and_then(|s| u32::try_from(s).ok()),
                page_url: p.page.map(|pg| pg.url),
            }),
            Err(e) => Err(ApiError::from(e).into_status()),
        });
        Ok(Box::pin(stream))
    }
}

#[tonic::async_trait]
impl pb::scan_service_server::ScanService for ScanApi {
    type WatchScanStream = WatchStream;

    async fn watch_scan(&self, req: Request<pb::WatchScanRequest>) -> Result<Response<WatchStream>, Status> {
        let who = self.admitted(&req, "WatchScan").await?;
        let result = self.watch(&who, req.into_inner()).await;
        respond(&who, result)
    }

    async fn create_scan(&self, req: Request<pb::CreateScanRequest>) -> Result<Response<pb::CreateScanResponse>, Status> {
        let who = self.admitted(&req, "CreateScan").await?;
        let result = self.create(&who, req.into_inner()).await;
        respond(&who, result)
    }

    async fn list_scans(&self, req: Request<pb::ListScansRequest>) -> Result<Response<pb::ListScansResponse>, Status> {
        let who = self.admitted(&req, "ListScans").await?;
        let result = self.list(&who, req.into_inner()).await;
        respond(&who, result)
    }

    async fn get_scan(&self, req: Request<pb::GetScanRequest>) -> Result<Response<pb::GetScanResponse>, Status> {
        Ok(self.get_scan_report_typed(req).await?.map(|report| report_to_proto(&report)))
    }

    async fn list_findings(
        &self,
        req: Request<pb::ListFindingsRequest>,
    ) -> Result<Response<pb::ListFindingsResponse>, Status> {
        let who = self.admitted(&req, "ListFindings").await?;
        let result = self.findings(&who, req.into_inner()).await;
        respond(&who, result)
    }

    async fn get_scan_report(&self, req: Request<pb::GetScanReportRequest>) -> Result<Response<HttpBody>, Status> {
        let who = self.admitted(&req, "GetScanReport").await?;
        let result = self.report(&who, req.into_inner()).await;
        respond(&who, result)
    }
}
