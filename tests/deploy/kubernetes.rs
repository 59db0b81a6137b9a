//! The Kubernetes example (`deploy/kubernetes/*.yaml`), as a cluster and sitescan would take it:
//!
//! - every document validates against the strict schema of its kind for the Kubernetes version
//!   of `tests/fixtures/kubernetes/schemas/` (vendored from kubernetes-validate by `vendor.py`
//!   there): an unknown field, a wrong type or a kind without a schema fails, naming the
//!   document, the kind and the path; mutated copies prove the schemas do reject;
//! - what a user relies on: each Deployment's selector matches its pods, the Service selects the
//!   API pods (and not the workers') on the port the API listens on, the API is ready on
//!   `/readyz` and alive on `/healthz`, the worker has a memory limit, a `/dev/shm` in memory and
//!   a preStop that gives its scan back, no probe asks the worker for HTTP (it serves none), every
//!   secret reference names a key the Secret defines and the key file is where the secret
//!   volume puts it, pods run as the image's user with a writable `/tmp`;
//! - every container's arguments, with its `SITESCAN_*` variables as the flags they stand for,
//!   pass sitescan's own command-line parser (values and conflicts included, without this
//!   process's environment), and the built binary takes the arguments too.

use clap::{CommandFactory, FromArgMatches};
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::Command;

const EXAMPLE_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/deploy/kubernetes");
const SCHEMA_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/kubernetes/schemas");
const DOCKERFILE: &str = include_str!("../../Dockerfile");

/// One document of the example.
#[derive(Clone)]
struct Doc {
    /// `deploy/kubernetes/FILE document N`.
    origin: String,
    value: Value,
}

impl Doc {
    fn kind(&self) -> &str {
        self.value["kind"].as_str().unwrap_or("")
    }

    fn name(&self) -> &str {
        self.value["metadata"]["name"].as_str().unwrap_or("")
    }

    /// `deploy/kubernetes/sitescan.yaml document 3 (Deployment sitescan-api)`.
    fn label(&self) -> String {
        format!("{} ({} {})", self.origin, self.kind(), self.name())
    }

    /// The pod template's spec of a Deployment or a Job.
    fn pod_spec(&self) -> Option<&Value> {
        matches!(self.kind(), "Deployment" | "Job").then(|| &self.value["spec"]["template"]["spec"])
    }

    fn containers(&self) -> Vec<&Value> {
        self.pod_spec().and_then(|p| p["containers"].as_array()).map(|c| c.iter().collect()).unwrap_or_default()
    }
}

/// Every non-empty document of every `*.yaml` / `*.yml` file of the example, files in name order.
fn documents() -> Vec<Doc> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(EXAMPLE_DIR)
        .expect("deploy/kubernetes/")
        .map(|e| e.unwrap().path())
        .filter(|p| matches!(p.extension().and_then(OsStr::to_str), Some("yaml" | "yml")))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no YAML file in {EXAMPLE_DIR}");
    let mut docs = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let shown = file.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(file.as_path()).display().to_string();
        for (i, document) in serde_yaml::Deserializer::from_str(&text).enumerate() {
            let origin = format!("{} document {}", shown.trim_start_matches('/'), i + 1);
            let value = Value::deserialize(document).unwrap_or_else(|e| panic!("{origin}: not YAML that maps to JSON: {e}"));
            if !value.is_null() {
                docs.push(Doc { origin, value });
            }
        }
    }
    docs
}

/// A vendored schema and the file it came from.
struct Schema {
    file: String,
    validator: jsonschema::Validator,
}

/// The vendored schemas by the kind they describe (their `x-kubernetes-group-version-kind`).
fn schemas() -> BTreeMap<String, Schema> {
    let mut schemas = BTreeMap::new();
    for entry in std::fs::read_dir(SCHEMA_DIR).expect("tests/fixtures/kubernetes/schemas/") {
        let path = entry.unwrap().path();
        if path.extension() != Some(OsStr::new("json")) {
            continue;
        }
        let file = format!("tests/fixtures/kubernetes/schemas/{}", path.file_name().unwrap().to_string_lossy());
        let schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap_or_else(|e| panic!("{file}: {e}"));
        let kind = schema["x-kubernetes-group-version-kind"][0]["kind"].as_str().unwrap_or_else(|| panic!("{file}: names no kind")).to_string();
        let validator = jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{file}: the schema does not compile: {e}"));
        assert!(schemas.insert(kind.clone(), Schema { file, validator }).is_none(), "two schemas for {kind}");
    }
    assert!(!schemas.is_empty(), "no schema in {SCHEMA_DIR}: run tests/fixtures/kubernetes/vendor.py");
    schemas
}

/// What is wrong with `doc` for its kind's schema, one readable line per error.
fn schema_errors(schemas: &BTreeMap<String, Schema>, doc: &Doc) -> Vec<String> {
    let Some(schema) = schemas.get(doc.kind()) else {
        return vec![format!(
            "{}: no schema for kind {:?} (there are: {}); vendor it with tests/fixtures/kubernetes/vendor.py",
            doc.label(),
            doc.kind(),
            schemas.keys().cloned().collect::<Vec<_>>().join(", ")
        )];
    };
    schema
        .validator
        .iter_errors(&doc.value)
        .map(|e| {
            let at = if e.instance_path.as_str().is_empty() { "/" } else { e.instance_path.as_str() };
            format!("{}: {e} at {at} (schema {}#{})", doc.label(), schema.file, e.schema_path)
        })
        .collect()
}

/// The one Deployment whose container runs `sitescan SUBCOMMAND`.
fn deployment<'a>(docs: &'a [Doc], subcommand: &str) -> &'a Doc {
    let found: Vec<&Doc> = docs.iter().filter(|d| d.kind() == "Deployment" && d.containers().iter().any(|c| c["args"][0] == subcommand)).collect();
    assert_eq!(found.len(), 1, "one Deployment runs `sitescan {subcommand}`, found {}", found.len());
    found[0]
}

fn only_container(doc: &Doc) -> &Value {
    let containers = doc.containers();
    assert_eq!(containers.len(), 1, "{}: one container", doc.label());
    containers[0]
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().map(|a| a.iter().map(|s| s.as_str().expect("a string").to_string()).collect()).unwrap_or_default()
}

/// A plain `value:` variable of a container.
fn env_value<'a>(container: &'a Value, name: &str) -> Option<&'a str> {
    container["env"].as_array()?.iter().find(|e| e["name"] == name)?["value"].as_str()
}

/// A probe's or a Service's port: a number, or the name of one of the container's ports.
fn container_port(container: &Value, port: &Value) -> u64 {
    match port {
        Value::Number(n) => n.as_u64().unwrap(),
        Value::String(name) => container["ports"]
            .as_array()
            .and_then(|ports| ports.iter().find(|p| p["name"] == name.as_str()))
            .and_then(|p| p["containerPort"].as_u64())
            .unwrap_or_else(|| panic!("no container port named {name:?}")),
        other => panic!("port {other}"),
    }
}

fn labels(v: &Value) -> BTreeMap<String, String> {
    v.as_object().map(|m| m.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string())).collect()).unwrap_or_default()
}

fn selects(selector: &BTreeMap<String, String>, pod_labels: &BTreeMap<String, String>) -> bool {
    !selector.is_empty() && selector.iter().all(|(k, v)| pod_labels.get(k) == Some(v))
}

/// The Secrets of the example: name -> key -> value (`stringData`, else base64 `data` undecoded).
fn secrets(docs: &[Doc]) -> BTreeMap<String, BTreeMap<String, String>> {
    docs.iter()
        .filter(|d| d.kind() == "Secret")
        .map(|d| {
            let mut keys = BTreeMap::new();
            for field in ["data", "stringData"] {
                for (k, v) in d.value[field].as_object().into_iter().flatten() {
                    keys.insert(k.clone(), v.as_str().unwrap_or_default().to_string());
                }
            }
            (d.name().to_string(), keys)
        })
        .collect()
}

#[test]
fn every_document_matches_the_kubernetes_schema_of_its_kind() {
    let schemas = schemas();
    let docs = documents();
    let errors: Vec<String> = docs.iter().flat_map(|d| schema_errors(&schemas, d)).collect();
    assert!(errors.is_empty(), "the Kubernetes example does not match the Kubernetes schemas:\n{}", errors.join("\n"));

    let kinds: BTreeSet<&str> = docs.iter().map(Doc::kind).collect();
    assert_eq!(kinds, BTreeSet::from(["Deployment", "Job", "Secret", "Service"]), "the objects the example is made of");
    let mut seen = BTreeSet::new();
    for d in &docs {
        assert!(seen.insert((d.kind(), d.name())), "{}: a second {} named {:?}", d.label(), d.kind(), d.name());
    }
}

#[test]
fn the_schemas_reject_what_a_cluster_would() {
    let schemas = schemas();
    let docs = documents();
    let api = deployment(&docs, "serve");
    let cases: [(&str, fn(&mut Value), &str); 4] = [
        (
            "a port that is not a number",
            |d: &mut Value| d["spec"]["template"]["spec"]["containers"][0]["ports"][0]["containerPort"] = Value::from("eighty"),
            "/spec/template/spec/containers/0/ports/0/containerPort",
        ),
        ("a misspelt field", |d: &mut Value| d["spec"]["replica"] = Value::from(2), "/spec"),
        (
            "a misspelt field deep down",
            |d: &mut Value| d["spec"]["template"]["spec"]["containers"][0]["livenessProbe"]["httpGet"]["paht"] = Value::from("/healthz"),
            "/spec/template/spec/containers/0/livenessProbe/httpGet",
        ),
        ("an API version Kubernetes no longer serves", |d: &mut Value| d["apiVersion"] = Value::from("extensions/v1beta1"), "/apiVersion"),
    ];
    for (what, mutate, path) in cases {
        let mut doc = api.clone();
        doc.origin = format!("{} with {what}", doc.origin);
        mutate(&mut doc.value);
        let errors = schema_errors(&schemas, &doc);
        assert!(
            errors.iter().any(|e| e.contains(&format!(" at {path} ")) && e.contains("(Deployment sitescan-api)")),
            "{what}: expected an error naming the document and {path}, got {errors:#?}"
        );
    }

    let mut unknown = api.clone();
    unknown.value["kind"] = Value::from("Deploymnet");
    let errors = schema_errors(&schemas, &unknown);
    assert!(errors.len() == 1 && errors[0].contains("no schema for kind \"Deploymnet\""), "{errors:#?}");
}

#[test]
fn deployments_select_their_pods_and_the_service_selects_the_api() {
    let docs = documents();
    for d in docs.iter().filter(|d| d.kind() == "Deployment") {
        let selector = labels(&d.value["spec"]["selector"]["matchLabels"]);
        assert!(selects(&selector, &labels(&d.value["spec"]["template"]["metadata"]["labels"])), "{}: its selector does not match its pod labels (the API server refuses it)", d.label());
    }
    let (api, worker) = (deployment(&docs, "serve"), deployment(&docs, "worker"));
    let api_labels = labels(&api.value["spec"]["template"]["metadata"]["labels"]);
    let worker_labels = labels(&worker.value["spec"]["template"]["metadata"]["labels"]);
    let services: Vec<&Doc> = docs.iter().filter(|d| d.kind() == "Service").collect();
    assert_eq!(services.len(), 1);
    let service = services[0];
    let selector = labels(&service.value["spec"]["selector"]);
    assert!(selects(&selector, &api_labels), "{}: selector {selector:?} does not select the API pods {api_labels:?}", service.label());
    assert!(!selects(&selector, &worker_labels), "{}: selector {selector:?} also selects the worker pods, which serve nothing", service.label());

    let container = only_container(api);
    let listen = env_value(container, "SITESCAN_LISTEN").expect("the API sets SITESCAN_LISTEN");
    let listen_port: u64 = listen.rsplit_once(':').and_then(|(_, p)| p.parse().ok()).unwrap_or_else(|| panic!("SITESCAN_LISTEN {listen:?}"));
    for port in service.value["spec"]["ports"].as_array().unwrap() {
        let target = port.get("targetPort").unwrap_or(&port["port"]);
        assert_eq!(container_port(container, target), listen_port, "{}: port {} reaches the API's {listen_port}", service.label(), port["port"]);
    }
}

#[test]
fn the_api_is_ready_on_readyz_and_alive_on_healthz() {
    let docs = documents();
    let api = deployment(&docs, "serve");
    let container = only_container(api);
    assert!(strings(&container["args"]).contains(&"--no-workers".to_string()), "{}: scans run in the worker Deployment", api.label());
    assert_eq!(container["readinessProbe"]["httpGet"]["path"], "/readyz", "{}: ready when the database answers", api.label());
    assert_eq!(container["livenessProbe"]["httpGet"]["path"], "/healthz", "{}: alive when the process answers", api.label());

    let listen = env_value(container, "SITESCAN_LISTEN").expect("the API sets SITESCAN_LISTEN");
    let (host, port) = listen.rsplit_once(':').unwrap();
    assert!(!host.starts_with("127.") && host != "localhost" && host != "[::1]", "{}: SITESCAN_LISTEN {listen} is loopback, unreachable from the kubelet and the Service", api.label());
    let port: u64 = port.parse().unwrap();
    for probe in ["startupProbe", "livenessProbe", "readinessProbe"] {
        if let Some(p) = container.get(probe) {
            assert_eq!(container_port(container, &p["httpGet"]["port"]), port, "{}: {probe} asks the port the API listens on", api.label());
        }
    }
}

#[test]
fn the_worker_is_limited_and_gives_its_scan_back_when_stopped() {
    let docs = documents();
    let worker = deployment(&docs, "worker");
    let pod = worker.pod_spec().unwrap();
    let container = only_container(worker);
    let label = worker.label();

    assert!(container["resources"]["limits"]["memory"].is_string(), "{label}: Chromium needs a memory limit");
    let hook = strings(&container["lifecycle"]["preStop"]["exec"]["command"]);
    assert_eq!(hook.first().map(String::as_str), Some("/bin/sh"), "{label}: the preStop hook runs in the image's shell: {hook:?}");
    let script = hook.last().cloned().unwrap_or_default();
    assert!(script.contains("kill -TERM 1") && script.contains("kill -0 1"), "{label}: the preStop hook sends SIGTERM to sitescan (PID 1) and waits for it: {script:?}");
    let grace = pod["terminationGracePeriodSeconds"].as_u64().unwrap_or(30);
    assert!(grace > 30, "{label}: {grace} s to give a scan back is no more than Kubernetes's default");

    let shm = container["volumeMounts"].as_array().into_iter().flatten().find(|m| m["mountPath"] == "/dev/shm").unwrap_or_else(|| panic!("{label}: no /dev/shm mount"));
    let volume = pod["volumes"].as_array().into_iter().flatten().find(|v| v["name"] == shm["name"]).unwrap();
    assert_eq!(volume["emptyDir"]["medium"], "Memory", "{label}: /dev/shm is in memory, as compose's shm_size");

    // `sitescan worker` listens on no port: an HTTP, TCP or gRPC probe would always fail.
    for probe in ["startupProbe", "livenessProbe", "readinessProbe"] {
        if let Some(p) = container.get(probe) {
            assert!(p.get("exec").is_some(), "{label}: {probe} asks the worker for a port nothing listens on");
        }
    }
}

#[test]
fn secret_references_name_keys_the_secret_defines() {
    let docs = documents();
    let secrets = secrets(&docs);
    fn missing(secrets: &BTreeMap<String, BTreeMap<String, String>>, what: &str, name: &str, key: Option<&str>) -> Option<String> {
        match (secrets.get(name), key) {
            (None, _) => Some(format!("{what}: no Secret {name:?} in the example")),
            (Some(keys), Some(key)) if !keys.contains_key(key) => Some(format!("{what}: Secret {name:?} has no key {key:?} (it has {:?})", keys.keys())),
            _ => None,
        }
    }
    let mut problems = Vec::new();
    let mut references = 0;
    for d in &docs {
        let Some(pod) = d.pod_spec() else { continue };
        for volume in pod["volumes"].as_array().into_iter().flatten().filter(|v| v.get("secret").is_some()) {
            let name = volume["secret"]["secretName"].as_str().unwrap_or_default();
            problems.extend(missing(&secrets, &format!("{} volume {}", d.label(), volume["name"]), name, None));
            for item in volume["secret"]["items"].as_array().into_iter().flatten() {
                references += 1;
                problems.extend(missing(&secrets, &format!("{} volume {}", d.label(), volume["name"]), name, item["key"].as_str()));
            }
        }
        for c in d.containers() {
            for e in c["env"].as_array().into_iter().flatten() {
                if let Some(r) = e["valueFrom"].get("secretKeyRef") {
                    references += 1;
                    problems.extend(missing(&secrets, &format!("{} env {}", d.label(), e["name"]), r["name"].as_str().unwrap_or_default(), r["key"].as_str()));
                }
            }
            for e in c["envFrom"].as_array().into_iter().flatten() {
                if let Some(r) = e.get("secretRef") {
                    references += 1;
                    problems.extend(missing(&secrets, &format!("{} envFrom", d.label()), r["name"].as_str().unwrap_or_default(), None));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(references >= 4, "the database URL and the key come from the Secret ({references} references)");

    // On PostgreSQL there is no key file beside the database: `serve` and `worker` must be given
    // one, and the file they are told to read must be where a secret volume puts the key.
    for d in docs.iter().filter(|d| d.kind() == "Deployment") {
        let pod = d.pod_spec().unwrap();
        for c in d.containers() {
            let file = env_value(c, "SITESCAN_SECRET_KEY_FILE").unwrap_or_else(|| panic!("{}: no SITESCAN_SECRET_KEY_FILE: secrets cannot be stored or webhooks signed", d.label()));
            let provided = c["volumeMounts"].as_array().into_iter().flatten().any(|m| {
                let Some(rest) = file.strip_prefix(m["mountPath"].as_str().unwrap_or("-")).and_then(|r| r.strip_prefix('/')) else { return false };
                let Some(volume) = pod["volumes"].as_array().into_iter().flatten().find(|v| v["name"] == m["name"]) else { return false };
                let secret = &volume["secret"];
                match secret["items"].as_array() {
                    Some(items) => items.iter().any(|i| i["path"] == rest),
                    None => secrets.get(secret["secretName"].as_str().unwrap_or_default()).is_some_and(|keys| keys.contains_key(rest)),
                }
            });
            assert!(provided, "{}: SITESCAN_SECRET_KEY_FILE {file} is not a file of a mounted secret volume", d.label());
        }
    }
}

#[test]
fn pods_run_as_the_images_user_with_a_writable_tmp() {
    let user = DOCKERFILE.lines().find_map(|l| l.strip_prefix("USER ")).expect("the Dockerfile's USER").trim();
    let uid: u64 = user.parse().expect("USER is a numeric uid");
    for d in documents().iter().filter(|d| d.pod_spec().is_some()) {
        let pod = d.pod_spec().unwrap();
        assert_eq!(pod["securityContext"]["runAsNonRoot"], true, "{}", d.label());
        assert_eq!(pod["securityContext"]["runAsUser"].as_u64(), Some(uid), "{}: the image's files belong to uid {uid}", d.label());
        for c in d.containers() {
            let runs = c["args"][0].as_str().unwrap_or_default();
            // Chromium (worker) and temporary files (serve) need /tmp; migrate writes nothing.
            if c["securityContext"]["readOnlyRootFilesystem"] == true && matches!(runs, "serve" | "worker") {
                let tmp = c["volumeMounts"].as_array().into_iter().flatten().any(|m| m["mountPath"] == "/tmp" && m["readOnly"] != true);
                assert!(tmp, "{}: a read-only root filesystem without a writable /tmp", d.label());
            }
        }
    }
}

/// `sitescan` with every `SITESCAN_*` argument's variable taken away: what it parses depends on
/// the command line given, not on this process's environment.
fn without_env(cmd: clap::Command) -> clap::Command {
    cmd.mut_args(|a| a.env(None::<&'static str>)).mut_subcommands(without_env)
}

/// `sitescan ARGS` with the container's `SITESCAN_*` variables as the flags that read them (a
/// flag given in ARGS wins, as it does over its variable). An error for a variable no flag of
/// that command reads.
fn command_line(args: &[String], env: &[(String, String)]) -> Result<Vec<String>, String> {
    let root = sitescan::cli::Cli::command();
    let mut command = &root;
    let mut chain = vec![command];
    for word in args {
        let Some(sub) = command.find_subcommand(word) else { break };
        command = sub;
        chain.push(sub);
    }
    let mut argv: Vec<String> = std::iter::once("sitescan".to_string()).chain(args.iter().cloned()).collect();
    for (name, value) in env.iter().filter(|(n, _)| n.starts_with("SITESCAN_")) {
        let Some(arg) = chain.iter().flat_map(|c| c.get_arguments()).find(|a| a.get_env() == Some(OsStr::new(name))) else {
            return Err(format!("it sets {name}, which `sitescan {}` does not read", args.join(" ")));
        };
        let long = format!("--{}", arg.get_long().expect("a flag with a variable has a long name"));
        if args.iter().any(|a| *a == long || a.starts_with(&format!("{long}="))) {
            continue;
        }
        if arg.get_action().takes_values() {
            argv.push(format!("{long}={value}"));
        } else {
            match value.as_str() {
                "true" | "1" => argv.push(long),
                "false" | "0" => {}
                other => return Err(format!("{name}={other:?} for a flag")),
            }
        }
    }
    Ok(argv)
}

#[test]
fn every_container_runs_a_command_sitescan_accepts() {
    let docs = documents();
    let secrets = secrets(&docs);
    let mut checked = 0;
    for d in &docs {
        for c in d.containers() {
            let what = format!("{} container {}", d.label(), c["name"]);
            let image = c["image"].as_str().unwrap_or_default();
            let repository = image.rsplit('/').next().unwrap_or_default().split([':', '@']).next().unwrap_or_default();
            assert_eq!(repository, "sitescan", "{what}: image {image:?} is not sitescan's");
            // The image's ENTRYPOINT is `sitescan`: the container gives only its arguments.
            let command = strings(&c["command"]);
            assert!(command.is_empty() || command == ["sitescan"], "{what}: command {command:?} replaces the image's `sitescan` entrypoint");
            let args = strings(&c["args"]);
            assert!(!args.is_empty(), "{what}: say what sitescan runs (args)");

            let env: Vec<(String, String)> = c["env"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|e| {
                    let name = e["name"].as_str().unwrap().to_string();
                    let value = match e["value"].as_str() {
                        Some(v) => v.to_string(),
                        None => {
                            let r = &e["valueFrom"]["secretKeyRef"];
                            let (secret, key) = (r["name"].as_str().unwrap_or_default(), r["key"].as_str().unwrap_or_default());
                            secrets.get(secret).and_then(|k| k.get(key)).cloned().unwrap_or_else(|| panic!("{what}: {name} from Secret {secret:?} key {key:?}, which the example does not define"))
                        }
                    };
                    (name, value)
                })
                .collect();
            let argv = command_line(&args, &env).unwrap_or_else(|e| panic!("{what}: {e}"));
            let matches = without_env(sitescan::cli::Cli::command())
                .try_get_matches_from(&argv)
                .unwrap_or_else(|e| panic!("{what}: sitescan refuses `{}`:\n{e}", argv.join(" ")));
            sitescan::cli::Cli::from_arg_matches(&matches).unwrap_or_else(|e| panic!("{what}: `{}`: {e}", argv.join(" ")));

            // The built binary takes the same arguments (`--help` after them: an unknown flag or
            // a bad value before it is still refused).
            let out = Command::new(env!("CARGO_BIN_EXE_sitescan")).env_clear().args(&args).arg("--help").output().expect("run sitescan");
            assert!(out.status.success(), "{what}: `sitescan {} --help`: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
            checked += 1;
        }
    }
    assert!(checked >= 3, "migrate, the API and the worker ({checked} containers)");
}

/// The check above is not vacuous: a flag sitescan does not have, a bad value, a conflict and a
/// variable no flag reads are all refused.
#[test]
fn the_command_check_refuses_what_sitescan_would() {
    fn parse(args: &[&str], env: &[(&str, &str)]) -> Result<(), String> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let env: Vec<(String, String)> = env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let argv = command_line(&args, &env)?;
        without_env(sitescan::cli::Cli::command()).try_get_matches_from(&argv).map(|_| ()).map_err(|e| e.to_string())
    }
    assert!(parse(&["worker", "--workers", "1", "--pages-per-browser", "4"], &[("SITESCAN_DATABASE_URL", "postgres://x/y")]).is_ok());
    assert!(parse(&["worker", "--pages-per-brower", "4"], &[]).is_err(), "a misspelt flag");
    assert!(parse(&["worker", "--workers", "one"], &[]).is_err(), "a value that is not a number");
    assert!(parse(&["serve", "--no-workers", "--workers", "2"], &[]).is_err(), "flags that conflict");
    assert!(parse(&["serve"], &[("SITESCAN_WORKERS", "2"), ("SITESCAN_NO_WORKERS", "true")]).is_err(), "variables that conflict");
    let unread = parse(&["migrate"], &[("SITESCAN_LISTEN", "0.0.0.0:8080")]);
    assert!(unread.as_ref().is_err_and(|e| e.contains("SITESCAN_LISTEN")), "a variable `sitescan migrate` does not read: {unread:?}");
}
