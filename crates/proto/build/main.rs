//! The build script: compiles the contract in the workspace's `proto/` (gRPC server, client and
//! descriptor set).

use std::path::PathBuf;

fn main() {
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let proto = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR")).join("../../proto");
    println!("cargo:rerun-if-changed={}", proto.display());
    // Type names (`prost::Name`): the REST side finds each message's descriptor by its name.
    let mut config = tonic_prost_build::Config::new();
    config.enable_type_names();
    tonic_prost_build::configure()
        .file_descriptor_set_path(out_dir.join("sitescan_descriptor.bin"))
        .compile_with_config(config, &["json_options.proto", "scan_service.proto", "owner_service.proto", "webhooks.proto"].map(|f| proto.join("sitescan/v1").join(f)), std::slice::from_ref(&proto))
        .expect("compile protos (is protoc installed? apt-get install -y protobuf-compiler)");
}
