//! Pure snapshot of a knowledge root: `PagePath`, the `Vault` of files and page summaries,
//! and link resolution (DECISIONS §3) with backlinks and titles.
//!
//! No I/O: callers feed file paths and page texts in, and ask questions. A dangling link
//! is `Resolution::Unresolved`, never an error; the only error is an invalid path.

mod index;
mod path;
mod resolve;
mod spelling;
mod vault;

pub use path::{PagePath, PathError};
pub use resolve::{Resolution, Step};
pub use spelling::{spelled, DiskNames, Shadowed};
pub use vault::{PageSummary, Vault};
