//! A fixture site on the default ports of its own loopback address: `http://127.0.0.N/` (port 80)
//! and `https://127.0.0.N/` (port 443, a self-signed certificate made for the test), both
//! forwarded by `socat` to a `FixtureSite`. The crawler counts the http and https forms of a host
//! on default ports as one site, so an http start page can lead the crawl to https pages.
//!
//! Needs root (ports 80 and 443), `socat` and `openssl`. Chromium must accept the certificate:
//! `chromium_wrapper()` writes a launcher that adds `--ignore-certificate-errors`; the guarded
//! HTTP fetcher keeps verifying certificates, so https URLs the crawl only fetches (robots.txt,
//! link statuses) cannot be on this site; rendered pages can.

#![allow(dead_code)]

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::process::{Child, Command};

pub struct TlsFront {
    pub ip: String,
    dir: tempfile::TempDir,
    children: Vec<Child>,
}

fn free(ip: &str, port: u16) -> bool {
    TcpListener::bind((ip, port)).is_ok()
}

async fn wait_listening(addr: SocketAddr) -> bool {
    let began = Instant::now();
    while began.elapsed() < Duration::from_secs(5) {
        if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

impl TlsFront {
    /// Fronts `backend_port` (on 127.0.0.1) at the first 127.0.0.N with ports 80 and 443 free.
    /// `Err` says which prerequisite is missing.
    pub async fn start(backend_port: u16) -> Result<TlsFront, String> {
        let ip = (150..250)
            .map(|n| format!("127.0.0.{n}"))
            .find(|ip| free(ip, 80) && free(ip, 443))
            .ok_or("ports 80 and 443 are not free on any 127.0.0.150-249 (or binding them needs root)")?;
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
        let made = Command::new("openssl")
            .args(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1"])
            .arg("-keyout")
            .arg(&key)
            .arg("-out")
            .arg(&cert)
            .args(["-subj", &format!("/CN={ip}"), "-addext", &format!("subjectAltName=IP:{ip}")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .await
            .map_err(|e| format!("openssl: {e}"))?;
        if !made.success() {
            return Err("openssl could not make a certificate".into());
        }
        let backend = format!("TCP:127.0.0.1:{backend_port}");
        let tls = format!(
            "OPENSSL-LISTEN:443,bind={ip},reuseaddr,fork,verify=0,cert={},key={}",
            cert.display(),
            key.display()
        );
        let plain = format!("TCP-LISTEN:80,bind={ip},reuseaddr,fork");
        let mut children = Vec::new();
        for listen in [tls, plain] {
            let child = Command::new("socat")
                .arg(listen)
                .arg(&backend)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .kill_on_drop(true)
                .spawn()
                .map_err(|e| format!("socat: {e}"))?;
            children.push(child);
        }
        let front = TlsFront { ip: ip.clone(), dir, children };
        for port in [443, 80] {
            let addr: SocketAddr = format!("{ip}:{port}").parse().unwrap();
            if !wait_listening(addr).await {
                return Err(format!("socat does not listen on {addr}"));
            }
        }
        Ok(front)
    }

    pub fn http(&self, path: &str) -> String {
        format!("http://{}{}", self.ip, path)
    }

    pub fn https(&self, path: &str) -> String {
        format!("https://{}{}", self.ip, path)
    }

    /// A Chromium launcher that accepts the test's self-signed certificate.
    pub fn chromium_wrapper(&self) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let chromium = sitescan::browser::find_chromium(None).expect("a Chromium binary");
        let path = self.dir.path().join("chromium-test-tls");
        std::fs::write(&path, format!("#!/bin/sh\nexec '{}' --ignore-certificate-errors \"$@\"\n", chromium.display()))
            .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }
}

impl Drop for TlsFront {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.start_kill();
        }
    }
}
