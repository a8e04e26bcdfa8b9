//! Asynchronous commits: a queue of recorded changes and the thread that commits them in
//! batches, one commit per batch whatever the actors, with backpressure on `record`.
//!
//! * A batch closes [`Bounds::window`] after its oldest write arrived, as soon as it holds
//!   [`Bounds::max_size`] files, or as soon as a writer waits (below); everything queued then
//!   goes into one commit.
//! * A batch of one actor's writes is authored by that actor, as a synchronous commit would be.
//!   A batch of several actors' writes is authored by the batch signature and names each
//!   file's actor in a `Quire-Actor` trailer (see [`super::trailer`]).
//! * A path queued twice keeps only its latest write. A write queued with its bytes is
//!   committed as those bytes, not as what the file holds at commit time: another program may
//!   have saved the file since (its edit is recorded after, by its own change). Callers that
//!   overwrite a path another actor still has queued commit the queue first
//!   (`queued_by_other` + `flush`), so each actor's version stays in history.
//! * Backpressure: [`Batcher::enqueue`] queues the write, then waits while the oldest
//!   uncommitted write is older than [`Bounds::max_lag`] or more than [`Bounds::max_pending`]
//!   files wait for their commit (queued or being committed), until the commit thread has
//!   caught up. The write is queued before the wait, in call order, so waiting never loses or
//!   reorders a write; it only slows the writer down.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::repo::{actor_name, Author, IndexSave, Repo};
use super::{trailer, ChangeAction, PathChange};
use crate::error::StoreError;

/// When a batch closes and when `record` must wait.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bounds {
    /// A batch is committed this long after its oldest write arrived...
    pub(crate) window: Duration,
    /// ... or as soon as it holds this many files.
    pub(crate) max_size: usize,
    /// `record` waits while an uncommitted write is older than this...
    pub(crate) max_lag: Duration,
    /// ... or while more than this many files wait for their commit.
    pub(crate) max_pending: usize,
}

impl Bounds {
    pub(crate) fn of(opts: &super::HistoryOptions) -> Bounds {
        Bounds {
            window: opts.batch_window,
            max_size: opts.batch_max_size.max(1),
            max_lag: opts.max_commit_lag,
            max_pending: opts.max_pending.max(1),
        }
    }
}

/// One call of `record`.
#[derive(Debug, Clone)]
struct Record {
    /// As the commit author would be named ([`actor_name`]).
    actor: String,
    message: String,
    /// How many of its files are still this record's latest write of the path.
    live: usize,
}

#[derive(Debug, Clone)]
struct Entry {
    action: ChangeAction,
    /// The bytes the write gave, committed as they are.
    content: Option<Arc<[u8]>>,
    /// Index into [`Pending::records`] of the latest record of the path.
    record: usize,
}

/// Queued writes: the records in arrival order, and for every path its latest write.
#[derive(Debug, Clone, Default)]
struct Pending {
    records: Vec<Record>,
    files: HashMap<String, Entry>,
}

/// What one batch commit is made of.
struct BatchCommit {
    changes: Vec<PathChange>,
    /// The one actor of every file; `None` when there are several.
    actor: Option<String>,
    message: String,
}

impl Pending {
    fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Files queued (each path once).
    fn len(&self) -> usize {
        self.files.len()
    }

    fn push(&mut self, actor: &str, message: &str, changes: Vec<PathChange>) {
        let index = self.records.len();
        let mut live = 0;
        for change in changes {
            let entry = Entry {
                action: change.action,
                content: change.content,
                record: index,
            };
            match self.files.insert(change.path, entry) {
                // The record names the path twice: its last mention wins.
                Some(old) if old.record == index => {}
                Some(old) => {
                    self.records[old.record].live -= 1;
                    live += 1;
                }
                None => live += 1,
            }
        }
        self.records.push(Record {
            actor: actor_name(actor),
            message: message.to_owned(),
            live,
        });
    }

    /// Appends writes that came after these (a failed batch goes back before the newer queue).
    fn append(&mut self, newer: Pending) {
        let offset = self.records.len();
        self.records.extend(newer.records);
        for (path, mut entry) in newer.files {
            entry.record += offset;
            if let Some(old) = self.files.insert(path, entry) {
                self.records[old.record].live -= 1;
            }
        }
    }

    fn is_queued_by_other(&self, path: &str, actor: &str) -> bool {
        self.files
            .get(path)
            .is_some_and(|e| self.records[e.record].actor != actor)
    }

    /// The commit of everything queued; `None` when no file is.
    fn commit(&self) -> Option<BatchCommit> {
        if self.files.is_empty() {
            return None;
        }
        let mut changes: Vec<PathChange> = self
            .files
            .iter()
            .map(|(path, e)| PathChange {
                path: path.clone(),
                action: e.action,
                content: e.content.clone(),
            })
            .collect();
        changes.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        let live: Vec<&Record> = self.records.iter().filter(|r| r.live > 0).collect();
        let single = live
            .first()
            .filter(|first| live.iter().all(|r| r.actor == first.actor))
            .map(|first| first.actor.clone());
        let message = match &single {
            Some(_) => one_actor_message(&live),
            None => several_actors_message(&live, self, &changes),
        };
        Some(BatchCommit {
            changes,
            actor: single,
            message,
        })
    }
}

/// One record keeps its message; several keep the first as the subject and list every message
/// in the body, so nothing the callers said is lost. Repeats in a row are listed once.
fn one_actor_message(records: &[&Record]) -> String {
    let mut messages: Vec<&str> = Vec::with_capacity(records.len());
    for r in records {
        if messages.last() != Some(&r.message.as_str()) {
            messages.push(&r.message);
        }
    }
    match messages.as_slice() {
        [] => String::new(),
        [only] => (*only).to_owned(),
        [first, ..] => {
            let mut text = format!("{first} (+{} more)\n\n", messages.len() - 1);
            for m in &messages {
                text.push_str("- ");
                text.push_str(m.lines().next().unwrap_or(""));
                text.push('\n');
            }
            text
        }
    }
}

/// `Batch of N writes by K actors`, one `- actor: message` line per record (first lines only,
/// repeats in a row once), then one `Quire-Actor` trailer per file.
fn several_actors_message(
    records: &[&Record],
    pending: &Pending,
    changes: &[PathChange],
) -> String {
    let mut actors: Vec<&str> = records.iter().map(|r| r.actor.as_str()).collect();
    actors.sort_unstable();
    actors.dedup();
    let mut text = format!(
        "Batch of {} writes by {} actors\n\n",
        records.len(),
        actors.len()
    );
    let mut previous: Option<(&str, &str)> = None;
    for r in records {
        let first_line = r.message.lines().next().unwrap_or("");
        if previous != Some((&r.actor, first_line)) {
            let _ = writeln!(text, "- {}: {first_line}", r.actor);
        }
        previous = Some((&r.actor, first_line));
    }
    text.push('\n');
    for change in changes {
        let entry = &pending.files[&change.path];
        text.push_str(&trailer::line(
            &change.path,
            &pending.records[entry.record].actor,
        ));
        text.push('\n');
    }
    text
}

#[derive(Default)]
struct Queue {
    pending: Pending,
    /// When the oldest queued write arrived; `Some` exactly when `pending` holds a record.
    first_at: Option<Instant>,
    /// The batch the commit thread (or a flush) is committing right now.
    in_flight: Option<InFlight>,
    shutdown: bool,
    /// Records waiting for the commits to catch up; the commit thread commits at once.
    waiting: usize,
    /// Failed commit attempts so far; a waiting `record` gives up when this changes.
    failures: u64,
    last_error: String,
}

struct InFlight {
    pending: Arc<Pending>,
    first_at: Instant,
}

impl Queue {
    /// Files waiting for their commit: queued or being committed.
    fn uncommitted(&self) -> usize {
        self.pending.len() + self.in_flight.as_ref().map_or(0, |f| f.pending.len())
    }

    /// Whether a path is queued, or being committed, by an actor other than `actor`.
    fn held_by_other(&self, paths: &[&str], actor: &str) -> bool {
        let actor = actor_name(actor);
        paths.iter().any(|path| {
            self.pending.is_queued_by_other(path, &actor)
                || self
                    .in_flight
                    .as_ref()
                    .is_some_and(|f| f.pending.is_queued_by_other(path, &actor))
        })
    }

    /// When the oldest uncommitted write arrived.
    fn oldest(&self) -> Option<Instant> {
        match (&self.in_flight, self.first_at) {
            (Some(flight), _) => Some(flight.first_at),
            (None, first_at) => first_at,
        }
    }
}

/// How far the commits lag behind the writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Backlog {
    /// Files written and recorded but not committed yet (queued or being committed).
    pub files: usize,
    /// Age of the oldest of them; `None` when there is none.
    pub oldest: Option<Duration>,
}

struct Shared {
    repo: Arc<Repo>,
    queue: Mutex<Queue>,
    /// Wakes the commit thread: a write arrived, or shutdown.
    wake: Condvar,
    /// Wakes waiting records: a commit attempt ended.
    caught_up: Condvar,
    bounds: Bounds,
    /// How a batch commit saves `.git/index`: deferred to the saver thread when one runs
    /// (during a burst the whole index was rewritten and hashed at every batch), else at once.
    save: IndexSave,
}

impl Shared {
    fn queue(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether a writer must wait for the commits to catch up.
    fn behind(&self, queue: &Queue, now: Instant) -> bool {
        queue.uncommitted() > self.bounds.max_pending
            || queue
                .oldest()
                .is_some_and(|t| now.saturating_duration_since(t) > self.bounds.max_lag)
    }

    /// Commits everything queued as one commit. The repository lock is taken before the queue
    /// is drained, so batches drained by two threads can never be committed out of order. A
    /// failed batch goes back to the front of the queue, to be retried with the next batch.
    fn commit_pending(&self) -> Result<(), StoreError> {
        self.repo.with_lock(|state| {
            let (batch, first_at) = {
                let mut queue = self.queue();
                let Some(first_at) = queue.first_at.take() else {
                    return Ok(());
                };
                let batch = Arc::new(std::mem::take(&mut queue.pending));
                queue.in_flight = Some(InFlight {
                    pending: Arc::clone(&batch),
                    first_at,
                });
                (batch, first_at)
            };
            let result = match batch.commit() {
                Some(c) => {
                    let author = match &c.actor {
                        Some(actor) => Author::Actor(actor),
                        None => Author::Batch,
                    };
                    self.repo
                        .commit_in(state, &c.changes, author, &c.message, self.save)
                        .map(drop)
                }
                None => Ok(()),
            };
            let mut queue = self.queue();
            queue.in_flight = None;
            if let Err(e) = &result {
                let mut failed = Arc::try_unwrap(batch).unwrap_or_else(|shared| (*shared).clone());
                failed.append(std::mem::take(&mut queue.pending));
                queue.pending = failed;
                queue.first_at = Some(first_at);
                queue.failures += 1;
                queue.last_error = e.to_string();
            }
            drop(queue);
            self.caught_up.notify_all();
            result
        })
    }

    fn run(&self) {
        let mut failed = false;
        loop {
            let shutdown = {
                let mut queue = self.queue();
                if failed {
                    // Do not spin on a persistent failure: retry a window later (at once when
                    // the history closes).
                    let until = Instant::now() + self.bounds.window.max(Duration::from_millis(50));
                    loop {
                        let now = Instant::now();
                        if queue.shutdown || now >= until {
                            break;
                        }
                        queue = self
                            .wake
                            .wait_timeout(queue, until - now)
                            .unwrap_or_else(|e| e.into_inner())
                            .0;
                    }
                }
                loop {
                    if queue.shutdown {
                        break;
                    }
                    let Some(first_at) = queue.first_at else {
                        queue = self.wake.wait(queue).unwrap_or_else(|e| e.into_inner());
                        continue;
                    };
                    if queue.pending.len() >= self.bounds.max_size || queue.waiting > 0 {
                        break;
                    }
                    let deadline = first_at + self.bounds.window;
                    let now = Instant::now();
                    if now >= deadline {
                        break;
                    }
                    queue = self
                        .wake
                        .wait_timeout(queue, deadline - now)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                }
                queue.shutdown
            };
            failed = match self.commit_pending() {
                Ok(()) => false,
                Err(e) => {
                    tracing::error!(error = %e, "batch commit failed; retrying");
                    true
                }
            };
            if shutdown {
                return;
            }
        }
    }
}

/// Owns the commit thread; dropping it commits what is queued and stops the thread.
pub(crate) struct Batcher {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Batcher {
    pub(crate) fn start(repo: Arc<Repo>, bounds: Bounds, save: IndexSave) -> Batcher {
        let shared = Arc::new(Shared {
            repo,
            queue: Mutex::new(Queue::default()),
            wake: Condvar::new(),
            caught_up: Condvar::new(),
            bounds,
            save,
        });
        let worker = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("quire-commit".into())
            .spawn(move || worker.run())
            .map_err(|e| tracing::error!(error = %e, "cannot start the commit thread"))
            .ok();
        Batcher { shared, thread }
    }

    /// Queues the changes of one record, then waits while the commits lag behind the bounds.
    /// A path queued earlier is committed once, with its latest content, attributed to its
    /// latest writer. An error means a commit failed while this call waited; the write stays
    /// queued (and is committed with the next batch that succeeds).
    pub(crate) fn enqueue(
        &self,
        actor: &str,
        message: &str,
        changes: Vec<PathChange>,
    ) -> Result<(), StoreError> {
        let mut queue = self.shared.queue();
        queue.pending.push(actor, message, changes);
        let opened = queue.first_at.is_none();
        queue.first_at.get_or_insert_with(Instant::now);
        if self.thread.is_none() {
            // Without a thread (it could not be started) every record commits at once.
            drop(queue);
            return self.shared.commit_pending();
        }
        let failures = queue.failures;
        let mut result = Ok(());
        if !queue.shutdown && self.shared.behind(&queue, Instant::now()) {
            // Backpressure. The commit thread commits at once while someone waits.
            queue.waiting += 1;
            self.shared.wake.notify_one();
            while !queue.shutdown && self.shared.behind(&queue, Instant::now()) {
                if queue.failures != failures {
                    let message = format!("the batch commit failed: {}", queue.last_error);
                    result = Err(StoreError::git("commit")(git2::Error::from_str(&message)));
                    break;
                }
                // Woken when a commit attempt ends; the timeout only guards against a lost
                // wake-up.
                queue = self
                    .shared
                    .caught_up
                    .wait_timeout(queue, Duration::from_millis(100))
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
            queue.waiting -= 1;
        } else if opened || queue.pending.len() >= self.shared.bounds.max_size {
            // The commit thread waits without a deadline while nothing is queued, and until the
            // window's end or a full batch otherwise: only these two writes change what it
            // waits for. (Waking it on every write cost a context switch per write in bursts.)
            self.shared.wake.notify_one();
        }
        result
    }

    /// Whether a write of `paths` by `actor` would be queued without waiting: the commit
    /// thread runs, the commits keep up (no backpressure), and no other actor's queued write
    /// of these paths must be committed first.
    pub(crate) fn queues_at_once(&self, paths: &[&str], actor: &str) -> bool {
        if self.thread.is_none() {
            return false;
        }
        let queue = self.shared.queue();
        !queue.shutdown
            && !self.shared.behind(&queue, Instant::now())
            && !queue.held_by_other(paths, actor)
    }

    /// Whether a path is queued, or being committed, by an actor other than `actor`.
    pub(crate) fn queued_by_other(&self, paths: &[&str], actor: &str) -> bool {
        self.shared.queue().held_by_other(paths, actor)
    }

    /// Commits everything queued now, on the calling thread (after a batch being committed).
    pub(crate) fn flush(&self) -> Result<(), StoreError> {
        self.shared.commit_pending()
    }

    pub(crate) fn backlog(&self) -> Backlog {
        let queue = self.shared.queue();
        let now = Instant::now();
        Backlog {
            files: queue.uncommitted(),
            oldest: queue.oldest().map(|t| now.saturating_duration_since(t)),
        }
    }
}

impl Drop for Batcher {
    fn drop(&mut self) {
        self.shared.queue().shutdown = true;
        self.shared.wake.notify_one();
        self.shared.caught_up.notify_all();
        match self.thread.take() {
            Some(thread) => {
                if thread.join().is_err() {
                    tracing::error!("the commit thread panicked");
                }
            }
            None => {
                if let Err(e) = self.shared.commit_pending() {
                    tracing::error!(error = %e, "final commit failed");
                }
            }
        }
        // The thread's last pass may have failed; one more try before the changes are only on
        // disk (they are then committed by the recovery at the next open).
        if !self.shared.queue().pending.is_empty() {
            if let Err(e) = self.shared.commit_pending() {
                tracing::error!(error = %e, "final commit failed; the next open will commit it");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &str) -> PathChange {
        PathChange::write(path)
    }

    #[test]
    fn one_actor_keeps_the_message_and_names_no_trailer() {
        let mut p = Pending::default();
        p.push("alice", "first", vec![write("a.md")]);
        p.push("alice", "second", vec![write("b.md")]);
        let c = p.commit().unwrap();
        assert_eq!(c.actor.as_deref(), Some("alice"));
        assert_eq!(c.message, "first (+1 more)\n\n- first\n- second\n");
    }

    #[test]
    fn several_actors_list_the_messages_and_name_each_file() {
        let mut p = Pending::default();
        p.push("alice", "Update a.md\n\nbody", vec![write("a.md")]);
        p.push("bob", "Create my b.md", vec![write("my b.md")]);
        p.push("alice", "Update c.md", vec![write("c.md")]);
        let c = p.commit().unwrap();
        assert_eq!(c.actor, None);
        assert_eq!(
            c.message,
            "Batch of 3 writes by 2 actors\n\n\
             - alice: Update a.md\n- bob: Create my b.md\n- alice: Update c.md\n\n\
             Quire-Actor: a.md alice\nQuire-Actor: c.md alice\nQuire-Actor: my%20b.md bob\n"
        );
    }

    #[test]
    fn a_path_queued_twice_keeps_its_latest_writer_and_drops_a_superseded_record() {
        let mut p = Pending::default();
        p.push("alice", "a1", vec![write("x.md")]);
        p.push("bob", "b1", vec![write("x.md"), write("y.md")]);
        assert_eq!(p.len(), 2);
        let c = p.commit().unwrap();
        assert_eq!(c.actor.as_deref(), Some("bob"));
        assert_eq!(c.message, "b1");
    }

    #[test]
    fn a_failed_batch_goes_back_before_newer_writes_which_win_their_paths() {
        let mut failed = Pending::default();
        failed.push("alice", "a1", vec![write("x.md"), write("y.md")]);
        let mut newer = Pending::default();
        newer.push("bob", "b1", vec![write("y.md")]);
        failed.append(newer);
        assert_eq!(failed.len(), 2);
        assert!(failed.is_queued_by_other("y.md", "alice"));
        assert!(!failed.is_queued_by_other("x.md", "alice"));
        let c = failed.commit().unwrap();
        assert!(c
            .message
            .contains("Quire-Actor: x.md alice\nQuire-Actor: y.md bob\n"));
    }
}
