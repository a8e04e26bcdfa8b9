//! A task a space runs on a thread of its own, now and then every interval, until stopped:
//! the backup rounds and the scheduled janitor scan.
//!
//! The thread holds nothing of the space but what its task captures (a `Weak` reference,
//! upgraded for one round at a time), so a removed space is dropped, and its writer lock
//! released, while the thread waits.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

/// One periodic task: started once, stopped once.
#[derive(Default)]
pub(crate) struct Periodic {
    signal: Arc<Signal>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

#[derive(Default)]
struct Signal {
    control: Mutex<Control>,
    wake: Condvar,
}

#[derive(Default)]
struct Control {
    started: bool,
    stopping: bool,
}

impl Signal {
    fn control(&self) -> MutexGuard<'_, Control> {
        self.control.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn stop(&self) {
        self.control().stopping = true;
        self.wake.notify_all();
    }
}

impl Periodic {
    /// Starts the thread `name` (once; not after a stop): it waits `first` (none: runs at
    /// once), then runs `round` every `interval` until stopped or until `round` answers
    /// `false` (its space is gone).
    pub(crate) fn start(
        &self,
        name: &str,
        first: Duration,
        interval: Duration,
        mut round: impl FnMut() -> bool + Send + 'static,
    ) {
        {
            let mut control = self.signal.control();
            if control.started || control.stopping {
                return;
            }
            control.started = true;
        }
        let signal = self.signal.clone();
        let spawned = std::thread::Builder::new()
            .name(name.to_owned())
            .spawn(move || {
                let mut wait = first;
                loop {
                    let control = signal.control();
                    let (control, _) = signal
                        .wake
                        .wait_timeout_while(control, wait, |c| !c.stopping)
                        .unwrap_or_else(|p| p.into_inner());
                    if control.stopping {
                        return;
                    }
                    drop(control);
                    if !round() {
                        return;
                    }
                    wait = interval;
                }
            });
        match spawned {
            Ok(handle) => *self.thread.lock().unwrap_or_else(|p| p.into_inner()) = Some(handle),
            Err(e) => tracing::error!("the {name} thread could not start: {e}"),
        }
    }

    /// Stops the thread and waits for its round to end; whether it had been started.
    pub(crate) fn stop(&self) -> bool {
        let started = self.signal.control().started;
        self.signal.stop();
        let thread = self.thread.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(thread) = thread {
            if thread.join().is_err() {
                tracing::error!("a periodic thread of a space panicked");
            }
        }
        started
    }
}

impl Drop for Periodic {
    fn drop(&mut self) {
        self.signal.stop();
    }
}
