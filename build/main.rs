//! The build script (`build = "build/main.rs"` in Cargo.toml): compiles the proto (gRPC server,
//! client and descriptor set). axe-core and the rule tables are built by the engine's and the
//! checks' crates (`crates/`).

use std::path::PathBuf;

fn main() {
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    println!("cargo:rerun-if-changed=proto");
    // Type names (`prost::Name`): the REST side finds each message's descriptor by its name.
    let mut config = tonic_prost_build::Config::new();
    config.enable_type_names();
    tonic_prost_build::configure()
        .file_descriptor_set_path(out_dir.join("sitescan_descriptor.bin"))
        .compile_with_config(config, &["proto/sitescan/v1/scan_service.proto", "proto/sitescan/v1/owner_service.proto", "proto/sitescan/v1/webhooks.proto"], &["proto"])
        .expect("compile protos (is protoc installed? apt-get install -y protobuf-compiler)");
}
