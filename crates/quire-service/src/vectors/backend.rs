//! Where a space's chunks and their vectors are kept and searched: the operations vector
//! search needs of a store ([`VectorBackend`]), whichever `[search.vector.store] provider`
//! keeps them. sqlite-vec (`quire_index::VectorStore`, the default) is one; `pgvector.rs`
//! and `qdrant.rs` the others. The cache of vectors by text hash is no part of a store: it
//! stays in the root's local file (`quire_index::VectorCache`) for every store.

use std::collections::{HashMap, HashSet};
use std::fmt;

use quire_index::{Neighbor, NewChunk, StoredChunk, VectorStore};

use crate::error::Error;

/// A page to store: its path, the ETag its chunks were cut from, its chunks in order.
pub(crate) type PageChunks<'a> = (&'a str, &'a str, &'a [NewChunk]);

/// A store that failed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum BackendError {
    /// The local file (sqlite-vec): a fault of this machine.
    Local(String),
    /// A server (PostgreSQL, Qdrant) that is unreachable or answered an error; the message
    /// never holds a password or key.
    Remote(String),
}

impl fmt::Display for BackendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BackendError::Local(message) | BackendError::Remote(message) => f.write_str(message),
        }
    }
}

/// A store that cannot answer stops a search with 500 (local) or 503 (a server).
impl From<BackendError> for Error {
    fn from(e: BackendError) -> Error {
        match e {
            BackendError::Local(message) => Error::internal(format!("the vector store: {message}")),
            BackendError::Remote(message) => {
                Error::unavailable(format!("the vector store: {message}"))
            }
        }
    }
}

pub(crate) type BackendResult<T> = std::result::Result<T, BackendError>;

/// What vector search asks of a store. Every call may fail (a server down); none is retried
/// here: the workers put their batch back and wait, searches answer 503 or fall back to BM25.
pub(crate) trait VectorBackend: Send + Sync {
    /// The provider and where it keeps the vectors, for messages (never a secret).
    fn describe(&self) -> String;
    /// Each page stored, with the ETag its chunks were cut from.
    fn page_etags(&self) -> BackendResult<HashMap<String, String>>;
    /// The ETag `path`'s chunks were cut from, if it is stored.
    fn page_etag(&self, path: &str) -> BackendResult<Option<String>>;
    /// Replaces the chunks of each page with those given, each page whole (never half its
    /// old chunks and half its new ones).
    fn replace_pages(&self, pages: &[PageChunks<'_>]) -> BackendResult<()>;
    /// Forgets these pages.
    fn remove_pages(&self, paths: &[&str]) -> BackendResult<()>;
    /// The `k` chunks nearest `query` by cosine similarity, nearest first.
    fn nearest(&self, query: &[f32], k: usize) -> BackendResult<Vec<Neighbor>>;
    /// The chunks of `path` in order, with their vectors (empty when it is not stored).
    fn chunks_of(&self, path: &str) -> BackendResult<Vec<StoredChunk>>;
    /// Pages and chunks kept.
    fn counts(&self) -> BackendResult<(usize, usize)>;
    /// The text hashes of every chunk kept: what the cache keeps when it is pruned.
    fn hashes(&self) -> BackendResult<HashSet<String>>;
}

/// sqlite-vec, in `.quire/state/vectors.db`.
impl VectorBackend for VectorStore {
    fn describe(&self) -> String {
        "sqlite-vec".to_string()
    }

    fn page_etags(&self) -> BackendResult<HashMap<String, String>> {
        VectorStore::page_etags(self).map_err(local)
    }

    fn page_etag(&self, path: &str) -> BackendResult<Option<String>> {
        VectorStore::page_etag(self, path).map_err(local)
    }

    fn replace_pages(&self, pages: &[PageChunks<'_>]) -> BackendResult<()> {
        VectorStore::replace_pages(self, pages).map_err(local)
    }

    fn remove_pages(&self, paths: &[&str]) -> BackendResult<()> {
        VectorStore::remove_pages(self, paths).map_err(local)
    }

    fn nearest(&self, query: &[f32], k: usize) -> BackendResult<Vec<Neighbor>> {
        VectorStore::nearest(self, query, k).map_err(local)
    }

    fn chunks_of(&self, path: &str) -> BackendResult<Vec<StoredChunk>> {
        VectorStore::chunks_of(self, path).map_err(local)
    }

    fn counts(&self) -> BackendResult<(usize, usize)> {
        VectorStore::counts(self).map_err(local)
    }

    fn hashes(&self) -> BackendResult<HashSet<String>> {
        VectorStore::hashes(self).map_err(local)
    }
}

fn local(e: quire_index::IndexError) -> BackendError {
    BackendError::Local(e.to_string())
}

/// A table or collection name given in `[search.vector.store] collection`: letters, digits
/// and `_` (and `-` where `dash` allows), starting with a letter or `_`, at most 48
/// characters; it becomes part of SQL or of a URL path, so nothing else is let through.
pub(crate) fn checked_name(name: &str, dash: bool) -> Result<&str, String> {
    let fine = !name.is_empty()
        && name.len() <= 48
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || (dash && c == '-'));
    if fine {
        Ok(name)
    } else {
        Err(format!(
            "[search.vector.store] collection {name:?} is not a plain name (letters, digits, \
             `_`{}, at most 48, starting with a letter)",
            if dash { ", `-`" } else { "" }
        ))
    }
}
