//! Vector search of a space (`[search.vector] enabled`): pages cut into chunks, embedded in
//! the background, kept in the vector store ([`VectorBackend`], `backend.rs`: sqlite-vec,
//! `pgvector.rs`, `qdrant.rs`), and searched by [`crate::Find::semantic`], hybrid `/search`,
//! suggestions and `/embeddings` (`find.rs`).
//!
//! * **Writes never wait for embeddings.** The index thread reports each pass (the pages it
//!   read with their ETag, or found gone) to a feed thread here, as it does to the view
//!   refresher; the feed queues the pages and `worker_count` workers embed them. A page is
//!   saved, committed and full-text indexed before any of this starts.
//! * **Only what changed is embedded.** A page whose ETag the store already has is skipped;
//!   of a changed page, only chunks whose text was never embedded go to the embedder — the
//!   others (a moved, merged, split or reverted page, or the unchanged sections of an edited
//!   one) take their vector from the cache (`quire_index::VectorCache`, in the root's local
//!   file whatever the store). A vector is cached as soon as it is computed, before the store
//!   is written: a store that fails costs no second embedding.
//! * **A failing embedder or store loses nothing.** The batch goes back to the queue and the
//!   workers wait (1 s, doubling to a minute) before trying again; the backlog and the last
//!   error show in `/readyz` and `/metrics` ([`Vectors::status`]). A remote store is first
//!   reached by a worker, never at the start: one that is down delays embeddings only.
//! * **At start** the first full pass of the index sends every page: those whose ETag the
//!   store has are skipped, those gone from the root are dropped from the store.

mod backend;
mod find;
mod pgvector;
mod qdrant;

pub use find::VECTOR_OFF;
pub(crate) use find::{snippet, title_of, Near, HYBRID_FLOOR, RRF_K};

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use quire_embed::{Embedder, Purpose};
use quire_index::{NewChunk, VectorCache, VectorStore};
use quire_store::{etag, Root, StoreError};
use quire_vault::PagePath;

use crate::error::{Error, Result};
use crate::indexing::{Indexed, Listener};
use crate::links::LinkModel;
use crate::settings::{EmbedderChoice, StoreChoice, VectorSettings};

pub(crate) use backend::VectorBackend;
use backend::{BackendError, PageChunks};

/// Pages a worker takes from the queue at once.
const PAGES_PER_BATCH: usize = 16;
/// Texts sent to the embedder in one call.
const TEXTS_PER_CALL: usize = 32;
/// The longest wait before trying a failing embedder again.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// What `/readyz` and `/metrics` say of vector search.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorStatus {
    /// The embedder's model.
    pub model: String,
    pub dimensions: usize,
    /// Pages waiting to be embedded (queued or being embedded).
    pub backlog: usize,
    /// The store (`sqlite-vec`, `pgvector at …`, `qdrant at …`; never a secret).
    pub store: String,
    /// Pages and chunks in the store, as last counted (after each batch).
    pub pages: usize,
    pub chunks: usize,
    /// Chunks sent to the embedder, and chunks that took a stored vector instead.
    pub embedded: u64,
    pub reused: u64,
    /// The last failure of the embedder or the store, while it lasts (cleared by a success).
    pub last_error: Option<String>,
}

/// The vector search of one space: its embedder, its store, its workers.
pub(crate) struct Vectors {
    shared: Arc<Shared>,
    threads: Mutex<Vec<JoinHandle<()>>>,
    /// Handed to the index thread once ([`Vectors::listener`]).
    listener: Listener,
}

struct Shared {
    embedder: Arc<dyn Embedder>,
    store: Box<dyn VectorBackend>,
    cache: VectorCache,
    /// Pages and chunks in the store, counted after each batch: `/readyz` never waits for
    /// a remote store.
    counts: Mutex<(usize, usize)>,
    root: Root,
    links: Arc<LinkModel>,
    chunk_size: usize,
    overlap: usize,
    queue: Mutex<Queue>,
    /// Wakes workers (work queued, stop) and waiters (queue drained).
    changed: Condvar,
    /// Reports of the index thread not yet taken by the feed.
    reports: Arc<AtomicUsize>,
    embedded: AtomicU64,
    reused: AtomicU64,
    last_error: Mutex<Option<String>>,
    stop: AtomicBool,
}

#[derive(Default)]
struct Queue {
    pending: BTreeSet<PagePath>,
    /// Pages a worker has taken and not finished.
    busy: usize,
    /// Failures in a row, and no worker takes work before `retry_at`.
    failures: u32,
    retry_at: Option<Instant>,
}

impl Vectors {
    /// Opens the store and starts the feed and the workers. An embedder that cannot be built
    /// or a store that cannot be opened stops the start.
    pub(crate) fn start(
        settings: &VectorSettings,
        root: Root,
        links: Arc<LinkModel>,
    ) -> Result<Vectors> {
        let embedder = build_embedder(&settings.embedder)?;
        let (model, dimensions) = (embedder.model(), embedder.dimensions());
        let cache = VectorCache::open(root.dir(), model, dimensions)
            .map_err(|e| Error::internal(format!("[search.vector] the vector cache: {e}")))?;
        let store = build_store(&settings.store, &cache, model, dimensions)?;
        let (sender, receiver) = mpsc::channel();
        let reports = Arc::new(AtomicUsize::new(0));
        let shared = Arc::new(Shared {
            embedder,
            store,
            cache,
            counts: Mutex::new((0, 0)),
            root,
            links,
            chunk_size: settings.chunk_size.max(1),
            overlap: settings.overlap,
            queue: Mutex::new(Queue::default()),
            changed: Condvar::new(),
            reports: reports.clone(),
            embedded: AtomicU64::new(0),
            reused: AtomicU64::new(0),
            last_error: Mutex::new(None),
            stop: AtomicBool::new(false),
        });
        let mut threads = Vec::with_capacity(settings.workers + 1);
        let feed = shared.clone();
        threads.push(spawn("quire-vectors-feed", move || {
            feed.run_feed(receiver)
        })?);
        for n in 0..settings.workers.max(1) {
            let worker = shared.clone();
            threads.push(spawn(&format!("quire-vectors-{n}"), move || {
                worker.run_worker()
            })?);
        }
        Ok(Vectors {
            shared,
            threads: Mutex::new(threads),
            listener: Listener {
                sender,
                pending: reports,
            },
        })
    }

    /// Where the index thread sends its reports.
    pub(crate) fn listener(&self) -> Listener {
        self.listener.clone()
    }

    pub(crate) fn embedder(&self) -> &dyn Embedder {
        self.shared.embedder.as_ref()
    }

    pub(crate) fn store(&self) -> &dyn VectorBackend {
        self.shared.store.as_ref()
    }

    /// The length of every vector kept.
    pub(crate) fn dimensions(&self) -> usize {
        self.shared.cache.dimensions()
    }

    /// Embeds a query.
    pub(crate) fn embed_query(&self, text: &str) -> Result<Vec<f32>> {
        let mut vectors = self
            .shared
            .embedder
            .embed(&[text], Purpose::Query)
            .map_err(|e| Error::unavailable(format!("the embedder failed: {e}")))?;
        vectors
            .pop()
            .ok_or_else(|| Error::internal("the embedder answered no vector"))
    }

    pub(crate) fn status(&self) -> VectorStatus {
        let shared = &self.shared;
        let backlog = {
            let queue = shared.lock_queue();
            queue.pending.len() + queue.busy
        };
        let (pages, chunks) = *shared.counts.lock().unwrap_or_else(|p| p.into_inner());
        VectorStatus {
            model: shared.embedder.model().to_string(),
            dimensions: shared.embedder.dimensions(),
            store: shared.store.describe(),
            backlog,
            pages,
            chunks,
            embedded: shared.embedded.load(Ordering::Relaxed),
            reused: shared.reused.load(Ordering::Relaxed),
            last_error: shared
                .last_error
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone(),
        }
    }

    /// Waits until every page reported so far is embedded (or `timeout` passes): for tests
    /// and benchmarks. The caller flushes the index first, so its reports are sent.
    pub(crate) fn settle(&self, timeout: Duration) -> bool {
        let shared = &self.shared;
        let deadline = Instant::now() + timeout;
        let mut queue = shared.lock_queue();
        loop {
            let idle = queue.pending.is_empty()
                && queue.busy == 0
                && shared.reports.load(Ordering::Acquire) == 0;
            if idle {
                return true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            let wait = left.min(Duration::from_millis(20));
            queue = shared
                .changed
                .wait_timeout(queue, wait)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }
}

impl Drop for Vectors {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        self.shared.changed.notify_all();
        // The feed ends when the index thread (the sender) is gone; workers at once.
        let threads = std::mem::take(&mut *self.threads.lock().unwrap_or_else(|p| p.into_inner()));
        for thread in threads {
            if thread.thread().name() != Some("quire-vectors-feed") {
                let _ = thread.join();
            }
        }
    }
}

fn spawn(name: &str, run: impl FnOnce() + Send + 'static) -> Result<JoinHandle<()>> {
    std::thread::Builder::new()
        .name(name.to_string())
        .spawn(run)
        .map_err(|e| Error::internal(format!("vector search could not start a thread: {e}")))
}

/// The embedder a space's settings name.
fn build_embedder(choice: &EmbedderChoice) -> Result<Arc<dyn Embedder>> {
    match choice {
        EmbedderChoice::Given(embedder) => Ok(embedder.clone()),
        EmbedderChoice::Local => local_model()
            .map(|local| local as Arc<dyn Embedder>)
            .map_err(|e| Error::internal(format!("[search.vector] the local model: {e}"))),
        EmbedderChoice::Remote(spec) => quire_embed::remote(spec)
            .map(Arc::from)
            .map_err(|e| Error::bad_request(format!("[search.vector.embedder] {e}"))),
    }
}

/// The store a space's settings name; the local one opened, a remote one checked (its
/// address, its name) but not reached yet. A provider not built stops the start.
fn build_store(
    choice: &StoreChoice,
    cache: &VectorCache,
    model: &str,
    dimensions: usize,
) -> Result<Box<dyn VectorBackend>> {
    let bad = |e: String| Error::bad_request(e);
    match choice {
        StoreChoice::SqliteVec => VectorStore::open(cache)
            .map(|store| Box::new(store) as Box<dyn VectorBackend>)
            .map_err(|e| Error::internal(format!("[search.vector] store: {e}"))),
        StoreChoice::Pgvector { dsn, collection } => {
            let dsn = dsn.as_ref().ok_or_else(|| {
                bad("[search.vector.store] provider = \"pgvector\" needs dsn \
                     (postgres://user:password@host:5432/database)"
                    .into())
            })?;
            pgvector::Pgvector::new(dsn.expose(), collection.as_deref(), model, dimensions)
                .map(|store| Box::new(store) as Box<dyn VectorBackend>)
                .map_err(bad)
        }
        StoreChoice::Qdrant {
            url,
            api_key,
            collection,
        } => {
            let url = url.as_deref().ok_or_else(|| {
                bad(
                    "[search.vector.store] provider = \"qdrant\" needs url (http://host:6333)"
                        .into(),
                )
            })?;
            let key = api_key.as_ref().map(|k| k.expose());
            qdrant::Qdrant::new(url, key, collection.as_deref(), model, dimensions)
                .map(|store| Box::new(store) as Box<dyn VectorBackend>)
                .map_err(bad)
        }
        StoreChoice::Unbuilt(provider) => Err(bad(format!(
            "[search.vector.store] provider {provider}: this store is not built; use \
             sqlite-vec, pgvector or qdrant"
        ))),
    }
}

/// A page to store: its path, its ETag, its chunks (text hash, text).
type CutPage = (String, String, Vec<(String, String)>);

/// The model shipped in quire, loaded once per process and shared by its spaces.
fn local_model() -> std::result::Result<Arc<quire_embed::Local>, String> {
    static LOCAL: std::sync::OnceLock<std::result::Result<Arc<quire_embed::Local>, String>> =
        std::sync::OnceLock::new();
    LOCAL
        .get_or_init(|| {
            quire_embed::Local::load()
                .map(Arc::new)
                .map_err(|e| e.to_string())
        })
        .clone()
}

impl Shared {
    fn lock_queue(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn enqueue(&self, pages: impl IntoIterator<Item = PagePath>) {
        let mut queue = self.lock_queue();
        queue
            .pending
            .extend(pages.into_iter().filter(|p| p.is_page()));
        drop(queue);
        self.changed.notify_all();
    }

    /// Turns the index thread's reports into queued pages.
    fn run_feed(&self, reports: Receiver<Indexed>) {
        while let Ok(report) = reports.recv() {
            match report {
                Indexed::All => {
                    let pages: Vec<PagePath> = {
                        let vault = self.links.vault();
                        vault.files().filter(|p| p.is_page()).cloned().collect()
                    };
                    // Pages the store has that the root lost.
                    let present: BTreeSet<String> = pages.iter().map(|p| p.to_string()).collect();
                    match self.store.page_etags() {
                        Ok(stored) => {
                            let gone: Vec<&str> = stored
                                .keys()
                                .filter(|p| !present.contains(*p))
                                .map(String::as_str)
                                .collect();
                            if let Err(e) = self.store.remove_pages(&gone) {
                                self.failed(&format!("the vector store: {e}"));
                            }
                            self.count();
                        }
                        // Unreachable: the workers find out again, and wait.
                        Err(e) => self.failed(&format!("the vector store: {e}")),
                    }
                    // Every page: a worker skips those whose ETag is stored.
                    self.enqueue(pages);
                }
                Indexed::Pages(pages) => self.enqueue(pages.into_iter().map(|(p, _)| p)),
            }
            self.reports.fetch_sub(1, Ordering::AcqRel);
            self.changed.notify_all();
        }
    }

    fn run_worker(&self) {
        while let Some(batch) = self.take() {
            let outcome = self.embed_pages(&batch);
            let mut queue = self.lock_queue();
            queue.busy -= batch.len();
            match outcome {
                Ok(()) => {
                    queue.failures = 0;
                    queue.retry_at = None;
                    drop(queue);
                    *self.last_error.lock().unwrap_or_else(|p| p.into_inner()) = None;
                }
                Err(message) => {
                    // Back to the queue, unless written again meanwhile (then it is there).
                    queue.pending.extend(batch);
                    queue.failures += 1;
                    let wait = Duration::from_secs(1 << queue.failures.min(6)).min(MAX_BACKOFF);
                    queue.retry_at = Some(Instant::now() + wait);
                    drop(queue);
                    tracing::warn!("vector search: {message}; trying again in {wait:?}");
                    self.failed(&message);
                }
            }
            self.changed.notify_all();
        }
    }

    /// Counts the store's pages and chunks for [`Vectors::status`] (kept as they were when
    /// the store cannot answer).
    fn count(&self) {
        if let Ok(counts) = self.store.counts() {
            *self.counts.lock().unwrap_or_else(|p| p.into_inner()) = counts;
        }
    }

    fn failed(&self, message: &str) {
        *self.last_error.lock().unwrap_or_else(|p| p.into_inner()) = Some(message.to_string());
    }

    /// The next pages to embed; `None` when the space closes.
    fn take(&self) -> Option<Vec<PagePath>> {
        let mut queue = self.lock_queue();
        loop {
            if self.stop.load(Ordering::Acquire) {
                return None;
            }
            let now = Instant::now();
            let waiting = queue.retry_at.filter(|at| *at > now);
            if waiting.is_none() && !queue.pending.is_empty() {
                let mut batch = Vec::with_capacity(PAGES_PER_BATCH);
                while batch.len() < PAGES_PER_BATCH {
                    match queue.pending.pop_first() {
                        Some(page) => batch.push(page),
                        None => break,
                    }
                }
                queue.busy += batch.len();
                return Some(batch);
            }
            let wait = waiting.map_or(Duration::from_secs(1), |at| at - now);
            queue = self
                .changed
                .wait_timeout(queue, wait)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    /// Embeds the chunks of `pages` that the store does not have and stores every page: one
    /// call of the embedder per [`TEXTS_PER_CALL`] new texts.
    fn embed_pages(&self, pages: &[PagePath]) -> std::result::Result<(), String> {
        let store_error = |e: BackendError| format!("the vector store: {e}");
        let cache_error = |e: quire_index::IndexError| format!("the vector cache: {e}");
        let mut gone: Vec<String> = Vec::new();
        let mut cut: Vec<CutPage> = Vec::new();
        for page in pages {
            let name = page.to_string();
            let bytes = match self.root.read(page) {
                Ok(bytes) => bytes,
                Err(StoreError::NotFound { .. }) => {
                    gone.push(name);
                    continue;
                }
                Err(e) => return Err(format!("reading {name}: {e}")),
            };
            let tag = etag(&bytes);
            if self.store.page_etag(&name).map_err(store_error)?.as_deref() == Some(&tag) {
                continue;
            }
            let text = String::from_utf8_lossy(&bytes);
            let chunks = quire_embed::chunk(&text, self.chunk_size, self.overlap)
                .into_iter()
                .map(|c| (etag(c.text.as_bytes()), c.text))
                .collect();
            cut.push((name, tag, chunks));
        }
        let hashes: Vec<&str> = cut
            .iter()
            .flat_map(|(_, _, chunks)| chunks.iter().map(|(h, _)| h.as_str()))
            .collect();
        let mut known = self.cache.cached(&hashes).map_err(cache_error)?;
        let mut missing: Vec<(&str, &str)> = Vec::new();
        let mut seen = BTreeSet::new();
        for (hash, text) in cut.iter().flat_map(|(_, _, chunks)| chunks) {
            if known.contains_key(hash) {
                self.reused.fetch_add(1, Ordering::Relaxed);
            } else if seen.insert(hash.as_str()) {
                missing.push((hash, text));
            }
        }
        for call in missing.chunks(TEXTS_PER_CALL) {
            let texts: Vec<&str> = call.iter().map(|(_, text)| *text).collect();
            let vectors = self
                .embedder
                .embed(&texts, Purpose::Document)
                .map_err(|e| e.to_string())?;
            if vectors.len() != texts.len() {
                return Err(format!(
                    "the embedder answered {} vectors for {} texts",
                    vectors.len(),
                    texts.len()
                ));
            }
            let dimensions = self.cache.dimensions();
            if let Some(wrong) = vectors.iter().find(|v| v.len() != dimensions) {
                return Err(format!(
                    "the embedder answered a vector of {} numbers, not {dimensions}",
                    wrong.len()
                ));
            }
            self.embedded
                .fetch_add(texts.len() as u64, Ordering::Relaxed);
            // Cached at once: a store that fails next costs no second embedding.
            let fresh: Vec<(&str, &[f32])> = call
                .iter()
                .zip(&vectors)
                .map(|((hash, _), vector)| (*hash, vector.as_slice()))
                .collect();
            self.cache.remember(&fresh).map_err(cache_error)?;
            for ((hash, _), vector) in call.iter().zip(vectors) {
                known.insert(hash.to_string(), vector);
            }
        }
        let stored: Vec<(String, String, Vec<NewChunk>)> = cut
            .into_iter()
            .map(|(name, tag, chunks)| {
                let chunks = chunks
                    .into_iter()
                    .filter_map(|(hash, text)| {
                        let vector = known.get(&hash)?.clone();
                        Some(NewChunk { hash, text, vector })
                    })
                    .collect();
                (name, tag, chunks)
            })
            .collect();
        let pages: Vec<PageChunks<'_>> = stored
            .iter()
            .map(|(name, tag, chunks)| (name.as_str(), tag.as_str(), chunks.as_slice()))
            .collect();
        let gone: Vec<&str> = gone.iter().map(String::as_str).collect();
        self.store.remove_pages(&gone).map_err(store_error)?;
        if !pages.is_empty() {
            self.store.replace_pages(&pages).map_err(store_error)?;
        }
        let counts = self.store.counts().map_err(store_error)?;
        *self.counts.lock().unwrap_or_else(|p| p.into_inner()) = counts;
        // Vectors no chunk uses go once they outnumber the chunks (with room for a thousand):
        // what a revert or a move back would reuse stays a while.
        if self.cache.outgrew(counts.1).map_err(cache_error)? {
            let in_use = self.store.hashes().map_err(store_error)?;
            self.cache.keep_only(&in_use).map_err(cache_error)?;
        }
        Ok(())
    }
}
