//! How the disk spells things: a file's name exactly as it is on disk, a root's canonical
//! folder. Below every other module of the crate.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use quire_vault::PagePath;

use crate::error::StoreError;

/// A root-relative name spelled exactly as on disk, `/`-separated. It differs from the file's
/// [`PagePath`] only where a name on the way is not NFC; [`crate::Root::disk_name`] makes one.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DiskName(String);

impl DiskName {
    /// A name exactly as the disk spells it (as a [`crate::Listing`] reports it).
    pub fn new(name: String) -> DiskName {
        DiskName(name)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The path spelled as it is: the disk name of a file whose names are all NFC.
impl From<&PagePath> for DiskName {
    fn from(p: &PagePath) -> DiskName {
        DiskName(p.as_str().to_owned())
    }
}

impl fmt::Display for DiskName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The canonical folder of a root, or why it is none.
pub(crate) fn canonical(dir: &Path) -> Result<PathBuf, StoreError> {
    let bad = |reason: String| StoreError::BadRoot {
        dir: dir.to_path_buf(),
        reason,
    };
    let canonical = fs::canonicalize(dir).map_err(|e| bad(e.to_string()))?;
    if !canonical.is_dir() {
        return Err(bad("is not a folder".into()));
    }
    Ok(canonical)
}
