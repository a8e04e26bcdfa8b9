//! Diagnostics (broken, ambiguous links and fragments naming nothing), pushed for open
//! documents from the editor's text or pulled for one page or the whole root, and the code
//! action creating a missing page.

use std::ops::Range;

use lsp_types::{CodeActionParams, DocumentDiagnosticParams, WorkspaceDiagnosticParams};
use quire_syntax::{Link, LinkKind};
use quire_vault::{Overlay, PagePath, Resolution, Vault};
use serde_json::{json, Value};

use crate::server::{Answer, Doc, Failure, Server};
use crate::text::{range_json, Lines};

const WARNING: u32 = 2;

/// One problem of a link: where it is (bytes of the page), its code and message.
struct Problem {
    span: Range<usize>,
    code: &'static str,
    message: String,
}

/// The problems of a page's links, each resolved by the link model (in which the open
/// documents stand in for their files).
fn problems(vault: &Vault, path: &PagePath, links: &[Link]) -> Vec<Problem> {
    let mut out = Vec::new();
    for link in links {
        if link.kind == LinkKind::Canvas {
            continue;
        }
        let (code, message) = match vault.resolve(path, link) {
            Resolution::Unresolved => (
                "broken-link",
                format!("broken link: no file matches `{}`", link.target),
            ),
            Resolution::Resolved {
                path: target,
                candidates,
                ..
            } => {
                if !candidates.is_empty() {
                    let others: Vec<&str> = candidates.iter().map(PagePath::as_str).collect();
                    (
                        "ambiguous-link",
                        format!(
                            "ambiguous link: `{}` resolves to {target}, but also matches {}",
                            link.target,
                            others.join(", ")
                        ),
                    )
                } else {
                    let missing = link.fragment.as_deref().filter(|fragment| {
                        vault
                            .page(&target)
                            .is_some_and(|summary| !summary.has_anchor(fragment))
                    });
                    match missing {
                        Some(fragment) => (
                            "broken-fragment",
                            if fragment.starts_with('^') {
                                format!("no block `{fragment}` in {target}")
                            } else {
                                format!("no heading `{fragment}` in {target}")
                            },
                        ),
                        None => continue,
                    }
                }
            }
        };
        out.push(Problem {
            span: link.span.clone(),
            code,
            message,
        });
    }
    out
}

/// Problems as LSP diagnostics, placed in the page's text.
fn diagnostics_in(text: &str, problems: Vec<Problem>) -> Vec<Value> {
    let lines = Lines::new(text);
    problems
        .into_iter()
        .map(|p| {
            json!({
                "range": lines.range(&p.span),
                "severity": WARNING,
                "code": p.code,
                "source": "quire",
                "message": p.message,
            })
        })
        .collect()
}

impl Server {
    /// The diagnostics of an open document, from the editor's text.
    pub fn diagnostics(&self, path: &PagePath, doc: &Doc) -> Vec<Value> {
        let problems = problems(&self.space.vault(), path, &doc.parsed.links);
        diagnostics_in(&doc.text, problems)
    }

    /// `textDocument/diagnostic`: the diagnostics of one page, open or not (a file that is
    /// no page has none); "unchanged" when nothing changed since the `resultId` the editor
    /// holds.
    pub fn document_diagnostic(&self, p: DocumentDiagnosticParams) -> Answer {
        let uri = p.text_document.uri.as_str();
        let path = self.roots.path_of(uri).ok_or_else(|| {
            Failure::invalid(format!("{uri} is not a file of this knowledge base"))
        })?;
        let result_id = self.generation.to_string();
        if p.previous_result_id.as_deref() == Some(result_id.as_str()) {
            return Ok(json!({"kind": "unchanged", "resultId": result_id}));
        }
        let items = match self.docs.get(&path) {
            Some(doc) => self.diagnostics(&path, doc),
            None => {
                let text = self
                    .text_of(&path)
                    .ok_or_else(|| Failure::invalid(format!("no file at {path}")))?;
                if path.is_page() {
                    let parsed = quire_syntax::parse(&text);
                    let problems = problems(&self.space.vault(), &path, &parsed.links);
                    diagnostics_in(&text, problems)
                } else {
                    Vec::new()
                }
            }
        };
        Ok(json!({"kind": "full", "resultId": result_id, "items": items}))
    }

    /// `workspace/diagnostic`: a report for every page of the root (an empty one clears what
    /// the editor showed), "unchanged" for a page whose `resultId` the editor holds is
    /// current.
    pub fn workspace_diagnostic(&self, p: WorkspaceDiagnosticParams) -> Answer {
        let result_id = self.generation.to_string();
        let current: std::collections::BTreeSet<&str> = p
            .previous_result_ids
            .iter()
            .filter(|previous| previous.value == result_id)
            .map(|previous| previous.uri.as_str())
            .collect();
        // The problems first, under the model's lock; the texts (to place them) after.
        let found: Vec<(PagePath, Vec<Problem>)> = {
            let vault = self.space.vault();
            vault
                .pages()
                .filter(|(path, _)| path.is_page())
                .map(|(path, summary)| (path.clone(), problems(&vault, path, &summary.links)))
                .collect()
        };
        let mut items = Vec::with_capacity(found.len());
        for (path, problems) in found {
            let uri = match self.docs.get(&path) {
                Some(doc) => doc.uri.clone(),
                None => self.roots.uri_of(path.as_str()),
            };
            let version = self.version_of(&path);
            if current.contains(uri.as_str()) {
                items.push(json!({
                    "kind": "unchanged", "uri": uri, "version": version, "resultId": result_id,
                }));
                continue;
            }
            let diagnostics = if problems.is_empty() {
                Vec::new()
            } else {
                match self.text_of(&path) {
                    Some(text) => diagnostics_in(&text, problems),
                    None => continue,
                }
            };
            items.push(json!({
                "kind": "full",
                "uri": uri,
                "version": version,
                "resultId": result_id,
                "items": diagnostics,
            }));
        }
        Ok(json!({"items": items}))
    }

    /// "Create the missing page" for each broken link in the range: a new file whose path
    /// the link then resolves to, with `# Title`.
    pub fn code_actions(&self, p: CodeActionParams) -> Answer {
        let (path, doc) = self.doc(p.text_document.uri.as_str())?;
        let lines = Lines::new(&doc.text);
        let start = lines.offset(p.range.start.line, p.range.start.character);
        let end = lines.offset(p.range.end.line, p.range.end.character);
        let vault = self.space.vault();
        let mut actions = Vec::new();
        for link in &doc.parsed.links {
            if link.kind == LinkKind::Canvas || link.span.end < start || link.span.start > end {
                continue;
            }
            if vault.resolve(&path, link).is_resolved() {
                continue;
            }
            let Some(new) = new_page_for(&path, link) else {
                continue;
            };
            // Only a page the link would then reach.
            let overlay = Overlay::new(&vault, [], [new.clone()]);
            if overlay.resolve(&path, link).path() != Some(&new) {
                continue;
            }
            let uri = self.roots.uri_of(new.as_str());
            let title = new.stem();
            let diagnostics: Vec<&lsp_types::Diagnostic> = p
                .context
                .diagnostics
                .iter()
                .filter(|d| d.range.start.line == lines.position(link.span.start).0)
                .collect();
            actions.push(json!({
                "title": format!("Create the missing page {new}"),
                "kind": "quickfix",
                "diagnostics": diagnostics,
                "isPreferred": true,
                "edit": {"documentChanges": [
                    {"kind": "create", "uri": uri, "options": {"ignoreIfExists": true}},
                    {"textDocument": {"uri": uri, "version": null}, "edits": [
                        {"range": range_json((0, 0), (0, 0)), "newText": format!("# {title}\n")}
                    ]},
                ]},
            }));
        }
        Ok(Value::Array(actions))
    }
}

/// The page a broken link asks for: its target with `.md` (a target naming another kind of
/// file asks for no page), relative to the linking page's folder when the syntax says so
/// (`./`, `../`, or a markdown destination not starting with `/`), else from the root.
fn new_page_for(from: &PagePath, link: &Link) -> Option<PagePath> {
    let target = link.target.as_str();
    if target.is_empty() {
        return None;
    }
    let relative = match link.kind {
        LinkKind::Wiki => target.starts_with("./") || target.starts_with("../"),
        _ => !target.starts_with('/'),
    };
    let mut segments: Vec<&str> = if relative {
        from.folder().split('/').filter(|s| !s.is_empty()).collect()
    } else {
        Vec::new()
    };
    for segment in target.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop()?;
            }
            s => segments.push(s),
        }
    }
    let mut path = segments.join("/");
    let name = segments.last()?;
    match name.rsplit_once('.') {
        Some((_, "md")) => {}
        Some((_, ext)) if link.kind != LinkKind::Wiki && !ext.contains(' ') => return None,
        _ => path.push_str(".md"),
    }
    PagePath::new(&path).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(kind: LinkKind, target: &str) -> Link {
        let text = match kind {
            LinkKind::Wiki => format!("[[{target}]]"),
            _ => format!("[x]({target})"),
        };
        quire_syntax::parse(&text).links.remove(0)
    }

    #[test]
    fn missing_pages_follow_the_link_syntax() {
        let from = PagePath::new("notes/day.md").unwrap();
        let new = |kind, target| new_page_for(&from, &link(kind, target)).map(|p| p.to_string());
        assert_eq!(new(LinkKind::Wiki, "Idea"), Some("Idea.md".into()));
        assert_eq!(new(LinkKind::Wiki, "./Idea"), Some("notes/Idea.md".into()));
        assert_eq!(new(LinkKind::Wiki, "a/b.md"), Some("a/b.md".into()));
        assert_eq!(new(LinkKind::Markdown, "x.md"), Some("notes/x.md".into()));
        assert_eq!(new(LinkKind::Markdown, "/x"), Some("x.md".into()));
        assert_eq!(new(LinkKind::Markdown, "img.png"), None);
        assert_eq!(new(LinkKind::Markdown, "../../x.md"), None);
    }
}
