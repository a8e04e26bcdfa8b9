//! Where a service area plugs into the write pipeline without the pipeline knowing the area.
//!
//! An area that must see every change before it is written implements [`BeforeWrite`] and
//! owns whatever state its check keeps (the schema cache belongs to `schemas`); the space
//! registers the area's check in [`Hooks`] when it opens, and the pipeline runs every check
//! before it takes the write lock. Areas that react after a commit subscribe to the space's
//! event bus instead (webhooks, feeds).

use quire_store::Root;

use crate::change::FileOp;
use crate::error::Result;

/// A check every change passes before anything is written.
pub(crate) trait BeforeWrite: Send + Sync {
    /// Lets the change pass, or refuses all of it (nothing is written) with the reason.
    /// `root` is the space's files as they are before the change.
    fn check(&self, root: &Root, ops: &[FileOp]) -> Result<()>;
}

/// The checks registered by the areas of one space, in the order they run.
#[derive(Default)]
pub(crate) struct Hooks {
    pub(crate) before_write: Vec<Box<dyn BeforeWrite>>,
}

impl Hooks {
    /// Runs every check on `ops`; the first refusal stops the change.
    pub(crate) fn before_write(&self, root: &Root, ops: &[FileOp]) -> Result<()> {
        self.before_write
            .iter()
            .try_for_each(|check| check.check(root, ops))
    }
}
