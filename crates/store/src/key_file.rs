//! The embedded default's secret key: a file beside the SQLite database (`sitescan.db` keeps its
//! key in `sitescan.db.key`), so webhooks, chat and sealed secrets work with no flag.
//!
//! `serve` makes it on its first start when no key is configured (`SITESCAN_SECRET_KEY` and
//! `--secret-key-file` keep winning): 32 random bytes as base64, readable by the owner only
//! (0600), written to a temporary file and linked into place, so a reader never sees half a key
//! and an existing key file is never overwritten (two processes starting at once both end up
//! with the one that was linked first). Later starts, and the commands that open the same
//! database, read it. PostgreSQL (a fleet) has no file beside it: there a key is passed.

use super::secret_box::{SecretBox, SecretError};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rand::RngCore;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// What the key file's name adds to the database file's name.
pub const KEY_FILE_SUFFIX: &str = ".key";
/// The key file's permissions: the owner reads and writes it, nobody else.
pub const KEY_FILE_MODE: u32 = 0o600;

/// The key file of the database at `url`: `None` unless it is an SQLite file (PostgreSQL, or an
/// in-memory database that nothing outlives).
pub fn beside(url: &str) -> Option<PathBuf> {
    let rest = url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:"))?;
    let (file, query) = rest.split_once('?').unwrap_or((rest, ""));
    if file.is_empty() || file == ":memory:" || query.split('&').any(|p| p == "mode=memory") {
        return None;
    }
    let mut name = Path::new(file).file_name()?.to_os_string();
    name.push(KEY_FILE_SUFFIX);
    Some(Path::new(file).with_file_name(name))
}

/// A key read from, or written to, its file.
#[derive(Debug)]
pub struct KeyFile {
    pub key: SecretBox,
    pub path: PathBuf,
    /// True when this call made the file.
    pub created: bool,
}

/// The key in `path` when the file is there; `None` when it is not.
pub fn read(path: &Path) -> Result<Option<KeyFile>, SecretError> {
    match std::fs::read_to_string(path) {
        Ok(text) => {
            if std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o077 != 0) {
                tracing::warn!(path = %path.display(), "the secret key file can be read by others than its owner: chmod 600 it");
            }
            Ok(Some(KeyFile { key: SecretBox::from_text(&text)?, path: path.to_path_buf(), created: false }))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(SecretError::Unreadable { path: path.display().to_string(), error: e.to_string() }),
    }
}

/// The key in `path`, made first when the file is not there.
pub fn read_or_create(path: &Path) -> Result<KeyFile, SecretError> {
    if let Some(found) = read(path)? {
        return Ok(found);
    }
    let uncreatable = |e: std::io::Error| SecretError::Uncreatable { path: path.display().to_string(), error: e.to_string() };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    let text = format!("{}\n", STANDARD.encode(bytes));
    let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temp = dir.join(format!(".{file_name}.{}.tmp", uuid::Uuid::new_v4().simple()));
    let written = (|| {
        let mut f = std::fs::OpenOptions::new().write(true).create_new(true).mode(KEY_FILE_MODE).open(&temp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        // Linking fails when the name exists: a key file is never replaced.
        std::fs::hard_link(&temp, path)
    })();
    let _ = std::fs::remove_file(&temp);
    match written {
        Ok(()) => {
            if let Ok(d) = std::fs::File::open(&dir) {
                let _ = d.sync_all();
            }
            Ok(KeyFile { key: SecretBox::from_text(&text)?, path: path.to_path_buf(), created: true })
        }
        // Another process made it first: its key is the one.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            read(path)?.ok_or_else(|| uncreatable(std::io::Error::other("it vanished right after it was made")))
        }
        Err(e) => Err(uncreatable(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SealedAt;

    #[test]
    fn only_an_sqlite_file_has_a_key_file_beside_it() {
        assert_eq!(beside("sqlite://sitescan.db?mode=rwc"), Some(PathBuf::from("sitescan.db.key")));
        assert_eq!(beside("sqlite:///var/lib/sitescan/db.sqlite?mode=rwc"), Some(PathBuf::from("/var/lib/sitescan/db.sqlite.key")));
        assert_eq!(beside("sqlite:data/s.db"), Some(PathBuf::from("data/s.db.key")));
        for none in ["sqlite::memory:", "sqlite://:memory:", "sqlite://x.db?mode=memory&cache=shared", "postgres://postgres@127.0.0.1/test", "sqlite://"] {
            assert_eq!(beside(none), None, "{none}");
        }
    }

    #[test]
    fn the_first_call_makes_an_owner_only_key_and_later_calls_read_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sitescan.db.key");
        assert!(read(&path).unwrap().is_none());
        let first = read_or_create(&path).unwrap();
        assert!(first.created);
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, KEY_FILE_MODE);
        let at = SealedAt { table: "t", row: "r", name: "n" };
        let sealed = first.key.seal("hunter2", at);
        let text = std::fs::read_to_string(&path).unwrap();
        let again = read_or_create(&path).unwrap();
        assert!(!again.created);
        assert_eq!(again.key.open(&sealed, at).unwrap(), "hunter2", "the same key");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "never rewritten");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["sitescan.db.key"], "no temporary file left behind");
    }

    #[test]
    fn an_existing_key_is_never_replaced_and_a_bad_one_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.key");
        std::fs::write(&path, "not a key").unwrap();
        assert_eq!(read_or_create(&path).unwrap_err(), SecretError::BadKey);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "not a key");
        let missing_dir = dir.path().join("absent").join("k.key");
        let e = read_or_create(&missing_dir).unwrap_err();
        assert!(matches!(e, SecretError::Uncreatable { .. }), "{e:?}");
    }

    #[test]
    fn racing_starts_end_with_one_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("race.key");
        let keys: Vec<KeyFile> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8).map(|_| s.spawn(|| read_or_create(&path).unwrap())).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(keys.iter().filter(|k| k.created).count(), 1);
        let at = SealedAt { table: "t", row: "r", name: "n" };
        let sealed = keys[0].key.seal("x", at);
        assert!(keys.iter().all(|k| k.key.open(&sealed, at).is_ok()));
    }
}
