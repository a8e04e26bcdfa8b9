//! Embeddings for vector search: the [`Embedder`] trait, the local model shipped with quire
//! ([`Local`]), remote embedders over HTTP, and [`chunk`], which cuts a page into token windows.

use std::fmt;

mod chunk;
mod local;
mod remote;
use quire_sigv4 as sigv4;
mod vertex;

pub use chunk::{chunk, chunk_with};
pub use local::{Local, Tokens, LOCAL_MODEL};
pub use remote::{remote, Remote, RemoteSpec, BATCH};

/// What a text is embedded for: some providers embed queries and documents differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// A chunk of a page, to be stored.
    Document,
    /// A search query, to be compared with stored chunks.
    Query,
}

/// Why an embedding failed.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// The embedder could not be reached or did not answer in time (retry later).
    #[error("embedder unreachable: {0}")]
    Unreachable(String),
    /// The embedder answered with an error or a shape quire does not understand.
    #[error("embedder refused: {0}")]
    Refused(String),
    /// The embedder is misconfigured (a start-time error).
    #[error("embedder configuration: {0}")]
    Config(String),
}

/// Turns texts into unit-length vectors of [`Embedder::dimensions`] numbers.
pub trait Embedder: Send + Sync + fmt::Debug {
    /// The model's name, as reported by `/readyz` and `/embeddings`.
    fn model(&self) -> &str;
    /// The length of every vector this embedder returns.
    fn dimensions(&self) -> usize;
    /// One unit-length vector per text, in order.
    fn embed(&self, texts: &[&str], purpose: Purpose) -> Result<Vec<Vec<f32>>, EmbedError>;
}

/// One window of a page, as [`chunk`] cuts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// 0, 1, 2… in page order.
    pub idx: usize,
    /// The text embedded (the heading path of its section first, then the window).
    pub text: String,
}

/// Scales `v` to unit length; the zero vector stays zero.
pub(crate) fn normalise(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        for x in v {
            *x /= norm;
        }
    }
}
