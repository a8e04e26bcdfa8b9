//! Obsidian vaults: which file each link of a note reaches in the vault, by Obsidian's rules
//! as quire models them, and the smallest rewrite of a link that quire would resolve
//! elsewhere once the vault is imported (under a prefix, say, or beside other pages).
//!
//! **Obsidian's resolution, as modelled here.** A wiki target (`[[t]]`, `[[t|a]]`, `[[t#h]]`,
//! `![[t]]`) with a `/`: the vault path `t` (a leading `/` ignored; `.md` optional), then `t`
//! relative to the note's folder, then every file whose path ends in `/t`. Without a `/`: every
//! file whose name (or name without `.md`) is `t`. A markdown destination (`[x](d)`,
//! percent-decoded): `d` relative to the note's folder, then the vault path `d`, then `d` as a
//! wiki target. Each step first with the exact case, then ignoring case; several files: the
//! shortest path (fewest folders), then byte order.

use std::collections::HashMap;

use quire_syntax::LinkKind;

/// The files of a vault (notes and attachments), for link resolution.
#[derive(Debug, Clone, Default)]
pub struct VaultFiles {
    /// Every path, `/`-separated, sorted.
    paths: Vec<String>,
    /// Lowercased path → indexes of `paths`.
    folded: HashMap<String, Vec<usize>>,
    /// Lowercased file name (and, for notes, the name without `.md`) → indexes of `paths`.
    names: HashMap<String, Vec<usize>>,
}

impl VaultFiles {
    pub fn new(paths: impl IntoIterator<Item = String>) -> VaultFiles {
        let mut paths: Vec<String> = paths.into_iter().collect();
        paths.sort();
        paths.dedup();
        let mut folded: HashMap<String, Vec<usize>> = HashMap::new();
        let mut names: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, path) in paths.iter().enumerate() {
            let lower = path.to_lowercase();
            folded.entry(lower.clone()).or_default().push(i);
            let name = lower.rsplit('/').next().unwrap_or(&lower).to_string();
            if let Some(stem) = name.strip_suffix(".md") {
                names.entry(stem.to_string()).or_default().push(i);
            }
            names.entry(name).or_default().push(i);
        }
        VaultFiles {
            paths,
            folded,
            names,
        }
    }

    pub fn len(&self) -> usize {
        self.paths.len()
    }

    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// The vault file a link of `kind` to `target` written in the note `from` reaches.
    pub fn resolve(&self, from: &str, kind: LinkKind, target: &str) -> Option<&str> {
        let target = target.trim();
        if target.is_empty() {
            return None;
        }
        let folder = from.rsplit_once('/').map_or("", |(f, _)| f);
        let relative = || join(folder, target);
        match kind {
            LinkKind::Wiki => self.wiki(target, relative),
            LinkKind::Markdown | LinkKind::MarkdownReference => {
                if !target.starts_with('/') {
                    if let Some(found) = relative().and_then(|p| self.exact(&p)) {
                        return Some(found);
                    }
                }
                self.exact(target.trim_start_matches('/'))
                    .or_else(|| self.wiki(target, relative))
            }
            LinkKind::Canvas => self.exact(target.trim_start_matches('/')),
        }
    }

    fn wiki(&self, target: &str, relative: impl Fn() -> Option<String>) -> Option<&str> {
        if target.contains('/') {
            let rooted = target.trim_start_matches('/');
            if let Some(found) = self.exact(rooted) {
                return Some(found);
            }
            if let Some(found) = relative().and_then(|p| self.exact(&p)) {
                return Some(found);
            }
            let suffix = format!("/{rooted}");
            let suffix_md = format!("{suffix}.md");
            let (lower, lower_md) = (suffix.to_lowercase(), suffix_md.to_lowercase());
            for fold in [false, true] {
                let found = self.shortest(self.paths.iter().enumerate().filter_map(|(i, p)| {
                    let hit = if fold {
                        let p = p.to_lowercase();
                        p.ends_with(&lower) || p.ends_with(&lower_md)
                    } else {
                        p.ends_with(&suffix) || p.ends_with(&suffix_md)
                    };
                    hit.then_some(i)
                }));
                if found.is_some() {
                    return found;
                }
            }
            return None;
        }
        let lower = target.to_lowercase();
        let hits = self.names.get(&lower)?;
        let exact = hits.iter().copied().filter(|&i| {
            let name = self.paths[i].rsplit('/').next().unwrap_or("");
            name == target || name.strip_suffix(".md") == Some(target)
        });
        self.shortest(exact)
            .or_else(|| self.shortest(hits.iter().copied()))
    }

    /// The file at vault path `path` (`.md` optional), exact case first.
    fn exact(&self, path: &str) -> Option<&str> {
        let path = path.trim_start_matches('/');
        for candidate in [path.to_string(), format!("{path}.md")] {
            if let Ok(i) = self.paths.binary_search(&candidate) {
                return Some(&self.paths[i]);
            }
        }
        for candidate in [path.to_lowercase(), format!("{}.md", path.to_lowercase())] {
            if let Some(hits) = self.folded.get(&candidate) {
                return self.shortest(hits.iter().copied());
            }
        }
        None
    }

    /// The shortest path of `hits` (fewest folders, then byte order).
    fn shortest(&self, hits: impl Iterator<Item = usize>) -> Option<&str> {
        hits.map(|i| self.paths[i].as_str())
            .min_by_key(|p| (p.matches('/').count(), *p))
    }
}

/// `target` relative to `folder`, `.` and `..` applied; `None` above the vault.
fn join(folder: &str, target: &str) -> Option<String> {
    let mut out: Vec<&str> = folder.split('/').filter(|s| !s.is_empty()).collect();
    for segment in target.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            s => out.push(s),
        }
    }
    Some(out.join("/"))
}

/// Rewrites the links of one imported note that quire would resolve elsewhere than the
/// vault did.
pub struct Rewriter<'a> {
    /// The vault's files.
    pub vault: &'a VaultFiles,
    /// Vault path → path in the knowledge root, for every file imported.
    pub placed: &'a HashMap<String, String>,
}

impl Rewriter<'_> {
    /// `text` (the note as it will be written, frontmatter included) with its links fixed:
    /// for every link that reached a file in the vault (`vault_from` is the note's vault path),
    /// `resolve(kind, target)` says where quire resolves it from the note's place in the root;
    /// when that is not the imported file, the target is rewritten (wiki links: the shortest
    /// path suffix quire resolves to it, then the root path with a leading `/`; markdown
    /// links: the path relative to the note, `.md` kept as written). Alias, heading, embed
    /// and the link's style survive. Links the vault did not resolve are left alone.
    /// Answers the text and how many links changed.
    pub fn rewrite(
        &self,
        text: &str,
        vault_from: &str,
        quire_from: &str,
        resolve: &dyn Fn(LinkKind, &str) -> Option<String>,
    ) -> (String, usize) {
        let parsed = quire_syntax::parse(text);
        let mut edits: Vec<(std::ops::Range<usize>, String)> = Vec::new();
        for link in &parsed.links {
            if link.kind == LinkKind::Canvas || link.target.is_empty() {
                continue;
            }
            let Some(found) = self.vault.resolve(vault_from, link.kind, &link.target) else {
                continue;
            };
            let Some(want) = self.placed.get(found) else {
                continue;
            };
            if resolve(link.kind, &link.target).as_deref() == Some(want.as_str()) {
                continue;
            }
            let new = match link.kind {
                LinkKind::Wiki => wiki_target(want, &link.target, resolve),
                _ => markdown_target(quire_from, want, &link.target, link.angle, resolve),
            };
            if let Some(new) = new {
                edits.push((link.target_span.clone(), new));
            }
        }
        let count = edits.len();
        let mut out = text.to_string();
        edits.sort_by_key(|(span, _)| std::cmp::Reverse(span.start));
        for (span, new) in edits {
            if span.end <= out.len() && out.is_char_boundary(span.start) {
                out.replace_range(span, &new);
            }
        }
        (out, count)
    }
}

/// The shortest wiki target quire resolves to `want`: its name, then longer path suffixes,
/// then the root path with a leading `/`. `.md` only when the link wrote it.
fn wiki_target(
    want: &str,
    written: &str,
    resolve: &dyn Fn(LinkKind, &str) -> Option<String>,
) -> Option<String> {
    let keep_md = written.to_lowercase().ends_with(".md");
    let base = match want.strip_suffix(".md") {
        Some(stem) if !keep_md => stem,
        _ => want,
    };
    let segments: Vec<&str> = base.split('/').collect();
    let mut candidates: Vec<String> = (1..=segments.len())
        .map(|k| segments[segments.len() - k..].join("/"))
        .collect();
    candidates.push(format!("/{base}"));
    candidates
        .into_iter()
        .find(|c| resolve(LinkKind::Wiki, c).as_deref() == Some(want))
}

/// A markdown destination from the note at `from` to `want`: relative, else rooted; percent-
/// encoded unless written in `<…>`.
fn markdown_target(
    from: &str,
    want: &str,
    written: &str,
    angle: bool,
    resolve: &dyn Fn(LinkKind, &str) -> Option<String>,
) -> Option<String> {
    let keep_md = written.to_lowercase().ends_with(".md");
    let target = match want.strip_suffix(".md") {
        Some(stem) if !keep_md => stem,
        _ => want,
    };
    let folder: Vec<&str> = from
        .rsplit_once('/')
        .map_or(Vec::new(), |(f, _)| f.split('/').collect());
    let parts: Vec<&str> = target.split('/').collect();
    let common = folder
        .iter()
        .zip(&parts)
        .take_while(|(a, b)| a == b)
        .count()
        .min(parts.len() - 1);
    let mut relative: Vec<&str> = vec![".."; folder.len() - common];
    relative.extend(&parts[common..]);
    let relative = relative.join("/");
    [relative, format!("/{target}")]
        .into_iter()
        .find(|c| resolve(LinkKind::Markdown, c).as_deref() == Some(want))
        .map(|c| if angle { c } else { encode(&c) })
}

/// Percent-encodes what a markdown destination cannot hold as it is.
fn encode(dest: &str) -> String {
    let mut out = String::new();
    for c in dest.chars() {
        match c {
            ' ' => out.push_str("%20"),
            '%' => out.push_str("%25"),
            '(' => out.push_str("%28"),
            ')' => out.push_str("%29"),
            '<' => out.push_str("%3C"),
            '>' => out.push_str("%3E"),
            '#' => out.push_str("%23"),
            '?' => out.push_str("%3F"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vault() -> VaultFiles {
        VaultFiles::new(
            [
                "Home.md",
                "Ideas.md",
                "projects/Ideas.md",
                "projects/Plan.md",
                "projects/deep/Plan.md",
                "attachments/image.png",
                "Other.md",
            ]
            .map(String::from),
        )
    }

    #[test]
    fn obsidian_resolves_names_anywhere_shortest_first() {
        let v = vault();
        let w = |from, t| v.resolve(from, LinkKind::Wiki, t);
        assert_eq!(w("projects/Plan.md", "Ideas"), Some("Ideas.md"));
        assert_eq!(w("Home.md", "Plan"), Some("projects/Plan.md"));
        assert_eq!(w("Home.md", "projects/Ideas"), Some("projects/Ideas.md"));
        assert_eq!(w("Home.md", "deep/Plan"), Some("projects/deep/Plan.md"));
        assert_eq!(w("Home.md", "image.png"), Some("attachments/image.png"));
        assert_eq!(w("Home.md", "ideas"), Some("Ideas.md"), "case folded");
        assert_eq!(w("Home.md", "Nope"), None);
        let m = |from, t| v.resolve(from, LinkKind::Markdown, t);
        assert_eq!(m("projects/Plan.md", "../Other.md"), Some("Other.md"));
        assert_eq!(m("projects/Plan.md", "Ideas.md"), Some("projects/Ideas.md"));
        assert_eq!(m("Home.md", "projects/Plan.md"), Some("projects/Plan.md"));
        assert_eq!(m("projects/deep/Plan.md", "Home.md"), Some("Home.md"));
        assert_eq!(m("Home.md", "../../x.md"), None);
    }

    #[test]
    fn links_quire_would_resolve_elsewhere_are_rewritten_minimally() {
        let v = vault();
        let placed: HashMap<String, String> = v
            .paths
            .iter()
            .map(|p| (p.clone(), format!("in/{p}")))
            .collect();
        // quire's rule, roughly: a bare name prefers the same folder; paths are root paths.
        let quire = |from: &str| {
            let from = from.to_string();
            let all: Vec<String> = placed.values().cloned().collect();
            move |kind: LinkKind, t: &str| -> Option<String> {
                let folder = from.rsplit_once('/').map_or("", |(f, _)| f).to_string();
                match kind {
                    LinkKind::Wiki if t.contains('/') => {
                        let t = t.trim_start_matches('/');
                        all.iter()
                            .find(|p| *p == t || **p == format!("{t}.md"))
                            .cloned()
                    }
                    LinkKind::Wiki => {
                        let same = format!("{folder}/{t}.md");
                        all.iter()
                            .find(|p| **p == same)
                            .or_else(|| {
                                all.iter().find(|p| {
                                    p.rsplit('/').next() == Some(&format!("{t}.md"))
                                        || p.rsplit('/').next() == Some(t)
                                })
                            })
                            .cloned()
                    }
                    _ => join(&folder, t).filter(|p| all.contains(p)),
                }
            }
        };
        let r = Rewriter {
            vault: &v,
            placed: &placed,
        };
        let text = "---\nup: \"[[Ideas]]\"\n---\nSee [[Ideas|the ideas]], [[Ideas#Top]], ![[image.png]], [o](../Other.md) and [[Missing]].\n";
        let resolve = quire("in/projects/Plan.md");
        let (out, n) = r.rewrite(text, "projects/Plan.md", "in/projects/Plan.md", &resolve);
        assert_eq!(
            out,
            "---\nup: \"[[in/Ideas]]\"\n---\nSee [[in/Ideas|the ideas]], [[in/Ideas#Top]], ![[image.png]], [o](../Other.md) and [[Missing]].\n"
        );
        assert_eq!(n, 3);
        // Rewriting again changes nothing.
        let (again, n) = r.rewrite(&out, "projects/Plan.md", "in/projects/Plan.md", &resolve);
        assert_eq!((again.as_str(), n), (out.as_str(), 0));
    }
}
