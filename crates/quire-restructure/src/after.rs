//! Resolution in the root as it will be after the manifest, without rebuilding it.
//!
//! The after-root is `(before − vacated) ∪ added`. Resolution tries steps in a fixed order
//! and takes the first step with hits, so most answers follow from two cheap questions: the
//! before-vault's answer (winner plus the other hits of its step) with the vacated files
//! removed, and the answer of a small vault holding only the added files. Where those two
//! cannot settle it (every hit of the before-step was vacated and the added files match
//! nothing earlier, or both answers sit at the same fuzzy step), a full after-vault is
//! built once and asked instead. Correctness never depends on the shortcut.

use std::cell::OnceCell;
use std::collections::BTreeSet;

use quire_syntax::LinkKind;
use quire_vault::{PagePath, Resolution, Step, Vault};

/// The root after the manifest, for resolution only.
pub(crate) struct AfterVault<'a> {
    before: &'a Vault,
    vacated: &'a BTreeSet<PagePath>,
    added: Vault,
    full: OnceCell<Vault>,
}

impl<'a> AfterVault<'a> {
    pub(crate) fn new(
        before: &'a Vault,
        vacated: &'a BTreeSet<PagePath>,
        added: impl IntoIterator<Item = PagePath>,
    ) -> Self {
        AfterVault {
            before,
            vacated,
            added: added.into_iter().collect(),
            full: OnceCell::new(),
        }
    }

    /// Resolves `target` of a link of `kind` written in a page that will be at `from`.
    pub(crate) fn resolve(&self, from: &PagePath, kind: LinkKind, target: &str) -> Resolution {
        let before = resolve_in(self.before, from, kind, target);
        let added = resolve_in(&self.added, from, kind, target);
        match self.combine(from, before, added) {
            Some(resolution) => resolution,
            None => resolve_in(self.full(), from, kind, target),
        }
    }

    /// Would the link resolve to `path`, one of the added files? The added-only vault
    /// holds `path` with the same keys as the after-root and is a subset of it, so a
    /// different answer there proves a different answer in the after-root.
    pub(crate) fn added_answer(
        &self,
        from: &PagePath,
        kind: LinkKind,
        target: &str,
    ) -> Option<PagePath> {
        resolve_in(&self.added, from, kind, target).path().cloned()
    }

    pub(crate) fn is_added(&self, path: &PagePath) -> bool {
        self.added.contains(path)
    }

    fn full(&self) -> &Vault {
        self.full.get_or_init(|| {
            let mut vault: Vault = self
                .before
                .files()
                .filter(|path| !self.vacated.contains(*path))
                .cloned()
                .collect();
            vault.extend(self.added.files().cloned());
            vault
        })
    }

    /// The after-root's answer from the two partial answers, or `None` when they do not
    /// settle it.
    fn combine(
        &self,
        from: &PagePath,
        before: Resolution,
        added: Resolution,
    ) -> Option<Resolution> {
        let Resolution::Resolved {
            path,
            step: before_step,
            candidates,
        } = before
        else {
            // Nothing before matches at any step, so neither does any subset of it.
            return Some(added);
        };
        if before_step == Step::SamePage {
            return Some(Resolution::Resolved {
                path: from.clone(),
                step: Step::SamePage,
                candidates: Vec::new(),
            });
        }
        let kept: Vec<PagePath> = std::iter::once(path)
            .chain(candidates)
            .filter(|hit| !self.vacated.contains(hit))
            .collect();
        let Resolution::Resolved {
            path: added_path,
            step: added_step,
            candidates: added_candidates,
        } = added
        else {
            return ranked(from, before_step, kept);
        };
        match (rank(before_step), rank(added_step)) {
            (b, a) if b == a && before_step.is_fuzzy() => None,
            (b, a) if b < a => ranked(from, before_step, kept),
            (b, a) if b > a => Some(Resolution::Resolved {
                path: added_path,
                step: added_step,
                candidates: added_candidates,
            }),
            _ => {
                let mut hits = kept;
                hits.push(added_path);
                hits.extend(added_candidates);
                ranked(from, before_step, hits)
            }
        }
    }
}

/// Position of a step in the order resolution tries them. Exact steps come before the
/// fuzzy ones; a wiki target is either path-shaped (suffix) or a name, never both.
fn rank(step: Step) -> u8 {
    match step {
        Step::SamePage => 0,
        Step::ExactPath => 1,
        Step::Relative => 2,
        Step::ImpliedMd => 3,
        Step::PathSuffix | Step::Name => 4,
        Step::CaseInsensitive => 5,
        Step::Separators => 6,
    }
}

/// The hits of one step ordered by the vault's tie-break (same folder as `from`, fewest
/// components, byte order); `None` when there are none (a later step would decide).
fn ranked(from: &PagePath, step: Step, mut hits: Vec<PagePath>) -> Option<Resolution> {
    if hits.is_empty() {
        return None;
    }
    let folder = from.folder();
    hits.sort_by(|a, b| {
        (a.folder() != folder, a.depth(), a).cmp(&(b.folder() != folder, b.depth(), b))
    });
    hits.dedup();
    let path = hits.remove(0);
    Some(Resolution::Resolved {
        path,
        step,
        candidates: hits,
    })
}

pub(crate) fn resolve_in(
    vault: &Vault,
    from: &PagePath,
    kind: LinkKind,
    target: &str,
) -> Resolution {
    match kind {
        LinkKind::Wiki => vault.resolve_wiki(from, target),
        LinkKind::Markdown | LinkKind::MarkdownReference => vault.resolve_markdown(from, target),
        LinkKind::Canvas => vault.resolve_canvas(target),
    }
}
