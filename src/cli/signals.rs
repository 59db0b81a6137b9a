//! Waiting for SIGINT or SIGTERM.
//!
//! The handlers are installed when a [`Shutdown`] is made, not when it is first awaited: a
//! signal that arrives between the two (a supervisor stopping a process the moment it answers)
//! is then held for the wait instead of taking the default action and killing the process
//! before it releases its scans.

/// SIGINT and SIGTERM, caught from the moment [`Shutdown::listen`] returns.
pub struct Shutdown {
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    terminate: Option<tokio::signal::unix::Signal>,
}

impl Shutdown {
    /// Installs the handlers now. Must be called inside the runtime.
    pub fn listen() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            Self { interrupt: signal(SignalKind::interrupt()).ok(), terminate: signal(SignalKind::terminate()).ok() }
        }
        #[cfg(not(unix))]
        {
            Self {}
        }
    }

    /// Resolves on Ctrl-C (SIGINT) or SIGTERM, including one that arrived before this was awaited.
    pub async fn wait(mut self) {
        #[cfg(unix)]
        {
            async fn recv(signal: &mut Option<tokio::signal::unix::Signal>) {
                match signal {
                    Some(s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            }
            tokio::select! {
                _ = recv(&mut self.interrupt) => {},
                _ = recv(&mut self.terminate) => {},
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::Shutdown;
    use std::time::Duration;

    /// A SIGTERM that arrives after the handlers are installed but before anything awaits them
    /// (the window in which `serve` binds, starts its workers and answers its first request) is
    /// held for the wait: the process is not killed and the wait ends.
    #[tokio::test]
    async fn a_signal_before_the_wait_is_held_for_it() {
        let shutdown = Shutdown::listen();
        let sent = std::process::Command::new("kill").args(["-TERM", &std::process::id().to_string()]).status().unwrap();
        assert!(sent.success());
        tokio::time::sleep(Duration::from_millis(200)).await;
        tokio::time::timeout(Duration::from_secs(10), shutdown.wait()).await.expect("the held SIGTERM ends the wait");
    }
}
