//! Link resolution (DECISIONS §3): which file a wiki, markdown or canvas target names.

use serde::Serialize;

use crate::index::{Fold, Hit, Index, Table};
use crate::path::{folder_of, nfc, PagePath};

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

/// Wiki target (also frontmatter links), as written, without `#fragment` or `|alias`.
pub(crate) fn wiki(index: &Index, from: &PagePath, target: &str) -> Resolution {
    // `[[ note ]]` names `note`: the spaces are layout, not part of the name.
    let target = target.trim();
    if target.is_empty() {
        return Resolution::same_page(from);
    }
    let target = nfc(target);
    if target.contains('/') {
        wiki_path(index, from, &target)
    } else {
        wiki_name(index, from, &target)
    }
}

fn wiki_path(index: &Index, from: &PagePath, target: &str) -> Resolution {
    let rooted = target.strip_prefix('/');
    let relative = if target.starts_with("./") || target.starts_with("../") {
        join_relative(from.folder(), target)
    } else {
        None
    };
    for fold in Fold::ALL {
        let exact = fold.apply(rooted.unwrap_or(target));
        let hits = index.lookup(Table::Paths, fold, &exact);
        if let Some(found) = pick(hits, step_at(fold, Step::ExactPath), from) {
            return found;
        }
        if let Some(relative) = &relative {
            let hits = index.lookup(Table::Paths, fold, &fold.apply(relative));
            if let Some(found) = pick(hits, step_at(fold, Step::Relative), from) {
                return found;
            }
        }
        // A leading `/` pins the target to the root, so it never matches a deeper suffix.
        if rooted.is_none() {
            let hits = index.lookup(Table::Suffixes, fold, &exact);
            if let Some(found) = pick(hits, step_at(fold, Step::PathSuffix), from) {
                return found;
            }
        }
    }
    Resolution::Unresolved
}

fn wiki_name(index: &Index, from: &PagePath, target: &str) -> Resolution {
    for fold in Fold::ALL {
        let hits = index.lookup(Table::Names, fold, &fold.apply(target));
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
pub(crate) fn markdown(index: &Index, from: &PagePath, dest: &str) -> Resolution {
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
    // (pages are also keyed without `.md`), so both lookups cost one hash and no allocation.
    let bucket = index.lookup(Table::Paths, Fold::Exact, &joined);
    if let Some(hit) = bucket.iter().find(|hit| hit.path.as_str() == joined) {
        return resolved(&hit.path, step);
    }
    if !joined.ends_with(".md") {
        let with_md = bucket.iter().find(|hit| {
            let p = hit.path.as_str();
            p.len() == joined.len() + 3 && p.starts_with(joined.as_str()) && p.ends_with(".md")
        });
        if let Some(hit) = with_md {
            return resolved(&hit.path, Step::ImpliedMd);
        }
    }
    Resolution::Unresolved
}

/// Canvas file reference: a root-relative path that must match exactly.
pub(crate) fn canvas(index: &Index, target: &str) -> Resolution {
    let target = nfc(target);
    let target = target.strip_prefix('/').unwrap_or(&target);
    let bucket = index.lookup(Table::Paths, Fold::Exact, target);
    match bucket.iter().find(|hit| hit.path.as_str() == target) {
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

/// Tie-break among the hits of one step: same folder as `from`, then fewest components,
/// then byte order. The first is the answer, the rest are reported as candidates;
/// `None` when the step found nothing.
fn pick(hits: &[Hit], step: Step, from: &PagePath) -> Option<Resolution> {
    match hits {
        [] => return None,
        [only] => return Some(resolved(&only.path, step)),
        _ => {}
    }
    let folder = from.folder();
    let mut ranked: Vec<&Hit> = hits.iter().collect();
    ranked.sort_unstable_by(|a, b| {
        (a.folder() != folder, a.depth, &a.path).cmp(&(b.folder() != folder, b.depth, &b.path))
    });
    let mut ranked = ranked.into_iter().map(|hit| hit.path.clone());
    let path = ranked.next()?;
    Some(Resolution::Resolved {
        path,
        step,
        candidates: ranked.collect(),
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
