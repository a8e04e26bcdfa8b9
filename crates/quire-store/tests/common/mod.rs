//! Opening roots for writing in tests: under the root's writer lock, which the root keeps.
#![allow(dead_code)]

use std::path::Path;

use quire_store::{History, HistoryOptions, Root, WriterLock};

/// Opens `dir` for writing, taking its writer lock; the lock lives as long as the root (and
/// its clones).
pub fn open_root(dir: &Path) -> Root {
    let lock = WriterLock::acquire(dir, "test").expect("writer lock");
    Root::open(dir, &lock).expect("open root")
}

/// Opens the history of a writable root under the lock the root holds.
pub fn open_history(root: &Root, opts: HistoryOptions) -> History {
    let lock = root.writer_lock().expect("a writable root");
    History::open(root, lock, opts).expect("open history")
}
