//! Repository probes (active scans only): a bounded list of unlinked paths where sites leak their
//! insides (version-control folders, environment files, backups, keys, status pages, editor
//! leftovers), the source maps of the scripts the crawl saw, and listings of the folders it saw.
//!
//! Before probing, each directory and extension is calibrated with a random path: a site that
//! answers every unknown path with 200 and its home page (a soft 404) must not look like it serves
//! `/.env`. Only answers that are 200, not redirected, and unlike their calibration answer land in
//! the snapshot; the `repository.*` checks then match content signatures. Every request passes the
//! per-host politeness gate, counts against a hard budget, and reads at most `PROBE_MAX_BYTES`.

use super::politeness::HostGate;
use crate::model::{ProbeAnswer, ProbeKind};
use crate::net::Fetcher;
use rand::Rng;
use std::collections::{BTreeSet, HashMap};
use tokio_util::sync::CancellationToken;
use url::Url;

/// Requests (calibration included) per site.
pub const DEFAULT_PROBE_BUDGET: usize = 60;
/// Bytes read per probe.
pub const PROBE_MAX_BYTES: usize = 8 * 1024;
/// Source maps probed per scan.
const MAX_SOURCE_MAPS: usize = 8;
/// Folders probed for a listing per scan.
const MAX_FOLDERS: usize = 8;

/// The fixed probes, in priority order (the budget may end the list early).
pub const FIXED_PROBES: &[(ProbeKind, &str)] = &[
    (ProbeKind::Vcs, "/.git/HEAD"),
    (ProbeKind::Vcs, "/.git/config"),
    (ProbeKind::EnvFile, "/.env"),
    (ProbeKind::PrivateKey, "/id_rsa"),
    (ProbeKind::PrivateKey, "/server.key"),
    (ProbeKind::Vcs, "/.svn/entries"),
    (ProbeKind::Vcs, "/.hg/requires"),
    (ProbeKind::Vcs, "/.bzr/branch-format"),
    (ProbeKind::EnvFile, "/.env.local"),
    (ProbeKind::EnvFile, "/.env.production"),
    (ProbeKind::BackupFile, "/backup.zip"),
    (ProbeKind::BackupFile, "/db.sql"),
    (ProbeKind::BackupFile, "/site.tar.gz"),
    (ProbeKind::BackupFile, "/index.php.bak"),
    (ProbeKind::BackupFile, "/wp-config.php.bak"),
    (ProbeKind::BackupFile, "/.index.html.swp"),
    (ProbeKind::ServerStatus, "/server-status"),
    (ProbeKind::ServerStatus, "/server-info"),
    (ProbeKind::ServerStatus, "/phpinfo.php"),
    (ProbeKind::EditorLeftover, "/.DS_Store"),
    (ProbeKind::EditorLeftover, "/Thumbs.db"),
    (ProbeKind::EditorLeftover, "/.idea/workspace.xml"),
    (ProbeKind::EditorLeftover, "/.vscode/settings.json"),
];

/// What the crawl saw that the probes follow up: same-origin script URLs (with the `SourceMap`
/// header when one was sent) and the pages they were on, and folders of same-origin URLs.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ProbeLeads {
    /// script URL -> (declared source map URL, page it was loaded by).
    pub scripts: std::collections::BTreeMap<String, (Option<String>, String)>,
    /// folder URL (ending in `/`) -> a page it was seen on.
    pub folders: std::collections::BTreeMap<String, String>,
}

impl ProbeLeads {
    /// Adds another page's leads (the first page a lead was seen on is kept, as when one crawl
    /// records them all).
    pub fn merge(&mut self, other: ProbeLeads) {
        for (script, seen) in other.scripts {
            self.scripts.entry(script).or_insert(seen);
        }
        for (folder, page) in other.folders {
            self.folders.entry(folder).or_insert(page);
        }
    }

    /// Records what one rendered page shows of its origin's layout.
    pub fn add_page(&mut self, start: &Url, page: &crate::model::PageSnapshot) {
        let same_origin = |u: &Url| u.origin() == start.origin();
        let mut urls: Vec<&str> = vec![page.final_url.as_str()];
        for r in &page.requests {
            urls.push(&r.url);
            let Ok(u) = Url::parse(&r.url) else { continue };
            if r.resource_type == "script" && same_origin(&u) && !self.scripts.contains_key(&r.url) {
                let declared = crate::model::header(&r.response_headers, "sourcemap")
                    .or_else(|| crate::model::header(&r.response_headers, "x-sourcemap"))
                    .and_then(|m| u.join(m.trim()).ok())
                    .map(|m| m.to_string());
                self.scripts.insert(r.url.clone(), (declared, page.final_url.clone()));
            }
        }
        for raw in urls {
            let Ok(u) = Url::parse(raw) else { continue };
            if !same_origin(&u) {
                continue;
            }
            let segments: Vec<&str> = u.path().split('/').collect();
            // Every proper ancestor folder except the root (the start page answers there).
            for depth in 2..segments.len() {
                let path = format!("{}/", segments[..depth].join("/"));
                if path == "/" || path.contains("//") {
                    continue;
                }
                let mut folder = u.clone();
                folder.set_query(None);
                folder.set_fragment(None);
                folder.set_path(&path);
                self.folders.entry(folder.to_string()).or_insert_with(|| page.final_url.clone());
            }
        }
    }
}

/// One probe to make.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Probe {
    kind: ProbeKind,
    url: Url,
    source: Option<String>,
}

/// The probes in priority order: the fixed list, then source maps, then folders.
fn plan(start: &Url, leads: &ProbeLeads) -> Vec<Probe> {
    let mut out: Vec<Probe> = FIXED_PROBES
        .iter()
        .map(|(kind, path)| {
            let mut u = start.clone();
            u.set_query(None);
            u.set_fragment(None);
            u.set_path(path);
            Probe { kind: *kind, url: u, source: None }
        })
        .collect();
    let mut maps = BTreeSet::new();
    for (script, (declared, _page)) in leads.scripts.iter() {
        if maps.len() >= MAX_SOURCE_MAPS {
            break;
        }
        let Ok(mut u) = Url::parse(script) else { continue };
        let target = match declared.as_deref().and_then(|d| Url::parse(d).ok()) {
            Some(d) if d.origin() == start.origin() => d,
            _ => {
                u.set_query(None);
                u.set_fragment(None);
                let path = format!("{}.map", u.path());
                u.set_path(&path);
                u
            }
        };
        if maps.insert(target.to_string()) {
            out.push(Probe { kind: ProbeKind::SourceMap, url: target, source: Some(script.clone()) });
        }
    }
    for (folder, page) in leads.folders.iter().take(MAX_FOLDERS) {
        if let Ok(u) = Url::parse(folder) {
            out.push(Probe { kind: ProbeKind::DirectoryListing, url: u, source: Some(page.clone()) });
        }
    }
    out
}

/// A probe's calibration class: its directory, whether its name is a dotfile, its extension
/// (a folder probe is its parent directory and `/`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Class {
    dir: String,
    dotted: bool,
    ext: String,
}

fn class_of(url: &Url) -> Class {
    let path = url.path();
    if let Some(folder) = path.strip_suffix('/') {
        let (dir, _) = folder.rsplit_once('/').unwrap_or(("", folder));
        return Class { dir: format!("{dir}/"), dotted: false, ext: "/".into() };
    }
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    let dotted = name.starts_with('.');
    let ext = name[usize::from(dotted)..].rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    Class { dir: format!("{dir}/"), dotted, ext }
}

/// A random URL of the same class as `probe`.
fn calibration_url(probe: &Url, class: &Class) -> Url {
    let mut rng = rand::rng();
    let name: String = (0..16).map(|_| char::from(b"abcdefghijklmnopqrstuvwxyz0123456789"[rng.random_range(0..36)])).collect();
    let file = match class.ext.as_str() {
        "/" => format!("sitescan-{name}/"),
        "" => format!("{}sitescan-{name}", if class.dotted { "." } else { "" }),
        ext => format!("{}sitescan-{name}.{ext}", if class.dotted { "." } else { "" }),
    };
    let mut u = probe.clone();
    u.set_query(None);
    u.set_fragment(None);
    u.set_path(&format!("{}{}", class.dir, file));
    u
}

/// How a calibration path answered.
#[derive(Debug, Clone)]
struct Calibration {
    status: Option<u16>,
    /// The body with the random name taken out (soft 404 pages often echo the path).
    body: Vec<u8>,
}

fn without(body: &[u8], needle: &str) -> Vec<u8> {
    if needle.is_empty() {
        return body.to_vec();
    }
    String::from_utf8_lossy(body).replace(needle, "").into_bytes()
}

fn last_segment(url: &Url) -> String {
    url.path().trim_end_matches('/').rsplit('/').next().unwrap_or_default().to_string()
}

/// Runs the probes within `budget` requests; returns the answers worth judging.
pub async fn run_probes(
    fetcher: &Fetcher,
    gate: &HostGate,
    start: &Url,
    leads: &ProbeLeads,
    budget: usize,
    cancel: &CancellationToken,
) -> Vec<ProbeAnswer> {
    let probes = plan(start, leads);
    let mut spent = 0usize;
    let mut calibrations: HashMap<Class, Calibration> = HashMap::new();
    let mut out = Vec::new();
    for probe in probes {
        if cancel.is_cancelled() {
            break;
        }
        let class = class_of(&probe.url);
        let need = 1 + usize::from(!calibrations.contains_key(&class));
        if spent + need > budget {
            tracing::debug!(spent, budget, url = %probe.url, "repository probe budget spent");
            break;
        }
        if !calibrations.contains_key(&class) {
            let url = calibration_url(&probe.url, &class);
            let response = {
                let _permit = gate.enter().await;
                fetcher.get_capped(url.as_str(), PROBE_MAX_BYTES).await
            };
            spent += 1;
            let status = if response.redirects.is_empty() { response.status } else { response.redirects.first().map(|h| h.status) };
            calibrations.insert(class.clone(), Calibration { status, body: without(&response.body, &last_segment(&url)) });
        }
        let response = {
            let _permit = gate.enter().await;
            fetcher.get_capped(probe.url.as_str(), PROBE_MAX_BYTES).await
        };
        spent += 1;
        if response.status != Some(200) || !response.redirects.is_empty() {
            continue;
        }
        let calibration = &calibrations[&class];
        if calibration.status == Some(200) && calibration.body == without(&response.body, &last_segment(&probe.url)) {
            tracing::debug!(url = %probe.url, "probe answered like a random path; ignored");
            continue;
        }
        out.push(ProbeAnswer {
            kind: probe.kind,
            url: probe.url.to_string(),
            status: 200,
            content_type: response.header("content-type").map(str::to_string),
            body: response.body,
            truncated: response.truncated,
            source: probe.source,
        });
    }
    tracing::debug!(requests = spent, answers = out.len(), "repository probes done");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_split_directory_dotfile_and_extension() {
        let c = |u: &str| class_of(&Url::parse(u).unwrap());
        assert_eq!(c("http://a.test/.git/HEAD"), Class { dir: "/.git/".into(), dotted: false, ext: "".into() });
        assert_eq!(c("http://a.test/.env"), Class { dir: "/".into(), dotted: true, ext: "".into() });
        assert_eq!(c("http://a.test/.env.local"), Class { dir: "/".into(), dotted: true, ext: "local".into() });
        assert_eq!(c("http://a.test/backup.zip"), Class { dir: "/".into(), dotted: false, ext: "zip".into() });
        assert_eq!(c("http://a.test/assets/img/"), Class { dir: "/assets/".into(), dotted: false, ext: "/".into() });
        let u = Url::parse("http://a.test/.env.local").unwrap();
        let cal = calibration_url(&u, &class_of(&u));
        assert_eq!(class_of(&cal), class_of(&u), "{cal}");
        let u = Url::parse("http://a.test/assets/img/").unwrap();
        let cal = calibration_url(&u, &class_of(&u));
        assert_eq!(class_of(&cal), class_of(&u), "{cal}");
    }

    #[test]
    fn plan_stays_on_the_origin_and_is_bounded() {
        let start = Url::parse("http://a.test/").unwrap();
        let mut leads = ProbeLeads::default();
        let mut page = crate::model::PageSnapshot { final_url: "http://a.test/blog/post/1".into(), ..Default::default() };
        for i in 0..20 {
            page.requests.push(crate::model::NetworkRequest { url: format!("http://a.test/js/app{i}.js?v=1"), resource_type: "script".into(), ..Default::default() });
        }
        page.requests.push(crate::model::NetworkRequest { url: "http://cdn.test/lib.js".into(), resource_type: "script".into(), ..Default::default() });
        leads.add_page(&start, &page);
        let probes = plan(&start, &leads);
        assert!(probes.iter().all(|p| p.url.host_str() == Some("a.test")), "{probes:?}");
        let maps: Vec<_> = probes.iter().filter(|p| p.kind == ProbeKind::SourceMap).collect();
        assert_eq!(maps.len(), MAX_SOURCE_MAPS);
        assert!(maps[0].url.as_str().ends_with(".js.map"), "{}", maps[0].url);
        let folders: Vec<String> = probes.iter().filter(|p| p.kind == ProbeKind::DirectoryListing).map(|p| p.url.to_string()).collect();
        assert_eq!(folders, ["http://a.test/blog/", "http://a.test/blog/post/", "http://a.test/js/"]);
    }
}
