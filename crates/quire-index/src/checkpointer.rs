//! Checkpoints during a spell of writes, on a connection and a thread of their own, so a write
//! transaction never copies the WAL into the database itself.
//!
//! Every write transaction of the index appends the pages it touched to the WAL (a one-page
//! rewrite is about 50 pages of 4 KiB: full-text segment, tables, their indexes). Left alone,
//! SQLite's automatic checkpoint would run inside the write that crosses its threshold and copy
//! tens of megabytes while that write — and every writer waiting for it — waits. Instead the
//! writer [`Checkpointer::nudge`]s this thread after each transaction; the thread runs a
//! `PASSIVE` checkpoint (which runs beside the writer and readers and copies what nobody
//! still reads) at most every [`SPACING`], so the WAL stays a few megabytes and the next
//! write after a full copy starts it over. The writer connection's own automatic checkpoint
//! stays as a backstop, far above what this keeps.

use std::path::Path;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rusqlite::Connection;

/// The least time between two background checkpoints (each costs an fsync of the WAL and one
/// of the database).
pub(crate) const SPACING: Duration = Duration::from_millis(250);

/// The checkpoint thread of an index; dropping it stops the thread.
pub(crate) struct Checkpointer {
    nudges: Mutex<Option<SyncSender<()>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl Checkpointer {
    /// Starts the thread with its own connection to `path`; `None` (logged) when that fails,
    /// and the writer's automatic checkpoint then does the work as before.
    pub(crate) fn start(path: &Path, busy_timeout: Duration) -> Option<Checkpointer> {
        let connection = match Connection::open(path) {
            Ok(connection) => connection,
            Err(e) => {
                tracing::warn!("the index's checkpoint thread has no connection: {e}");
                return None;
            }
        };
        if let Err(e) = connection.busy_timeout(busy_timeout) {
            tracing::warn!("the index's checkpoint connection: {e}");
            return None;
        }
        let (nudges, heard) = mpsc::sync_channel(1);
        let thread = std::thread::Builder::new()
            .name("quire-checkpoint".into())
            .spawn(move || run(connection, heard));
        match thread {
            Ok(thread) => Some(Checkpointer {
                nudges: Mutex::new(Some(nudges)),
                thread: Mutex::new(Some(thread)),
            }),
            Err(e) => {
                tracing::warn!("the index's checkpoint thread did not start: {e}");
                None
            }
        }
    }

    /// The WAL grew: a checkpoint is due soon. Never waits; nudges pile into one.
    pub(crate) fn nudge(&self) {
        let nudges = self.nudges.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(sender) = nudges.as_ref() {
            match sender.try_send(()) {
                Ok(()) | Err(TrySendError::Full(())) | Err(TrySendError::Disconnected(())) => {}
            }
        }
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        self.nudges.lock().unwrap_or_else(|p| p.into_inner()).take();
        let thread = self.thread.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(thread) = thread {
            let _ = thread.join();
        }
    }
}

fn run(connection: Connection, heard: Receiver<()>) {
    let mut last: Option<Instant> = None;
    while heard.recv().is_ok() {
        // Nudges that come while the spacing runs out are covered by the checkpoint after it;
        // a closing index ends the wait at once.
        if let Some(until) = last.map(|at: Instant| at + SPACING) {
            loop {
                let now = Instant::now();
                if now >= until {
                    break;
                }
                match heard.recv_timeout(until - now) {
                    Ok(()) => {}
                    Err(RecvTimeoutError::Timeout) => break,
                    Err(RecvTimeoutError::Disconnected) => return,
                }
            }
        }
        if let Err(e) = connection.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
            tracing::debug!("background checkpoint of the index: {e}");
        }
        last = Some(Instant::now());
    }
}
