//! The engine's build script: embeds axe-core (`browser/node_modules/axe-core/axe.min.js`) and
//! its version into OUT_DIR, so the binary carries the axe-core it injects into pages.

use std::path::PathBuf;

fn main() {
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let axe_dir = sitescan_build_support::browser_dir().join("node_modules/axe-core");
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
