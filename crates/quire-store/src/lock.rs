//! The writer lock of a knowledge root: at most one process writes a root at a time.
//!
//! The lock is the operating system's advisory lock ([`File::try_lock`]) on
//! `.quire/state/writer.lock`, so it lasts exactly as long as the process holding it: the OS
//! releases it when the process exits or is killed, and no stale lock is ever left to clean up.
//! The file itself only records who holds it (pid, kind, start time and, for a server, its API
//! address) for the error message another process shows; a record whose lock is free is stale
//! and means nobody.
//!
//! The holder of the lock alone may run crash recovery and write the root: [`Root::open`] and
//! [`History::open`] take a [`WriterLock`] as proof. Everyone else opens read-only
//! ([`Root::open_read_only`], [`History::open_read_only`]).
//!
//! [`Root::open`]: crate::Root::open
//! [`Root::open_read_only`]: crate::Root::open_read_only
//! [`History::open`]: crate::History::open
//! [`History::open_read_only`]: crate::History::open_read_only

use std::fmt;
use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crate::error::StoreError;
pub use crate::holder::LockHolder;
use crate::seen::FileStat;

/// Where the writer lock lives inside the root.
pub const WRITER_LOCK_PATH: &str = ".quire/state/writer.lock";

/// How often [`WriterLock::acquire`] and [`WriterLock::holder`] try again before they give up:
/// a process reading the holder takes a shared lock for a moment, and a new holder writes its
/// record just after taking the lock.
const ATTEMPTS: u32 = 10;
const PAUSE: Duration = Duration::from_millis(10);

/// Proof that this process holds the writer lock of one root. Cloning shares the one lock;
/// the OS lock is released when the last clone is dropped (a writable [`crate::Root`] keeps
/// one), or when the process dies.
#[derive(Clone)]
pub struct WriterLock {
    inner: Arc<Inner>,
}

struct Inner {
    /// The canonical root folder.
    dir: PathBuf,
    file: File,
    holder: Mutex<LockHolder>,
}

impl WriterLock {
    /// The stat data of the lock file. Its change time is when this process last wrote its
    /// record (on taking the lock, or announcing its API): a moment in the past by the
    /// filesystem's own clock, so a file written after it has a change time not before it.
    pub(crate) fn file_stat(&self) -> Option<FileStat> {
        self.inner.file.metadata().ok().map(|m| FileStat::of(&m))
    }

    /// Takes the writer lock of the root `dir` for a process of `kind` (`serve` or a command
    /// name), creating `.quire/state/` when needed. Fails with [`StoreError::Locked`], naming
    /// the holder, when another process holds it (or another handle in this process).
    pub fn acquire(dir: &Path, kind: &str) -> Result<WriterLock, StoreError> {
        let dir = crate::disk::canonical(dir)?;
        let path = dir.join(WRITER_LOCK_PATH);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| StoreError::io(WRITER_LOCK_PATH, e))?;
        }
        // Never truncate on open: the file may be the live record of another holder.
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| StoreError::io(WRITER_LOCK_PATH, e))?;
        let mut attempt = 0;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) if attempt + 1 < ATTEMPTS => {
                    attempt += 1;
                    std::thread::sleep(PAUSE);
                }
                Err(TryLockError::WouldBlock) => {
                    let holder = read_record(&file).unwrap_or_else(LockHolder::unknown);
                    return Err(StoreError::Locked { dir, holder });
                }
                Err(TryLockError::Error(e)) => return Err(StoreError::io(WRITER_LOCK_PATH, e)),
            }
        }
        let holder = LockHolder {
            pid: std::process::id(),
            kind: kind.to_owned(),
            started: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            api: None,
        };
        write_record(&file, &holder).map_err(|e| StoreError::io(WRITER_LOCK_PATH, e))?;
        tracing::debug!(root = %dir.display(), kind, "writer lock taken");
        Ok(WriterLock {
            inner: Arc::new(Inner {
                dir,
                file,
                holder: Mutex::new(holder),
            }),
        })
    }

    /// Who holds the writer lock of the root `dir` now, without taking it and without
    /// creating anything; `None` when nobody does (no lock file, or a stale record whose lock
    /// is free).
    pub fn holder(dir: &Path) -> Result<Option<LockHolder>, StoreError> {
        let path = dir.join(WRITER_LOCK_PATH);
        let file = match File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(StoreError::io(WRITER_LOCK_PATH, e)),
        };
        // A shared lock for a moment tells whether an exclusive one is held; two readers never
        // exclude each other, and `acquire` tries again past such a moment.
        for attempt in 0..ATTEMPTS {
            match file.try_lock_shared() {
                Ok(()) => return Ok(None),
                Err(TryLockError::WouldBlock) => {
                    if let Some(holder) = read_record(&file) {
                        return Ok(Some(holder));
                    }
                }
                Err(TryLockError::Error(e)) => return Err(StoreError::io(WRITER_LOCK_PATH, e)),
            }
            // Held, but the record is being written (or cleared by a holder letting go).
            if attempt + 1 < ATTEMPTS {
                std::thread::sleep(PAUSE);
            }
        }
        Ok(Some(LockHolder::unknown()))
    }

    /// Records the API address of the server holding the lock (once its listener is bound),
    /// so a process refused the lock can tell where to send its request instead.
    pub fn set_api(&self, api: &str) -> Result<(), StoreError> {
        let mut holder = self.lock_holder();
        let mut updated = holder.clone();
        updated.api = Some(api.to_owned());
        write_record(&self.inner.file, &updated)
            .map_err(|e| StoreError::io(WRITER_LOCK_PATH, e))?;
        *holder = updated;
        Ok(())
    }

    /// What this lock records about its holder (this process).
    pub fn info(&self) -> LockHolder {
        self.lock_holder().clone()
    }

    /// The canonical root folder the lock belongs to.
    pub fn dir(&self) -> &Path {
        &self.inner.dir
    }

    fn lock_holder(&self) -> MutexGuard<'_, LockHolder> {
        self.inner.holder.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl fmt::Debug for WriterLock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WriterLock")
            .field("dir", &self.inner.dir)
            .field("holder", &*self.lock_holder())
            .finish()
    }
}

impl Drop for Inner {
    /// Clears the record before the OS lock goes with the file, so a released lock leaves no
    /// stale record behind (a killed process does; its lock is free all the same).
    fn drop(&mut self) {
        if let Err(e) = self.file.set_len(0) {
            tracing::debug!(error = %e, "cannot clear the writer lock record");
        }
        tracing::debug!(root = %self.dir.display(), "writer lock released");
    }
}

/// Overwrites the record in place. The file cannot be replaced by a rename: the lock belongs
/// to this inode. The new text is written over the old before the file is cut to its length,
/// so a reader sees either valid JSON or text it cannot parse (and reads again).
fn write_record(mut file: &File, holder: &LockHolder) -> io::Result<()> {
    let mut text = serde_json::to_vec(holder).map_err(io::Error::other)?;
    text.push(b'\n');
    file.seek(SeekFrom::Start(0))?;
    file.write_all(&text)?;
    file.set_len(text.len() as u64)?;
    Ok(())
}

/// Reads the record of a held lock; `None` while it is being written or cleared, or where the
/// platform's locks also bar reading.
fn read_record(mut file: &File) -> Option<LockHolder> {
    let mut text = String::new();
    let read = file
        .seek(SeekFrom::Start(0))
        .and_then(|_| file.read_to_string(&mut text));
    if let Err(e) = read {
        tracing::debug!(error = %e, "cannot read the writer lock record");
        return None;
    }
    serde_json::from_str(text.trim()).ok()
}
