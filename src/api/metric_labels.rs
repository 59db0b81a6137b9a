//! Metric labels that requests cannot grow: every label value comes from a fixed table (the
//! RPCs of the compiled proto, the standard HTTP methods, the gRPC status codes), anything else
//! is `other`. A stranger's unknown paths, methods or codes add no series to `/metrics`.

use axum::http::Method;
use std::sync::OnceLock;

/// The label of whatever is not in a table.
pub const OTHER: &str = "other";

/// The gRPC services whose calls are counted by method, with their path prefixes.
const SERVICES: &[&str] = &["sitescan.v1.ScanService", "sitescan.v1.OwnerService"];

/// `(path, label)` of every method of [`SERVICES`], read once from the compiled descriptor:
/// `/sitescan.v1.ScanService/CreateScan` is labelled `CreateScan`.
fn known_rpcs() -> &'static [(String, String)] {
    static RPCS: OnceLock<Vec<(String, String)>> = OnceLock::new();
    RPCS.get_or_init(|| {
        use prost::Message;
        let Ok(set) = prost_types::FileDescriptorSet::decode(crate::proto::FILE_DESCRIPTOR_SET) else {
            tracing::error!("the compiled descriptor set did not decode: gRPC calls are labelled `other`");
            return Vec::new();
        };
        let mut rpcs = Vec::new();
        for file in &set.file {
            for service in &file.service {
                let full = format!("{}.{}", file.package(), service.name());
                if !SERVICES.contains(&full.as_str()) {
                    continue;
                }
                for method in &service.method {
                    rpcs.push((format!("/{full}/{}", method.name()), method.name().to_string()));
                }
            }
        }
        rpcs
    })
}

/// For a path of one of sitescan's gRPC services: the method label (the RPC's name, or
/// `other` for a method the proto does not have). `None` for any other path.
pub fn grpc_method(path: &str) -> Option<&'static str> {
    let service = path.strip_prefix('/')?.split('/').next()?;
    if !SERVICES.contains(&service) {
        return None;
    }
    Some(known_rpcs().iter().find(|(p, _)| p == path).map_or(OTHER, |(_, label)| label.as_str()))
}

/// The HTTP method label: a standard method's name, else `other` (extension methods such as
/// `FOO` are valid HTTP and would otherwise be a label each).
pub fn http_method(method: &Method) -> &'static str {
    const STANDARD: &[Method] = &[
        Method::GET,
        Method::HEAD,
        Method::POST,
        Method::PUT,
        Method::DELETE,
        Method::PATCH,
        Method::OPTIONS,
        Method::CONNECT,
        Method::TRACE,
    ];
    STANDARD.iter().find(|m| *m == method).map_or(OTHER, Method::as_str)
}

/// The gRPC status label: a code of the spec (`0`..`16`), else `other`.
pub fn grpc_code(code: &str) -> &'static str {
    const CODES: [&str; 17] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16"];
    CODES.iter().find(|c| **c == code).copied().unwrap_or(OTHER)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_rpcs_keep_their_names_and_the_rest_is_other() {
        assert_eq!(grpc_method("/sitescan.v1.ScanService/CreateScan"), Some("CreateScan"));
        assert_eq!(grpc_method("/sitescan.v1.ScanService/WatchScan"), Some("WatchScan"));
        assert_eq!(grpc_method("/sitescan.v1.OwnerService/AddSite"), Some("AddSite"));
        assert_eq!(grpc_method("/sitescan.v1.ScanService/x1234"), Some(OTHER));
        assert_eq!(grpc_method("/sitescan.v1.ScanService/CreateScan/extra"), Some(OTHER));
        assert_eq!(grpc_method("/sitescan.v1.OwnerService/CreateScan"), Some(OTHER));
        assert_eq!(grpc_method("/api/v1/scans"), None);
        assert_eq!(grpc_method("/grpc.health.v1.Health/Check"), None);
    }

    #[test]
    fn every_rpc_of_the_scope_table_has_a_label_and_labels_are_unique() {
        for (rpc, _) in crate::api::auth::RPC_SCOPES {
            let label = grpc_method(&format!("/{rpc}")).unwrap();
            assert_ne!(label, OTHER, "{rpc}");
        }
        let mut labels: Vec<&str> = known_rpcs().iter().map(|(_, l)| l.as_str()).collect();
        let n = labels.len();
        labels.sort();
        labels.dedup();
        assert_eq!(labels.len(), n, "one label names one RPC across both services");
    }

    #[test]
    fn methods_and_codes_come_from_fixed_tables() {
        assert_eq!(http_method(&Method::GET), "GET");
        assert_eq!(http_method(&Method::from_bytes(b"XRANDOM123").unwrap()), OTHER);
        assert_eq!(grpc_code("0"), "0");
        assert_eq!(grpc_code("16"), "16");
        assert_eq!(grpc_code("17"), OTHER);
        assert_eq!(grpc_code("abc"), OTHER);
    }
}
