//! Pure snapshot of a knowledge root: `PagePath`, the `Vault` of files and page summaries,
//! and link resolution (DECISIONS §3) with backlinks and titles; an `Overlay` answers the
//! same questions for the vault as planned changes will leave it.
//!
//! No I/O: callers feed file paths and page texts in, and ask questions. A dangling link
//! is `Resolution::Unresolved`, never an error; the only error is an invalid path.

mod fold;
mod index;
mod keys;
mod memo;
mod overlay;
mod path;
mod rank;
mod resolve;
mod spelling;
mod vault;

pub use fold::fold_name;
pub use keys::NameKeys;
pub use memo::{Answer, Memo};
pub use overlay::Overlay;
pub use path::{PagePath, PathError};
pub use resolve::{Resolution, Step};
pub use spelling::{spelled, DiskNames, Shadowed};
pub use vault::{PageSummary, Vault};

/// Inner steps the fuzz targets of `fuzz/` check on their own; not an API.
#[doc(hidden)]
pub mod fuzzing {
    /// `folder` joined with a relative link destination, `..` applied (`None` above the root).
    pub fn join_relative(folder: &str, relative: &str) -> Option<String> {
        crate::resolve::join_relative(folder, relative)
    }
}
