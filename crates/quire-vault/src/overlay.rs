//! `Overlay`: a vault as it will be after planned changes, answering link resolution by
//! the difference from the vault rather than from a copy of it.

use std::collections::HashSet;

use quire_syntax::{Link, LinkKind};

use crate::fold::Fold;
use crate::index::{Hit, Index, Lookup, Table};
use crate::path::PagePath;
use crate::resolve::{self, Resolution};
use crate::vault::Vault;

/// The files of a vault with some removed and others added (a plan's moves and merges),
/// for link resolution only. It holds the removed paths and an index of the added files;
/// every lookup reads the vault's bucket, skips the removed files and adds the added ones,
/// so it answers exactly as a vault rebuilt with the changes would, by the same rules, at
/// the cost of the change rather than of the vault.
#[derive(Debug)]
pub struct Overlay<'v> {
    base: &'v Vault,
    /// Files of `base` that are gone.
    removed: HashSet<PagePath>,
    /// Files that are new; none of them is also a kept file of `base`.
    added: Index,
}

impl<'v> Overlay<'v> {
    /// `base` without `removed` and with `added`. A path both removed and added is there
    /// (a file moved onto the place another file left); adding a file that `base` keeps
    /// changes nothing.
    pub fn new(
        base: &'v Vault,
        removed: impl IntoIterator<Item = PagePath>,
        added: impl IntoIterator<Item = PagePath>,
    ) -> Overlay<'v> {
        let removed: HashSet<PagePath> = removed
            .into_iter()
            .filter(|path| base.contains(path))
            .collect();
        let mut overlay = Overlay {
            base,
            removed,
            added: Index::default(),
        };
        for path in added {
            if !overlay.contains(&path) {
                overlay.added.insert(&path);
            }
        }
        overlay
    }

    /// The vault the changes are laid over.
    pub fn base(&self) -> &'v Vault {
        self.base
    }

    /// Is there a file at `path` after the changes?
    pub fn contains(&self, path: &PagePath) -> bool {
        (self.base.contains(path) && !self.removed.contains(path))
            || self
                .added
                .hits(Table::Paths, Fold::Exact, path.as_str())
                .any(|hit| hit.path == *path)
    }

    /// Resolves a wiki target written in `from`, as [`Vault::resolve_wiki`] would after
    /// the changes.
    pub fn resolve_wiki(&self, from: &PagePath, target: &str) -> Resolution {
        resolve::wiki(self, from, target)
    }

    /// Resolves a markdown destination written in `from`, already percent-decoded.
    pub fn resolve_markdown(&self, from: &PagePath, dest: &str) -> Resolution {
        resolve::markdown(self, from, dest)
    }

    /// Resolves a canvas file reference: a root-relative path, matched exactly.
    pub fn resolve_canvas(&self, target: &str) -> Resolution {
        resolve::canvas(self, target)
    }

    /// Resolves a link occurrence of `from` by the rules of its kind.
    pub fn resolve(&self, from: &PagePath, link: &Link) -> Resolution {
        self.resolve_target(from, link.kind, &link.target)
    }

    /// Resolves `target` of a link of `kind` written in `from`.
    pub fn resolve_target(&self, from: &PagePath, kind: LinkKind, target: &str) -> Resolution {
        resolve::target(self, from, kind, target)
    }
}

impl<'v> Lookup for Overlay<'v> {
    fn hits<'a>(
        &'a self,
        table: Table,
        fold: Fold,
        key: &str,
    ) -> impl Iterator<Item = &'a Hit> + use<'a, 'v> {
        self.base
            .index()
            .hits(table, fold, key)
            .filter(|hit| !self.removed.contains(&hit.path))
            .chain(self.added.hits(table, fold, key))
    }
}
