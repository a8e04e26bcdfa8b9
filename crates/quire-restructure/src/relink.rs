//! The new target text of a link that must change: the link's own style (DECISIONS §3),
//! printed by quire-syntax's one printer and verified by resolving it in the after-root.

use quire_syntax::{print_target, Link, LinkKind};
use quire_vault::{Memo, PagePath};

/// Target bytes that make `link`, written in the page that will be at `source`, resolve
/// uniquely to `target` after the manifest (`after` answers in the root as it will be).
/// `written` is the link's current target bytes.
pub(crate) fn new_target(
    link: &Link,
    written: &str,
    source: &PagePath,
    target: &PagePath,
    after: &Memo,
) -> Result<String, String> {
    let reaches = |text: &str| {
        let answer = after.answer(source, link.kind, text);
        answer.path() == Some(target) && !answer.is_ambiguous()
    };
    match link.kind {
        LinkKind::Wiki => wiki(written, source, target, reaches),
        LinkKind::Markdown | LinkKind::MarkdownReference => markdown(link, source, target, reaches),
        LinkKind::Canvas => {
            if reaches(target.as_str()) {
                Ok(print_target(LinkKind::Canvas, false, target.as_str()))
            } else {
                Err(no_form(target))
            }
        }
    }
}

fn no_form(target: &PagePath) -> String {
    format!("no link text reaches `{target}` unambiguously")
}

/// Wiki: keep leading/trailing spaces as written, then bare name → shortest unique suffix,
/// path form → root-relative (leading `/` kept), `./`/`../` → relative to the new folder.
fn wiki(
    written: &str,
    source: &PagePath,
    target: &PagePath,
    reaches: impl Fn(&str) -> bool,
) -> Result<String, String> {
    let inner = written.trim();
    let lead = &written[..written.len() - written.trim_start().len()];
    let trail = &written[written.trim_end().len()..];
    let keep_md = inner.ends_with(".md");
    let shown = display(target, keep_md);
    let writable = |text: &str| !text.contains(['|', '#', '[', ']']) && !text.is_empty();
    let mut forms: Vec<String> = Vec::new();
    if inner.starts_with("./") || inner.starts_with("../") {
        forms.push(dotted(relative_from(source.folder(), shown)));
    }
    if inner.contains('/') && !inner.starts_with("./") && !inner.starts_with("../") {
        let rooted = if inner.starts_with('/') { "/" } else { "" };
        forms.push(format!("{rooted}{shown}"));
    } else if !inner.contains('/') {
        // Shortest suffix first: `name`, `folder/name`, … up to the whole path.
        let parts: Vec<&str> = shown.split('/').collect();
        for take in 1..=parts.len() {
            forms.push(parts[parts.len() - take..].join("/"));
        }
    }
    forms.push(shown.to_owned());
    forms.push(format!("/{shown}"));
    forms
        .into_iter()
        .find(|form| writable(form) && reaches(form))
        .map(|form| format!("{lead}{form}{trail}"))
        .ok_or_else(|| no_form(target))
}

fn markdown(
    link: &Link,
    source: &PagePath,
    target: &PagePath,
    reaches: impl Fn(&str) -> bool,
) -> Result<String, String> {
    let written = link.target.as_str();
    let keep_md = written.ends_with(".md") || !target.is_page();
    let mut forms: Vec<String> = Vec::new();
    for shown in [display(target, keep_md), target.as_str()] {
        if written.starts_with('/') {
            forms.push(format!("/{shown}"));
        } else {
            let relative = relative_from(source.folder(), shown);
            if written.starts_with("./") {
                forms.push(dotted(relative));
            } else {
                forms.push(relative);
            }
        }
    }
    forms.push(format!("/{}", target.as_str()));
    forms
        .into_iter()
        .find(|form| reaches(form))
        .map(|form| print_target(link.kind, link.angle, &form))
        .ok_or_else(|| no_form(target))
}

/// The path as a link shows it: pages without `.md` unless it was written.
fn display(target: &PagePath, keep_md: bool) -> &str {
    let path = target.as_str();
    if target.is_page() && !keep_md {
        &path[..path.len() - 3]
    } else {
        path
    }
}

/// `./x` for a relative path that does not climb.
fn dotted(relative: String) -> String {
    if relative.starts_with("../") {
        relative
    } else {
        format!("./{relative}")
    }
}

/// `to` (root-relative) written relative to `folder` (root-relative, `""` for the root).
pub(crate) fn relative_from(folder: &str, to: &str) -> String {
    let from: Vec<&str> = if folder.is_empty() {
        Vec::new()
    } else {
        folder.split('/').collect()
    };
    let parts: Vec<&str> = to.split('/').collect();
    let dirs = &parts[..parts.len() - 1];
    let common = from.iter().zip(dirs).take_while(|(a, b)| a == b).count();
    let mut out = "../".repeat(from.len() - common);
    out.push_str(&parts[common..].join("/"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_climb_only_as_needed() {
        let cases = [
            ("", "a/b.md", "a/b.md"),
            ("a", "a/b.md", "b.md"),
            ("a/x", "a/b.md", "../b.md"),
            ("a/x", "c/d/e.md", "../../c/d/e.md"),
            ("c", "b.md", "../b.md"),
            ("a/b", "a/b/c/d.md", "c/d.md"),
        ];
        for (folder, to, want) in cases {
            assert_eq!(relative_from(folder, to), want, "{folder} {to}");
        }
    }
}
