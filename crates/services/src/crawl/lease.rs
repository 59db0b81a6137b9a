//! The lease guard: while a worker scans, it renews the scan's lease every third of its length;
//! when another worker has taken the scan over (the lease was lost), it stops the scan.

use crate::store::Store;
use std::time::Duration;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// Renews one scan's lease until stopped or dropped (a worker whose task is gone renews
/// nothing: the lease expires and another worker takes the scan); cancels `scan` when the lease
/// is lost.
pub struct LeaseGuard {
    lost: CancellationToken,
    stop: CancellationToken,
    renewer: Option<JoinHandle<()>>,
}

impl Drop for LeaseGuard {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl LeaseGuard {
    /// Starts renewing `scan_id`'s lease held by `owner`. `scan` is cancelled when the lease is
    /// lost; cancelling `scan` also stops the renewals.
    pub fn start(store: Store, scan_id: Uuid, owner: String, lease: Duration, scan: CancellationToken) -> LeaseGuard {
        let lost = CancellationToken::new();
        let stop = scan.clone();
        let renewer = {
            let lost = lost.clone();
            tokio::spawn(async move {
                let every = (lease / 3).max(Duration::from_millis(200));
                loop {
                    tokio::select! {
                        _ = tokio::time::sleep(every) => {}
                        _ = scan.cancelled() => return,
                    }
                    match store.renew_lease(scan_id, &owner, lease).await {
                        Ok(true) => {}
                        Ok(false) => {
                            tracing::warn!(scan_id = %scan_id, "lease lost; stopping this attempt");
                            lost.cancel();
                            scan.cancel();
                            return;
                        }
                        Err(e) => tracing::warn!(scan_id = %scan_id, error = %e, "could not renew the lease"),
                    }
                }
            })
        };
        LeaseGuard { lost, stop, renewer: Some(renewer) }
    }

    /// Whether the lease has been lost so far (renewals go on).
    pub fn lost(&self) -> bool {
        self.lost.is_cancelled()
    }

    /// Stops renewing (the scan ended) and tells whether the lease had been lost meanwhile.
    pub async fn stop(mut self) -> bool {
        self.stop.cancel();
        if let Some(renewer) = self.renewer.take() {
            let _ = renewer.await;
        }
        self.lost.is_cancelled()
    }
}
