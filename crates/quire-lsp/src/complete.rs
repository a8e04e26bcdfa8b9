//! Completion inside `[[…` and `](…`: pages, then headings after `#`, block ids after `#^`.
//! Every page target offered is one the space's resolver takes back to that page.

use lsp_types::CompletionParams;
use quire_syntax::{print_target, LinkKind};
use quire_vault::{PagePath, Resolution};
use serde_json::{json, Value};

use crate::navigate::fuzzy;
use crate::server::{Answer, Server};
use crate::text::Lines;

const LIMIT: usize = 100;
const FILE: u32 = 17;
const REFERENCE: u32 = 18;

impl Server {
    pub fn completion(&self, p: CompletionParams) -> Answer {
        let position = &p.text_document_position;
        let (path, doc) = self.doc(position.text_document.uri.as_str())?;
        let lines = Lines::new(&doc.text);
        let offset = lines.offset(position.position.line, position.position.character);
        let line_start = doc.text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let before = &doc.text[line_start..offset];
        let wiki = before.rfind("[[").filter(|&i| !before[i..].contains("]]"));
        let markdown = before.rfind("](").filter(|&i| !before[i..].contains(')'));
        let (kind, open) = match (wiki, markdown) {
            (Some(w), Some(m)) if m > w => (LinkKind::Markdown, m),
            (Some(w), _) => (LinkKind::Wiki, w),
            (None, Some(m)) => (LinkKind::Markdown, m),
            (None, None) => return Ok(Value::Null),
        };
        let typed_start = line_start + open + 2;
        let typed = &doc.text[typed_start..offset];
        if kind == LinkKind::Wiki && typed.contains('|') {
            return Ok(Value::Null);
        }
        let range = |from: usize| lines.range(&(from..offset));
        match typed.split_once('#') {
            Some((page, fragment)) => {
                let target = if page.is_empty() {
                    Some(path.clone())
                } else {
                    let page = match kind {
                        LinkKind::Wiki => page.to_owned(),
                        _ => quire_syntax::percent_decode(page),
                    };
                    self.space
                        .vault()
                        .resolve_target(&path, kind, &page)
                        .path()
                        .cloned()
                };
                let Some(target) = target else {
                    return Ok(Value::Null);
                };
                let Some(text) = self.text_of(&target) else {
                    return Ok(Value::Null);
                };
                let parsed = quire_syntax::parse(&text);
                let at = range(typed_start + page.len() + 1);
                let items: Vec<Value> = if fragment.starts_with('^') {
                    parsed
                        .block_ids
                        .iter()
                        .map(|b| {
                            let id = format!("^{}", b.id);
                            json!({"label": id, "kind": REFERENCE, "detail": format!("{target}, line {}", b.line),
                                   "filterText": id, "textEdit": {"range": at, "newText": id}})
                        })
                        .collect()
                } else {
                    parsed
                        .headings
                        .iter()
                        .map(|h| {
                            let text = match kind {
                                LinkKind::Wiki => h.text.clone(),
                                _ => h.slug.clone(),
                            };
                            json!({"label": h.text, "kind": REFERENCE,
                                   "detail": format!("{} {}", "#".repeat(h.level as usize), target),
                                   "filterText": text, "textEdit": {"range": at, "newText": text}})
                        })
                        .collect()
                };
                Ok(json!({"isIncomplete": false, "items": items}))
            }
            None => {
                let query: Vec<char> = typed.to_lowercase().chars().collect();
                let vault = self.space.vault();
                let mut hits: Vec<(u32, &PagePath, &str)> = vault
                    .files()
                    .filter(|f| f.as_str() != path.as_str())
                    .filter_map(|f| {
                        let title = vault.title(f).unwrap_or_else(|| f.name());
                        let score = fuzzy(&query, f.as_str()).or_else(|| fuzzy(&query, title))?;
                        // Pages before other files.
                        Some((score + if f.is_page() { 0 } else { 100_000 }, f, title))
                    })
                    .collect();
                hits.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(b.1)));
                hits.truncate(LIMIT);
                let at = range(typed_start);
                let items: Vec<Value> = hits
                    .iter()
                    .enumerate()
                    .map(|(rank, (_, file, title))| {
                        let text = match kind {
                            LinkKind::Wiki => wiki_target(&vault, &path, file),
                            _ => markdown_target(&vault, &path, file),
                        };
                        json!({"label": text, "kind": FILE, "detail": title,
                               "sortText": format!("{rank:04}"), "filterText": typed,
                               "textEdit": {"range": at, "newText": text}})
                    })
                    .collect();
                // Matched here (fuzzily, titles too), so the editor asks again as the user
                // types rather than filtering this list by its own rules.
                Ok(json!({"isIncomplete": true, "items": items}))
            }
        }
    }
}

/// The shortest wiki target naming `file` from `from` without ambiguity: the stem (name for
/// another file), else the path (without `.md` for a page).
fn wiki_target(vault: &quire_vault::Vault, from: &PagePath, file: &PagePath) -> String {
    let short = if file.is_page() {
        file.stem()
    } else {
        file.name()
    };
    let names = |target: &str| {
        matches!(vault.resolve_wiki(from, target),
            Resolution::Resolved { path, candidates, .. } if &path == file && candidates.is_empty())
    };
    if names(short) {
        return short.to_owned();
    }
    let long = file.as_str().strip_suffix(".md").unwrap_or(file.as_str());
    if names(long) {
        long.to_owned()
    } else {
        file.as_str().to_owned()
    }
}

/// A markdown destination naming `file` from `from`: relative to the linking page's folder,
/// else from the root.
fn markdown_target(vault: &quire_vault::Vault, from: &PagePath, file: &PagePath) -> String {
    let here: Vec<&str> = from.folder().split('/').filter(|s| !s.is_empty()).collect();
    let there: Vec<&str> = file.segments().collect();
    let common = here
        .iter()
        .zip(&there)
        .take_while(|(a, b)| a == b)
        .count()
        .min(there.len() - 1);
    let mut parts: Vec<&str> = vec![".."; here.len() - common];
    parts.extend(&there[common..]);
    let relative = parts.join("/");
    if vault.resolve_markdown(from, &relative).path() == Some(file) {
        return print_target(LinkKind::Markdown, false, &relative);
    }
    print_target(LinkKind::Markdown, false, &format!("/{file}"))
}
