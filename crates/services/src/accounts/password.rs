//! Password hashing: argon2id (the `argon2` crate's defaults: 19 MiB, 2 passes, 1 lane), a
//! fresh random salt per hash, PHC strings in the database. Hashing and verifying run on the
//! blocking pool behind a semaphore of one permit per core: a flood of sign-ins queues for the
//! cores instead of filling the blocking pool (512 threads, 19 MiB each).

use super::error::{AccountError, AccountResult};
use argon2::Argon2;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use std::sync::OnceLock;
use tokio::sync::Semaphore;

/// Shortest password accepted.
pub const MIN_PASSWORD_LEN: usize = 10;
/// Longest password accepted (bytes): bounds the work one request can ask for.
pub const MAX_PASSWORD_LEN: usize = 256;

/// Checks a new password's length.
pub fn validate(password: &str) -> AccountResult<()> {
    if password.chars().count() < MIN_PASSWORD_LEN {
        return Err(AccountError::Invalid(format!("The password must be at least {MIN_PASSWORD_LEN} characters.")));
    }
    if password.len() > MAX_PASSWORD_LEN {
        return Err(AccountError::Invalid(format!("The password must be at most {MAX_PASSWORD_LEN} bytes.")));
    }
    Ok(())
}

/// The permits for argon2 work: one per core (`std::thread::available_parallelism`).
fn permits() -> &'static Semaphore {
    static PERMITS: OnceLock<Semaphore> = OnceLock::new();
    PERMITS.get_or_init(|| Semaphore::new(std::thread::available_parallelism().map_or(1, |n| n.get())))
}

/// Runs argon2 work `f` on the blocking pool once a permit is free.
async fn run_argon2<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, String> {
    let _permit = permits().acquire().await.map_err(|e| e.to_string())?;
    tokio::task::spawn_blocking(f).await.map_err(|e| e.to_string())
}

/// The argon2id PHC string of `password`.
pub async fn hash(password: &str) -> AccountResult<String> {
    validate(password)?;
    let password = password.to_string();
    run_argon2(move || hash_blocking(&password)).await.map_err(AccountError::Hash)?
}

fn hash_blocking(password: &str) -> AccountResult<String> {
    let hashed: Result<argon2::password_hash::phc::PasswordHash, _> = Argon2::default().hash_password(password.as_bytes());
    hashed.map(|h| h.to_string()).map_err(|e| AccountError::Hash(e.to_string()))
}

/// True when `password` matches `phc`. With `phc` None (no such user), a dummy hash is checked
/// instead so the answer takes as long either way, and false is returned.
pub async fn verify(password: &str, phc: Option<String>) -> bool {
    if password.len() > MAX_PASSWORD_LEN {
        return false;
    }
    let password = password.to_string();
    run_argon2(move || {
        let known = phc.is_some();
        let phc = phc.unwrap_or_else(|| dummy_hash().to_string());
        let ok = PasswordVerifier::<str>::verify_password(&Argon2::default(), password.as_bytes(), phc.as_str()).is_ok();
        ok && known
    })
    .await
    .unwrap_or(false)
}

fn dummy_hash() -> &'static str {
    static DUMMY: OnceLock<String> = OnceLock::new();
    DUMMY.get_or_init(|| hash_blocking("dummy password for unknown accounts").unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hashes_verify_and_are_argon2id() {
        let h = hash("correct horse battery").await.unwrap();
        assert!(h.starts_with("$argon2id$"), "{h}");
        assert!(verify("correct horse battery", Some(h.clone())).await);
        assert!(!verify("wrong horse battery", Some(h.clone())).await);
        assert!(!verify("correct horse battery", None).await);
        assert_ne!(h, hash("correct horse battery").await.unwrap(), "salted");
        assert!(hash("short").await.is_err());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn argon2_work_never_exceeds_one_job_per_core() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicUsize, Ordering};
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let (running, peak) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let jobs: Vec<_> = (0..cores * 3)
            .map(|_| {
                let (running, peak) = (running.clone(), peak.clone());
                tokio::spawn(run_argon2(move || {
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    peak.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(30));
                    running.fetch_sub(1, Ordering::SeqCst);
                }))
            })
            .collect();
        for j in jobs {
            j.await.unwrap().unwrap();
        }
        let peak = peak.load(Ordering::SeqCst);
        assert!(peak >= 1 && peak <= cores, "at most {cores} at once, saw {peak}");
    }
}
