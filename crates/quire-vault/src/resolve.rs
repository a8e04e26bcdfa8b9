//! Link resolution (DECISIONS §3): which file a wiki, markdown or canvas target names.

use quire_syntax::LinkKind;
use serde::Serialize;

use crate::fold::Fold;
use crate::index::{Hit, Lookup, Table};
use crate::path::{folder_of, nfc, PagePath};
use crate::rank::Ranked;

/// The rule that found the file, in the order the rules are tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// Empty target (`[[#Heading]]`): the linking page itself.
    SamePage,
    /// Root-relative path, exact (wiki with `/`, markdown starting with `/`, canvas).
    ExactPath,
    /// Relative to the linking page's folder (wiki `./`, `../`; markdown without `/`).
    Relative,
    /// Markdown only: `dest.md` for a `dest` that names no file itself.
    ImpliedMd,
    /// Wiki: a file whose path ends in `/target` or `/target.md`.
    PathSuffix,
    /// Wiki: a file whose name, or stem for a page, is the target.
    Name,
    /// Wiki fallback: one of the steps above, ignoring case.
    CaseInsensitive,
    /// Wiki fallback: ignoring case, runs of `-`, `_`, space counted as one separator.
    Separators,
}

impl Step {
    /// Found only by a fallback that ignores case or separators.
    pub fn is_fuzzy(self) -> bool {
        matches!(self, Step::CaseInsensitive | Step::Separators)
    }
}

/// What a link target names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Resolution {
    /// `path` won at `step`; `candidates` are the other files that matched at that step,
    /// in tie-break order. Non-empty candidates mean the link is ambiguous (a warning).
    Resolved {
        path: PagePath,
        step: Step,
        candidates: Vec<PagePath>,
    },
    /// No file matches; a dangling link is data, not an error.
    Unresolved,
}

impl Resolution {
    /// The file the link resolves to.
    pub fn path(&self) -> Option<&PagePath> {
        match self {
            Resolution::Resolved { path, .. } => Some(path),
            Resolution::Unresolved => None,
        }
    }

    pub fn step(&self) -> Option<Step> {
        match self {
            Resolution::Resolved { step, .. } => Some(*step),
            Resolution::Unresolved => None,
        }
    }

    pub fn is_resolved(&self) -> bool {
        matches!(self, Resolution::Resolved { .. })
    }

    /// Resolved, but other files matched at the same step.
    pub fn is_ambiguous(&self) -> bool {
        matches!(self, Resolution::Resolved { candidates, .. } if !candidates.is_empty())
    }

    fn same_page(from: &PagePath) -> Resolution {
        Resolution::Resolved {
            path: from.clone(),
            step: Step::SamePage,
            candidates: Vec::new(),
        }
    }
}

/// A target of a link of `kind` written in `from`, by the rules of that kind (frontmatter
/// links are wiki links).
pub(crate) fn target(
    files: &impl Lookup,
    from: &PagePath,
    kind: LinkKind,
    target: &str,
) -> Resolution {
    match kind {
        LinkKind::Wiki => wiki(files, from, target),
        LinkKind::Markdown | LinkKind::MarkdownReference => markdown(files, from, target),
        LinkKind::Canvas => canvas(files, target),
    }
}

/// Wiki target (also frontmatter links), as written, without `#fragment` or `|alias`.
pub(crate) fn wiki(files: &impl Lookup, from: &PagePath, target: &str) -> Resolution {
    // `[[ note ]]` names `note`: the spaces are layout, not part of the name.
    let target = target.trim();
    if target.is_empty() {
        return Resolution::same_page(from);
    }
    let target = nfc(target);
    if target.contains('/') {
        wiki_path(files, from, &target)
    } else {
        wiki_name(files, from, &target)
    }
}

fn wiki_path(files: &impl Lookup, from: &PagePath, target: &str) -> Resolution {
    let rooted = target.strip_prefix('/');
    let relative = if target.starts_with("./") || target.starts_with("../") {
        join_relative(from.folder(), target)
    } else {
        None
    };
    for fold in Fold::ALL {
        let exact = fold.apply(rooted.unwrap_or(target));
        let hits = files.hits(Table::Paths, fold, &exact);
        if let Some(found) = pick(hits, step_at(fold, Step::ExactPath), from) {
            return found;
        }
        if let Some(relative) = &relative {
            let hits = files.hits(Table::Paths, fold, &fold.apply(relative));
            if let Some(found) = pick(hits, step_at(fold, Step::Relative), from) {
                return found;
            }
        }
        // A leading `/` pins the target to the root, so it never matches a deeper suffix.
        if rooted.is_none() {
            let hits = files.hits(Table::Suffixes, fold, &exact);
            if let Some(found) = pick(hits, step_at(fold, Step::PathSuffix), from) {
                return found;
            }
        }
    }
    Resolution::Unresolved
}

fn wiki_name(files: &impl Lookup, from: &PagePath, target: &str) -> Resolution {
    for fold in Fold::ALL {
        let hits = files.hits(Table::Names, fold, &fold.apply(target));
        if let Some(found) = pick(hits, step_at(fold, Step::Name), from) {
            return found;
        }
    }
    Resolution::Unresolved
}

/// The step reported for a hit: the rule itself when exact, else the fallback's name.
fn step_at(fold: Fold, exact: Step) -> Step {
    match fold {
        Fold::Exact => exact,
        Fold::Case => Step::CaseInsensitive,
        Fold::Separators => Step::Separators,
    }
}

/// Markdown destination, already percent-decoded, without `#fragment`.
pub(crate) fn markdown(files: &impl Lookup, from: &PagePath, dest: &str) -> Resolution {
    if dest.is_empty() {
        return Resolution::same_page(from);
    }
    let dest = nfc(dest);
    let (joined, step) = match dest.strip_prefix('/') {
        Some(rooted) => (join_relative("", rooted), Step::ExactPath),
        None => (join_relative(from.folder(), &dest), Step::Relative),
    };
    let Some(joined) = joined else {
        return Resolution::Unresolved;
    };
    // The exact-path bucket of `joined` holds the file `joined` and the page `joined.md`
    // (pages are also keyed without `.md`), so one lookup answers both, with one hash and
    // no allocation.
    let mut implied = None;
    for hit in files.hits(Table::Paths, Fold::Exact, &joined) {
        let p = hit.path.as_str();
        if p == joined {
            return resolved(&hit.path, step);
        }
        let with_md = p.len() == joined.len() + 3 && p.starts_with(&joined) && p.ends_with(".md");
        if with_md && !joined.ends_with(".md") {
            implied = Some(&hit.path);
        }
    }
    match implied {
        Some(path) => resolved(path, Step::ImpliedMd),
        None => Resolution::Unresolved,
    }
}

/// Canvas file reference: a root-relative path that must match exactly.
pub(crate) fn canvas(files: &impl Lookup, target: &str) -> Resolution {
    let target = nfc(target);
    let target = target.strip_prefix('/').unwrap_or(&target);
    let mut bucket = files.hits(Table::Paths, Fold::Exact, target);
    match bucket.find(|hit| hit.path.as_str() == target) {
        Some(hit) => resolved(&hit.path, Step::ExactPath),
        None => Resolution::Unresolved,
    }
}

fn resolved(path: &PagePath, step: Step) -> Resolution {
    Resolution::Resolved {
        path: path.clone(),
        step,
        candidates: Vec::new(),
    }
}

/// The answer of one step: its only hit, or the tie-break winner among several with the
/// others as candidates in tie-break order; `None` when the step found nothing.
fn pick<'a>(
    mut hits: impl Iterator<Item = &'a Hit>,
    step: Step,
    from: &PagePath,
) -> Option<Resolution> {
    let first = hits.next()?;
    let Some(second) = hits.next() else {
        return Some(resolved(&first.path, step));
    };
    let ranked = Ranked::new([first, second].into_iter().chain(hits).collect());
    let order = ranked.into_order(from.folder());
    let (winner, rivals) = order.split_first()?;
    Some(Resolution::Resolved {
        path: winner.path.clone(),
        step,
        candidates: rivals.iter().map(|hit| hit.path.clone()).collect(),
    })
}

/// `folder` joined with `relative`, with `.` and empty components dropped and `..`
/// applied. `None` when it climbs above the root, names nothing, or ends in `/` (a folder).
pub(crate) fn join_relative(folder: &str, relative: &str) -> Option<String> {
    if relative.ends_with('/') {
        return None;
    }
    let mut out = String::with_capacity(folder.len() + relative.len() + 1);
    out.push_str(folder);
    for segment in relative.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                if out.is_empty() {
                    return None;
                }
                let keep = folder_of(&out).len();
                out.truncate(keep);
            }
            name => {
                if !out.is_empty() {
                    out.push('/');
                }
                out.push_str(name);
            }
        }
    }
    (!out.is_empty()).then_some(out)
}
