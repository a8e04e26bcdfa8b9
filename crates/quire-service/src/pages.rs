//! Read-side questions about pages: table of contents, templates, link resolution, history.

use quire_store::{BlameLine, ChangesPage, VersionEntry};
use quire_vault::{PagePath, Resolution};
use serde::Serialize;

use crate::error::{Error, Result};
use crate::space::Space;

/// The most changes one `/changes` call returns.
pub const CHANGES_LIMIT_MAX: usize = 500;
/// Where templates live inside the root.
pub const TEMPLATES_DIR: &str = ".quire/templates";

/// One heading of `GET /toc`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TocEntry {
    pub level: u8,
    pub text: String,
    pub slug: String,
}

/// A resolved link of `POST /resolve-links`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ResolvedLink {
    pub path: String,
    pub title: String,
}

#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct ResolvedLinks {
    pub resolved: std::collections::BTreeMap<String, ResolvedLink>,
    pub unresolved: Vec<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Template {
    pub name: String,
    pub content: String,
}

impl Space {
    pub fn toc(&self, path: &str) -> Result<Vec<TocEntry>> {
        let content = self.read(path)?;
        let text = String::from_utf8_lossy(&content.bytes);
        Ok(quire_syntax::parse(&text)
            .headings
            .into_iter()
            .map(|h| TocEntry {
                level: h.level,
                text: h.text,
                slug: h.slug,
            })
            .collect())
    }

    /// Resolves wiki-link targets (`Note`, `[[Note]]`, `folder/Note#Heading`) as a page at the
    /// root of the space would.
    pub fn resolve_links(&self, links: &[String]) -> ResolvedLinks {
        let vault = self.vault();
        let from = PagePath::new(RESOLVE_FROM).expect("constant path is valid");
        let mut out = ResolvedLinks::default();
        for link in links {
            let target = bare_target(link);
            match vault.resolve_wiki(&from, target) {
                Resolution::Resolved { path, .. } if !target.is_empty() => {
                    let title = vault
                        .title(&path)
                        .map(str::to_string)
                        .unwrap_or_else(|| path.stem().to_string());
                    out.resolved.insert(
                        link.clone(),
                        ResolvedLink {
                            path: path.to_string(),
                            title,
                        },
                    );
                }
                _ => out.unresolved.push(link.clone()),
            }
        }
        out
    }

    /// Names of the templates in `.quire/templates/` (paths below it without `.md`).
    pub fn templates(&self) -> Result<Vec<String>> {
        let dir = PagePath::new(TEMPLATES_DIR).expect("constant path is valid");
        let nodes = match self.root.tree(Some(&dir)) {
            Ok(nodes) => nodes,
            Err(quire_store::StoreError::NotFound { .. }) => return Ok(Vec::new()),
            Err(e) => return Err(e.into()),
        };
        let mut names = Vec::new();
        let mut stack: Vec<&quire_store::TreeNode> = nodes.iter().collect();
        while let Some(node) = stack.pop() {
            if node.is_dir {
                stack.extend(node.children.iter().flatten());
            } else if let Some(rest) = node.path.strip_prefix(TEMPLATES_DIR) {
                let rest = rest.trim_start_matches('/');
                names.push(rest.strip_suffix(".md").unwrap_or(rest).to_string());
            }
        }
        names.sort();
        Ok(names)
    }

    pub fn template(&self, name: &str) -> Result<Template> {
        let name = name.trim().trim_end_matches(".md");
        if name.is_empty() {
            return Err(Error::bad_request("query parameter name must not be empty"));
        }
        let path = PagePath::new(&format!("{TEMPLATES_DIR}/{name}.md"))?;
        let bytes = match self.root.read(&path) {
            Err(quire_store::StoreError::NotFound { .. }) => {
                return Err(Error::not_found(format!("no template named {name}")))
            }
            other => other?,
        };
        Ok(Template {
            name: name.to_string(),
            content: String::from_utf8_lossy(&bytes).into_owned(),
        })
    }

    /// A template's body ready for insertion: `{{date}}`, `{{time}}` and `{{title}}` filled in.
    pub fn template_for_insertion(&self, name: &str, title: Option<&str>) -> Result<String> {
        let template = self.template(name)?;
        let now = chrono::Local::now();
        Ok(template
            .content
            .replace("{{date}}", &now.format("%Y-%m-%d").to_string())
            .replace("{{time}}", &now.format("%H:%M").to_string())
            .replace("{{title}}", title.unwrap_or("")))
    }

    pub fn versions(&self, path: &str) -> Result<Vec<VersionEntry>> {
        Ok(self.history.versions(&PagePath::new(path)?)?)
    }

    pub fn version(&self, path: &str, version: &str) -> Result<Vec<u8>> {
        check_version_id(version)?;
        Ok(self.history.version(&PagePath::new(path)?, version)?)
    }

    pub fn diff(&self, path: &str, from: &str, to: &str) -> Result<String> {
        check_version_id(from)?;
        check_version_id(to)?;
        Ok(self.history.diff(&PagePath::new(path)?, from, to)?)
    }

    pub fn blame(&self, path: &str) -> Result<Vec<BlameLine>> {
        Ok(self.history.blame(&PagePath::new(path)?)?)
    }

    pub fn changes(&self, since: Option<&str>, limit: Option<usize>) -> Result<ChangesPage> {
        if let Some(since) = since {
            check_version_id(since)?;
        }
        let limit = limit.unwrap_or(100).clamp(1, CHANGES_LIMIT_MAX);
        Ok(self.history.changes(since, limit)?)
    }
}

/// The pseudo page that `resolve-links` resolves from: the root folder.
const RESOLVE_FROM: &str = "index.md";

/// `[[Note|alias]]`, `Note#Heading` → `Note`.
fn bare_target(link: &str) -> &str {
    let t = link.trim();
    let t = t
        .strip_prefix("![[")
        .or_else(|| t.strip_prefix("[["))
        .unwrap_or(t);
    let t = t.strip_suffix("]]").unwrap_or(t);
    let t = t.split('|').next().unwrap_or(t);
    t.split('#').next().unwrap_or(t).trim()
}

/// A version id is a commit hash (hex, 4–40 chars) or a cow sequence number.
fn check_version_id(id: &str) -> Result<()> {
    let ok = !id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_alphanumeric());
    if ok {
        Ok(())
    } else {
        Err(Error::bad_request(format!(
            "{id:?} is not a version id (a commit hash, full or abbreviated)"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::bare_target;

    #[test]
    fn bare_target_strips_brackets_alias_and_fragment() {
        for (input, expected) in [
            ("Note", "Note"),
            ("[[Note]]", "Note"),
            ("[[a/Note|shown]]", "a/Note"),
            ("Note#Heading", "Note"),
            ("![[img.png]]", "img.png"),
            ("  [[Note#^b|x]] ", "Note"),
        ] {
            assert_eq!(bare_target(input), expected, "{input}");
        }
    }
}
