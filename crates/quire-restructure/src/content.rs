//! Content edits: the manifest's `edits` (select, when, set, compute, unset, add_tags,
//! remove_tags, replace, move_to) and `rename_tags`, worked out page by page before any link
//! is looked at. The result is the new text of every edited page and the destinations its
//! `move_to` asks for; the planner then treats an edited page like any page whose bytes it
//! writes, checking the links of the edited text.
//!
//! Steps of one edit entry run in the spec's order on the page as the previous steps left it,
//! and entries run in manifest order, so a later entry sees what an earlier one set.
//! Frontmatter changes go through [`FrontmatterEditor`], which rewrites only the lines of the
//! keys that change.

use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use chrono::{DateTime, FixedOffset};
use quire_query::{EvalContext, Expr, Template, Value};
use quire_syntax::{parse, parse_frontmatter, FrontmatterEditor, ParsedPage};
use quire_vault::PagePath;
use regex::Regex;

use crate::manifest::{EditEntry, Manifest, TagRename};
use crate::scope::PageScope;
use crate::select::{glob_regex, rootless};
use crate::{PageTimes, Workspace};

/// The frontmatter key naming which actor owns which key (DECISIONS §4, field managers).
pub const FIELD_MANAGERS: &str = "quire-fields";

/// A page whose text the content steps changed.
pub(crate) struct Edited {
    pub(crate) etag: String,
    pub(crate) before: String,
    pub(crate) text: String,
    pub(crate) changes: Vec<String>,
}

/// How `move_to` destinations that are taken are handled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OnConflict {
    Error,
    /// The pattern holds `%d`, e.g. `-%d`: `a.md` → `a-1.md`, `a-2.md`, …
    Suffix(String),
}

impl OnConflict {
    fn of(entry: &EditEntry) -> OnConflict {
        entry
            .on_conflict
            .as_deref()
            .and_then(|p| p.strip_prefix("suffix(\""))
            .and_then(|p| p.strip_suffix("\")"))
            .map_or(OnConflict::Error, |p| OnConflict::Suffix(p.to_owned()))
    }
}

/// A destination a `move_to` template gave a page.
pub(crate) struct MoveTo {
    pub(crate) from: PagePath,
    pub(crate) to: String,
    pub(crate) on_conflict: OnConflict,
}

/// Everything the content steps found.
#[derive(Default)]
pub(crate) struct Content {
    pub(crate) pages: BTreeMap<PagePath, Edited>,
    pub(crate) moves: Vec<MoveTo>,
    pub(crate) errors: Vec<String>,
    /// Pages the steps may not change, and why (also errors).
    pub(crate) rejected: Vec<(PagePath, String)>,
    pub(crate) warnings: Vec<String>,
}

/// One page while the steps run.
struct Working {
    etag: String,
    before: String,
    text: String,
    fm: serde_json::Value,
    parsed: OnceCell<ParsedPage>,
    times: OnceCell<PageTimes>,
    changes: Vec<String>,
}

impl Working {
    fn parsed(&self) -> &ParsedPage {
        self.parsed.get_or_init(|| parse(&self.text))
    }

    fn set_text(&mut self, text: String) {
        if text != self.text {
            self.fm = frontmatter_of(&text);
            self.text = text;
            self.parsed = OnceCell::new();
        }
    }
}

/// No frontmatter, or frontmatter that reads as a mapping.
fn frontmatter_readable(text: &str) -> bool {
    parse_frontmatter(text).is_none_or(|fm| fm.value.is_object())
}

fn frontmatter_of(text: &str) -> serde_json::Value {
    parse_frontmatter(text)
        .map(|fm| fm.value)
        .filter(|v| v.is_object())
        .unwrap_or_else(|| serde_json::Value::Object(Default::default()))
}

/// Parsed expressions of one entry (the manifest was validated, so they parse).
struct Compiled {
    query: Option<Expr>,
    when: Option<Expr>,
    compute: Vec<(String, Expr)>,
    replace: Vec<(Rule, String)>,
    move_to: Option<Template>,
}

enum Rule {
    Plain(String, String),
    Regex(Regex, String),
}

/// Whether a manifest uses expressions (and so a clock the plan must report).
pub(crate) fn uses_clock(manifest: &Manifest) -> bool {
    manifest.edits.iter().any(|e| {
        e.select.query.is_some() || e.when.is_some() || !e.compute.is_empty() || e.move_to.is_some()
    })
}

/// Runs the content steps of `manifest`. `writable` says why a page may not be written.
pub(crate) fn edit_pages(
    ws: &Workspace,
    manifest: &Manifest,
    now: DateTime<FixedOffset>,
    writable: &dyn Fn(&PagePath) -> Option<String>,
) -> Content {
    let mut out = Content::default();
    let mut working: BTreeMap<PagePath, Working> = BTreeMap::new();
    let pages: Vec<&PagePath> = ws
        .vault
        .files()
        .filter(|p| p.is_page() && !p.is_canvas())
        .collect();
    let ctx = EvalContext::at(now);
    let mut refused: BTreeSet<PagePath> = BTreeSet::new();
    for (i, entry) in manifest.edits.iter().enumerate() {
        let field = format!("edits[{i}]");
        let compiled = match compile(entry, &field) {
            Ok(compiled) => compiled,
            Err(message) => {
                out.errors.push(message);
                continue;
            }
        };
        let Some(selected) = select(entry, &pages, &field, &mut out) else {
            continue;
        };
        for path in selected {
            if refused.contains(path) {
                continue;
            }
            if !working.contains_key(path) {
                match load(ws, path) {
                    Some(page) => {
                        working.insert(path.clone(), page);
                    }
                    None => {
                        out.errors.push(format!("{field}: cannot read `{path}`"));
                        continue;
                    }
                }
            }
            let page = working.get_mut(path).expect("loaded above");
            match edit_one(ws, path, page, entry, &compiled, &ctx, &field) {
                Ok(Some(to)) => out.moves.push(MoveTo {
                    from: path.clone(),
                    to,
                    on_conflict: OnConflict::of(entry),
                }),
                Ok(None) => {}
                Err(Refusal::Error(message)) => out.errors.push(message),
                Err(Refusal::Page(message)) => {
                    refused.insert(path.clone());
                    out.rejected.push((path.clone(), message));
                }
            }
        }
    }
    for (i, rename) in manifest.rename_tags.iter().enumerate() {
        rename_tag(ws, rename, i, &pages, &mut working, &refused, &mut out);
    }
    for (path, page) in working {
        if refused.contains(&path) || page.text == page.before {
            continue;
        }
        if let Some(why) = writable(&path) {
            out.rejected
                .push((path.clone(), format!("`{path}` would be edited, but {why}")));
            continue;
        }
        out.pages.insert(
            path,
            Edited {
                etag: page.etag,
                before: page.before,
                text: page.text,
                changes: page.changes,
            },
        );
    }
    out.moves.retain(|m| !refused.contains(&m.from));
    out
}

fn load(ws: &Workspace, path: &PagePath) -> Option<Working> {
    let file = ws.source.read(path)?;
    Some(Working {
        etag: file.etag,
        fm: frontmatter_of(&file.text),
        before: file.text.clone(),
        text: file.text,
        parsed: OnceCell::new(),
        times: OnceCell::new(),
        changes: Vec::new(),
    })
}

fn compile(entry: &EditEntry, field: &str) -> Result<Compiled, String> {
    let expr =
        |src: &str, what: &str| quire_query::parse(src).map_err(|e| format!("{field}.{what}: {e}"));
    let query = entry
        .select
        .query
        .as_deref()
        .map(|q| expr(q, "select.query"))
        .transpose()?;
    let when = entry.when.as_deref().map(|w| expr(w, "when")).transpose()?;
    let mut compute = Vec::new();
    for (key, src) in &entry.compute {
        compute.push((key.clone(), expr(src, &format!("compute.{key}"))?));
    }
    let mut replace = Vec::new();
    for (j, r) in entry.replace.iter().enumerate() {
        let rule = if r.regex {
            let re = Regex::new(&r.find)
                .map_err(|e| format!("{field}.replace[{j}].find is not a valid regex: {e}"))?;
            Rule::Regex(re, r.with.clone())
        } else {
            Rule::Plain(r.find.clone(), r.with.clone())
        };
        let label = if r.regex {
            format!("replace /{}/ with {:?}", r.find, r.with)
        } else {
            format!("replace {:?} with {:?}", r.find, r.with)
        };
        replace.push((rule, label));
    }
    let move_to = entry
        .move_to
        .as_deref()
        .map(|t| Template::parse(t).map_err(|e| format!("{field}.move_to: {e}")))
        .transpose()?;
    Ok(Compiled {
        query,
        when,
        compute,
        replace,
        move_to,
    })
}

/// The pages `paths` and `glob` select (every criterion narrows); `query` is checked per
/// page with `when`.
fn select<'p>(
    entry: &EditEntry,
    pages: &[&'p PagePath],
    field: &str,
    out: &mut Content,
) -> Option<Vec<&'p PagePath>> {
    let mut selected: Vec<&PagePath> = pages.to_vec();
    if !entry.select.paths.is_empty() {
        let mut wanted = BTreeSet::new();
        for path in &entry.select.paths {
            let path = rootless(path.trim());
            match pages.iter().find(|p| p.as_str() == path) {
                Some(_) => {
                    wanted.insert(path.to_owned());
                }
                None => {
                    out.errors.push(format!(
                        "{field}.select.paths: `{path}` is not a page of the knowledge base"
                    ));
                    return None;
                }
            }
        }
        selected.retain(|p| wanted.contains(p.as_str()));
    }
    if let Some(glob) = &entry.select.glob {
        let re = glob_regex(rootless(glob.trim()));
        selected.retain(|p| re.is_match(p.as_str()));
    }
    if selected.is_empty() && entry.select.query.is_none() {
        out.warnings
            .push(format!("{field}: the selection matches no page"));
    }
    Some(selected)
}

enum Refusal {
    /// An error of the manifest (an expression that fails on this page).
    Error(String),
    /// This page may not be changed (a field owned by another actor).
    Page(String),
}

/// Runs one entry's steps on one page; returns the `move_to` destination.
fn edit_one(
    ws: &Workspace,
    path: &PagePath,
    page: &mut Working,
    entry: &EditEntry,
    compiled: &Compiled,
    ctx: &EvalContext,
    field: &str,
) -> Result<Option<String>, Refusal> {
    let now = ctx.now();
    let eval = |page: &Working, expr: &Expr, what: &str| -> Result<Value, Refusal> {
        let scope = PageScope {
            path,
            vault: ws.vault,
            source: ws.source,
            fm: &page.fm,
            parsed: page.parsed(),
            size: page.text.len(),
            now,
            times: &page.times,
            data: OnceCell::new(),
        };
        expr.eval(&scope, ctx)
            .map_err(|e| Refusal::Error(format!("{field}.{what} on `{path}`: {e}")))
    };
    if let Some(query) = &compiled.query {
        if !eval(page, query, "select.query")?.truthy() {
            return Ok(None);
        }
    }
    if let Some(when) = &compiled.when {
        if !eval(page, when, "when")?.truthy() {
            return Ok(None);
        }
    }
    // Field managers: keys another actor owns stay as they are unless `force`.
    let owned = owners(&page.fm);
    let touched: Vec<&str> = entry
        .set
        .keys()
        .chain(entry.compute.keys())
        .chain(entry.unset.iter())
        .map(String::as_str)
        .chain((!entry.add_tags.is_empty() || !entry.remove_tags.is_empty()).then_some("tags"))
        .collect();
    if !entry.force {
        for key in touched {
            if let Some(owner) = owned.get(key) {
                if ws.actor.as_deref() != Some(owner.as_str()) {
                    return Err(Refusal::Page(format!(
                        "{field}: `{path}` key `{key}` is owned by `{owner}` ({FIELD_MANAGERS}); set `force: true` to change it"
                    )));
                }
            }
        }
    }
    // set, then compute (which sees what set wrote).
    let mut values: Vec<(String, serde_json::Value, &str)> = entry
        .set
        .iter()
        .map(|(k, v)| (k.clone(), v.clone(), "set"))
        .collect();
    set_keys(page, &values);
    values.clear();
    for (key, expr) in &compiled.compute {
        let value = eval(page, expr, &format!("compute.{key}"))?;
        values.push((key.clone(), value.to_json(), "compute"));
    }
    set_keys(page, &values);
    // unset
    let present: Vec<&String> = entry
        .unset
        .iter()
        .filter(|k| page.fm.get(k.as_str()).is_some())
        .collect();
    if !present.is_empty() {
        let mut editor = FrontmatterEditor::new(&page.text);
        for key in &present {
            editor.unset(key);
            page.changes.push(format!("unset {key}"));
        }
        let text = editor.finish();
        page.set_text(text);
    }
    // add_tags, remove_tags
    if !entry.add_tags.is_empty() || !entry.remove_tags.is_empty() {
        retag(page, &entry.add_tags, &entry.remove_tags);
    }
    // The editor keeps a readable block readable, except where YAML forbids the edit itself:
    // an unset key whose anchor an alias elsewhere still names. Such a page is not written.
    if frontmatter_readable(&page.before) && !frontmatter_readable(&page.text) {
        return Err(Refusal::Page(format!(
            "{field}: the edit would leave the frontmatter of `{path}` unreadable YAML (does an \
             alias name a key it removes?); edit that page by hand"
        )));
    }
    // replace
    for (rule, label) in &compiled.replace {
        let (text, count) = replace_prose(&page.text, page.parsed(), rule);
        if count > 0 {
            page.changes.push(format!("{label} ({count}×)"));
            page.set_text(text);
        }
    }
    // move_to
    let Some(template) = &compiled.move_to else {
        return Ok(None);
    };
    let scope = PageScope {
        path,
        vault: ws.vault,
        source: ws.source,
        fm: &page.fm,
        parsed: page.parsed(),
        size: page.text.len(),
        now,
        times: &page.times,
        data: OnceCell::new(),
    };
    let rendered = template
        .render(&scope, ctx)
        .map_err(|e| Refusal::Error(format!("{field}.move_to on `{path}`: {e}")))?;
    Ok(Some(destination(path, &rendered)))
}

/// Frontmatter `quire-fields`: key → owning actor.
fn owners(fm: &serde_json::Value) -> BTreeMap<String, String> {
    fm.get(FIELD_MANAGERS)
        .and_then(|m| m.as_object())
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| v.as_str().map(|a| (k.clone(), a.to_owned())))
                .collect()
        })
        .unwrap_or_default()
}

fn set_keys(page: &mut Working, values: &[(String, serde_json::Value, &str)]) {
    let changed: Vec<&(String, serde_json::Value, &str)> = values
        .iter()
        .filter(|(k, v, _)| page.fm.get(k) != Some(v))
        .collect();
    if changed.is_empty() {
        return;
    }
    let mut editor = FrontmatterEditor::new(&page.text);
    for (key, value, verb) in changed {
        editor.set(key, value);
        page.changes.push(format!("{verb} {key}: {value}"));
    }
    let text = editor.finish();
    page.set_text(text);
}

fn clean_tag(tag: &str) -> String {
    tag.trim().trim_start_matches('#').trim().to_owned()
}

/// The frontmatter `tags` list with `add` appended (when missing) and `remove` taken out.
fn retag(page: &mut Working, add: &[String], remove: &[String]) {
    let current: Vec<String> = match page.fm.get("tags") {
        Some(serde_json::Value::Array(items)) => items
            .iter()
            .filter_map(|i| match i {
                serde_json::Value::String(s) => Some(s.clone()),
                serde_json::Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
            .collect(),
        Some(serde_json::Value::String(s)) => s
            .split(',')
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty())
            .collect(),
        _ => Vec::new(),
    };
    let mut tags = current.clone();
    let mut changes = Vec::new();
    for tag in add.iter().map(|t| clean_tag(t)).filter(|t| !t.is_empty()) {
        if !tags.iter().any(|t| clean_tag(t) == tag) {
            tags.push(tag.clone());
            changes.push(format!("add tag {tag}"));
        }
    }
    for tag in remove.iter().map(|t| clean_tag(t)) {
        let before = tags.len();
        tags.retain(|t| clean_tag(t) != tag);
        if tags.len() != before {
            changes.push(format!("remove tag {tag}"));
        }
    }
    if changes.is_empty() {
        return;
    }
    let mut editor = FrontmatterEditor::new(&page.text);
    if tags.is_empty() {
        editor.unset("tags");
    } else {
        editor.set("tags", &serde_json::json!(tags));
    }
    let text = editor.finish();
    page.changes.extend(changes);
    page.set_text(text);
}

/// Byte ranges `replace` must not touch: the frontmatter, code, and link targets.
fn protected(parsed: &ParsedPage) -> Vec<Range<usize>> {
    let mut ranges: Vec<Range<usize>> = Vec::with_capacity(parsed.links.len() + 1);
    if parsed.body_start > 0 {
        ranges.push(0..parsed.body_start);
    }
    ranges.extend(parsed.code.iter().cloned());
    ranges.extend(parsed.links.iter().map(|l| l.target_span.clone()));
    ranges.sort_by_key(|r| (r.start, r.end));
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for range in ranges {
        match merged.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => merged.push(range),
        }
    }
    merged
}

/// Applies `rule` to the prose of `text` (outside [`protected`] ranges); a match never spans
/// a protected range. Returns the new text and the number of replacements.
fn replace_prose(text: &str, parsed: &ParsedPage, rule: &Rule) -> (String, usize) {
    let mut out = String::with_capacity(text.len());
    let mut count = 0;
    let mut at = 0;
    let mut segment = |out: &mut String, piece: &str| match rule {
        Rule::Plain(find, with) => {
            let n = piece.matches(find.as_str()).count();
            if n == 0 {
                out.push_str(piece);
            } else {
                count += n;
                out.push_str(&piece.replace(find.as_str(), with));
            }
        }
        Rule::Regex(re, with) => {
            let n = re.find_iter(piece).count();
            if n == 0 {
                out.push_str(piece);
            } else {
                count += n;
                out.push_str(&re.replace_all(piece, with.as_str()));
            }
        }
    };
    for range in protected(parsed) {
        if range.start > at {
            segment(&mut out, &text[at..range.start]);
        }
        out.push_str(&text[range.start.max(at)..range.end]);
        at = range.end.max(at);
    }
    if at < text.len() {
        segment(&mut out, &text[at..]);
    }
    (out, count)
}

/// A rendered `move_to` as a path: root-relative, a trailing `/` keeps the file name, and the
/// page's extension is added when the name lacks it.
fn destination(from: &PagePath, rendered: &str) -> String {
    let rendered = rootless(rendered.trim());
    if rendered.is_empty() || rendered.ends_with('/') {
        return format!("{rendered}{}", from.name());
    }
    match from.extension() {
        Some(ext) if !rendered.ends_with(&format!(".{ext}")) => format!("{rendered}.{ext}"),
        _ => rendered.to_owned(),
    }
}

/// Whether `name` is `tag` or a tag nested under it (`tag/…`).
fn renames(name: &str, from: &str) -> Option<usize> {
    if name == from {
        return Some(from.len());
    }
    (name.starts_with(from) && name.as_bytes().get(from.len()) == Some(&b'/')).then_some(from.len())
}

/// Renames a tag in frontmatter `tags` lists and inline `#tags` (nested ones too) of every
/// page; code, links and URLs hold no tags for the parser, so they are never touched.
fn rename_tag(
    ws: &Workspace,
    rename: &TagRename,
    i: usize,
    pages: &[&PagePath],
    working: &mut BTreeMap<PagePath, Working>,
    refused: &BTreeSet<PagePath>,
    out: &mut Content,
) {
    let from = clean_tag(&rename.from);
    let to = clean_tag(&rename.to);
    if from == to {
        return;
    }
    if to.is_empty() || to.contains(|c: char| c.is_whitespace() || c == '#') {
        out.errors.push(format!(
            "rename_tags[{i}].to: `{}` is not a tag name (no spaces or `#` inside)",
            rename.to
        ));
        return;
    }
    for path in pages {
        if refused.contains(*path) {
            continue;
        }
        if !working.contains_key(*path) {
            // Most pages do not hold the tag: read the text, keep it only when it might.
            let Some(page) = load(ws, path) else { continue };
            if !page.text.contains(from.as_str()) {
                continue;
            }
            working.insert((*path).clone(), page);
        }
        let page = working.get_mut(*path).expect("present");
        let parsed = page.parsed();
        let mut spans: Vec<(Range<usize>, String)> = Vec::new();
        let mut unlocated = false;
        let mut count = 0;
        for tag in &parsed.tags {
            let Some(keep) = renames(&tag.name, &from) else {
                continue;
            };
            count += 1;
            let renamed = format!("{to}{}", &tag.name[keep..]);
            match &tag.span {
                Some(span) if tag.in_frontmatter => spans.push((span.clone(), renamed)),
                Some(span) => spans.push((span.clone(), format!("#{renamed}"))),
                None => unlocated = true,
            }
        }
        if count == 0 {
            continue;
        }
        let mut text = if unlocated {
            // A frontmatter form whose items the parser could not place byte for byte:
            // rewrite the `tags` key's lines only.
            let tags: Vec<String> = parsed
                .tags
                .iter()
                .filter(|t| t.in_frontmatter)
                .map(|t| match renames(&t.name, &from) {
                    Some(keep) => format!("{to}{}", &t.name[keep..]),
                    None => t.name.clone(),
                })
                .collect();
            spans.retain(|(span, _)| span.start >= parsed.body_start);
            let body_spans = std::mem::take(&mut spans);
            let text = quire_syntax::replace_spans(&page.text, &body_spans);
            let mut editor = FrontmatterEditor::new(&text);
            editor.set("tags", &serde_json::json!(tags));
            editor.finish()
        } else {
            page.text.clone()
        };
        if !spans.is_empty() {
            text = quire_syntax::replace_spans(&text, &spans);
        }
        page.changes
            .push(format!("rename tag #{from} to #{to} ({count}×)"));
        page.set_text(text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replaced(text: &str, find: &str, with: &str) -> String {
        let rule = Rule::Plain(find.into(), with.into());
        replace_prose(text, &parse(text), &rule).0
    }

    #[test]
    fn replace_skips_frontmatter_code_and_link_targets() {
        let text = "---\ntitle: foo\n---\nfoo `foo` [[foo]] [foo](foo.md)\n```\nfoo\n```\n    foo\n\nfoo\n";
        assert_eq!(
            replaced(text, "foo", "bar"),
            "---\ntitle: foo\n---\nbar `foo` [[foo]] [bar](foo.md)\n```\nfoo\n```\n    foo\n\nbar\n"
        );
    }

    #[test]
    fn destination_keeps_names_and_extensions() {
        let from = PagePath::new("a/Note.md").unwrap();
        assert_eq!(destination(&from, "archive/"), "archive/Note.md");
        assert_eq!(destination(&from, "/archive/2024/x"), "archive/2024/x.md");
        assert_eq!(destination(&from, "b/y.md"), "b/y.md");
    }

    #[test]
    fn nested_tags_rename_with_their_parent() {
        assert_eq!(renames("a", "a"), Some(1));
        assert_eq!(renames("a/b", "a"), Some(1));
        assert_eq!(renames("ab", "a"), None);
    }
}
