//! Generated gRPC types and services for `proto/sitescan/v1`, and their JSON (`json`): the REST
//! bodies and the webhook deliveries are these messages written by one set of conventions.

#![allow(missing_docs, clippy::all)]

use sitescan_model as model;

pub mod from_model;
pub mod from_report;
pub mod json;

/// `sitescan.*`: the packages of the service.
pub mod sitescan {
    /// `sitescan.v1`: the scan service.
    pub mod v1 {
        tonic::include_proto!("sitescan.v1");
    }
}

pub use sitescan::v1;

/// `google.api`: the HTTP annotations and `HttpBody` (the report documents).
pub mod google {
    pub mod api {
        tonic::include_proto!("google.api");
    }
}

/// The compiled descriptor set (for reflection and the annotation test).
pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("sitescan_descriptor");
