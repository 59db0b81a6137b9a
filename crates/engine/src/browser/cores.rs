//! The machine's cores, shared by every page this process captures: the in-page gatherers that
//! keep a renderer busy for hundreds of milliseconds (DOM facts, axe-core, the keyboard walk) run
//! at most one page per core at a time.
//!
//! Without this, pages captured at once fall into step: they load and wait for network quiet
//! together (the cores idle), then all run axe together, each at a fraction of a core, and finish
//! together to load the next pages together again. With a core each, the pages that wait for
//! one start later, so their next quiet wait falls while other pages compute. Loading is not
//! held back: a page waits only when every core already runs another page's gatherers.
//!
//! Workers of one fleet may run on one machine (two `sitescan worker` processes sharing a scan's
//! pages, say): the cores are then the machine's, not each process's. Besides its own permit, a
//! page takes one of the machine's core slots: a lock file per core (`flock`) in a directory of
//! this user's (`$SITESCAN_CORES_DIR`, or `sitescan-cores-<uid>` in the temporary directory),
//! held while the permit is. Where the directory cannot be used, or no slot frees within
//! [`MACHINE_WAIT`], the process's own permit is all a page waits for.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::sync::LazyLock;
use std::time::Duration;
use tokio::sync::{Semaphore, SemaphorePermit};

/// The cores this process may use (the machine's, or its container's share).
static COUNT: LazyLock<usize> = LazyLock::new(|| std::thread::available_parallelism().map_or(1, |n| n.get()));

/// One permit per core this process may use.
static CORES: LazyLock<Semaphore> = LazyLock::new(|| Semaphore::new(*COUNT));

/// The directory of the machine's core slots, when it can be used.
static SLOTS: LazyLock<Option<PathBuf>> = LazyLock::new(slots_dir);

/// How long a page waits for a slot of the machine before it goes on with its process's permit
/// alone (a slot is held for hundreds of milliseconds; a longer wait means a holder elsewhere
/// that this process should not wait on).
const MACHINE_WAIT: Duration = Duration::from_secs(5);
/// How often a page waiting for a slot of the machine looks again.
const MACHINE_POLL: Duration = Duration::from_millis(4);

/// A core held for a page's in-page gatherers, until dropped.
pub(crate) struct Core {
    _permit: Option<SemaphorePermit<'static>>,
    /// The machine's slot: its lock is released when the file is closed.
    _slot: Option<File>,
}

/// Waits until a core is free for a page's in-page gatherers; the core is held until the
/// returned [`Core`] is dropped.
pub(crate) async fn core() -> Core {
    let permit = CORES.acquire().await.ok();
    let slot = match SLOTS.as_ref() {
        Some(dir) => machine_slot(dir, *COUNT).await,
        None => None,
    };
    Core { _permit: permit, _slot: slot }
}

fn slots_dir() -> Option<PathBuf> {
    // SAFETY: getuid(2) has no preconditions.
    let uid = unsafe { libc::getuid() };
    let dir = std::env::var_os("SITESCAN_CORES_DIR").map(PathBuf::from).unwrap_or_else(|| std::env::temp_dir().join(format!("sitescan-cores-{uid}")));
    let mut builder = std::fs::DirBuilder::new();
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    if let Err(e) = builder.recursive(true).create(&dir) {
        tracing::debug!(dir = %dir.display(), error = %e, "no core slots shared with this machine's other sitescan processes");
        return None;
    }
    // Only a directory of this user's: another user's lock files could hold every slot.
    let meta = std::fs::metadata(&dir).ok()?;
    (std::os::unix::fs::MetadataExt::uid(&meta) == uid && meta.is_dir()).then_some(dir)
}

/// One of the machine's `count` slots in `dir`, or `None` when none frees in time.
async fn machine_slot(dir: &std::path::Path, count: usize) -> Option<File> {
    let first = rand::random_range(0..count.max(1));
    let deadline = tokio::time::Instant::now() + MACHINE_WAIT;
    loop {
        for i in 0..count {
            let path = dir.join(format!("{}.lock", (first + i) % count));
            let Ok(file) = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path) else { return None };
            // SAFETY: flock(2) on a descriptor this function owns.
            if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
                return Some(file);
            }
        }
        if tokio::time::Instant::now() >= deadline {
            return None;
        }
        tokio::time::sleep(MACHINE_POLL).await;
    }
}

#[cfg(test)]
mod tests {
    use super::machine_slot;

    #[tokio::test]
    async fn a_machines_slots_are_held_once_each_and_freed_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let a = machine_slot(dir.path(), 2).await.expect("a first slot");
        let b = machine_slot(dir.path(), 2).await.expect("a second slot");
        // Both held: a third waits, and takes the slot the first frees.
        let third = tokio::spawn({
            let dir = dir.path().to_path_buf();
            async move { machine_slot(&dir, 2).await }
        });
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        assert!(!third.is_finished(), "a third slot of two was taken");
        drop(a);
        assert!(third.await.unwrap().is_some());
        drop(b);
    }
}
