//! The in-memory link model of a space: the vault (pages, names, links), the ETag of every
//! page and canvas, and the names on disk that are not their path. Derived from the files;
//! loaded at open and kept current by the pipeline's index hook.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, RwLock, RwLockReadGuard};

use quire_store::{etag, BlobId, DiskName, Root, SeenFiles};
use quire_vault::{DiskNames, PagePath, PageSummary, Vault};

use crate::error::{Error, Result};

pub(crate) struct LinkModel {
    vault: RwLock<Vault>,
    /// ETags of the pages and canvases in `vault` (read at load), and of every other file
    /// the pipeline has written since, kept by the same hook: planning needs no disk read
    /// for pages it does not rewrite, and a change seen on disk can be told from quire's own.
    etags: RwLock<HashMap<PagePath, String>>,
    /// Files named on disk in another normalization than NFC, and shadowed files, for the
    /// planner's destination checks.
    names: RwLock<DiskNames>,
    /// Counts the changes of the model, so caches derived from it know when they are stale.
    generation: AtomicU64,
}

impl LinkModel {
    /// Builds the model from the files of `root`: reading and parsing run on every core, and
    /// the inserts (on the calling thread) take each batch of summaries as it comes, while
    /// the rest are still read. With `seen`, what was read of each page and canvas (its stat
    /// data and blob id) is recorded there for the history's startup scan.
    pub(crate) fn load(root: &Root, seen: Option<&mut SeenFiles>) -> Result<LinkModel> {
        /// Files a loader thread reads before handing their summaries over.
        const BATCH: usize = 256;
        let listing = root.listing()?;
        let files = &listing.files;
        let names = &listing.names;
        let record = seen.is_some();
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(8);
        let chunk = files.len().div_ceil(threads).max(1);
        let mut vault = Vault::new();
        let mut etags = HashMap::with_capacity(files.len());
        let mut seen = seen;
        std::thread::scope(|scope| {
            let (sender, batches) = mpsc::sync_channel(4 * threads);
            let workers: Vec<_> = files
                .chunks(chunk)
                .map(|part| {
                    let sender = sender.clone();
                    scope.spawn(move || {
                        for batch in part.chunks(BATCH) {
                            let loaded = load_batch(root, batch, names, record);
                            let failed = loaded.is_err();
                            if sender.send(loaded).is_err() || failed {
                                return;
                            }
                        }
                    })
                })
                .collect();
            drop(sender);
            let mut failure = None;
            for batch in batches {
                match batch {
                    Ok((items, batch_seen)) => {
                        for item in items {
                            item.insert(&mut vault, &mut etags);
                        }
                        if let Some(seen) = seen.as_deref_mut() {
                            seen.extend(batch_seen);
                        }
                    }
                    Err(e) => {
                        failure.get_or_insert(e);
                    }
                }
            }
            for worker in workers {
                if worker.join().is_err() {
                    failure.get_or_insert(Error::internal("loader thread panicked"));
                }
            }
            failure.map_or(Ok(()), Err)
        })?;
        Ok(LinkModel {
            vault: RwLock::new(vault),
            etags: RwLock::new(etags),
            names: RwLock::new(listing.names),
            generation: AtomicU64::new(0),
        })
    }

    /// Read access to the vault.
    pub(crate) fn vault(&self) -> RwLockReadGuard<'_, Vault> {
        self.vault.read().unwrap_or_else(|p| p.into_inner())
    }

    /// Changes so far: equal numbers mean an unchanged model.
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// The names on disk that are not their path.
    pub(crate) fn names(&self) -> RwLockReadGuard<'_, DiskNames> {
        self.names.read().unwrap_or_else(|p| p.into_inner())
    }

    /// The ETag of a page or canvas, or of a file the pipeline wrote, from memory.
    pub(crate) fn cached_etag(&self, path: &PagePath) -> Option<String> {
        self.etags
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(path)
            .cloned()
    }

    /// The index hook of the pipeline: brings the model up to date for written files (path,
    /// name on disk, new content or `None` when removed).
    pub(crate) fn index_changes<'a>(
        &self,
        root: &Root,
        changes: impl Iterator<Item = (&'a PagePath, &'a DiskName, Option<&'a [u8]>)>,
    ) {
        let mut removed = false;
        {
            let mut vault = self.vault.write().unwrap_or_else(|p| p.into_inner());
            let mut etags = self.etags.write().unwrap_or_else(|p| p.into_inner());
            let mut names = self.names.write().unwrap_or_else(|p| p.into_inner());
            for (path, disk, content) in changes {
                match content {
                    Some(bytes) => {
                        etags.insert(path.clone(), etag(bytes));
                    }
                    None => {
                        etags.remove(path);
                    }
                }
                if !is_indexed(path) {
                    continue;
                }
                removed |= content.is_none();
                match content {
                    Some(_) if disk.as_str() != path.as_str() => {
                        names.non_nfc.insert(path.clone(), disk.to_string());
                    }
                    _ => {
                        names.non_nfc.remove(path);
                    }
                }
                index_file(&mut vault, path, content);
            }
        }
        self.generation.fetch_add(1, Ordering::AcqRel);
        // Removing the file (or emptying the folder) that shadowed another lets a path
        // address the other one: it joins the model.
        let shadowing = !self.names().shadowed.is_empty();
        if removed && shadowing {
            if let Err(e) = self.surface_shadowed(root) {
                tracing::error!("re-reading the names of the root failed: {e}");
            }
        }
    }

    /// Lists the root again and indexes the files that a path addresses now but the model
    /// does not hold (files that were shadowed).
    fn surface_shadowed(&self, root: &Root) -> Result<()> {
        let listing = root.listing()?;
        let fresh: Vec<PagePath> = {
            let vault = self.vault();
            listing
                .files
                .iter()
                .filter(|p| is_indexed(p) && !vault.contains(p))
                .cloned()
                .collect()
        };
        let mut loaded = Vec::with_capacity(fresh.len());
        for path in &fresh {
            loaded.push(load_file(
                root,
                path,
                listing.names.non_nfc.get(path),
                None,
            )?);
        }
        let mut vault = self.vault.write().unwrap_or_else(|p| p.into_inner());
        let mut etags = self.etags.write().unwrap_or_else(|p| p.into_inner());
        for item in loaded {
            item.insert(&mut vault, &mut etags);
        }
        *self.names.write().unwrap_or_else(|p| p.into_inner()) = listing.names;
        self.generation.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }
}

/// One file read and summarised for the model: the parse of a page is cut down to its summary
/// on the loading thread, so the whole vault's parse trees never exist at once.
enum Loaded {
    Page(PagePath, PageSummary, String),
    Other(PagePath),
}

impl Loaded {
    /// Adds the file to the vault and its ETag to the cache.
    fn insert(self, vault: &mut Vault, etags: &mut HashMap<PagePath, String>) {
        match self {
            Loaded::Page(path, summary, etag) => {
                etags.insert(path.clone(), etag);
                vault.upsert_summary(path, summary)
            }
            Loaded::Other(path) => {
                vault.insert_file(path);
            }
        }
    }
}

/// Reads and summarises a batch of listed files, with what was seen of each when `record`.
fn load_batch(
    root: &Root,
    batch: &[PagePath],
    names: &DiskNames,
    record: bool,
) -> Result<(Vec<Loaded>, SeenFiles)> {
    let mut seen = SeenFiles::new();
    let mut out = Vec::with_capacity(batch.len());
    for path in batch {
        let sink = if record { Some(&mut seen) } else { None };
        out.push(load_file(root, path, names.non_nfc.get(path), sink)?);
    }
    Ok((out, seen))
}

/// Reads and parses one file the listing found; `disk` is its name on disk when that is not
/// its path. What was read is recorded in `seen` when given.
fn load_file(
    root: &Root,
    path: &PagePath,
    disk: Option<&String>,
    seen: Option<&mut SeenFiles>,
) -> Result<Loaded> {
    if !(path.is_page() || path.is_canvas()) {
        return Ok(Loaded::Other(path.clone()));
    }
    let disk = match disk {
        Some(disk) => DiskName::new(disk.clone()),
        None => DiskName::from(path),
    };
    // Read by the name the listing found: no folder scan or path checks per file.
    let (bytes, stat) = root.read_listed(&disk)?;
    let id = BlobId::of(&bytes);
    if let (Some(seen), Some(stat)) = (seen, stat) {
        seen.insert(disk, stat, id);
    }
    let tag = id.to_string();
    Ok(match std::str::from_utf8(&bytes) {
        Ok(text) if path.is_page() => {
            let summary = PageSummary::from_parsed(path, quire_syntax::parse(text));
            Loaded::Page(path.clone(), summary, tag)
        }
        Ok(text) => {
            let summary = PageSummary::from_canvas(path, quire_syntax::parse_canvas(text));
            Loaded::Page(path.clone(), summary, tag)
        }
        Err(_) => Loaded::Other(path.clone()),
    })
}

/// Which files the model holds: everything outside `.quire/`.
pub(crate) fn is_indexed(path: &PagePath) -> bool {
    !path.as_str().starts_with(".quire/")
}

fn index_file(vault: &mut Vault, path: &PagePath, content: Option<&[u8]>) {
    match content {
        None => {
            vault.remove(path);
        }
        Some(bytes) => match std::str::from_utf8(bytes) {
            Ok(text) if path.is_page() => vault.upsert_page(path.clone(), text),
            Ok(text) if path.is_canvas() => vault.upsert_canvas(path.clone(), text),
            _ => {
                vault.insert_file(path.clone());
            }
        },
    }
}
