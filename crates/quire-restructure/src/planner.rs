//! The planner: selection and destination checks, then link rewriting over only the pages
//! that can hold an affected link, then comments, personal state, ops and the digest.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::ops::Range;

use quire_syntax::{parse, parse_canvas, replace_spans, Link, LinkKind};
use quire_vault::{DiskNames, Memo, Overlay, PagePath, Resolution, Shadowed, Step, Vault};
use regex::Regex;
use sha2::{Digest, Sha256};

use crate::check::{check, AfterNames};
use crate::content::{edit_pages, uses_clock, Content, MoveTo, OnConflict};
use crate::manifest::Manifest;
use crate::model::{
    Conflict, ConflictCode, ContentEdit, FileDiff, LinkChange, Orphan, PageEdit, PathChange, Plan,
    Planned, Rejected, SplitResult, TextRange, UnresolvedLink,
};
use crate::ops::OpSet;
use crate::relink::new_target;
use crate::select::{
    glob_regex, matches_any, rootless, select_move, select_relink, FileList, Selected,
};
use crate::sidecar::{plan_comments, plan_personal};
use crate::split::{plan_split, Split};
use crate::SourceFile;
use crate::{PlanOptions, Workspace};
use quire_vault::NameKeys;

/// Builds the plan of `manifest` over `ws`. Never fails: problems are plan `errors`,
/// `conflicts` and `rejected` entries.
pub fn plan(ws: &Workspace, manifest: &Manifest, opts: &PlanOptions) -> Planned {
    let mut planner = Planner::new(ws, manifest);
    planner.run(opts);
    planner.finish(opts)
}

/// Why a path may not be written by this plan.
struct Guard<'a> {
    protect: Vec<Regex>,
    protect_folders: Vec<String>,
    scope: Option<String>,
    claimed: &'a BTreeMap<PagePath, String>,
}

/// Most (pattern, file) pairs the moves' globs and regexes may be tried on: 100 patterns
/// over a vault of 100,000 files.
pub const MAX_PATTERN_TESTS: usize = 10_000_000;

impl<'a> Guard<'a> {
    fn new(ws: &'a Workspace) -> Self {
        let mut protect = Vec::new();
        let mut protect_folders = Vec::new();
        for glob in &ws.protect {
            let glob = rootless(glob.trim());
            if glob.is_empty() {
                continue;
            }
            protect.push(glob_regex(glob));
            if !glob.contains(['*', '?']) {
                protect_folders.push(format!("{}/", glob.trim_end_matches('/')));
            }
        }
        let scope = ws
            .scope
            .as_deref()
            .map(|s| rootless(s.trim()).trim_end_matches('/').to_owned())
            .filter(|s| !s.is_empty());
        Guard {
            protect,
            protect_folders,
            scope,
            claimed: &ws.claimed,
        }
    }

    fn refusal(&self, path: &PagePath) -> Option<String> {
        if matches_any(&self.protect, &self.protect_folders, path.as_str()) {
            return Some(format!("`{path}` is protected"));
        }
        if let Some(scope) = &self.scope {
            if !path.as_str().starts_with(&format!("{scope}/")) {
                return Some(format!("`{path}` is outside the scope folder `{scope}/`"));
            }
        }
        if let Some(actor) = self.claimed.get(path) {
            return Some(format!("`{path}` is claimed by `{actor}`"));
        }
        None
    }
}

struct Planner<'w, 'a> {
    ws: &'w Workspace<'a>,
    manifest: &'w Manifest,
    plan: Plan,
    /// Accepted moves, source → destination.
    moves: BTreeMap<PagePath, PagePath>,
    /// Merged pages → canonical page at its final path.
    merges: BTreeMap<PagePath, PagePath>,
    /// Relinks: where a file was → where it is now (after this manifest).
    relinks: BTreeMap<PagePath, PagePath>,
    ops: OpSet,
    /// ETags of every file the plan reads for writing, for the digest.
    etags: BTreeMap<PagePath, String>,
    /// Texts of written pages before and after, kept only when diffs are wanted.
    written: Vec<(PagePath, PagePath, String, String)>,
    diffs: Diffs,
    /// Pages `edits` and `rename_tags` change, with their new text.
    content: Content,
    /// The page the manifest splits, and its sections.
    split: Option<Split>,
}

/// Whether the plan carries diffs, so written texts must be kept until the end.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Diffs {
    Wanted,
    Skipped,
}

/// The root before and after the manifest, for resolving links.
#[derive(Clone, Copy)]
struct Roots<'l> {
    before: &'l Memo<'l>,
    after: &'l Memo<'l>,
}

/// One page's link check: where it is and will be, and what to resolve against.
#[derive(Clone, Copy)]
struct Look<'l> {
    source: &'l PagePath,
    source_after: &'l PagePath,
    moved: bool,
    roots: Roots<'l>,
    keys: &'l NameKeys,
    relink_vault: &'l Vault,
}

/// What checking one page's links found, added to the plan once the page is settled.
#[derive(Default)]
struct Findings {
    unresolved: Vec<UnresolvedLink>,
    warnings: Vec<String>,
    changes: Vec<LinkChange>,
    edits: Vec<(Range<usize>, String)>,
    failures: Vec<String>,
}

/// A link must be rewritten, and only the page's text can say how.
struct NeedsText;

impl<'w, 'a> Planner<'w, 'a> {
    fn new(ws: &'w Workspace<'a>, manifest: &'w Manifest) -> Self {
        Planner {
            ws,
            manifest,
            plan: Plan {
                now: manifest.now.clone(),
                base: ws.base.clone(),
                ..Plan::default()
            },
            moves: BTreeMap::new(),
            merges: BTreeMap::new(),
            relinks: BTreeMap::new(),
            ops: OpSet::default(),
            etags: BTreeMap::new(),
            written: Vec::new(),
            diffs: Diffs::Skipped,
            content: Content::default(),
            split: None,
        }
    }

    fn error(&mut self, message: String) {
        self.plan.errors.push(message);
    }

    fn reject(&mut self, path: &PagePath, message: String) {
        self.plan.rejected.push(Rejected {
            path: path.to_string(),
            error: message.clone(),
        });
        self.error(message);
    }

    fn image(&self, path: &PagePath) -> PagePath {
        self.moves
            .get(path)
            .or_else(|| self.merges.get(path))
            .cloned()
            .unwrap_or_else(|| path.clone())
    }

    fn run(&mut self, opts: &PlanOptions) {
        if opts.diffs {
            self.diffs = Diffs::Wanted;
        }
        self.unsupported();
        self.content_edits(opts);
        let files: Vec<PagePath> = self.ws.vault.files().cloned().collect();
        let list = FileList::new(&files);
        let selected = self.select(&list);
        self.merge_entries(&list, &selected);
        self.relink_entries(&list);
        self.split_entry(&list);
        let vacated: BTreeSet<PagePath> = self
            .moves
            .keys()
            .chain(self.merges.keys())
            .cloned()
            .collect();
        self.guard_moves();
        let sections: Vec<PagePath> = self
            .split
            .iter()
            .flat_map(|s| s.sections.iter().map(|section| section.path.clone()))
            .collect();
        let overlay = Overlay::new(
            self.ws.vault,
            vacated.iter().cloned(),
            self.moves.values().cloned().chain(sections),
        );
        let (before, after) = (Memo::of_vault(self.ws.vault), Memo::of_overlay(&overlay));
        let roots = Roots {
            before: &before,
            after: &after,
        };
        self.rewrite_links(roots, &vacated);
        self.orphans(&vacated);
        self.sidecars();
        if self.manifest.delete_empty_dirs {
            self.removed_dirs(&files, &vacated);
        }
    }

    fn unsupported(&mut self) {
        let m = self.manifest;
        let _ = m;
    }

    /// Runs `edits` and `rename_tags` over the pages' texts (nothing about links yet).
    fn content_edits(&mut self, opts: &PlanOptions) {
        let m = self.manifest;
        if m.edits.is_empty() && m.rename_tags.is_empty() {
            return;
        }
        let pinned = m
            .now
            .as_deref()
            .and_then(|now| chrono::DateTime::parse_from_rfc3339(now).ok());
        // The planner never reads the system clock: the manifest or the caller gives the time.
        let now = match pinned.or(opts.now) {
            Some(now) => now,
            None if uses_clock(m) => {
                self.error(
                    "the manifest's expressions read the clock, but no time was given: pin \
                     `now` in the manifest or pass one to the planner"
                        .to_owned(),
                );
                return;
            }
            // Nothing reads it.
            None => chrono::DateTime::UNIX_EPOCH.fixed_offset(),
        };
        if uses_clock(m) && self.plan.now.is_none() {
            self.plan.now = Some(now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true));
        }
        let guard = Guard::new(self.ws);
        let content = edit_pages(self.ws, m, now, &|path| guard.refusal(path));
        for error in &content.errors {
            self.error(error.clone());
        }
        for (path, message) in &content.rejected {
            self.reject(path, message.clone());
        }
        self.plan.warnings.extend(content.warnings.iter().cloned());
        self.content = content;
    }

    /// Works out the manifest's `split`: its sections and their new paths.
    fn split_entry(&mut self, list: &FileList) {
        let Some(entry) = &self.manifest.split else {
            return;
        };
        let Ok(page) = PagePath::new(rootless(entry.from.trim())) else {
            return self.error(format!("split.from: `{}` is not a file path", entry.from));
        };
        if !page.is_page() || page.is_canvas() || !list.contains(page.as_str()) {
            return self.error(format!(
                "split.from: `{page}` is not a page of the knowledge base"
            ));
        }
        if self.moves.contains_key(&page) || self.merges.contains_key(&page) {
            return self.error(format!(
                "split.from: `{page}` is also moved or merged; split it in a manifest of its own"
            ));
        }
        if self.content.pages.contains_key(&page) {
            return self.error(format!(
                "split.from: `{page}` is also edited by `edits` or `rename_tags`; split it in a manifest of its own"
            ));
        }
        let Some(file) = self.ws.source.read(&page) else {
            self.plan.integrity.complete = false;
            return self.error(format!("cannot read `{page}` to split it"));
        };
        let into = match &entry.into {
            Some(into) => rootless(into.trim()).trim_end_matches('/').to_owned(),
            None => {
                let folder = page.folder();
                if folder.is_empty() {
                    page.stem().to_owned()
                } else {
                    format!("{folder}/{}", page.stem())
                }
            }
        };
        let fold = |p: &str| p.to_lowercase();
        let mut taken: BTreeSet<String> = list.all().iter().map(|p| fold(p.as_str())).collect();
        taken.extend(self.moves.values().map(|p| fold(p.as_str())));
        let parsed = parse(&file.text);
        match plan_split(&page, &file.text, &parsed, entry.level, &into, &|p| {
            taken.contains(&fold(p))
        }) {
            Ok(split) => {
                let guard = Guard::new(self.ws);
                for path in std::iter::once(&page).chain(split.sections.iter().map(|s| &s.path)) {
                    if let Some(why) = guard.refusal(path) {
                        self.reject(&page, format!("cannot split `{page}`: {why}"));
                        return;
                    }
                }
                if !entry.confirm {
                    self.plan.plan_only.push(format!(
                        "the split of `{page}` is a preview: add `confirm: true` to the split entry to apply it"
                    ));
                }
                self.plan.splits.push(SplitResult {
                    from: page.clone(),
                    pages: split.sections.iter().map(|s| s.path.clone()).collect(),
                });
                self.content.pages.insert(
                    page,
                    crate::content::Edited {
                        etag: file.etag,
                        before: file.text.clone(),
                        text: file.text,
                        changes: vec![format!("split into {} pages", split.sections.len())],
                    },
                );
                self.split = Some(split);
            }
            Err(message) => self.error(format!("split: {message}")),
        }
    }

    /// The `move_to` destinations as selected moves, numbering taken names when the entry
    /// says `suffix(…)`: in path order, each gets the first free name.
    fn move_to_items(
        &mut self,
        list: &FileList,
        vacated: &BTreeSet<PagePath>,
        claimed: &BTreeSet<String>,
    ) -> Vec<Selected> {
        let move_tos: Vec<MoveTo> = std::mem::take(&mut self.content.moves);
        let fold = |p: &str| p.to_lowercase();
        let mut taken: BTreeSet<String> = list
            .all()
            .iter()
            .filter(|p| !vacated.contains(*p))
            .map(|p| fold(p.as_str()))
            .collect();
        taken.extend(claimed.iter().map(|p| fold(p)));
        let mut items = Vec::new();
        let mut sorted: Vec<&MoveTo> = move_tos.iter().collect();
        sorted.sort_by(|a, b| a.from.cmp(&b.from));
        for item in sorted {
            if item.to == item.from.as_str() {
                continue;
            }
            let mut to = item.to.clone();
            if let OnConflict::Suffix(pattern) = &item.on_conflict {
                let (stem, ext) = match to.rfind('.') {
                    Some(dot) if dot > to.rfind('/').map_or(0, |s| s + 1) => {
                        (to[..dot].to_owned(), to[dot..].to_owned())
                    }
                    _ => (to.clone(), String::new()),
                };
                let mut n = 1;
                while taken.contains(&fold(&to)) && to != item.from.as_str() {
                    to = format!("{stem}{}{ext}", pattern.replace("%d", &n.to_string()));
                    n += 1;
                }
            }
            if to == item.from.as_str() {
                continue;
            }
            taken.insert(fold(&to));
            items.push(Selected {
                from: item.from.clone(),
                to,
            });
        }
        items
    }

    /// Selects every move entry, checks destinations, fills `moves`. Returns the raw
    /// selection's destinations (for merges into a path a move gives).
    fn select(&mut self, list: &FileList) -> BTreeSet<PagePath> {
        let mut selected = Vec::new();
        let mut owner: BTreeMap<PagePath, usize> = BTreeMap::new();
        // Each glob or regex is tried on every file: past the budget the manifest is refused
        // before any is, so that a small manifest cannot buy minutes of matching.
        let patterns = self
            .manifest
            .moves
            .iter()
            .filter(|entry| {
                entry.from_regex.is_some()
                    || entry
                        .from
                        .as_deref()
                        .is_some_and(|f| f.contains(['*', '?']))
            })
            .count();
        let tests = patterns.saturating_mul(list.all().len());
        if tests > MAX_PATTERN_TESTS {
            self.error(format!(
                "the moves' globs and regexes would be tried on {tests} paths ({patterns} \
                 patterns × {} files); the limit is {MAX_PATTERN_TESTS}: use fewer patterns",
                list.all().len()
            ));
            return BTreeSet::new();
        }
        for (i, entry) in self.manifest.moves.iter().enumerate() {
            if let Some(from) = entry.from.as_deref().map(|f| rootless(f.trim())) {
                if let Some(folder) = from.strip_suffix('/') {
                    let to = rootless(entry.to.trim()).trim_end_matches('/');
                    if to == folder || to.starts_with(&format!("{folder}/")) {
                        self.plan.conflicts.push(Conflict {
                            path: entry.to.clone(),
                            detail: format!("folder `{from}` cannot move into itself"),
                            from: Some(from.to_owned()),
                            with: None,
                            code: ConflictCode::DirCycle,
                        });
                        continue;
                    }
                }
            }
            match select_move(entry, list) {
                Ok(found) => {
                    // One error per entry, however many files it shares: a glob repeated
                    // thousands of times over a large vault must not make millions of errors.
                    let mut taken: Option<(String, usize)> = None;
                    let mut more = 0usize;
                    for item in found {
                        if let Some(&first) = owner.get(&item.from) {
                            match taken {
                                None => taken = Some((item.from.to_string(), first)),
                                Some(_) => more += 1,
                            }
                            continue;
                        }
                        owner.insert(item.from.clone(), i);
                        selected.push(item);
                    }
                    if let Some((path, first)) = taken {
                        let more = match more {
                            0 => String::new(),
                            n => format!(" (and {n} more files selected before)"),
                        };
                        self.error(format!(
                            "`{path}` is selected by moves[{first}] and moves[{i}]{more}"
                        ));
                    }
                }
                Err(message) => self.error(format!("moves[{i}]: {message}")),
            }
        }
        if !self.content.moves.is_empty() {
            let mut vacated: BTreeSet<PagePath> = selected.iter().map(|s| s.from.clone()).collect();
            vacated.extend(self.content.moves.iter().map(|m| m.from.clone()));
            let planned: BTreeSet<String> = selected.iter().map(|s| s.to.clone()).collect();
            for item in self.move_to_items(list, &vacated, &planned) {
                if let Some(first) = owner.get(&item.from) {
                    self.error(format!(
                        "`{}` is selected by moves[{first}] and moved by an edit's move_to",
                        item.from
                    ));
                    continue;
                }
                selected.push(item);
            }
        }
        // A move onto itself changes nothing.
        selected.retain(|item| {
            PagePath::new(&item.to)
                .map(|to| to != item.from)
                .unwrap_or(true)
        });
        let mut vacated: BTreeSet<PagePath> = selected.iter().map(|s| s.from.clone()).collect();
        for entry in &self.manifest.merges {
            if let Ok(from) = PagePath::new(entry.from.trim()) {
                vacated.insert(from);
            }
        }
        let destinations: Vec<PagePath> = selected
            .iter()
            .filter_map(|item| PagePath::new(&item.to).ok())
            .collect();
        let names = AfterNames::new(list.all(), &vacated, destinations.iter());
        let (accepted, conflicts) =
            check(&selected, self.ws.vault, &self.ws.names, &vacated, &names);
        self.plan.conflicts.extend(conflicts);
        for item in accepted {
            self.moves.insert(item.from, item.to);
        }
        destinations.into_iter().collect()
    }

    fn merge_entries(&mut self, list: &FileList, destinations: &BTreeSet<PagePath>) {
        for (i, entry) in self.manifest.merges.iter().enumerate() {
            let (Ok(from), Ok(into)) = (
                PagePath::new(rootless(entry.from.trim())),
                PagePath::new(rootless(entry.into.trim())),
            ) else {
                self.error(format!("merges[{i}]: `from` and `into` must be file paths"));
                continue;
            };
            if !list.contains(from.as_str()) {
                self.error(format!("merges[{i}]: `{from}` does not exist"));
                continue;
            }
            if self.moves.contains_key(&from) {
                self.error(format!(
                    "merges[{i}]: `{from}` is also moved; merge it or move it, not both"
                ));
                continue;
            }
            let final_into = if let Some(moved) = self.moves.get(&into) {
                moved.clone()
            } else if list.contains(into.as_str()) || destinations.contains(&into) {
                into.clone()
            } else {
                self.error(format!(
                    "merges[{i}]: `{into}` does not exist and no move of this manifest creates it"
                ));
                continue;
            };
            if final_into == from || into == from {
                self.error(format!("merges[{i}]: a page cannot be merged into itself"));
                continue;
            }
            if self.merges.contains_key(&into) {
                self.error(format!(
                    "merges[{i}]: `{into}` is merged itself and cannot receive a merge"
                ));
                continue;
            }
            if self.merges.contains_key(&from) {
                self.error(format!("merges[{i}]: `{from}` is merged twice"));
                continue;
            }
            self.merges.insert(from, final_into);
        }
        // A merge into a page that is merged later in the list is equally refused.
        let targets: Vec<(PagePath, PagePath)> = self
            .merges
            .iter()
            .filter(|(_, into)| self.merges.contains_key(*into))
            .map(|(from, into)| (from.clone(), into.clone()))
            .collect();
        for (from, into) in targets {
            self.merges.remove(&from);
            self.error(format!(
                "merge of `{from}`: `{into}` is merged itself and cannot receive a merge"
            ));
        }
    }

    fn relink_entries(&mut self, list: &FileList) {
        for (i, entry) in self.manifest.relinks.iter().enumerate() {
            match select_relink(entry, list) {
                Ok(found) => {
                    for item in found {
                        match PagePath::new(&item.to) {
                            Ok(to) => {
                                let to = self.image(&to);
                                self.relinks.insert(item.from, to);
                            }
                            Err(err) => self.error(format!("relinks[{i}]: {err}")),
                        }
                    }
                }
                Err(message) => self.error(format!("relinks[{i}]: {message}")),
            }
        }
    }

    /// Moving or merging a page needs both its old and new place to be writable.
    fn guard_moves(&mut self) {
        let guard = Guard::new(self.ws);
        let mut refusals = Vec::new();
        for (from, to) in self.moves.iter().chain(self.merges.iter()) {
            let verb = if self.merges.contains_key(from) {
                "merge"
            } else {
                "move"
            };
            for path in [from, to] {
                if verb == "merge" && path == to {
                    // The canonical page's body is not written; only its inbound links are.
                    continue;
                }
                if let Some(why) = guard.refusal(path) {
                    refusals.push((
                        from.clone(),
                        format!("cannot {verb} `{from}` to `{to}`: {why}"),
                    ));
                }
            }
        }
        for (path, message) in refusals {
            self.reject(&path, message);
        }
    }

    fn rewrite_links(&mut self, roots: Roots, vacated: &BTreeSet<PagePath>) {
        let vault = self.ws.vault;
        // Name keys of everything whose links can change: vacated files (links to them),
        // relink sources, and destinations (links they may capture).
        let mut keys = NameKeys::new();
        for path in vacated
            .iter()
            .chain(self.moves.values())
            .chain(self.relinks.keys())
        {
            keys.add(path);
        }
        let mut list = None;
        if let Some(split) = &self.split {
            keys.add(&split.page);
            for section in &split.sections {
                keys.add(&section.path);
            }
            if let Some(edited) = self.content.pages.get_mut(&split.page) {
                let after = roots.after;
                let page = &split.page;
                let link = |target: &PagePath| {
                    let stem = target.stem();
                    let answer = after.answer(page, LinkKind::Wiki, stem);
                    if answer.path() == Some(target) && !answer.is_ambiguous() {
                        stem.to_owned()
                    } else {
                        target.as_str().trim_end_matches(".md").to_owned()
                    }
                };
                let (text, list_start) = split.index_text(&edited.before, &link);
                edited.text = text;
                list = Some(list_start);
            }
        }
        if let (Some(split), Some(list)) = (self.split.as_mut(), list) {
            split.list_start = list;
        }
        let relink_vault: Vault = self.relinks.keys().cloned().collect();
        let guard = Guard::new(self.ws);
        let mut pages = 0usize;
        let mut links = 0usize;
        let mut candidates: Vec<PagePath> = Vec::new();
        let mut buffer = String::new();
        for (source, summary) in vault.pages() {
            pages += 1;
            links += summary.links.len();
            if self.merges.contains_key(source) {
                if self.content.pages.remove(source).is_some() {
                    self.reject(
                        source,
                        format!("`{source}` is edited and merged; edit the page it merges into"),
                    );
                }
                continue;
            }
            if self.moves.contains_key(source)
                || self.content.pages.contains_key(source)
                || summary
                    .links
                    .iter()
                    .any(|link| keys.may_reach(link, &mut buffer))
            {
                candidates.push(source.clone());
            }
        }
        self.plan.stats.pages = pages;
        self.plan.stats.links = links;
        let mut handled: BTreeSet<PagePath> = BTreeSet::new();
        for source in candidates {
            handled.insert(source.clone());
            self.rewrite_page(&source, roots, &keys, &relink_vault, &guard);
        }
        self.split_sections(roots, &keys, &relink_vault);
        // Moved files without a summary (assets, unparsed pages) move as bytes.
        let rest: Vec<(PagePath, PagePath)> = self
            .moves
            .iter()
            .filter(|(from, _)| !handled.contains(*from))
            .map(|(f, t)| (f.clone(), t.clone()))
            .collect();
        for (from, to) in rest {
            match self.ws.source.etag(&from) {
                Some(etag) => {
                    self.etags.insert(from.clone(), etag.clone());
                    self.ops.moves.push((from, to, etag));
                }
                None => {
                    self.plan.integrity.complete = false;
                    self.error(format!("cannot read `{from}` to move it"));
                }
            }
        }
        for from in self.merges.keys().cloned().collect::<Vec<_>>() {
            match self.ws.source.etag(&from) {
                Some(etag) => {
                    self.etags.insert(from.clone(), etag.clone());
                    self.ops.deletes.push((from, etag));
                }
                None => {
                    self.plan.integrity.complete = false;
                    self.error(format!("cannot read `{from}` to delete it"));
                }
            }
        }
    }

    fn rewrite_page(
        &mut self,
        source: &PagePath,
        roots: Roots,
        keys: &NameKeys,
        relink_vault: &Vault,
        guard: &Guard,
    ) {
        let moved = self.moves.get(source).cloned();
        let source_after = moved.clone().unwrap_or_else(|| source.clone());
        let split_page = self.split.as_ref().is_some_and(|s| &s.page == source);
        let look = Look {
            source,
            source_after: &source_after,
            moved: moved.is_some() || split_page,
            roots,
            keys,
            relink_vault,
        };
        // The vault's summary holds the links the parser finds in this text, so it settles
        // every page where nothing must be rewritten: such a page needs only its ETag. A page
        // that is written is read and parsed again, so that its spans come from the very text
        // the plan replaces bytes in.
        let edited = self.content.pages.remove(source);
        let summary = self.ws.vault.page(source).map(|summary| &summary.links);
        let settled = match &edited {
            // Nothing moves: no link of an edited page can need a rewrite.
            Some(_) if !look.moved && keys.is_empty() => Some(Findings::default()),
            // An edited page is written anyway, so its links are checked in the new text.
            Some(_) => None,
            None => summary.and_then(|links| self.examine(&look, links, None).ok()),
        };
        let unreadable = |this: &mut Self| {
            this.plan.integrity.complete = false;
            if moved.is_some() {
                this.error(format!("cannot read `{source}` to move it"));
            } else {
                this.plan.warnings.push(format!(
                    "cannot read `{source}`; its links were not checked"
                ));
            }
        };
        let (file, found) = match settled {
            Some(found) if edited.is_some() => {
                let edited = edited.as_ref().expect("checked");
                (
                    SourceFile {
                        text: edited.text.clone(),
                        etag: edited.etag.clone(),
                    },
                    found,
                )
            }
            Some(found) => match self.ws.source.etag(source) {
                Some(etag) => (
                    SourceFile {
                        text: String::new(),
                        etag,
                    },
                    found,
                ),
                None => return unreadable(self),
            },
            None => {
                let file = match &edited {
                    Some(edited) => SourceFile {
                        text: edited.text.clone(),
                        etag: edited.etag.clone(),
                    },
                    None => match self.ws.source.read(source) {
                        Some(file) => file,
                        None => return unreadable(self),
                    },
                };
                let mut parsed = if source.is_canvas() {
                    parse_canvas(&file.text)
                } else {
                    parse(&file.text).links
                };
                if let Some(split) = self.split.as_ref().filter(|s| &s.page == source) {
                    // The list of links to the sections is new: nothing to keep there.
                    parsed.retain(|link| link.span.start < split.list_start);
                }
                // With the text at hand every link is settled, so this is never `Err`.
                let found = self
                    .examine(&look, &parsed, Some(&file.text))
                    .unwrap_or_default();
                (file, found)
            }
        };
        let Findings {
            unresolved,
            warnings,
            changes,
            edits,
            failures,
        } = found;
        self.plan.integrity.unresolved.extend(unresolved);
        self.plan.warnings.extend(warnings);
        for failure in failures {
            self.error(failure);
        }
        if !edits.is_empty() {
            for path in [Some(source), moved.as_ref()].into_iter().flatten() {
                if let Some(why) = guard.refusal(path) {
                    let message = format!(
                        "`{source}` has {} link(s) that must change, but {why}",
                        edits.len()
                    );
                    self.reject(source, message);
                    break;
                }
            }
        }
        self.etags.insert(source.clone(), file.etag.clone());
        let new_text = if edits.is_empty() {
            edited.as_ref().map(|_| file.text.clone())
        } else if source.is_canvas() {
            // A canvas's targets are JSON strings: nothing around them can change.
            Some(replace_spans(&file.text, &edits))
        } else {
            match quire_syntax::relink_checked(&file.text, &edits) {
                Ok(text) => Some(text),
                Err(why) => {
                    self.reject(source, format!("`{source}`: {why}"));
                    Some(replace_spans(&file.text, &edits))
                }
            }
        };
        // Diffs show the page as it was before any step.
        let file = match &edited {
            Some(edited) => SourceFile {
                text: edited.before.clone(),
                etag: file.etag,
            },
            None => file,
        };
        if let Some(edited) = edited {
            self.plan.content_edits.push(ContentEdit {
                path: source_after.clone(),
                from: moved.as_ref().map(|_| source.clone()),
                changes: edited.changes,
            });
        }
        self.plan.stats.rewritten += changes.len();
        if !changes.is_empty() {
            self.plan.edits.push(PageEdit {
                path: source_after.clone(),
                from: moved.as_ref().map(|_| source.clone()),
                links: changes,
            });
        }
        match (moved, new_text) {
            (Some(to), Some(text)) => {
                self.ops.deletes.push((source.clone(), file.etag.clone()));
                if self.diffs == Diffs::Wanted {
                    self.written
                        .push((source.clone(), to.clone(), file.text, text.clone()));
                }
                self.ops.writes.push((to, text, None));
            }
            (Some(to), None) => self.ops.moves.push((source.clone(), to, file.etag)),
            (None, Some(text)) => {
                if self.diffs == Diffs::Wanted {
                    self.written
                        .push((source.clone(), source.clone(), file.text, text.clone()));
                }
                self.ops
                    .writes
                    .push((source.clone(), text, Some(file.etag)));
            }
            (None, None) => {}
        }
    }

    /// Writes the split's section pages, each section's links re-resolved from its new
    /// place.
    fn split_sections(&mut self, roots: Roots, keys: &NameKeys, relink_vault: &Vault) {
        let Some(split) = &self.split else {
            return;
        };
        let page = split.page.clone();
        let Some(original) = self.ws.source.read(&page) else {
            return;
        };
        let sections: Vec<(PagePath, String)> = split
            .sections
            .iter()
            .map(|s| (s.path.clone(), split.section_text(&original.text, s)))
            .collect();
        for (path, text) in sections {
            let look = Look {
                source: &page,
                source_after: &path,
                moved: true,
                roots,
                keys,
                relink_vault,
            };
            let parsed = parse(&text).links;
            // Every link of the section's own text is settled with the text at hand.
            let found = self
                .examine(&look, &parsed, Some(&text))
                .unwrap_or_default();
            self.plan.integrity.unresolved.extend(found.unresolved);
            self.plan.warnings.extend(found.warnings);
            for failure in found.failures {
                self.error(failure);
            }
            let new_text = if found.edits.is_empty() {
                text
            } else {
                match quire_syntax::relink_checked(&text, &found.edits) {
                    Ok(new_text) => new_text,
                    Err(why) => {
                        self.error(format!("`{path}` (split from `{page}`): {why}"));
                        replace_spans(&text, &found.edits)
                    }
                }
            };
            self.plan.stats.rewritten += found.changes.len();
            if !found.changes.is_empty() {
                self.plan.edits.push(PageEdit {
                    path: path.clone(),
                    from: Some(page.clone()),
                    links: found.changes,
                });
            }
            if self.diffs == Diffs::Wanted {
                self.written
                    .push((page.clone(), path.clone(), String::new(), new_text.clone()));
            }
            self.ops.writes.push((path, new_text, None));
        }
    }

    /// Checks `links` of one page. Without `text` (links from the vault's summary) it
    /// stops with `Err(NeedsText)` at the first link that must be rewritten.
    fn examine(
        &self,
        look: &Look,
        links: &[Link],
        text: Option<&str>,
    ) -> Result<Findings, NeedsText> {
        let Look {
            source,
            source_after,
            moved,
            roots: Roots { before, after },
            keys,
            relink_vault,
        } = *look;
        let mut found = Findings::default();
        let mut buffer = String::new();
        for link in links {
            if !moved && !keys.may_reach(link, &mut buffer) {
                continue;
            }
            let split_source = self.split.as_ref().is_some_and(|s| &s.page == source);
            if link.target.trim().is_empty() && !(split_source && link.fragment.is_some()) {
                continue;
            }
            let before = before.answer(source, link.kind, &link.target);
            let section = |path: &PagePath| {
                self.split
                    .as_ref()
                    .and_then(|s| s.section_for(path, link.fragment.as_deref()))
                    .cloned()
            };
            let (intended, was_ambiguous) = match (before.step(), before.path()) {
                (Some(Step::SamePage), _) => match section(source) {
                    // A `[[#heading]]` whose section now lives on another page.
                    Some(page) if &page != source_after => (page, false),
                    Some(_) => continue,
                    // A section's link to a heading that stays on the split page.
                    None if source != source_after
                        && self.split.as_ref().is_some_and(|s| &s.page == source) =>
                    {
                        (source.clone(), false)
                    }
                    None => continue,
                },
                (Some(_), Some(path)) => match section(path) {
                    Some(page) => (page, before.is_ambiguous()),
                    None => (self.image(path), before.is_ambiguous()),
                },
                _ => {
                    found.unresolved.push(UnresolvedLink {
                        source: source.clone(),
                        target: link.target.clone(),
                    });
                    let old = relink_vault.resolve_target(source, link.kind, &link.target);
                    match old.path().and_then(|old| self.relinks.get(old)) {
                        Some(now) => (now.clone(), false),
                        None => {
                            let later = after.answer(source_after, link.kind, &link.target);
                            if let Some(found_path) = later.path() {
                                found.warnings.push(format!(
                                    "`{source}`: link `{}` resolves to nothing now but will resolve to `{found_path}` after this plan",
                                    link.target
                                ));
                            }
                            continue;
                        }
                    }
                }
            };
            let now = after.answer(source_after, link.kind, &link.target);
            let keep = now.path() == Some(&intended) && (!now.is_ambiguous() || was_ambiguous);
            if keep && before.is_resolved() {
                continue;
            }
            let Some(text) = text else {
                return Err(NeedsText);
            };
            let written = &text[link.target_span.clone()];
            match new_target(link, written, source_after, &intended, after) {
                Ok(new) => {
                    if new == written {
                        continue;
                    }
                    // Usually the target's bytes; with a fragment whose parentheses the old
                    // target balanced, the fragment too.
                    let (span, new) = quire_syntax::target_edit(text, link, new);
                    let written = &text[span.clone()];
                    let occurrence = {
                        let whole = &text[link.span.clone()];
                        let offset = span.start - link.span.start;
                        let mut changed = whole.to_owned();
                        changed.replace_range(offset..offset + written.len(), &new);
                        (whole.to_owned(), changed)
                    };
                    found.changes.push(LinkChange {
                        line: line_of(text, span.start),
                        old: written.to_owned(),
                        new: new.clone(),
                        occurrence: Some(occurrence),
                        range: Some(text_range(text, span.clone())),
                    });
                    found.edits.push((span, new));
                }
                Err(why) => found.failures.push(format!(
                    "`{source}` line {}: link `{}` to `{intended}` cannot be kept: {why}",
                    line_of(text, link.target_span.start),
                    link.target
                )),
            }
        }
        Ok(found)
    }

    /// Pages whose only inbound links came from merged (deleted) pages.
    fn orphans(&mut self, vacated: &BTreeSet<PagePath>) {
        let vault = self.ws.vault;
        let mut targets: BTreeSet<PagePath> = BTreeSet::new();
        for from in self.merges.keys() {
            if let Some(summary) = vault.page(from) {
                for link in &summary.links {
                    if let Resolution::Resolved { path, step, .. } = vault.resolve(from, link) {
                        if step != Step::SamePage && !self.merges.contains_key(&path) {
                            targets.insert(path);
                        }
                    }
                }
            }
        }
        if targets.is_empty() {
            return;
        }
        let mut keys = NameKeys::new();
        for path in &targets {
            keys.add(path);
        }
        let mut kept: BTreeSet<PagePath> = BTreeSet::new();
        let mut buffer = String::new();
        for (source, summary) in vault.pages() {
            if self.merges.contains_key(source) {
                continue;
            }
            for link in summary
                .links
                .iter()
                .filter(|l| keys.may_reach(l, &mut buffer))
            {
                if let Some(path) = vault.resolve(source, link).path() {
                    if path != source && targets.contains(path) {
                        kept.insert(path.clone());
                    }
                }
            }
        }
        let _ = vacated;
        for target in targets.difference(&kept) {
            self.plan.integrity.orphaned.push(Orphan {
                path: self.image(target),
            });
        }
    }

    fn sidecars(&mut self) {
        let source = self.ws.source;
        let read = |path: &PagePath| source.read(path).map(|file| (file.text, file.etag));
        let comments = plan_comments(&self.moves, &self.merges, &read);
        for error in comments.errors {
            self.error(error);
        }
        self.plan.comments = comments.listed;
        for (from, to, etag) in comments.moves {
            self.etags.insert(from.clone(), etag.clone());
            self.ops.moves.push((from, to, etag));
        }
        for (path, etag) in comments.deletes {
            self.etags.insert(path.clone(), etag.clone());
            self.ops.deletes.push((path, etag));
        }
        for (path, content, expect) in comments.writes {
            if let Some(etag) = &expect {
                self.etags.insert(path.clone(), etag.clone());
            }
            self.ops.writes.push((path, content, expect));
        }
        let mut files = self.ws.personal_files.clone();
        files.sort();
        files.dedup();
        let image = |key: &str| -> Option<PagePath> {
            let path = PagePath::new(key).ok()?;
            self.moves
                .get(&path)
                .or_else(|| self.merges.get(&path))
                .cloned()
        };
        let mut results = Vec::new();
        for file in files {
            let Some(current) = source.read(&file) else {
                self.plan.integrity.complete = false;
                results.push(Err(format!("cannot read personal state file `{file}`")));
                continue;
            };
            results.push(
                plan_personal(&file, &current.text, &image)
                    .map(|found| found.map(|(text, change)| (file, current.etag, text, change))),
            );
        }
        for result in results {
            match result {
                Ok(Some((file, etag, text, change))) => {
                    self.etags.insert(file.clone(), etag.clone());
                    self.ops.writes.push((file, text, Some(etag)));
                    self.plan.state.push(change);
                }
                Ok(None) => {}
                Err(message) => self.error(message),
            }
        }
    }

    fn removed_dirs(&mut self, files: &[PagePath], vacated: &BTreeSet<PagePath>) {
        let names = AfterNames::new(files, vacated, self.moves.values());
        let mut removed = BTreeSet::new();
        for path in vacated {
            let mut folder = path.folder();
            while !folder.is_empty() && !names.is_folder(folder) {
                removed.insert(folder.to_owned());
                folder = folder.rfind('/').map_or("", |i| &folder[..i]);
            }
        }
        let mut removed: Vec<String> = removed.into_iter().collect();
        // Deepest first, so each folder is empty when its turn comes.
        removed.sort_by(|a, b| {
            let depth = |s: &str| s.matches('/').count();
            depth(b).cmp(&depth(a)).then_with(|| a.cmp(b))
        });
        self.plan.removed_dirs = removed;
    }

    fn finish(mut self, opts: &PlanOptions) -> Planned {
        let plan = &mut self.plan;
        plan.moves = self
            .moves
            .iter()
            .map(|(from, to)| PathChange {
                from: from.clone(),
                to: to.clone(),
            })
            .collect();
        plan.merges = self
            .merges
            .iter()
            .map(|(from, to)| PathChange {
                from: from.clone(),
                to: to.clone(),
            })
            .collect();
        for conflict in &plan.conflicts {
            plan.errors.push(format!(
                "conflict `{}` at `{}`: {}",
                conflict.code.as_str(),
                conflict.path,
                conflict.detail
            ));
        }
        plan.conflicts.sort();
        plan.edits.sort_by(|a, b| a.path.cmp(&b.path));
        plan.content_edits.sort_by(|a, b| a.path.cmp(&b.path));
        plan.state.sort_by(|a, b| a.file.cmp(&b.file));
        plan.rejected.sort();
        plan.rejected.dedup();
        plan.integrity.unresolved.sort();
        plan.integrity.unresolved.dedup();
        plan.integrity.orphaned.sort();
        plan.integrity.orphaned.dedup();
        plan.integrity.normalization = normalization_notes(&self.ws.names);
        plan.stats.unresolved = plan.integrity.unresolved.len();
        plan.warnings.sort();
        plan.warnings.dedup();
        dedup_keep_order(&mut plan.errors);
        if opts.diffs {
            self.written.sort_by(|a, b| a.1.cmp(&b.1));
            plan.diffs = Some(
                self.written
                    .iter()
                    .map(|(from, to, old, new)| FileDiff {
                        path: to.clone(),
                        diff: similar::TextDiff::from_lines(old, new)
                            .unified_diff()
                            .context_radius(2)
                            .header(&format!("a/{from}"), &format!("b/{to}"))
                            .to_string(),
                    })
                    .collect(),
            );
        }
        plan.digest = digest(plan, &self.etags);
        Planned {
            plan: self.plan,
            ops: self.ops.sequence(),
        }
    }
}

/// What a plan's `integrity.normalization` says about the shadowed files of a workspace:
/// one sentence each, sorted.
pub fn normalization_notes(names: &DiskNames) -> Vec<String> {
    let mut notes: Vec<String> = names.shadowed.iter().map(Shadowed::note).collect();
    notes.sort();
    notes.dedup();
    notes
}

/// Keeps the first of each repeated message, in order.
fn dedup_keep_order(items: &mut Vec<String>) {
    let mut seen = HashSet::new();
    items.retain(|item| seen.insert(item.clone()));
}

/// Hex SHA-256 over the plan without `digest`, `diffs`, `approval`, `warnings`, and the
/// ETag of every file the plan reads for writing.
pub fn digest(plan: &Plan, etags: &BTreeMap<PagePath, String>) -> String {
    let mut canonical = plan.clone();
    canonical.digest = String::new();
    canonical.diffs = None;
    canonical.approval = None;
    canonical.warnings = Vec::new();
    let mut hasher = Sha256::new();
    // Serialising plain structs, vectors and strings cannot fail.
    hasher.update(serde_json::to_vec(&canonical).unwrap_or_default());
    for (path, etag) in etags {
        hasher.update(b"\n");
        hasher.update(path.as_str().as_bytes());
        hasher.update(b"\0");
        hasher.update(etag.as_bytes());
    }
    hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> u32 {
    text.as_bytes()[..offset]
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u32
        + 1
}

/// LSP position (0-based line, UTF-16 column) of a byte offset.
fn position(text: &str, offset: usize) -> (u32, u32) {
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = before.matches('\n').count() as u32;
    let column = before[line_start..].encode_utf16().count() as u32;
    (line, column)
}

fn text_range(text: &str, span: Range<usize>) -> TextRange {
    TextRange {
        start: position(text, span.start),
        end: position(text, span.end),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units() {
        let text = "ab\nü😀x";
        assert_eq!(position(text, 0), (0, 0));
        assert_eq!(position(text, 3), (1, 0));
        assert_eq!(position(text, 3 + 2 + 4), (1, 3));
    }
}
