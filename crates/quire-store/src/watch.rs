//! Watching a knowledge root for changes made outside quire while a server runs (an editor,
//! a sync tool, `git pull` in a shell).
//!
//! [`RootWatcher`] watches the root recursively (inotify on Linux, through the `notify` crate)
//! and reports debounced [`WatchBatch`]es: the paths that may have changed, the renames the
//! platform paired, and whether git's HEAD or refs moved. It only reports: telling the
//! service's own writes from others (their paths show up here too) and deciding what changed
//! is the caller's job.
//!
//! Ignored: everything under `.quire/state/` (the store's own bookkeeping, including the temp
//! files of atomic writes, whose final rename shows up as a change of the target path), `.git`
//! folders below the root, and everything in the root's `.git/` except `HEAD`, `packed-refs`
//! and `refs/` (lock files aside). Reads (open and close events) are no change.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode, EventKind, ModifyKind, RenameMode};
use notify::{Event, RecursiveMode, Watcher};
use quire_vault::PagePath;

use crate::error::StoreError;
use crate::root::Root;

/// How events are gathered into batches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WatchOptions {
    /// A batch is reported once no event has arrived for this long...
    pub quiet: Duration,
    /// ... or this long after its first event, however busy the root is.
    pub max_delay: Duration,
}

impl Default for WatchOptions {
    /// 200 ms of quiet, at most 1 s of delay.
    fn default() -> WatchOptions {
        WatchOptions {
            quiet: Duration::from_millis(200),
            max_delay: Duration::from_secs(1),
        }
    }
}

/// What changed in the root during one batch. Never empty when reported.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WatchBatch {
    /// Every path that may have been created, written, removed or renamed (both ends of a
    /// move too), sorted and without repeats. Names on disk that are not NFC are reported by
    /// their NFC path, as [`Root::listing`] does; names that are no valid path (not UTF-8, a
    /// backslash) are left out, as the listing leaves them out. The path of a folder stands
    /// for everything below it (a folder created, moved in or removed as a whole).
    pub paths: Vec<PagePath>,
    /// Renames whose two ends the platform paired (inotify's `MOVED_FROM`/`MOVED_TO` cookie),
    /// as `(from, to)` in the order they happened; both ends are also in `paths`. A rename
    /// from or to an ignored place (a temp file under `.quire/state/`) is no move: only the
    /// end inside the watched part is in `paths`.
    pub moves: Vec<(PagePath, PagePath)>,
    /// `.git/HEAD`, `.git/packed-refs` or something under `.git/refs/` changed: a commit,
    /// checkout, reset or pull by another program (or by quire itself).
    pub git_refs_moved: bool,
    /// Events were lost (the kernel's queue overflowed, a folder could not be watched, the
    /// watcher failed): anything may have changed, so the caller should rescan the root.
    pub rescan: bool,
}

impl WatchBatch {
    fn is_empty(&self) -> bool {
        self.paths.is_empty() && self.moves.is_empty() && !self.git_refs_moved && !self.rescan
    }
}

/// Watches one root until dropped. Dropping it stops the watch; the callback is not called
/// again once `drop` has returned (a batch still gathering is discarded).
pub struct RootWatcher {
    watcher: Option<notify::RecommendedWatcher>,
    stop: Sender<Message>,
    thread: Option<JoinHandle<()>>,
}

enum Message {
    Event(notify::Result<Event>),
    Stop,
}

impl RootWatcher {
    /// Starts watching `root` (which may be read-only) and calls `on_batch` from a thread of
    /// its own with each batch. The watch is in place when this returns.
    pub fn start(
        root: &Root,
        opts: WatchOptions,
        on_batch: impl FnMut(WatchBatch) + Send + 'static,
    ) -> Result<RootWatcher, StoreError> {
        let dir = root.dir().to_path_buf();
        let shown = dir.display().to_string();
        let (tx, rx) = mpsc::channel();
        let events = tx.clone();
        let handler = move |event: notify::Result<Event>| {
            let _ = events.send(Message::Event(event));
        };
        // Symbolic links are not followed: one leading outside the root must not widen the
        // watch beyond it.
        let config = notify::Config::default().with_follow_symlinks(false);
        let mut watcher = notify::RecommendedWatcher::new(handler, config)
            .map_err(|e| StoreError::io(shown.clone(), notify_io(e)))?;
        watcher
            .watch(&dir, RecursiveMode::Recursive)
            .map_err(|e| StoreError::io(shown, notify_io(e)))?;
        let thread = std::thread::Builder::new()
            .name("quire-watch".into())
            .spawn(move || gather(&dir, opts, &rx, on_batch))
            .map_err(|e| StoreError::io(root.dir().display().to_string(), e))?;
        Ok(RootWatcher {
            watcher: Some(watcher),
            stop: tx,
            thread: Some(thread),
        })
    }
}

impl Drop for RootWatcher {
    fn drop(&mut self) {
        // Stops the OS watch first, so no event arrives after the thread is gone.
        drop(self.watcher.take());
        let _ = self.stop.send(Message::Stop);
        if let Some(thread) = self.thread.take() {
            if thread.join().is_err() {
                tracing::error!("the watch thread panicked");
            }
        }
    }
}

fn notify_io(e: notify::Error) -> std::io::Error {
    match e.kind {
        notify::ErrorKind::Io(io) => io,
        other => std::io::Error::other(format!("{other:?}")),
    }
}

/// A batch being gathered.
#[derive(Default)]
struct Pending {
    paths: BTreeSet<PagePath>,
    batch: WatchBatch,
    first_at: Option<Instant>,
    last_at: Option<Instant>,
}

impl Pending {
    /// When the batch is due: after the quiet period, or at the maximum delay.
    fn due(&self, opts: &WatchOptions) -> Option<Instant> {
        let first = self.first_at?;
        let last = self.last_at.unwrap_or(first);
        Some((last + opts.quiet).min(first + opts.max_delay))
    }

    fn take(&mut self) -> WatchBatch {
        let mut batch = std::mem::take(&mut self.batch);
        batch.paths = std::mem::take(&mut self.paths).into_iter().collect();
        self.first_at = None;
        self.last_at = None;
        batch
    }
}

/// The watch thread: gathers events into batches and hands each to `on_batch` when due.
fn gather(
    dir: &Path,
    opts: WatchOptions,
    rx: &Receiver<Message>,
    mut on_batch: impl FnMut(WatchBatch),
) {
    let mut pending = Pending::default();
    loop {
        let message = match pending.due(&opts) {
            None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
            Some(due) => rx.recv_timeout(due.saturating_duration_since(Instant::now())),
        };
        match message {
            Ok(Message::Event(event)) => {
                let relevant = match event {
                    Ok(event) => note(dir, &event, &mut pending),
                    Err(e) => {
                        tracing::warn!(error = %e, "watching the root failed; asking for a rescan");
                        pending.batch.rescan = true;
                        true
                    }
                };
                // Ignored events neither start a batch nor hold one back.
                if relevant {
                    let now = Instant::now();
                    pending.first_at.get_or_insert(now);
                    pending.last_at = Some(now);
                }
            }
            Ok(Message::Stop) | Err(RecvTimeoutError::Disconnected) => return,
            Err(RecvTimeoutError::Timeout) => {}
        }
        // A steady stream of events never lets `recv_timeout` time out: check the due time
        // after every event too.
        if pending.due(&opts).is_some_and(|due| due <= Instant::now()) {
            let batch = pending.take();
            if !batch.is_empty() {
                on_batch(batch);
            }
        }
    }
}

/// Where an event's path lies, as far as the watcher cares.
#[derive(Debug, PartialEq, Eq)]
enum Place {
    /// A path of the knowledge root.
    Page(PagePath),
    /// The root's `.git/HEAD`, `.git/packed-refs`, a ref, or `.git` itself.
    GitRefs,
    /// Anything else: ignored.
    Ignored,
}

/// Adds what one event says to the pending batch; `false` when it says nothing of interest.
fn note(dir: &Path, event: &Event, pending: &mut Pending) -> bool {
    let mut relevant = false;
    if event.need_rescan() {
        pending.batch.rescan = true;
        relevant = true;
    }
    match event.kind {
        // Opening and reading change nothing; a write is closed after its modify events.
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => {}
        EventKind::Access(_) => return relevant,
        EventKind::Modify(ModifyKind::Name(RenameMode::Both)) if event.paths.len() == 2 => {
            let from = place(dir, &event.paths[0]);
            let to = place(dir, &event.paths[1]);
            if let (Place::Page(from), Place::Page(to)) = (&from, &to) {
                pending.batch.moves.push((from.clone(), to.clone()));
            }
            relevant |= add(pending, from);
            relevant |= add(pending, to);
            return relevant;
        }
        _ => {}
    }
    for path in &event.paths {
        if path == dir {
            // The root itself: removed or moved away means nothing reported so far holds.
            if matches!(
                event.kind,
                EventKind::Remove(_) | EventKind::Modify(ModifyKind::Name(_))
            ) {
                pending.batch.rescan = true;
                relevant = true;
            }
            continue;
        }
        relevant |= add(pending, place(dir, path));
    }
    relevant
}

fn add(pending: &mut Pending, place: Place) -> bool {
    match place {
        Place::Page(path) => {
            pending.paths.insert(path);
            true
        }
        Place::GitRefs => {
            pending.batch.git_refs_moved = true;
            true
        }
        Place::Ignored => false,
    }
}

/// Classifies an absolute path the OS reported.
fn place(dir: &Path, path: &Path) -> Place {
    let Ok(rel) = path.strip_prefix(dir) else {
        return Place::Ignored;
    };
    let Some(rel) = rel.to_str() else {
        tracing::debug!(path = %path.display(), "ignoring a change of a name that is not UTF-8");
        return Place::Ignored;
    };
    let rel = rel.replace(std::path::MAIN_SEPARATOR, "/");
    let components: Vec<&str> = rel.split('/').collect();
    match components.as_slice() {
        [] | [""] => Place::Ignored,
        [git, rest @ ..] if git.eq_ignore_ascii_case(".git") => git_place(rest),
        [".quire", "state", ..] => Place::Ignored,
        _ if components.iter().any(|c| c.eq_ignore_ascii_case(".git")) => Place::Ignored,
        _ => match PagePath::new(&rel) {
            Ok(page) => Place::Page(page),
            Err(e) => {
                tracing::debug!(path = %rel, error = %e, "ignoring a change of an invalid path");
                Place::Ignored
            }
        },
    }
}

/// Below the root's `.git/`: HEAD, packed-refs and refs (not their lock files) move with a
/// commit, checkout or fetch; `.git` itself appears or goes with `git init` or `rm -r`.
fn git_place(rest: &[&str]) -> Place {
    if rest.last().is_some_and(|name| name.ends_with(".lock")) {
        return Place::Ignored;
    }
    if matches!(rest, [] | ["HEAD"] | ["packed-refs"] | ["refs", ..]) {
        Place::GitRefs
    } else {
        Place::Ignored
    }
}

/// For tests: the path `place` gives a file below `dir`.
#[cfg(test)]
fn place_of(dir: &str, rel: &str) -> Place {
    place(Path::new(dir), &std::path::PathBuf::from(dir).join(rel))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(s: &str) -> Place {
        Place::Page(PagePath::new(s).unwrap())
    }

    #[test]
    fn places_pages_git_refs_and_ignored_paths() {
        let root = "/kb";
        assert_eq!(place_of(root, "notes/a.md"), page("notes/a.md"));
        assert_eq!(
            place_of(root, ".quire/config.toml"),
            page(".quire/config.toml")
        );
        assert_eq!(place_of(root, ".quire/state/tmp/1-2.tmp"), Place::Ignored);
        assert_eq!(place_of(root, ".quire/state"), Place::Ignored);
        assert_eq!(place_of(root, ".git/HEAD"), Place::GitRefs);
        assert_eq!(place_of(root, ".git/packed-refs"), Place::GitRefs);
        assert_eq!(place_of(root, ".git/refs/heads/main"), Place::GitRefs);
        assert_eq!(place_of(root, ".git/refs/heads/main.lock"), Place::Ignored);
        assert_eq!(place_of(root, ".git/HEAD.lock"), Place::Ignored);
        assert_eq!(place_of(root, ".git/index"), Place::Ignored);
        assert_eq!(place_of(root, ".git/objects/ab/cdef"), Place::Ignored);
        assert_eq!(place_of(root, ".git"), Place::GitRefs);
        assert_eq!(place_of(root, "sub/.git/HEAD"), Place::Ignored);
        assert_eq!(
            place(Path::new(root), Path::new("/other/a.md")),
            Place::Ignored
        );
    }

    #[test]
    fn non_nfc_names_are_reported_by_their_nfc_path() {
        assert_eq!(place_of("/kb", "cafe\u{301}.md"), page("caf\u{e9}.md"));
    }
}
