//! History of a space's files: versions of a path, content at a version, diffs, blame and the
//! change feed.

use quire_api::{BlameLine, ChangeAction, ChangesPage, Timeline, VersionEntry};
use quire_vault::PagePath;

use crate::core::SpaceCore;
use crate::error::{Error, Result};

/// The most changes one page of the change feed holds.
pub const CHANGES_LIMIT_MAX: usize = 500;

/// The history of one space.
#[derive(Clone, Copy)]
pub struct Versions<'a>(pub(crate) &'a SpaceCore);

impl Versions<'_> {
    /// The versions of a path, newest first.
    pub fn of(&self, path: &str) -> Result<Vec<VersionEntry>> {
        Ok(self.0.history.versions(&PagePath::new(path)?)?)
    }

    /// A path's content at a version (a commit hash, full or abbreviated).
    pub fn content(&self, path: &str, version: &str) -> Result<Vec<u8>> {
        check_version_id(version)?;
        Ok(self.0.history.version(&PagePath::new(path)?, version)?)
    }

    /// A unified diff of a path between two versions.
    pub fn diff(&self, path: &str, from: &str, to: &str) -> Result<String> {
        check_version_id(from)?;
        check_version_id(to)?;
        Ok(self.0.history.diff(&PagePath::new(path)?, from, to)?)
    }

    /// Who last changed each line of a path.
    pub fn blame(&self, path: &str) -> Result<Vec<BlameLine>> {
        Ok(self.0.history.blame(&PagePath::new(path)?)?)
    }

    /// The change feed after `since` (the newest changes without it), at most `limit`
    /// (default 100, capped at [`CHANGES_LIMIT_MAX`]).
    pub fn changes(&self, since: Option<&str>, limit: Option<usize>) -> Result<ChangesPage> {
        if let Some(since) = since {
            check_version_id(since)?;
        }
        let limit = limit.unwrap_or(100).clamp(1, CHANGES_LIMIT_MAX);
        Ok(self.0.history.changes(since, limit)?)
    }

    /// The newest changes, newest first, only writes or only deletes when `action` says so:
    /// at most `limit` (default 50, capped at [`CHANGES_LIMIT_MAX`]) of the matching changes
    /// among the newest [`CHANGES_LIMIT_MAX`], and how many matched.
    pub fn timeline(&self, action: Option<ChangeAction>, limit: Option<usize>) -> Result<Timeline> {
        let limit = limit.unwrap_or(50).clamp(1, CHANGES_LIMIT_MAX);
        let mut page = self.changes(None, Some(CHANGES_LIMIT_MAX))?;
        // The feed holds the newest changes oldest first.
        page.changes.reverse();
        page.changes
            .retain(|c| action.is_none_or(|wanted| c.action == wanted));
        let total = page.changes.len();
        page.changes.truncate(limit);
        Ok(Timeline {
            events: page.changes,
            total,
        })
    }

    /// The newest version of the whole space (git: HEAD), if any.
    pub fn head(&self) -> Option<String> {
        self.0.history.head()
    }
}

/// A version id is a commit hash (hex, 4–40 chars) or a cow sequence number.
fn check_version_id(id: &str) -> Result<()> {
    let ok = !id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_alphanumeric());
    if ok {
        Ok(())
    } else {
        Err(Error::bad_request(format!(
            "{id:?} is not a version id (a commit hash, full or abbreviated)"
        )))
    }
}
