//! Generated gRPC types and services for `proto/sitescan/v1`.

#![allow(missing_docs, clippy::all)]

/// `sitescan.v1`: the scan service.
pub mod v1 {
    tonic::include_proto!("sitescan.v1");
}

/// The compiled descriptor set (for reflection and the annotation test).
pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("sitescan_descriptor");
