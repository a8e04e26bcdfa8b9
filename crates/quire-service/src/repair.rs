//! Link health and repair: wiki links that resolve to no file (and the file each most likely
//! meant), pages nothing links to, `fix-broken` (each fixed page its own commit), and the raw
//! moves whose old paths are still referenced, with the `relinks` manifest that repairs them.

use std::collections::{BTreeMap, BTreeSet};

use quire_api::{
    BrokenLinks, BrokenWikiLink, FixBrokenResult, LinkFix, OrphanPage, Orphans, RawMoveEntry,
    RawMoves,
};
use quire_restructure::{Manifest, MoveEntry};
use quire_syntax::{parse, replace_spans, LinkKind};
use quire_vault::{PagePath, Vault};

use crate::change::WriteOptions;
use crate::change::{Change, Expect, FileOp};
use crate::core::SpaceCore;
use crate::error::Result;
use crate::raw_moves::Via;

/// Link health and repair of one space.
#[derive(Clone, Copy)]
pub struct Repair<'a>(pub(crate) &'a SpaceCore);

impl Repair<'_> {
    /// Every wiki link that resolves to no file, with its best match.
    pub fn broken(&self) -> BrokenLinks {
        let vault = self.0.links.vault();
        let matcher = Matcher::new(&vault);
        let mut broken = Vec::new();
        for (source, summary) in vault.pages() {
            for link in &summary.links {
                if link.kind != LinkKind::Wiki || link.target.trim().is_empty() {
                    continue;
                }
                if vault.resolve(source, link).path().is_none() {
                    let found = matcher.best(&link.target);
                    broken.push(BrokenWikiLink {
                        source: source.to_string(),
                        line: link.line,
                        target: link.target.clone(),
                        best_match: found.one().map(|p| p.to_string()),
                        candidates: found.candidates(),
                    });
                }
            }
        }
        let count = broken.len();
        BrokenLinks { broken, count }
    }

    /// Pages no other page links to.
    pub fn orphans(&self) -> Orphans {
        let vault = self.0.links.vault();
        let mut linked: BTreeSet<PagePath> = BTreeSet::new();
        for (source, summary) in vault.pages() {
            for link in &summary.links {
                if let Some(path) = vault.resolve(source, link).path() {
                    if path != source {
                        linked.insert(path.clone());
                    }
                }
            }
        }
        let orphans: Vec<OrphanPage> = vault
            .pages()
            .map(|(path, _)| path)
            .filter(|path| path.is_page() && !path.is_canvas() && !linked.contains(*path))
            .map(|path| OrphanPage {
                path: path.to_string(),
            })
            .collect();
        let count = orphans.len();
        Orphans { orphans, count }
    }

    /// Rewrites broken wiki links to their best match, one commit per page (`dry_run`: only
    /// the list). Links with no match are left alone.
    pub fn fix_broken(&self, dry_run: bool, opts: &WriteOptions) -> Result<FixBrokenResult> {
        let planned = {
            let vault = self.0.links.vault();
            let matcher = Matcher::new(&vault);
            let mut by_page: BTreeMap<PagePath, Vec<LinkFix>> = BTreeMap::new();
            let mut ambiguous = Vec::new();
            for (source, summary) in vault.pages() {
                for link in &summary.links {
                    if link.kind != LinkKind::Wiki || link.target.trim().is_empty() {
                        continue;
                    }
                    if vault.resolve(source, link).path().is_some() {
                        continue;
                    }
                    let found = match matcher.best(&link.target) {
                        Found::One(path) => path,
                        Found::Nothing => continue,
                        many @ Found::Ambiguous(_) => {
                            ambiguous.push(BrokenWikiLink {
                                source: source.to_string(),
                                line: link.line,
                                target: link.target.clone(),
                                best_match: None,
                                candidates: many.candidates(),
                            });
                            continue;
                        }
                    };
                    if let Some(new) = target_text(&vault, source, &link.target, found) {
                        by_page.entry(source.clone()).or_default().push(LinkFix {
                            source: source.to_string(),
                            old_target: link.target.clone(),
                            new_target: new,
                        });
                    }
                }
            }
            (by_page, ambiguous)
        };
        let (planned, ambiguous) = planned;
        let mut fixes = Vec::new();
        for (page, page_fixes) in planned {
            if dry_run {
                fixes.extend(page_fixes);
                continue;
            }
            let bytes = self.0.root.read(&page)?;
            let etag = quire_store::etag(&bytes);
            let Ok(text) = String::from_utf8(bytes) else {
                continue;
            };
            let wanted: BTreeMap<&str, &str> = page_fixes
                .iter()
                .map(|f| (f.old_target.as_str(), f.new_target.as_str()))
                .collect();
            let edits: Vec<_> = parse(&text)
                .links
                .into_iter()
                .filter(|l| l.kind == LinkKind::Wiki)
                .filter_map(|l| {
                    let new = wanted.get(l.target.as_str())?;
                    (&text[l.target_span.clone()] == l.target.as_str())
                        .then(|| (l.target_span.clone(), (*new).to_owned()))
                })
                .collect();
            if edits.is_empty() {
                continue;
            }
            let new_text = replace_spans(&text, &edits);
            self.0.apply(
                Change::one(
                    FileOp {
                        path: page.clone(),
                        content: Some(new_text.into_bytes()),
                        expect: Expect::Etag(etag),
                    },
                    opts,
                    || format!("Fix broken links in {page}"),
                )
                .committed_now(),
            )?;
            fixes.extend(page_fixes);
        }
        let count = fixes.len();
        Ok(FixBrokenResult {
            fixes,
            count,
            dry_run,
            ambiguous,
        })
    }

    /// The raw moves whose old paths some link still names, and a `relinks` manifest that
    /// repairs them. Moves nothing references any more are dropped from the record.
    pub fn raw_moves(&self) -> Result<RawMoves> {
        let all = self.0.raw_moves()?;
        let referenced = {
            let vault = self.0.links.vault();
            let old: Vault = all
                .iter()
                .filter_map(|m| PagePath::new(&m.from).ok())
                .filter(|p| !vault.contains(p))
                .collect();
            let mut referenced: BTreeSet<PagePath> = BTreeSet::new();
            for (source, summary) in vault.pages() {
                for link in &summary.links {
                    if link.target.trim().is_empty() || vault.resolve(source, link).path().is_some()
                    {
                        continue;
                    }
                    if let Some(path) = old.resolve_target(source, link.kind, &link.target).path() {
                        referenced.insert(path.clone());
                    }
                }
            }
            referenced
        };
        let keep = |m: &crate::raw_moves::RawMove| {
            PagePath::new(&m.from).is_ok_and(|p| referenced.contains(&p))
        };
        self.0.prune_raw_moves(&keep)?;
        let moves: Vec<&crate::raw_moves::RawMove> = all.iter().filter(|m| keep(m)).collect();
        // Where each old path's file is now: follow later raw moves of the same file.
        let last_to = |from: &str, to: &str| {
            let mut to = to.to_owned();
            for later in &all {
                if later.from == to && later.from != from {
                    to = later.to.clone();
                }
            }
            to
        };
        let mut seen = BTreeSet::new();
        let relinks: Vec<MoveEntry> = moves
            .iter()
            .filter(|m| seen.insert(m.from.clone()))
            .map(|m| MoveEntry {
                from: Some(m.from.clone()),
                from_regex: None,
                to: last_to(&m.from, &m.to),
            })
            .collect();
        let manifest = (!relinks.is_empty()).then(|| Manifest {
            relinks,
            ..Manifest::default()
        });
        Ok(RawMoves {
            moves: moves
                .into_iter()
                .map(|m| RawMoveEntry {
                    from: m.from.clone(),
                    to: m.to.clone(),
                    actor: m.actor.clone(),
                    at: m.at.clone(),
                    via: match m.via {
                        Via::Rename => "rename",
                        Via::LinksKept => "links-kept",
                        Via::Watcher => "watcher",
                        Via::S3 => "s3",
                        Via::WebDav => "webdav",
                        Via::Nfs => "nfs",
                        Via::Fuse => "fuse",
                    }
                    .to_owned(),
                })
                .collect(),
            manifest,
        })
    }
}

/// Finds the file a broken link most likely meant: exact path, then a path suffix ignoring
/// numeric folder prefixes such as `06-`, then the same file name (restructuring spec,
/// `fix-broken`). Several files at the first step that finds any is an ambiguous match, which
/// `fix-broken` leaves alone and reports.
struct Matcher<'v> {
    files: Vec<&'v PagePath>,
}

impl<'v> Matcher<'v> {
    fn new(vault: &'v Vault) -> Self {
        let mut files: Vec<&PagePath> = vault.files().collect();
        files.sort_by_key(|p| (p.as_str().matches('/').count(), p.as_str().to_owned()));
        Matcher { files }
    }

    /// The file `target` most likely meant. Each step of the match order is tried in turn;
    /// the first that finds files decides, and two or more files there make it ambiguous.
    fn best(&self, target: &str) -> Found<'v> {
        let target = target
            .trim()
            .trim_start_matches('/')
            .trim_start_matches("./");
        if target.is_empty() {
            return Found::Nothing;
        }
        let with_md = if target.ends_with(".md") || target.contains('.') && !target.ends_with('.') {
            vec![target.to_owned(), format!("{target}.md")]
        } else {
            vec![format!("{target}.md")]
        };
        let lower: Vec<String> = with_md.iter().map(|t| t.to_lowercase()).collect();
        let exact = self.all(|p| lower.contains(&p.as_str().to_lowercase()));
        if exact != Found::Nothing {
            return exact;
        }
        let stripped: Vec<String> = lower.iter().map(|t| strip_numbers(t)).collect();
        let suffix = self.all(|p| {
            let path = strip_numbers(&p.as_str().to_lowercase());
            stripped
                .iter()
                .any(|t| path == *t || path.ends_with(&format!("/{t}")))
        });
        if suffix != Found::Nothing {
            return suffix;
        }
        let names: Vec<String> = lower
            .iter()
            .map(|t| t.rsplit('/').next().unwrap_or(t).to_owned())
            .collect();
        self.all(|p| names.contains(&p.name().to_lowercase()))
    }

    fn all(&self, matches: impl Fn(&PagePath) -> bool) -> Found<'v> {
        let found: Vec<&'v PagePath> = self.files.iter().copied().filter(|p| matches(p)).collect();
        match found.as_slice() {
            [] => Found::Nothing,
            [one] => Found::One(one),
            _ => Found::Ambiguous(found),
        }
    }
}

/// What [`Matcher::best`] found.
#[derive(Debug, PartialEq, Eq)]
enum Found<'v> {
    Nothing,
    One(&'v PagePath),
    /// Several files match equally well: the link is left alone.
    Ambiguous(Vec<&'v PagePath>),
}

impl<'v> Found<'v> {
    fn one(&self) -> Option<&'v PagePath> {
        match self {
            Found::One(path) => Some(path),
            _ => None,
        }
    }

    fn candidates(&self) -> Vec<String> {
        match self {
            Found::Ambiguous(paths) => paths.iter().map(|p| p.to_string()).collect(),
            _ => Vec::new(),
        }
    }
}

/// A path with numeric prefixes of its folders removed (`06-notes/x.md` → `notes/x.md`).
fn strip_numbers(path: &str) -> String {
    let parts: Vec<&str> = path.split('/').collect();
    let last = parts.len() - 1;
    parts
        .iter()
        .enumerate()
        .map(|(i, part)| {
            if i == last {
                return *part;
            }
            let digits = part.bytes().take_while(u8::is_ascii_digit).count();
            match part.as_bytes().get(digits) {
                Some(b'-' | b'_' | b' ' | b'.') if digits > 0 => &part[digits + 1..],
                _ => part,
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Link text that reaches `found` from `source`: the name when that is unique, else the path
/// (without `.md` unless the broken target had it).
fn target_text(
    vault: &Vault,
    source: &PagePath,
    written: &str,
    found: &PagePath,
) -> Option<String> {
    let keep_md = written.trim().ends_with(".md");
    let path = if keep_md || !found.is_page() {
        found.as_str().to_owned()
    } else {
        found.as_str().trim_end_matches(".md").to_owned()
    };
    let name = if found.is_page() && !keep_md {
        found.stem().to_owned()
    } else {
        found.name().to_owned()
    };
    let forms = if written.contains('/') {
        vec![path]
    } else {
        vec![name, path]
    };
    forms.into_iter().find(|form| {
        let answer = vault.resolve_target(source, LinkKind::Wiki, form);
        answer.path() == Some(found) && !answer.is_ambiguous()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_folder_prefixes_are_ignored() {
        assert_eq!(strip_numbers("06-notes/02_x/a.md"), "notes/x/a.md");
        assert_eq!(strip_numbers("notes/06-a.md"), "notes/06-a.md");
    }
}
