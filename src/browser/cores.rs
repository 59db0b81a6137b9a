//! The machine's cores, shared by every page this process captures: the in-page gatherers that
//! keep a renderer busy for hundreds of milliseconds (DOM facts, axe-core, the keyboard walk) run
//! at most one page per core at a time.
//!
//! Without this, pages captured at once fall into step: they load and wait for network quiet
//! together (the cores idle), then all run axe together, each at a fraction of a core, and finish
//! together to load the next pages together again. With a core each, the pages that wait for
//! one start later, so their next quiet wait falls while other pages compute. Loading is not
//! held back: a page waits only when every core already runs another page's gatherers.

use std::sync::LazyLock;
use tokio::sync::{Semaphore, SemaphorePermit};

/// One permit per core this process may use.
static CORES: LazyLock<Semaphore> =
    LazyLock::new(|| Semaphore::new(std::thread::available_parallelism().map_or(1, |n| n.get())));

/// Waits until a core is free for a page's in-page gatherers; the core is held until the permit
/// is dropped.
pub(crate) async fn core() -> Option<SemaphorePermit<'static>> {
    CORES.acquire().await.ok()
}
