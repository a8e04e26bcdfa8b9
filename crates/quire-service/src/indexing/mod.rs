//! Keeps the search index (`.quire/state/index.db`) and the DQL catalog in step with the
//! files: one thread per space that the pipeline tells which paths changed.
//!
//! * **At start** the thread reads and parses every page once: the catalog is filled, and a
//!   stamp of the pages (an XOR of a hash of each path with its content's ETag, so it can be
//!   kept up to date one page at a time) is compared with the one the index stored. A missing
//!   index, an index of another schema (recreated empty) or a different stamp means the
//!   index is rebuilt from those pages. Until then searches and queries answer 503.
//! * **On every change** the pipeline hands over the paths it wrote or removed and goes on:
//!   the thread gathers paths for `index_window_ms` or until `index_batch_max` of them, then
//!   indexes the batch in one transaction. A page that appeared or went changes where other
//!   pages' links resolve: those pages are indexed again too.
//! * **Readers wait instead of writers** (read-your-writes, the default): a search, query or
//!   catalog read first calls [`Indexer::catch_up`], which returns at once when every change
//!   sent so far is indexed and otherwise flushes the gathering batch and waits for it. So a
//!   search made after a write was answered finds it, and a burst of writes with no search
//!   in between never waits for SQLite. With `[search] async_index` readers do not wait
//!   either: a change reaches them within `index_window_ms`.
//! * **`reindex`** rebuilds everything on request.
//! * **Searches answered** are handed over for the search log and written in one transaction
//!   once the thread has had nothing to do for [`SEARCH_LOG_DELAY`], every
//!   [`SEARCH_LOG_BATCH`] searches, before a flush is answered and at the end: one small write
//!   per quiet moment instead of two per search, so the WAL the searches read through stays
//!   short.
//! * **When idle** ([`Upkeep`]: no write and no message for `checkpoint_idle`, 5 s by default,
//!   after a spell of writes) the thread checkpoints the WAL into the database and truncates
//!   it, once, so searches read the database through its memory map instead of looking every
//!   page up in the WAL, and the WAL file stops taking disk.
//! * **After each pass** the thread tells its [`Listener`]s (the view refresher, vector search) which pages it
//!   read, with their ETag, or found gone; after a full pass it says so.
//!
//! The index is derived: deleting it loses nothing; the next start rebuilds it.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use quire_index::{Index, PageRecord, SearchLogged};
use quire_query::dql::PageData;
use quire_store::{etag, DiskName, Root, StoreError};
use quire_vault::PagePath;

mod catalog;
mod records;

pub(crate) use catalog::{Catalog, QueryCatalog};

use crate::error::{Error, Result};
use crate::links::LinkModel;
use crate::settings::IndexSettings;
use records::PageText;

/// The link graph of the vault as it was at a generation of the link model.
#[derive(Default)]
pub(crate) struct GraphCache {
    pub(crate) cached: Mutex<Option<(u64, Arc<quire_graph::LinkGraph>)>>,
}

/// Pages changed, each with the bytes the pipeline wrote when it knows them (`None`: read
/// the file).
type Changes = Vec<(PagePath, Option<Vec<u8>>)>;

/// Changes handed over and not taken by the thread yet. Writers add to it and wake the thread
/// only when it starts to fill (the thread may be idle) and when it holds a full batch; the
/// thread takes it whole when its gathering ends. (A message per write woke the thread once
/// per write during bursts, a context switch each.)
#[derive(Default)]
struct Inbox {
    state: Mutex<InboxState>,
}

#[derive(Default)]
struct InboxState {
    /// A later change of a path replaces an earlier one.
    changed: BTreeMap<PagePath, Option<Vec<u8>>>,
    /// The [`Indexer::changed`] calls gathered here (each counted once in `sent`).
    calls: u64,
    /// Whether the thread was told the batch is full.
    full_told: bool,
}

impl Inbox {
    fn state(&self) -> std::sync::MutexGuard<'_, InboxState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds one call's changes; whether the thread must be woken.
    fn add(&self, files: Changes, batch_max: usize) -> bool {
        let mut state = self.state();
        let opened = state.calls == 0;
        state.changed.extend(files);
        state.calls += 1;
        let full = !state.full_told && state.changed.len() >= batch_max;
        if full {
            state.full_told = true;
        }
        opened || full
    }

    fn len(&self) -> usize {
        self.state().changed.len()
    }

    /// Everything gathered, and how many calls it came from.
    fn take(&self) -> (BTreeMap<PagePath, Option<Vec<u8>>>, u64) {
        let mut state = self.state();
        state.full_told = false;
        (
            std::mem::take(&mut state.changed),
            std::mem::take(&mut state.calls),
        )
    }
}

enum Message {
    /// Changes wait in the [`Inbox`].
    Wake,
    /// Answered once everything sent before is indexed.
    Flush(Sender<()>),
    /// Rebuild from the files; answered with the number of pages.
    Rebuild(Sender<Result<usize>>),
    /// A search answered: logged for search analytics off the request's path.
    Searched {
        query: String,
        results: u64,
        at: chrono::DateTime<chrono::Utc>,
    },
}

/// What the index thread reports after each pass, once the catalog holds it.
#[derive(Clone)]
pub(crate) enum Indexed {
    /// Every page was read (the first pass, a rebuild).
    All,
    /// These pages were read (with their ETag) or found gone (`None`).
    Pages(Vec<(PagePath, Option<String>)>),
}

/// Who hears of each pass: a channel, and a count of the reports not handled yet (the
/// receiver lowers it).
#[derive(Clone)]
pub(crate) struct Listener {
    pub(crate) sender: Sender<Indexed>,
    pub(crate) pending: Arc<AtomicUsize>,
}

impl Listener {
    fn tell(&self, indexed: Indexed) {
        self.pending.fetch_add(1, Ordering::AcqRel);
        if self.sender.send(indexed).is_err() {
            self.pending.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

/// Progress of the first pass or a rebuild, for `/readyz`-like answers.
#[derive(Default)]
pub(crate) struct Progress {
    pub ready: AtomicBool,
    pub done: AtomicUsize,
    pub total: AtomicUsize,
}

/// The handle the pipeline and the services hold.
pub(crate) struct Indexer {
    sender: Mutex<Option<Sender<Message>>>,
    inbox: Arc<Inbox>,
    batch_max: usize,
    thread: Mutex<Option<JoinHandle<()>>>,
    /// Read-your-writes (not `[search] async_index`): a reader waits for the changes sent
    /// before it ([`Indexer::catch_up`]).
    sync: bool,
    /// Changes sent to the thread, and changes it has indexed: a reader that finds them
    /// equal has nothing to wait for.
    sent: AtomicU64,
    indexed: Arc<AtomicU64>,
    pub(crate) index: Arc<Index>,
    pub(crate) catalog: Arc<Catalog>,
    pub(crate) progress: Arc<Progress>,
}

impl Indexer {
    /// Starts the indexing thread of a space.
    pub(crate) fn start(
        index: Arc<Index>,
        root: Root,
        links: Arc<LinkModel>,
        settings: &IndexSettings,
        listeners: Vec<Listener>,
    ) -> Indexer {
        let (sender, receiver) = mpsc::channel();
        let catalog = Arc::new(Catalog::default());
        let progress = Arc::new(Progress::default());
        let indexed = Arc::new(AtomicU64::new(0));
        let inbox = Arc::new(Inbox::default());
        let worker = Worker {
            indexed: indexed.clone(),
            inbox: inbox.clone(),
            index: index.clone(),
            root,
            links,
            catalog: catalog.clone(),
            progress: progress.clone(),
            stamps: Stamps::default(),
            window: settings.window,
            batch_max: settings.batch_max.max(1),
            listeners,
            yields: settings.async_index,
            searched: Vec::new(),
            heard: Instant::now(),
            upkeep: Upkeep::new(settings.checkpoint_idle),
        };
        let thread = std::thread::Builder::new()
            .name("quire-index".into())
            .spawn(move || worker.run(receiver))
            .ok();
        if thread.is_none() {
            tracing::error!("the index thread could not start; search answers 503");
        }
        Indexer {
            sender: Mutex::new(thread.as_ref().map(|_| sender)),
            inbox,
            batch_max: settings.batch_max.max(1),
            thread: Mutex::new(thread),
            sync: !settings.async_index,
            sent: AtomicU64::new(0),
            indexed,
            index,
            catalog,
            progress,
        }
    }

    fn send(&self, message: Message) -> bool {
        match self
            .sender
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
        {
            Some(sender) => sender.send(message).is_ok(),
            None => false,
        }
    }

    /// The pipeline's hook: these files were written (with the bytes written, when given: the
    /// thread need not read them again) or removed. The write does not wait for the index:
    /// readers do ([`Indexer::catch_up`]).
    pub(crate) fn changed(&self, files: Changes) {
        let files: Changes = files.into_iter().filter(|(p, _)| p.is_page()).collect();
        if files.is_empty() {
            return;
        }
        if self
            .sender
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_none()
        {
            return;
        }
        // Counted before it is handed over: a reader never sees the change indexed and not
        // sent. In the inbox before the write is answered, so a flush after the answer takes it.
        self.sent.fetch_add(1, Ordering::AcqRel);
        if self.inbox.add(files, self.batch_max) {
            self.send(Message::Wake);
        }
    }

    /// Read-your-writes: returns once every change sent before the call is in the index and
    /// the catalog — at once when the thread has caught up, else after one flush (the thread
    /// stops gathering and indexes what it has). With `[search] async_index` readers never
    /// wait: a change reaches them within `index_window_ms`.
    pub(crate) fn catch_up(&self) {
        if !self.sync {
            return;
        }
        // `indexed` first: it only grows towards `sent`, so equal values mean every change
        // sent before this call is indexed.
        let indexed = self.indexed.load(Ordering::Acquire);
        if indexed < self.sent.load(Ordering::Acquire) {
            self.flush();
        }
    }

    /// Logs a search for search analytics (written by the index thread; a failure to log is
    /// a warning, never a failed search).
    pub(crate) fn log_search(&self, query: &str, results: u64) {
        self.send(Message::Searched {
            query: query.to_string(),
            results,
            at: chrono::Utc::now(),
        });
    }

    /// Waits until everything changed so far is indexed.
    pub(crate) fn flush(&self) {
        let (tx, rx) = mpsc::channel();
        if self.send(Message::Flush(tx)) {
            let _ = rx.recv();
        }
    }

    /// Rebuilds the index from the files; the number of pages indexed.
    pub(crate) fn rebuild(&self) -> Result<usize> {
        let (tx, rx) = mpsc::channel();
        if !self.send(Message::Rebuild(tx)) {
            return Err(Error::unavailable("the index thread is not running"));
        }
        rx.recv()
            .unwrap_or_else(|_| Err(Error::unavailable("the index thread stopped")))
    }

    /// Whether the first pass is done (searches and queries can be answered).
    pub(crate) fn is_ready(&self) -> bool {
        self.progress.ready.load(Ordering::Acquire)
    }
}

impl Drop for Indexer {
    fn drop(&mut self) {
        self.sender.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(thread) = self.thread.lock().unwrap_or_else(|p| p.into_inner()).take() {
            let _ = thread.join();
        }
    }
}

struct Worker {
    /// `Indexer::changed` calls indexed so far (see [`Indexer::catch_up`]).
    indexed: Arc<AtomicU64>,
    inbox: Arc<Inbox>,
    index: Arc<Index>,
    root: Root,
    links: Arc<LinkModel>,
    catalog: Arc<Catalog>,
    progress: Arc<Progress>,
    /// The stamp of the indexed pages.
    stamps: Stamps,
    window: Duration,
    batch_max: usize,
    listeners: Vec<Listener>,
    /// `[search] async_index`: no reader waits for this thread, so after the first pass it
    /// yields the CPU to writers ([`yield_to_writers`]).
    yields: bool,
    /// Searches answered and not yet written to the log.
    searched: Vec<SearchLogged>,
    /// When the last message came.
    heard: Instant,
    upkeep: Upkeep,
}

/// When the index thread checkpoints the WAL: once after each spell of writes, when neither a
/// write nor a message came for `idle`. A checkpoint copies the WAL into the database and
/// empties it, so searches stop looking pages up in a long WAL and the file stops growing;
/// doing it only when idle keeps its cost (milliseconds to copy, an fsync) off writes and
/// searches.
#[derive(Debug, Clone)]
pub(crate) struct Upkeep {
    idle: Duration,
    /// The last write not checkpointed yet.
    written: Option<Instant>,
}

impl Upkeep {
    pub(crate) fn new(idle: Duration) -> Upkeep {
        Upkeep {
            idle,
            written: None,
        }
    }

    /// The index was written at `at`.
    pub(crate) fn wrote(&mut self, at: Instant) {
        self.written = Some(at);
    }

    /// When to checkpoint, given the last message heard: `None` while nothing was written
    /// since the last checkpoint.
    pub(crate) fn due(&self, heard: Instant) -> Option<Instant> {
        self.written.map(|w| w.max(heard) + self.idle)
    }

    pub(crate) fn checkpointed(&mut self) {
        self.written = None;
    }
}

/// How long the index thread waits for quiet before it writes the searches it gathered.
const SEARCH_LOG_DELAY: Duration = Duration::from_millis(500);
/// Searches gathered at most before they are written anyway.
const SEARCH_LOG_BATCH: usize = 256;

/// One page read from disk for indexing.
struct Read {
    path: PagePath,
    text: String,
    size: u64,
    mtime_ms: i64,
    etag: String,
}

impl Worker {
    fn run(mut self, receiver: Receiver<Message>) {
        // Whatever the last process left in the WAL is checkpointed at the first quiet spell.
        self.upkeep.wrote(Instant::now());
        match self.first_pass() {
            Ok(_) => self.tell(Indexed::All),
            Err(e) => {
                tracing::error!(
                    "indexing the pages failed: {e}; search answers 503 until a reindex"
                )
            }
        }
        if self.yields {
            yield_to_writers();
        }
        while let Some(first) = self.next_message(&receiver) {
            // A search to log is kept for later; nothing waits for it.
            let first = match first {
                Message::Searched { query, results, at } => {
                    self.searched(query, results, at);
                    continue;
                }
                other => other,
            };
            // A later message about a path replaces an earlier one.
            let mut changed = BTreeMap::new();
            let mut messages = 0u64;
            let mut waiting = Vec::new();
            let mut rebuilds = Vec::new();
            let deadline = Instant::now() + self.window;
            let mut next = Some(first);
            while let Some(message) = next.take() {
                match message {
                    Message::Wake => {}
                    Message::Flush(done) => waiting.push(done),
                    Message::Rebuild(done) => rebuilds.push(done),
                    Message::Searched { query, results, at } => self.searched(query, results, at),
                }
                // A flush or a rebuild ends the gathering: someone waits.
                if !waiting.is_empty() || !rebuilds.is_empty() || self.inbox.len() >= self.batch_max
                {
                    while let Ok(more) = receiver.try_recv() {
                        match more {
                            Message::Wake => {}
                            Message::Flush(done) => waiting.push(done),
                            Message::Rebuild(done) => rebuilds.push(done),
                            Message::Searched { query, results, at } => {
                                self.searched(query, results, at)
                            }
                        }
                    }
                    break;
                }
                let left = deadline.saturating_duration_since(Instant::now());
                match receiver.recv_timeout(left) {
                    Ok(message) => next = Some(message),
                    Err(RecvTimeoutError::Timeout) => break,
                    Err(RecvTimeoutError::Disconnected) => break,
                }
            }
            // Everything handed over until now, the writes of whoever waits among them.
            let (taken, calls) = self.inbox.take();
            changed.extend(taken);
            messages += calls;
            let wrote = !rebuilds.is_empty() || !changed.is_empty();
            if !rebuilds.is_empty() {
                let result = self.first_pass();
                if result.is_ok() {
                    self.tell(Indexed::All);
                }
                for done in rebuilds {
                    let _ = done.send(match &result {
                        Ok(n) => Ok(*n),
                        Err(e) => Err(Error::internal(format!("reindex failed: {e}"))),
                    });
                }
            } else if !changed.is_empty() {
                match self.update(changed) {
                    Ok(pages) => self.tell(Indexed::Pages(pages)),
                    Err(e) => {
                        tracing::error!("updating the index failed: {e}; rebuilding it");
                        match self.first_pass() {
                            Ok(_) => self.tell(Indexed::All),
                            Err(e) => tracing::error!("rebuilding the index failed: {e}"),
                        }
                    }
                }
            }
            // After the catalog has them too; before anyone waiting is answered.
            self.indexed.fetch_add(messages, Ordering::AcqRel);
            if wrote {
                self.upkeep.wrote(Instant::now());
            }
            if !waiting.is_empty() {
                // Whoever flushes may read the search log next.
                self.write_search_log();
            }
            for done in waiting {
                let _ = done.send(());
            }
        }
        self.write_search_log();
    }

    /// The next message; `None` when every sender is gone. While waiting, the thread does its
    /// upkeep: searches gathered are written once no message came for [`SEARCH_LOG_DELAY`],
    /// and the WAL is checkpointed once the [`Upkeep`] rule says the index is idle.
    fn next_message(&mut self, receiver: &Receiver<Message>) -> Option<Message> {
        loop {
            let log_at = (!self.searched.is_empty()).then(|| self.heard + SEARCH_LOG_DELAY);
            let deadline = [log_at, self.upkeep.due(self.heard)]
                .into_iter()
                .flatten()
                .min();
            let message = match deadline {
                None => receiver.recv().ok(),
                Some(at) => {
                    match receiver.recv_timeout(at.saturating_duration_since(Instant::now())) {
                        Ok(message) => Some(message),
                        Err(RecvTimeoutError::Timeout) => {
                            self.idle_work();
                            continue;
                        }
                        Err(RecvTimeoutError::Disconnected) => None,
                    }
                }
            };
            self.heard = Instant::now();
            return message;
        }
    }

    /// What is due while nothing happens: the search log, then a checkpoint.
    fn idle_work(&mut self) {
        let now = Instant::now();
        if !self.searched.is_empty() && now >= self.heard + SEARCH_LOG_DELAY {
            self.write_search_log();
        }
        if self.upkeep.due(self.heard).is_some_and(|at| now >= at) {
            match self.index.truncate_wal() {
                Ok(done) => tracing::debug!(
                    "index idle: checkpointed {} of {} WAL frames",
                    done.copied,
                    done.wal_frames
                ),
                Err(e) => tracing::warn!("checkpointing the index failed: {e}"),
            }
            self.upkeep.checkpointed();
        }
    }

    /// Keeps a search for the log; a full batch is written now.
    fn searched(&mut self, query: String, results: u64, at: chrono::DateTime<chrono::Utc>) {
        self.searched.push(SearchLogged { query, results, at });
        if self.searched.len() >= SEARCH_LOG_BATCH {
            self.write_search_log();
        }
    }

    fn tell(&self, indexed: Indexed) {
        if let Some((last, others)) = self.listeners.split_last() {
            for listener in others {
                listener.tell(indexed.clone());
            }
            last.tell(indexed);
        }
    }

    /// Writes the searches gathered, in one transaction.
    fn write_search_log(&mut self) {
        if self.searched.is_empty() {
            return;
        }
        let searched = std::mem::take(&mut self.searched);
        self.upkeep.wrote(Instant::now());
        if let Err(e) = self.index.searches().record_all(&searched) {
            tracing::warn!(
                "{} searches could not be logged for analytics: {e}",
                searched.len()
            );
        }
    }

    /// Reads every page, fills the catalog and rebuilds the index unless its stamp says it
    /// already holds exactly these pages.
    fn first_pass(&mut self) -> Result<usize> {
        let started = Instant::now();
        let paths: Vec<PagePath> = {
            let vault = self.links.vault();
            vault.files().filter(|p| p.is_page()).cloned().collect()
        };
        self.progress.total.store(paths.len(), Ordering::Relaxed);
        self.progress.done.store(0, Ordering::Relaxed);
        let reads = read_all(&self.root, &paths, &self.progress);
        self.stamps = Stamps::default();
        for read in &reads {
            self.stamps.set(&read.path, &read.etag);
        }
        let stamp = self.stamps.hex();
        let fresh = self.index.stamp().ok().flatten().as_deref() == Some(stamp.as_str())
            && self.index.page_count().ok() == Some(reads.len());
        let vault = self.links.vault();
        let mut catalog = HashMap::with_capacity(reads.len());
        let mut records = Vec::new();
        for read in &reads {
            let parsed = quire_syntax::parse(&read.text);
            let page = page_text(read, &parsed);
            catalog.insert(read.path.to_string(), page.data(&vault));
            if !fresh {
                records.push(page.record(&vault));
            }
        }
        drop(vault);
        if !fresh {
            self.index.rebuild(records.into_iter(), |_| {})?;
            self.index.set_stamp(&stamp)?;
            tracing::info!(
                "indexed {} pages in {} ms",
                reads.len(),
                started.elapsed().as_millis()
            );
        }
        self.catalog.fill(catalog);
        self.progress.ready.store(true, Ordering::Release);
        Ok(reads.len())
    }

    /// Indexes the pages at `changed` (written or removed), and the pages whose links now
    /// resolve differently because pages appeared or went. Returns the pages read, with their
    /// ETag, and those found gone.
    fn update(
        &mut self,
        changed: BTreeMap<PagePath, Option<Vec<u8>>>,
    ) -> Result<Vec<(PagePath, Option<String>)>> {
        let mut reads = Vec::new();
        let mut removed = Vec::new();
        let mut paths = BTreeSet::new();
        for (path, bytes) in changed {
            paths.insert(path.clone());
            let read = match bytes {
                Some(bytes) => Ok(written_page(&self.root, path.clone(), bytes)),
                None => read_page(&self.root, &path),
            };
            match read {
                Ok(Some(read)) => reads.push(read),
                Ok(None) => removed.push(path),
                Err(e) => return Err(e),
            }
        }
        let changed = paths;
        let appeared: Vec<PagePath> = reads
            .iter()
            .filter(|r| !self.stamps.contains(&r.path))
            .map(|r| r.path.clone())
            .collect();
        let went: Vec<PagePath> = removed
            .iter()
            .filter(|p| self.stamps.contains(p))
            .cloned()
            .collect();
        if !appeared.is_empty() || !went.is_empty() {
            let relinked = self.relinked_sources(&appeared, &went, &changed)?;
            for path in relinked {
                if let Some(read) = read_page(&self.root, &path)? {
                    reads.push(read);
                }
            }
        }
        let vault = self.links.vault();
        let mut records: Vec<PageRecord> = Vec::with_capacity(reads.len());
        let mut data: Vec<PageData> = Vec::with_capacity(reads.len());
        for read in &reads {
            let parsed = quire_syntax::parse(&read.text);
            let page = page_text(read, &parsed);
            records.push(page.record(&vault));
            data.push(page.data(&vault));
        }
        drop(vault);
        for path in &removed {
            self.stamps.remove(path);
        }
        for read in &reads {
            self.stamps.set(&read.path, &read.etag);
        }
        let gone: Vec<&str> = removed.iter().map(PagePath::as_str).collect();
        self.index
            .update_pages(&records, &gone, Some(&self.stamps.hex()))?;
        let mut pages: Vec<(PagePath, Option<String>)> = reads
            .iter()
            .map(|r| (r.path.clone(), Some(r.etag.clone())))
            .collect();
        pages.extend(removed.iter().map(|p| (p.clone(), None)));
        let removed: Vec<String> = removed.iter().map(|p| p.to_string()).collect();
        self.catalog.update(data, &removed);
        Ok(pages)
    }

    /// Pages (other than `changed`) with a link that resolved to a page that went, or that
    /// resolves now to a page that appeared.
    fn relinked_sources(
        &self,
        appeared: &[PagePath],
        went: &[PagePath],
        changed: &BTreeSet<PagePath>,
    ) -> Result<BTreeSet<PagePath>> {
        let mut sources = BTreeSet::new();
        for path in went {
            for (source, _line) in self.index.backlinks(path.as_str())? {
                if let Ok(source) = PagePath::new(&source) {
                    sources.insert(source);
                }
            }
        }
        if !appeared.is_empty() {
            let vault = self.links.vault();
            for (source, _link, resolution) in vault.resolved_links() {
                if resolution.path().is_some_and(|p| appeared.contains(p)) {
                    sources.insert(source.clone());
                }
            }
        }
        sources.retain(|s| !changed.contains(s) && s.is_page());
        Ok(sources)
    }
}

/// Lowers the calling thread's scheduling priority (Linux: nice 10 for this thread alone),
/// for the index thread under `[search] async_index`. No reader waits for that thread there,
/// so when writes keep both cores busy the CPU goes to answering them, and the index, given
/// about a tenth of a busy core, catches up once the burst ends, in larger batches (a batch
/// takes every change waiting when it starts). Elsewhere, or if the call is refused, the
/// priority stays: this changes only how the CPU is shared, never what is indexed.
fn yield_to_writers() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: plain system calls on this thread's own id, no memory handed over.
        let refused = unsafe {
            let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
            libc::setpriority(libc::PRIO_PROCESS, tid, 10) != 0
        };
        if refused {
            tracing::debug!(
                "the index thread keeps its priority: {}",
                std::io::Error::last_os_error()
            );
        }
    }
}

/// The catalog of every page read now, for a process that keeps no index (a command reading a
/// root): the same data the index thread keeps, made once.
pub(crate) fn read_catalog(root: &Root, links: &LinkModel) -> Catalog {
    let paths: Vec<PagePath> = {
        let vault = links.vault();
        vault.files().filter(|p| p.is_page()).cloned().collect()
    };
    let reads = read_all(root, &paths, &Progress::default());
    let vault = links.vault();
    let pages = reads
        .iter()
        .map(|read| {
            let parsed = quire_syntax::parse(&read.text);
            (read.path.to_string(), page_text(read, &parsed).data(&vault))
        })
        .collect();
    let catalog = Catalog::default();
    catalog.fill(pages);
    catalog
}

fn page_text<'a>(read: &'a Read, parsed: &'a quire_syntax::ParsedPage) -> PageText<'a> {
    PageText {
        path: &read.path,
        text: &read.text,
        parsed,
        size: read.size,
        mtime_ms: read.mtime_ms,
    }
}

/// The stamp of the indexed pages: the XOR of each page's share (a hash of its path and
/// ETag), kept up to date a page at a time.
#[derive(Default)]
struct Stamps {
    shares: HashMap<PagePath, u64>,
    total: u64,
}

impl Stamps {
    fn contains(&self, path: &PagePath) -> bool {
        self.shares.contains_key(path)
    }

    fn set(&mut self, path: &PagePath, etag: &str) {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        path.as_str().hash(&mut hasher);
        etag.hash(&mut hasher);
        let share = hasher.finish();
        if let Some(old) = self.shares.insert(path.clone(), share) {
            self.total ^= old;
        }
        self.total ^= share;
    }

    fn remove(&mut self, path: &PagePath) {
        if let Some(old) = self.shares.remove(path) {
            self.total ^= old;
        }
    }

    fn hex(&self) -> String {
        format!("{:016x}", self.total)
    }
}

/// Reads a page; `None` when it is gone (or is no UTF-8 text, which is not indexed).
fn read_page(root: &Root, path: &PagePath) -> Result<Option<Read>> {
    let bytes = match root.read(path) {
        Ok(bytes) => bytes,
        Err(StoreError::NotFound { .. }) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    Ok(written_page(root, path.clone(), bytes))
}

/// A page whose bytes are known (read, or handed over by the pipeline that wrote them); `None`
/// when it is no UTF-8 text.
fn written_page(root: &Root, path: PagePath, bytes: Vec<u8>) -> Option<Read> {
    let mtime_ms = root
        .modified(&DiskName::from(&path))
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or_else(now_ms, |d| d.as_millis() as i64);
    let size = bytes.len() as u64;
    let etag = etag(&bytes);
    String::from_utf8(bytes).ok().map(|text| Read {
        path,
        text,
        size,
        mtime_ms,
        etag,
    })
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Reads every page on all cores.
fn read_all(root: &Root, paths: &[PagePath], progress: &Progress) -> Vec<Read> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    let chunk = paths.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = paths
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    let mut out = Vec::with_capacity(part.len());
                    for path in part {
                        match read_page(root, path) {
                            Ok(Some(read)) => out.push(read),
                            Ok(None) => {}
                            Err(e) => tracing::warn!("{path} is not indexed: {e}"),
                        }
                        progress.done.fetch_add(1, Ordering::Relaxed);
                    }
                    out
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_is_due_once_after_a_quiet_spell_following_a_write() {
        let idle = Duration::from_secs(5);
        let start = Instant::now();
        let at = |s: u64| start + Duration::from_secs(s);
        let mut upkeep = Upkeep::new(idle);
        assert_eq!(upkeep.due(at(0)), None, "nothing written, nothing to do");
        upkeep.wrote(at(1));
        assert_eq!(upkeep.due(at(0)), Some(at(6)), "idle after the write");
        assert_eq!(
            upkeep.due(at(3)),
            Some(at(8)),
            "a later request postpones it"
        );
        upkeep.wrote(at(4));
        assert_eq!(upkeep.due(at(3)), Some(at(9)), "so does a later write");
        upkeep.checkpointed();
        assert_eq!(
            upkeep.due(at(20)),
            None,
            "once: not again until the next write"
        );
    }
}
