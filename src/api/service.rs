//! `sitescan.v1.ScanService` over gRPC: admits the caller, reads the request message into the
//! scan service's typed input (`crate::scans`), and writes its answer as protobuf. REST is the
//! same service's other adapter (`rest::handlers`).

use super::auth::Admitted;
use super::convert::{comparison_to_proto, created_to_proto, findings_page_to_proto, get_scan_to_proto, history_to_proto, scan_to_proto, scans_page_to_proto};
use super::error::ApiError;
use super::state::AppState;
use crate::model::{ScanReport, TriggeredBy};
use crate::proto::google::api::HttpBody;
use crate::proto::v1 as pb;
use crate::scans::{FindingsQuery, HistoryQuery, ListQuery, WatchEnd};
use std::sync::Arc;
use tonic::{Request, Response, Status};

/// Media type of `GetScanReport` in HTML.
pub const REPORT_HTML_CONTENT_TYPE: &str = "text/html; charset=utf-8";
/// Media type of `GetScanReport` in SARIF.
pub const REPORT_SARIF_CONTENT_TYPE: &str = "application/sarif+json";

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

    /// The caller of `rpc` (its method name), admitted from the gRPC metadata by the same scope
    /// table as REST.
    async fn admitted<T>(&self, req: &Request<T>, rpc: &str) -> Result<Admitted, Status> {
        let auth = req.metadata().get("authorization").and_then(|v| v.to_str().ok());
        self.state.admit_for(auth, &format!("sitescan.v1.ScanService/{rpc}")).await.map_err(ApiError::into_status)
    }

    async fn create(&self, who: &Admitted, req: pb::CreateScanRequest) -> Result<pb::CreateScanResponse, ApiError> {
        let row = self.state.scans().create(who.org(), &req.target, req.level.as_deref(), TriggeredBy::Api).await?;
        Ok(created_to_proto(&row))
    }

    async fn list(&self, who: &Admitted, req: pb::ListScansRequest) -> Result<pb::ListScansResponse, ApiError> {
        let page = self.state.scans().list(who.org(), &ListQuery { limit: req.limit, cursor: req.cursor }).await?;
        Ok(scans_page_to_proto(&page))
    }

    async fn findings(&self, who: &Admitted, req: pb::ListFindingsRequest) -> Result<pb::ListFindingsResponse, ApiError> {
        let query = FindingsQuery {
            severities: req.severity.into_iter().collect(),
            check_id: req.check_id,
            since: req.since,
            page: ListQuery { limit: req.limit, cursor: req.cursor },
            ..FindingsQuery::default()
        };
        let page = self.state.scans().findings(who.org(), &query).await?;
        Ok(findings_page_to_proto(&page))
    }
}

/// The documents `GetScanReport` renders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportDocument {
    Html,
    Sarif,
}

/// A scan's report (with its findings) rendered as a document.
pub fn render_report(report: &ScanReport, format: ReportDocument) -> Result<HttpBody, ApiError> {
    let (content_type, rendered) = match format {
        ReportDocument::Sarif => (REPORT_SARIF_CONTENT_TYPE, crate::report::sarif::render(report)),
        ReportDocument::Html => (REPORT_HTML_CONTENT_TYPE, crate::report::html::render(report)),
    };
    let data = rendered.map_err(|e| ApiError::Internal(format!("rendering the report: {e}")))?;
    Ok(HttpBody { content_type: content_type.to_string(), data: data.into_bytes(), extensions: Vec::new() })
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
        let rx = self.state.scans().watch(who.org(), &req.scan_id, &who.token.id.to_string()).await?;
        let stream = tokio_stream::wrappers::ReceiverStream::new(rx).map(|item| match item {
            Ok(p) => Ok(pb::ScanProgress {
                scan: Some(scan_to_proto(&p.scan)),
                pages_done: p.pages_done,
                pages_found: p.pages_found(),
                phase: p.phase().map(|ph| ph.as_str().to_string()).unwrap_or_default(),
                page_status: p.page.as_ref().and_then(|pg| pg.status).and_then(|s| u32::try_from(s).ok()),
                page_url: p.page.map(|pg| pg.url),
            }),
            // Idle or too long: DEADLINE_EXCEEDED, so the client knows to watch again.
            Err(WatchEnd::Store(e)) => Err(ApiError::data(e.is_unavailable(), e).into_status()),
            Err(end) => Err(Status::deadline_exceeded(end.to_string())),
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
        let who = self.admitted(&req, "GetScan").await?;
        let req = req.into_inner();
        let result = self.state.scans().report(who.org(), &req.scan_id, req.include_findings).await.map_err(ApiError::from);
        respond(&who, result.map(|r| get_scan_to_proto(&r)))
    }

    async fn list_findings(
        &self,
        req: Request<pb::ListFindingsRequest>,
    ) -> Result<Response<pb::ListFindingsResponse>, Status> {
        let who = self.admitted(&req, "ListFindings").await?;
        let result = self.findings(&who, req.into_inner()).await;
        respond(&who, result)
    }

    async fn list_scan_history(&self, req: Request<pb::ListScanHistoryRequest>) -> Result<Response<pb::ListScanHistoryResponse>, Status> {
        let who = self.admitted(&req, "ListScanHistory").await?;
        let req = req.into_inner();
        let query = HistoryQuery { target: Some(req.target), page: ListQuery { limit: req.limit, cursor: req.cursor } };
        let result = self.state.scans().history(who.org(), &query).await.map_err(ApiError::from);
        respond(&who, result.map(|h| history_to_proto(&h)))
    }

    async fn compare_scans(&self, req: Request<pb::CompareScansRequest>) -> Result<Response<pb::CompareScansResponse>, Status> {
        let who = self.admitted(&req, "CompareScans").await?;
        let req = req.into_inner();
        let result = self.state.scans().compare(who.org(), Some(&req.base), Some(&req.head)).await.map_err(ApiError::from);
        respond(&who, result.map(|c| comparison_to_proto(&c)))
    }

    async fn get_scan_report(&self, req: Request<pb::GetScanReportRequest>) -> Result<Response<HttpBody>, Status> {
        let who = self.admitted(&req, "GetScanReport").await?;
        let req = req.into_inner();
        let format = match pb::ReportFormat::try_from(req.format) {
            Ok(pb::ReportFormat::Html) => Ok(ReportDocument::Html),
            Ok(pb::ReportFormat::Sarif) => Ok(ReportDocument::Sarif),
            _ => Err(ApiError::invalid("format", "must be REPORT_FORMAT_HTML or REPORT_FORMAT_SARIF")),
        };
        let result = match format {
            Ok(format) => match self.state.scans().report(who.org(), &req.scan_id, true).await {
                Ok(report) => render_report(&report, format),
                Err(e) => Err(e.into()),
            },
            Err(e) => Err(e),
        };
        respond(&who, result)
    }
}
