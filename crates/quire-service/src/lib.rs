//! The façade every front-end calls: spaces, the one write pipeline, events, errors.
//!
//! Nothing here knows HTTP, MCP or the terminal: adapters translate their requests into calls
//! on [`Space`] and map [`Error`]s through [`ErrorCode`].

mod apply;
mod approvals;
mod assets;
mod claims;
mod error;
mod events;
mod pages;
mod pipeline;
mod restructure;
mod revert;
mod service;
mod space;

pub use apply::{is_agent, AppliedResult, ApplyRequest, Refused};
pub use approvals::PendingApproval;
pub use assets::{media_type_of, ASSETS_DIR};
pub use claims::{Claim, ClaimOutcome, DEFAULT_LEASE};
pub use error::{Error, ErrorCode, Result};
pub use events::{Event, EventBus};
pub use pages::{ResolvedLink, ResolvedLinks, Template, TocEntry, CHANGES_LIMIT_MAX};
pub use pipeline::{Announce, Applied, AppliedFile, Change, CommitMode, Expect, FileOp};
pub use quire_restructure::{workspace_edit, Manifest, ManifestFormat, Plan};
pub use quire_store::etag;
pub use restructure::{Relink, Renamed, RenamedDir, PERSONAL_DIR};
pub use service::{init_root, settings_from_config, Service};
pub use space::{AssetRules, FileContent, Space, SpaceSettings, WriteOptions, DEFAULT_ACTOR};
