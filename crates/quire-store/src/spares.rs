//! Spare files for atomic rewrites: a rewrite swaps the new content in instead of renaming over
//! the old file, and the old file's inode becomes the temp file of a later write.
//!
//! A plain atomic write makes a new inode (the temp file) and frees one (the old file) each
//! time. On ext4 without a journal, allocating an inode skips every inode of its group freed in
//! the last few seconds, so a burst of thousands of rewrites makes each next write slower
//! (`docs/PERFORMANCE.md`, "Why the same binary writes ~1,600 or ~4,400 pages a second here").
//! With spares a burst of rewrites allocates and frees no inode at all:
//!
//! 1. the new bytes go into a spare (an inode that held an earlier version of some page), or
//!    into a new temp file when there is none;
//! 2. `renameat2(RENAME_EXCHANGE)` swaps it with the page: readers see the old or the new file,
//!    never a mix, as with `rename`;
//! 3. the name of the temp file now holds the old inode, which becomes a spare.
//!
//! A spare is written again only when nothing has it open: a reader that opened the page just
//! before the swap still holds that inode, and must go on reading the old bytes. A write lease
//! (`F_SETLEASE`), which the kernel grants only when no other open file refers to the inode,
//! is the check; a spare that fails it, or has another link, is removed instead (the reader
//! keeps its inode) and a new temp file is used. Where the system has no exchange or no leases
//! the write is the plain temp file + rename.
//!
//! Spares live in `.quire/state/tmp` beside the temp files (same filesystem), hold old versions
//! of pages (which the history holds anyway), are at most [`KEEP`], and are removed when the
//! root is dropped and, like every temp file, when a writable root is opened.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// Spares kept at most; writes of one change run on at most four threads.
pub(crate) const KEEP: usize = 16;

/// The spares of one root, shared by its clones.
#[derive(Debug)]
pub(crate) struct Spares {
    dir: PathBuf,
    free: Mutex<Vec<PathBuf>>,
    /// Cleared when the filesystem refuses the exchange: every write is then a plain rename.
    exchange: AtomicBool,
}

/// Distinguishes spare names within the process; the pid separates processes.
static SPARE_COUNTER: AtomicU64 = AtomicU64::new(0);

impl Spares {
    pub(crate) fn new(dir: PathBuf) -> Spares {
        Spares {
            dir,
            free: Mutex::new(Vec::new()),
            exchange: AtomicBool::new(cfg!(target_os = "linux")),
        }
    }

    /// A spare that nothing else has open, opened for writing; `None` when there is none.
    /// Spares that fail the check are removed.
    pub(crate) fn take(&self) -> Option<(PathBuf, File)> {
        loop {
            let path = self.free.lock().unwrap_or_else(|p| p.into_inner()).pop()?;
            match fs::OpenOptions::new().write(true).open(&path) {
                Ok(file) if unshared(&file) => return Some((path, file)),
                _ => {
                    let _ = fs::remove_file(&path);
                }
            }
        }
    }

    /// Swaps the file at `tmp` (the new content) with the existing file at `target`. `Ok(true)`:
    /// swapped, and `tmp` (now holding the old inode) was kept as a spare or removed;
    /// `Ok(false)`: the system cannot swap, nothing moved (rename instead).
    pub(crate) fn exchange(&self, tmp: &Path, target: &Path) -> io::Result<bool> {
        if !self.exchange.load(Ordering::Relaxed) {
            return Ok(false);
        }
        match swap(tmp, target) {
            Ok(()) => {
                self.keep(tmp);
                Ok(true)
            }
            Err(e) if unsupported(&e) => {
                self.exchange.store(false, Ordering::Relaxed);
                tracing::info!(error = %e, "this filesystem cannot swap files: rewrites rename");
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// A name for a new spare-to-be temp file in the spares' folder.
    pub(crate) fn fresh_name(&self) -> PathBuf {
        self.dir.join(format!(
            "{}-{}.spare",
            std::process::id(),
            SPARE_COUNTER.fetch_add(1, Ordering::Relaxed)
        ))
    }

    fn keep(&self, path: &Path) {
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        if free.len() < KEEP {
            free.push(path.to_path_buf());
        } else {
            drop(free);
            let _ = fs::remove_file(path);
        }
    }
}

impl Drop for Spares {
    fn drop(&mut self) {
        for path in self
            .free
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .drain(..)
        {
            let _ = fs::remove_file(path);
        }
    }
}

/// Whether `file` is the only open file of its inode and its only link: then writing it
/// changes nothing anyone else reads.
fn unshared(file: &File) -> bool {
    use std::os::unix::fs::MetadataExt;
    if !file.metadata().is_ok_and(|m| m.nlink() == 1 && m.is_file()) {
        return false;
    }
    lease_is_free(file)
}

#[cfg(target_os = "linux")]
fn lease_is_free(file: &File) -> bool {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor this function borrows; F_SETLEASE takes an int argument.
    let taken = unsafe { libc::fcntl(fd, libc::F_SETLEASE, libc::F_WRLCK) } == 0;
    if taken {
        // SAFETY: as above; giving the lease back at once.
        unsafe { libc::fcntl(fd, libc::F_SETLEASE, libc::F_UNLCK) };
    }
    taken
}

#[cfg(not(target_os = "linux"))]
fn lease_is_free(_file: &File) -> bool {
    false
}

#[cfg(target_os = "linux")]
fn swap(a: &Path, b: &Path) -> io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let a = CString::new(a.as_os_str().as_bytes()).map_err(io::Error::other)?;
    let b = CString::new(b.as_os_str().as_bytes()).map_err(io::Error::other)?;
    // SAFETY: two NUL-terminated paths that live across the call.
    let done = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if done == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn swap(_a: &Path, _b: &Path) -> io::Result<()> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

/// The errors of a filesystem or kernel that cannot exchange two names.
fn unsupported(e: &io::Error) -> bool {
    #[cfg(target_os = "linux")]
    if matches!(
        e.raw_os_error(),
        Some(libc::EINVAL) | Some(libc::ENOSYS) | Some(libc::EOPNOTSUPP)
    ) {
        return true;
    }
    e.kind() == io::ErrorKind::Unsupported
}
