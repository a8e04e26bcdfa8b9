//! Resolution in the root as it will be after the manifest, without rebuilding it.
//!
//! The after-root is `(before − vacated) ∪ added`. Resolution tries steps in a fixed order
//! and takes the first step with hits, so most answers follow from two cheap questions: the
//! before-vault's answer (winner plus the other hits of its step) with the vacated files
//! removed, and the answer of a small vault holding only the added files. Where those two
//! cannot settle it (every hit of the before-step was vacated and the added files match
//! nothing earlier, or both answers sit at the same fuzzy step), the link is asked of a
//! vault holding only the after-files that share its name key: every file a lookup can hit
//! carries the target's last segment as its name or stem, so that small vault answers
//! exactly as the whole after-root would. Correctness never depends on the shortcut.
//!
//! Wiki targets that many files share (`[[index]]` in a large vault) are answered from a
//! [`Spread`] built once per target, because the vault sorts every hit of such a target on
//! every question, which would make the plan cost links × hits.

use std::cell::{OnceCell, RefCell};
use std::cmp::Ordering;
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeSet, HashMap};
use std::hash::{Hash, Hasher};

use quire_syntax::LinkKind;
use quire_vault::{PagePath, Resolution, Step, Vault};

use crate::planner::fold_into;

/// Wiki targets with at least this many hits get a [`Spread`]; below it the vault's own
/// sort is cheaper than building one.
const SPREAD_MIN_HITS: usize = 16;

/// What the planner needs of a resolution: the winner, its step, and whether other files
/// matched at that step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Answer {
    path: Option<PagePath>,
    step: Option<Step>,
    ambiguous: bool,
}

impl Answer {
    const UNRESOLVED: Answer = Answer {
        path: None,
        step: None,
        ambiguous: false,
    };

    fn of(resolution: Resolution) -> Answer {
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
            Resolution::Unresolved => Answer::UNRESOLVED,
        }
    }

    pub(crate) fn path(&self) -> Option<&PagePath> {
        self.path.as_ref()
    }

    pub(crate) fn step(&self) -> Option<Step> {
        self.step
    }

    pub(crate) fn is_resolved(&self) -> bool {
        self.path.is_some()
    }

    pub(crate) fn is_ambiguous(&self) -> bool {
        self.ambiguous
    }
}

/// The root before and after the manifest, for resolution only.
pub(crate) struct AfterVault<'a> {
    before: &'a Vault,
    vacated: &'a BTreeSet<PagePath>,
    added: Vault,
    /// Wiki targets with many hits → their hits, by trimmed target.
    spreads: RefCell<HashMap<Box<str>, Spread>>,
    /// After-files by hash of their folded name and stem keys. A hash collision only adds
    /// after-files that no lookup of the other key can hit, so it never changes an answer.
    by_key: OnceCell<HashMap<u64, Vec<PagePath>>>,
    /// Vaults of the after-files of one name key, built on first use.
    narrow: RefCell<HashMap<u64, Vault>>,
    /// The whole after-root, only for targets whose last segment is `.` or `..`.
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
            spreads: RefCell::new(HashMap::new()),
            by_key: OnceCell::new(),
            narrow: RefCell::new(HashMap::new()),
            full: OnceCell::new(),
        }
    }

    /// Resolves `target` of a link of `kind` written in `from`, in the root as it is now.
    pub(crate) fn before(&self, from: &PagePath, kind: LinkKind, target: &str) -> Answer {
        let Some(key) = spread_key(kind, target) else {
            return Answer::of(resolve_in(self.before, from, kind, target));
        };
        if let Some(spread) = self.spreads.borrow().get(key) {
            return spread.before(from.folder());
        }
        let resolution = resolve_in(self.before, from, kind, target);
        if !self.keep_spread(key, &resolution) {
            return Answer::of(resolution);
        }
        self.spreads.borrow()[key].before(from.folder())
    }

    /// Resolves `target` of a link of `kind` written in a page that will be at `from`.
    pub(crate) fn resolve(&self, from: &PagePath, kind: LinkKind, target: &str) -> Answer {
        let key = spread_key(kind, target);
        if let Some(key) = key {
            if let Some(spread) = self.spreads.borrow().get(key) {
                return self.spread_after(spread, from, kind, target);
            }
        }
        let before = resolve_in(self.before, from, kind, target);
        if let Some(key) = key {
            if self.keep_spread(key, &before) {
                return self.spread_after(&self.spreads.borrow()[key], from, kind, target);
            }
        }
        let added = resolve_in(&self.added, from, kind, target);
        match self.combine(from, before, added) {
            Some(resolution) => Answer::of(resolution),
            None => Answer::of(self.exact(from, kind, target)),
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

    /// Records a spread for `key` when `resolution` has enough hits to deserve one.
    fn keep_spread(&self, key: &str, resolution: &Resolution) -> bool {
        let Resolution::Resolved {
            path,
            step,
            candidates,
        } = resolution
        else {
            return false;
        };
        if candidates.len() + 1 < SPREAD_MIN_HITS || *step == Step::SamePage {
            return false;
        }
        let spread = Spread::new(*step, std::iter::once(path).chain(candidates));
        self.spreads.borrow_mut().insert(Box::from(key), spread);
        true
    }

    /// The after-answer of a spread target. Its after-hits do not depend on the linking
    /// page either, so they are found once (asked of the after-files of its name key) and
    /// each page's winner is a binary search.
    fn spread_after(
        &self,
        spread: &Spread,
        from: &PagePath,
        kind: LinkKind,
        target: &str,
    ) -> Answer {
        let after = spread
            .after
            .get_or_init(|| match self.exact(from, kind, target) {
                Resolution::Resolved {
                    path,
                    step,
                    candidates,
                } => Some((
                    step,
                    Ranked::new(std::iter::once(path).chain(candidates).collect()),
                )),
                Resolution::Unresolved => None,
            });
        match after {
            Some((step, hits)) => Answer {
                path: hits.winner(from.folder()).cloned(),
                step: Some(*step),
                ambiguous: hits.len() > 1,
            },
            None => Answer::UNRESOLVED,
        }
    }

    /// The after-root's answer asked of the after-files that share the target's name key.
    fn exact(&self, from: &PagePath, kind: LinkKind, target: &str) -> Resolution {
        let written = match kind {
            LinkKind::Wiki => target.trim(),
            _ => target,
        };
        let last = written.rsplit('/').next().unwrap_or(written);
        if matches!(last, "" | "." | "..") {
            // The joined path's last segment is not the written one; ask the whole root.
            return resolve_in(self.full(), from, kind, target);
        }
        let mut folded = String::new();
        fold_into(last, &mut folded);
        let key = hash_key(&folded);
        let mut narrow = self.narrow.borrow_mut();
        let vault = narrow.entry(key).or_insert_with(|| {
            self.by_key()
                .get(&key)
                .into_iter()
                .flatten()
                .cloned()
                .collect()
        });
        resolve_in(vault, from, kind, target)
    }

    fn by_key(&self) -> &HashMap<u64, Vec<PagePath>> {
        self.by_key.get_or_init(|| {
            let mut map: HashMap<u64, Vec<PagePath>> = HashMap::new();
            let mut folded = String::new();
            let after = self
                .before
                .files()
                .filter(|path| !self.vacated.contains(*path))
                .chain(self.added.files());
            for path in after {
                fold_into(path.name(), &mut folded);
                map.entry(hash_key(&folded)).or_default().push(path.clone());
                if path.is_page() {
                    fold_into(path.stem(), &mut folded);
                    let bucket = map.entry(hash_key(&folded)).or_default();
                    if bucket.last() != Some(path) {
                        bucket.push(path.clone());
                    }
                }
            }
            map
        })
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

/// The memo key of a wiki target whose hits do not depend on the linking page (only
/// their tie-break does): not empty, not `./`/`../`-relative. `None` for other targets.
fn spread_key(kind: LinkKind, target: &str) -> Option<&str> {
    if kind != LinkKind::Wiki {
        return None;
    }
    let trimmed = target.trim();
    let relative = trimmed.starts_with("./") || trimmed.starts_with("../");
    (!trimmed.is_empty() && !relative).then_some(trimmed)
}

fn hash_key(folded: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    folded.hash(&mut hasher);
    hasher.finish()
}

/// All hits of a many-hit wiki target, before the manifest and (once asked) after it.
/// The step and the hits are the same from every page; only the winner depends on the
/// linking page's folder.
struct Spread {
    step: Step,
    all: Ranked,
    after: OnceCell<Option<(Step, Ranked)>>,
}

impl Spread {
    fn new<'p>(step: Step, hits: impl Iterator<Item = &'p PagePath>) -> Spread {
        Spread {
            step,
            all: Ranked::new(hits.cloned().collect()),
            after: OnceCell::new(),
        }
    }

    fn before(&self, folder: &str) -> Answer {
        Answer {
            path: self.all.winner(folder).cloned(),
            step: Some(self.step),
            ambiguous: self.all.len() > 1,
        }
    }
}

/// Hits in (components, byte) order. Files of one folder have one depth and are adjacent
/// in byte order within it, so a folder's first file is a binary search away.
struct Ranked {
    hits: Vec<(usize, PagePath)>,
}

impl Ranked {
    fn new(paths: Vec<PagePath>) -> Ranked {
        let mut hits: Vec<(usize, PagePath)> =
            paths.into_iter().map(|path| (path.depth(), path)).collect();
        hits.sort();
        hits.dedup();
        Ranked { hits }
    }

    fn len(&self) -> usize {
        self.hits.len()
    }

    /// The hit the vault's tie-break picks for a link written in `folder`.
    fn winner(&self, folder: &str) -> Option<&PagePath> {
        let depth = if folder.is_empty() {
            1
        } else {
            folder.bytes().filter(|b| *b == b'/').count() + 2
        };
        let start = self.hits.partition_point(|(d, _)| *d < depth);
        let group = &self.hits[start..];
        let at = group.partition_point(|(d, path)| *d == depth && below_folder(path, folder));
        let local = group
            .get(at)
            .filter(|(d, path)| *d == depth && path.folder() == folder);
        local.or(self.hits.first()).map(|(_, path)| path)
    }
}

/// Is `path` before every path of `folder` (byte order below `folder/`)?
fn below_folder(path: &PagePath, folder: &str) -> bool {
    if folder.is_empty() {
        return false;
    }
    let path = path.as_str().as_bytes();
    let folder = folder.as_bytes();
    let shared = path.len().min(folder.len());
    match path[..shared].cmp(&folder[..shared]) {
        Ordering::Less => true,
        Ordering::Greater => false,
        Ordering::Equal => path.len() <= folder.len() || path[folder.len()] < b'/',
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
    hits.sort_by_cached_key(|hit| (hit.folder() != folder, hit.depth(), hit.clone()));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> PagePath {
        PagePath::new(text).unwrap()
    }

    #[test]
    fn ranked_winner_prefers_the_linking_folder_then_depth_then_bytes() {
        let ranked = Ranked::new(
            [
                "b/x.md", "a/x.md", "a/c/x.md", "x.md", "a/b/x.md", "a b/x.md",
            ]
            .map(p)
            .to_vec(),
        );
        let cases = [
            ("", "x.md"),
            ("a", "a/x.md"),
            ("a/b", "a/b/x.md"),
            ("a/c", "a/c/x.md"),
            ("a b", "a b/x.md"),
            ("zzz", "x.md"),
            ("a/d", "x.md"),
        ];
        for (folder, want) in cases {
            assert_eq!(ranked.winner(folder), Some(&p(want)), "{folder:?}");
        }
    }

    #[test]
    fn spread_answers_match_the_vault() {
        let mut vault = Vault::new();
        for i in 0..40 {
            vault.insert_file(p(&format!("f{}/g{}/index.md", i % 7, i)));
        }
        vault.insert_file(p("index.md"));
        vault.insert_file(p("f3/index.md"));
        let vacated: BTreeSet<PagePath> = [p("index.md"), p("f3/g3/index.md")].into();
        let after = AfterVault::new(&vault, &vacated, [p("f5/index.md")]);
        let mut whole: Vault = vault
            .files()
            .filter(|path| !vacated.contains(*path))
            .cloned()
            .collect();
        whole.insert_file(p("f5/index.md"));
        for from in ["f3/g3/a.md", "f5/a.md", "a.md", "f3/a.md", "f1/g8/a.md"].map(p) {
            for target in ["index", "Index", "index.md", "g3/index"] {
                assert_eq!(
                    after.before(&from, LinkKind::Wiki, target),
                    Answer::of(vault.resolve_wiki(&from, target)),
                    "before {from} {target}"
                );
                assert_eq!(
                    after.resolve(&from, LinkKind::Wiki, target),
                    Answer::of(whole.resolve_wiki(&from, target)),
                    "after {from} {target}"
                );
            }
        }
    }
}
