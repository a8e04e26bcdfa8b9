//! Asynchronous commits: a queue of recorded changes and the thread that commits them in
//! batches (after a time window or at a size limit), one commit per run of the same actor.

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::repo::Repo;
use super::ChangeAction;
use crate::error::StoreError;

/// Changes waiting for one commit: consecutive records of one actor.
pub(crate) struct Batch {
    pub(crate) actor: String,
    pub(crate) messages: Vec<String>,
    pub(crate) changes: Vec<(String, ChangeAction)>,
}

impl Batch {
    /// One record keeps its message; a merged batch keeps the first as the subject and lists
    /// every message in the body, so nothing the callers said is lost.
    fn message(&self) -> String {
        match self.messages.as_slice() {
            [] => String::new(),
            [only] => only.clone(),
            [first, ..] => {
                let mut text = format!("{first} (+{} more)\n\n", self.messages.len() - 1);
                for m in &self.messages {
                    text.push_str("- ");
                    text.push_str(m.lines().next().unwrap_or(""));
                    text.push('\n');
                }
                text
            }
        }
    }
}

#[derive(Default)]
struct Queue {
    batches: VecDeque<Batch>,
    /// When the oldest queued change arrived; the window counts from here.
    first_at: Option<Instant>,
    shutdown: bool,
}

impl Queue {
    fn len(&self) -> usize {
        self.batches.iter().map(|b| b.changes.len()).sum()
    }
}

struct Shared {
    repo: Arc<Repo>,
    queue: Mutex<Queue>,
    wake: Condvar,
    window: Duration,
    max_size: usize,
}

impl Shared {
    fn queue(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Commits everything queued, in order. The repository lock is taken before the queue is
    /// drained, so batches drained by two threads can never be committed out of order. A
    /// failed batch goes back to the front of the queue, to be retried with the next batch.
    fn commit_pending(&self) -> Result<(), StoreError> {
        self.repo.with_lock(|state| {
            let mut pending = {
                let mut queue = self.queue();
                queue.first_at = None;
                std::mem::take(&mut queue.batches)
            };
            while let Some(batch) = pending.front() {
                match Repo::commit_in(state, &batch.changes, &batch.actor, &batch.message()) {
                    Ok(_) => {
                        pending.pop_front();
                    }
                    Err(e) => {
                        let mut queue = self.queue();
                        while let Some(batch) = pending.pop_back() {
                            queue.batches.push_front(batch);
                        }
                        queue.first_at.get_or_insert_with(Instant::now);
                        return Err(e);
                    }
                }
            }
            Ok(())
        })
    }

    fn run(&self) {
        loop {
            let shutdown = {
                let mut queue = self.queue();
                loop {
                    if queue.shutdown {
                        break;
                    }
                    let Some(first_at) = queue.first_at else {
                        queue = self.wake.wait(queue).unwrap_or_else(|e| e.into_inner());
                        continue;
                    };
                    if queue.len() >= self.max_size {
                        break;
                    }
                    let deadline = first_at + self.window;
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
            if let Err(e) = self.commit_pending() {
                tracing::error!(error = %e, "batch commit failed; retrying with the next batch");
            }
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
    pub(crate) fn start(repo: Arc<Repo>, window: Duration, max_size: usize) -> Batcher {
        let shared = Arc::new(Shared {
            repo,
            queue: Mutex::new(Queue::default()),
            wake: Condvar::new(),
            window,
            max_size,
        });
        let worker = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("quire-commit".into())
            .spawn(move || worker.run())
            .map_err(|e| tracing::error!(error = %e, "cannot start the commit thread"))
            .ok();
        Batcher { shared, thread }
    }

    /// Queues the changes of one record. A path queued earlier is dropped from its earlier
    /// batch: it is committed once, with its latest content, attributed to its latest writer.
    pub(crate) fn enqueue(&self, mut batch: Batch) {
        let mut seen = HashSet::new();
        // Within the record itself the last mention of a path wins.
        batch.changes.reverse();
        batch.changes.retain(|(p, _)| seen.insert(p.clone()));
        batch.changes.reverse();

        let mut queue = self.shared.queue();
        for queued in queue.batches.iter_mut() {
            queued.changes.retain(|(p, _)| !seen.contains(p));
        }
        queue.batches.retain(|b| !b.changes.is_empty());
        coalesce(&mut queue.batches);
        match queue.batches.back_mut() {
            Some(last) if last.actor == batch.actor => {
                last.changes.extend(batch.changes);
                for m in batch.messages {
                    if last.messages.last() != Some(&m) {
                        last.messages.push(m);
                    }
                }
            }
            _ => queue.batches.push_back(batch),
        }
        queue.first_at.get_or_insert_with(Instant::now);
        drop(queue);
        if self.thread.is_some() {
            self.shared.wake.notify_one();
        } else if let Err(e) = self.shared.commit_pending() {
            // Without a thread (it could not be started) every record commits at once.
            tracing::error!(error = %e, "commit failed; retrying with the next record");
        }
    }

    /// Whether a path is queued by an actor other than `actor`.
    pub(crate) fn queued_by_other(&self, paths: &[&str], actor: &str) -> bool {
        self.shared
            .queue()
            .batches
            .iter()
            .any(|b| b.actor != actor && b.changes.iter().any(|(p, _)| paths.contains(&p.as_str())))
    }

    /// Commits everything queued now, on the calling thread.
    pub(crate) fn flush(&self) -> Result<(), StoreError> {
        self.shared.commit_pending()
    }
}

impl Drop for Batcher {
    fn drop(&mut self) {
        self.shared.queue().shutdown = true;
        self.shared.wake.notify_one();
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
        if !self.shared.queue().batches.is_empty() {
            if let Err(e) = self.shared.commit_pending() {
                tracing::error!(error = %e, "final commit failed; the next open will commit it");
            }
        }
    }
}

/// Merges neighbouring batches of the same actor (left next to each other after a batch in
/// between was emptied by newer writes).
fn coalesce(batches: &mut VecDeque<Batch>) {
    let mut merged: VecDeque<Batch> = VecDeque::with_capacity(batches.len());
    for batch in batches.drain(..) {
        match merged.back_mut() {
            Some(last) if last.actor == batch.actor => {
                last.changes.extend(batch.changes);
                last.messages.extend(batch.messages);
            }
            _ => merged.push_back(batch),
        }
    }
    *batches = merged;
}
