//! What can go wrong with the index database itself (not with what a caller asked of it).

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("cannot create the index folder {}: {source}", path.display())]
    CreateFolder {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot remove the unusable index file {}: {source}", path.display())]
    Remove {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("index {} is unusable even after recreating it: {reason}", path.display())]
    Unusable { path: PathBuf, reason: String },
    #[error("index {}: {source}", path.display())]
    Sqlite {
        path: PathBuf,
        source: rusqlite::Error,
    },
}
