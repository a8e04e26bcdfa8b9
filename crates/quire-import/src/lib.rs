//! Import and export, below the service: sources read into rows, rows rendered into pages by
//! the mapping templates, uploads kept for later imports, and the export encoders.
//!
//! Nothing here writes to the knowledge base: the service takes the rendered pages and
//! writes them through its one pipeline (one commit per import). Reading is bounded by
//! [`Limits`]; a malformed source, template or path is an [`ImportError`] or a row's
//! [`RowError`], never a panic and never a path outside the space.

pub mod databases;
pub mod dsn;
pub mod excel;
pub mod export;
pub mod files;
pub mod folders;
pub mod kind;
pub mod mapping;
pub mod mongo;
pub mod obsidian;
mod rows;
pub mod sources;
pub mod template;
pub mod web;

pub use dsn::Dsn;
pub use files::{locate, Uploads, UPLOADS_DIR, UPLOAD_TTL};
pub use mapping::{
    page_path, slug, Mapping, Page, Plan, Rendering, RowError, ARCHIVED_KEY, SOURCE_ID_KEY,
    SOURCE_KEY,
};
pub use sources::{is_built, read, Cap, Location, Place, Source, SourceKind, SOURCES};
pub use template::Template;

/// One record of a source: field name → value.
pub type Row = serde_json::Map<String, serde_json::Value>;

/// The most one import reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of a source file (or of a markdown folder's pages together).
    pub max_bytes: u64,
    /// Rows of one import.
    pub max_rows: usize,
}

/// 256 MiB.
pub const MAX_BYTES: u64 = 256 * 1024 * 1024;
/// 100,000 rows.
pub const MAX_ROWS: usize = 100_000;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: MAX_BYTES,
            max_rows: MAX_ROWS,
        }
    }
}

/// Why an import (or export) cannot go ahead at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    /// Malformed input: an unknown source, a bad template, unreadable CSV, a path outside.
    #[error("{0}")]
    BadRequest(String),
    /// The file or folder named does not exist.
    #[error("{0}")]
    NotFound(String),
    /// Past [`Limits`].
    #[error("{0}")]
    TooLarge(String),
    /// A source or format of the spec this crate does not build yet.
    #[error("{0}")]
    NotBuilt(String),
    /// The disk failed.
    #[error("{0}")]
    Io(String),
}
