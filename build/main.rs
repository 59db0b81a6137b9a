//! The build script (`build = "build/main.rs"` in Cargo.toml): compiles the proto (gRPC server,
//! client and descriptor set), embeds axe-core, and generates the schema.org vocabulary and the
//! axe-core rule catalogue (`accessibility.<rule>` ids) from the modules beside it.

use std::path::{Path, PathBuf};
use std::process::Command;

mod axe_rules;
mod schema_org;

fn main() {
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    println!("cargo:rerun-if-changed=proto");
    // Type names (`prost::Name`): the REST side finds each message's descriptor by its name.
    let mut config = tonic_prost_build::Config::new();
    config.enable_type_names();
    tonic_prost_build::configure()
        .file_descriptor_set_path(out_dir.join("sitescan_descriptor.bin"))
        .compile_with_config(config, &["proto/sitescan/v1/scan_service.proto", "proto/sitescan/v1/owner_service.proto"], &["proto"])
        .expect("compile protos (is protoc installed? apt-get install -y protobuf-compiler)");
    embed_axe(&out_dir);
    schema_org::generate(&out_dir);
    axe_rules::generate(&out_dir);
}

/// Copies `browser/node_modules/axe-core/axe.min.js` (installing it with `npm ci` when missing)
/// into OUT_DIR with its version, so the binary carries axe-core.
fn embed_axe(out_dir: &Path) {
    println!("cargo:rerun-if-changed=browser/package-lock.json");
    let axe_dir = Path::new("browser/node_modules/axe-core");
    if !axe_dir.join("axe.min.js").exists() {
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--ignore-scripts"])
            .current_dir("browser")
            .status()
            .expect("run npm ci in browser/ (is Node.js installed?)");
        assert!(status.success(), "npm ci in browser/ failed");
    }
    let script = std::fs::read_to_string(axe_dir.join("axe.min.js")).expect("read axe.min.js");
    let package = std::fs::read_to_string(axe_dir.join("package.json")).expect("read axe package.json");
    let version = package
        .split("\"version\"")
        .nth(1)
        .and_then(|rest| rest.split('"').nth(1))
        .unwrap_or("unknown")
        .to_string();
    std::fs::write(out_dir.join("axe.min.js"), script).expect("write axe.min.js");
    std::fs::write(out_dir.join("axe_version.txt"), version).expect("write axe version");
}
