//! `Memo`: resolution of many links in one vault or overlay, for callers that ask about
//! every link of a large vault and need only each answer's winner (the planner).

use std::cell::RefCell;
use std::collections::HashMap;

use quire_syntax::LinkKind;

use crate::index::Hit;
use crate::overlay::Overlay;
use crate::path::PagePath;
use crate::rank::Ranked;
use crate::resolve::{Resolution, Step};
use crate::vault::Vault;

/// Wiki targets with at least this many hits are remembered; below it the tie-break sort
/// of each answer is cheaper than building the memo entry.
const MANY_HITS: usize = 16;

/// A resolution without the list of its rivals: the file, the step that found it, and
/// whether other files matched at that step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    path: Option<PagePath>,
    step: Option<Step>,
    ambiguous: bool,
}

impl Answer {
    /// The file the link resolves to.
    pub fn path(&self) -> Option<&PagePath> {
        self.path.as_ref()
    }

    pub fn step(&self) -> Option<Step> {
        self.step
    }

    pub fn is_resolved(&self) -> bool {
        self.path.is_some()
    }

    /// Resolved, but other files matched at the same step.
    pub fn is_ambiguous(&self) -> bool {
        self.ambiguous
    }
}

impl From<Resolution> for Answer {
    fn from(resolution: Resolution) -> Answer {
        match resolution {
            Resolution::Resolved {
                path,
                step,
                candidates,
            } => Answer {
                path: Some(path),
                step: Some(step),
                ambiguous: !candidates.is_empty(),
            },
            Resolution::Unresolved => Answer {
                path: None,
                step: None,
                ambiguous: false,
            },
        }
    }
}

/// Where a memo's answers come from.
#[derive(Clone, Copy)]
enum View<'a> {
    Vault(&'a Vault),
    Overlay(&'a Overlay<'a>),
}

/// Answers link after link in one vault or overlay as [`Vault::resolve_target`] would.
///
/// A wiki target that many files share (`[[index]]` in a large vault) would cost a sort of
/// all its hits on every question. Its step and hits do not depend on the linking page,
/// only the winner does, so the memo keeps them ranked once and finds each page's winner
/// by binary search.
pub struct Memo<'a> {
    view: View<'a>,
    /// Wiki targets with many hits, trimmed → what they found.
    many: RefCell<HashMap<Box<str>, Shared>>,
}

/// What a wiki target with many hits finds from every linking page: one step, one set of
/// hits, ranked once.
struct Shared {
    step: Step,
    hits: Ranked<Hit>,
}

impl Shared {
    fn answer(&self, from: &PagePath) -> Answer {
        Answer {
            path: self.hits.winner(from.folder()).map(|hit| hit.path.clone()),
            step: Some(self.step),
            ambiguous: self.hits.len() > 1,
        }
    }
}

impl<'a> Memo<'a> {
    /// Answers links of the vault as it is.
    pub fn of_vault(vault: &'a Vault) -> Memo<'a> {
        Memo::new(View::Vault(vault))
    }

    /// Answers links of the vault as the overlay would leave it.
    pub fn of_overlay(overlay: &'a Overlay<'a>) -> Memo<'a> {
        Memo::new(View::Overlay(overlay))
    }

    fn new(view: View<'a>) -> Memo<'a> {
        Memo {
            view,
            many: RefCell::new(HashMap::new()),
        }
    }

    /// Resolves `target` of a link of `kind` written in `from`.
    pub fn answer(&self, from: &PagePath, kind: LinkKind, target: &str) -> Answer {
        let key = shared_key(kind, target);
        if let Some(key) = key {
            if let Some(shared) = self.many.borrow().get(key) {
                return shared.answer(from);
            }
        }
        let resolution = match self.view {
            View::Vault(vault) => vault.resolve_target(from, kind, target),
            View::Overlay(overlay) => overlay.resolve_target(from, kind, target),
        };
        if let (
            Some(key),
            Resolution::Resolved {
                path,
                step,
                candidates,
            },
        ) = (key, &resolution)
        {
            if candidates.len() + 1 >= MANY_HITS {
                let hits = std::iter::once(path).chain(candidates).map(Hit::new);
                let shared = Shared {
                    step: *step,
                    hits: Ranked::new(hits.collect()),
                };
                self.many.borrow_mut().insert(Box::from(key), shared);
            }
        }
        Answer::from(resolution)
    }
}

/// The memo key of a wiki target whose step and hits do not depend on the linking page
/// (only their tie-break does): not empty, not `./`/`../`-relative. `None` for others.
fn shared_key(kind: LinkKind, target: &str) -> Option<&str> {
    if kind != LinkKind::Wiki {
        return None;
    }
    let trimmed = target.trim();
    let relative = trimmed.starts_with("./") || trimmed.starts_with("../");
    (!trimmed.is_empty() && !relative).then_some(trimmed)
}
