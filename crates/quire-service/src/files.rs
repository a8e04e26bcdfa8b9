//! Files of a space: reading files and folders, writing, deleting and appending through the
//! one pipeline, headings, templates and wiki-link resolution.

use quire_api::{
    AppendResult, BulkResult, BulkWritten, DeleteResult, Heading, ResolvedLink, ResolvedLinks,
    Template, TreeNode, WriteResult,
};
use quire_store::etag;
use quire_vault::{PagePath, Resolution};

use crate::change::{Announce, Applied, Change, CommitMode, Expect, FileOp, WriteOptions};
use crate::core::SpaceCore;
use crate::error::{Error, Result};

/// Where templates live inside the root.
pub const TEMPLATES_DIR: &str = ".quire/templates";

/// A file's bytes with its ETag (git blob id).
#[derive(Debug, Clone)]
pub struct FileContent {
    pub bytes: Vec<u8>,
    pub etag: String,
}

/// The files of one space.
#[derive(Clone, Copy)]
pub struct Files<'a>(pub(crate) &'a SpaceCore);

impl Files<'_> {
    /// A file's bytes and ETag.
    pub fn read(&self, path: &str) -> Result<FileContent> {
        let path = PagePath::new(path)?;
        let bytes = self.0.root.read(&path)?;
        let etag = etag(&bytes);
        Ok(FileContent { bytes, etag })
    }

    /// Whether the page at `path` declares `visibility: public` in its frontmatter (the
    /// spec's public pages); `false` for anything else, including files that are no pages.
    pub fn declares_public(&self, path: &str) -> Result<bool> {
        let path = PagePath::new(path)?;
        if !path.as_str().ends_with(".md") {
            return Ok(false);
        }
        let bytes = self.0.root.read(&path)?;
        let text = String::from_utf8_lossy(&bytes);
        let parsed = quire_syntax::parse(&text);
        Ok(parsed
            .frontmatter
            .as_ref()
            .and_then(|f| f.value.get("visibility"))
            .and_then(|v| v.as_str())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("public")))
    }

    /// [`Files::tree`] with only the pages declaring `visibility: public`, and the folders
    /// holding one.
    pub fn public_tree(&self, under: Option<&str>) -> Result<Vec<TreeNode>> {
        fn keep(files: &Files<'_>, nodes: Vec<TreeNode>) -> Vec<TreeNode> {
            nodes
                .into_iter()
                .filter_map(|mut node| {
                    if node.is_dir {
                        let children = keep(files, node.children.take().unwrap_or_default());
                        if children.is_empty() {
                            return None;
                        }
                        node.children = Some(children);
                        Some(node)
                    } else {
                        files
                            .declares_public(&node.path)
                            .unwrap_or(false)
                            .then_some(node)
                    }
                })
                .collect()
        }
        let nodes = self.tree(under)?;
        Ok(keep(self, nodes))
    }

    /// The folder tree below `under` (the whole space when `None` or `/`).
    pub fn tree(&self, under: Option<&str>) -> Result<Vec<TreeNode>> {
        let under = match under.map(str::trim).filter(|s| !s.is_empty() && *s != "/") {
            Some(p) => Some(PagePath::new(p.trim_end_matches('/'))?),
            None => None,
        };
        Ok(self
            .0
            .root
            .tree(under.as_ref())?
            .into_iter()
            .map(tree_node)
            .collect())
    }

    /// The target of a symbolic link.
    pub fn readlink(&self, path: &str) -> Result<String> {
        let path = PagePath::new(path)?;
        Ok(self.0.root.readlink(&path)?)
    }

    /// Creates or replaces one file.
    pub fn write(&self, path: &str, content: Vec<u8>, opts: &WriteOptions) -> Result<WriteResult> {
        let path = PagePath::new(path)?;
        let content = with_derived_from(&path, content, opts.derived_from.as_deref());
        let applied = self.0.apply(Change::one(
            FileOp {
                path,
                content: Some(content),
                expect: opts.expect.clone(),
            },
            opts,
            String::new,
        ))?;
        Ok(written(&applied))
    }

    /// [`Files::write`] for a caller that must not block (an async executor's thread): done
    /// where it is called when nothing can make it wait (a small file, no other write
    /// under way, commits batched and keeping up, no fsync), else `None` with nothing done,
    /// and the caller runs [`Files::write`] on a thread that may block. Either way the write
    /// passes the same pipeline and ends the same.
    pub fn try_write_at_once(
        &self,
        path: &str,
        content: &[u8],
        opts: &WriteOptions,
    ) -> Option<Result<WriteResult>> {
        let path = match PagePath::new(path) {
            Ok(path) => path,
            Err(e) => return Some(Err(e.into())),
        };
        let content = with_derived_from(&path, content.to_vec(), opts.derived_from.as_deref());
        let change = Change::one(
            FileOp {
                path,
                content: Some(content),
                expect: opts.expect.clone(),
            },
            opts,
            String::new,
        );
        let applied = match self.0.try_apply_at_once(change)? {
            Ok(applied) => applied,
            Err(e) => return Some(Err(e)),
        };
        Some(Ok(written(&applied)))
    }

    /// Writes one of the server's own settings files ([`crate::SERVER_FILES`]: the
    /// configuration, the list of added spaces), which [`Files::write`] refuses. For the
    /// operations that own them (space visibility, adding and removing spaces, each needing
    /// an admin credential); never with a path a caller chose. Committed at once.
    pub fn write_server_file(
        &self,
        path: &str,
        content: Vec<u8>,
        opts: &WriteOptions,
    ) -> Result<WriteResult> {
        let path = PagePath::new(path)?;
        if !crate::settings::SERVER_FILES.contains(&path.as_str()) {
            return Err(Error::bad_request(format!(
                "{path} is not a settings file of the server"
            )));
        }
        let applied = self.0.apply_server_file(
            Change::one(
                FileOp {
                    path,
                    content: Some(content),
                    expect: opts.expect.clone(),
                },
                opts,
                String::new,
            )
            .committed_now(),
        )?;
        Ok(written(&applied))
    }

    /// Deletes one file.
    pub fn delete(&self, path: &str, opts: &WriteOptions) -> Result<DeleteResult> {
        let path = PagePath::new(path)?;
        let applied = self.0.apply(Change::one(
            FileOp {
                path: path.clone(),
                content: None,
                expect: opts.expect.clone(),
            },
            opts,
            || format!("Delete {path}"),
        ))?;
        Ok(DeleteResult {
            path: applied.files[0].path.to_string(),
            deleted: true,
            commit: applied.commit,
        })
    }

    /// Writes many files as one change: all of them in one commit, or none.
    pub fn bulk(&self, files: Vec<(String, Vec<u8>)>, opts: &WriteOptions) -> Result<BulkResult> {
        let mut ops = Vec::with_capacity(files.len());
        for (path, content) in files {
            let path = PagePath::new(&path)?;
            let content = with_derived_from(&path, content, opts.derived_from.as_deref());
            ops.push(FileOp {
                path,
                content: Some(content),
                expect: Expect::Anything,
            });
        }
        let message = opts.message_or(|| match ops.len() {
            1 => format!("Bulk write of {}", ops[0].path),
            n => format!("Bulk write of {n} files"),
        });
        let applied = self.0.apply(Change {
            ops,
            actor: opts.actor(),
            message,
            announce: Announce::Bulk,
            commit: CommitMode::AsConfigured,
        })?;
        Ok(BulkResult {
            count: applied.files.len(),
            files: applied
                .files
                .iter()
                .map(|f| BulkWritten {
                    path: f.path.to_string(),
                    etag: f.etag.clone().unwrap_or_default(),
                })
                .collect(),
            commit: applied.commit,
        })
    }

    /// Adds text at the end of a page (creating it when missing), with `separator` between
    /// the old content and the new text. A concurrent writer in between makes it fail with a
    /// conflict instead of being overwritten.
    pub fn append(
        &self,
        path: &str,
        text: &[u8],
        separator: &str,
        opts: &WriteOptions,
    ) -> Result<AppendResult> {
        let page = PagePath::new(path)?;
        let (mut content, current) = match self.0.root.read(&page) {
            Ok(bytes) => {
                let tag = etag(&bytes);
                (bytes, Some(tag))
            }
            Err(quire_store::StoreError::NotFound { .. }) => (Vec::new(), None),
            Err(e) => return Err(e.into()),
        };
        if let Expect::Etag(expected) = &opts.expect {
            if current.as_ref() != Some(expected) {
                return Err(Error::conflict(format!(
                    "{page} was modified since the last read (its ETag no longer matches)"
                )));
            }
        }
        if !content.is_empty() {
            content.extend_from_slice(separator.as_bytes());
        }
        content.extend_from_slice(text);
        let applied = self.0.apply(Change::one(
            FileOp {
                path: page.clone(),
                content: Some(content),
                expect: match current {
                    Some(tag) => Expect::Etag(tag),
                    None => Expect::Absent,
                },
            },
            opts,
            || format!("Append to {page}"),
        ))?;
        Ok(AppendResult {
            path: applied.files[0].path.to_string(),
            etag: applied.files[0].etag.clone().unwrap_or_default(),
        })
    }

    /// The headings of a page, with the slugs `#fragment` links use.
    pub fn headings(&self, path: &str) -> Result<Vec<Heading>> {
        let content = self.read(path)?;
        let text = String::from_utf8_lossy(&content.bytes);
        Ok(quire_syntax::parse(&text)
            .headings
            .into_iter()
            .map(|h| Heading {
                level: h.level,
                text: h.text,
                slug: h.slug,
            })
            .collect())
    }

    /// Resolves links as the page `from` would (a page at the root of the space when `None`).
    /// A link written out in full (`[[Note|alias]]`, `![[img.png]]`, `[text](../a.md)`) is
    /// resolved by the rules of its kind, the way the page's own links are; anything else is
    /// a wiki-link target (`Note`, `folder/Note#Heading`).
    pub fn resolve_links(&self, from: Option<&str>, links: &[String]) -> Result<ResolvedLinks> {
        let from = PagePath::new(from.unwrap_or(RESOLVE_FROM))?;
        let vault = self.0.links.vault();
        let mut out = ResolvedLinks::default();
        for link in links {
            let parsed = quire_syntax::parse(link.trim());
            let resolution = match parsed.links.as_slice() {
                [one] if !one.target.is_empty() => vault.resolve(&from, one),
                [_] => Resolution::Unresolved,
                _ => {
                    let target = bare_target(link);
                    if target.is_empty() {
                        Resolution::Unresolved
                    } else {
                        vault.resolve_wiki(&from, target)
                    }
                }
            };
            match resolution.path() {
                Some(path) => {
                    let title = vault
                        .title(path)
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
                None => out.unresolved.push(link.clone()),
            }
        }
        Ok(out)
    }

    /// Names of the templates in `.quire/templates/` (paths below it without `.md`).
    pub fn templates(&self) -> Result<Vec<String>> {
        let dir = PagePath::new(TEMPLATES_DIR).expect("constant path is valid");
        let nodes = match self.0.root.tree(Some(&dir)) {
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

    /// One template as written.
    pub fn template(&self, name: &str) -> Result<Template> {
        let name = name.trim().trim_end_matches(".md");
        if name.is_empty() {
            return Err(Error::bad_request("a template name must not be empty"));
        }
        let path = PagePath::new(&format!("{TEMPLATES_DIR}/{name}.md"))?;
        let bytes = match self.0.root.read(&path) {
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
}

pub(crate) fn tree_node(node: quire_store::TreeNode) -> TreeNode {
    TreeNode {
        path: node.path,
        name: node.name,
        is_dir: node.is_dir,
        size: node.size,
        children: node
            .children
            .map(|children| children.into_iter().map(tree_node).collect()),
    }
}

/// A page records where it came from in its `derived-from` frontmatter key.
fn with_derived_from(path: &PagePath, content: Vec<u8>, source: Option<&str>) -> Vec<u8> {
    let Some(source) = source.map(str::trim).filter(|p| !p.is_empty()) else {
        return content;
    };
    if !path.is_page() {
        return content;
    }
    let text = match String::from_utf8(content) {
        Ok(text) => text,
        // Not text: there is no frontmatter to annotate, keep the bytes as they are.
        Err(e) => return e.into_bytes(),
    };
    let mut editor = quire_syntax::FrontmatterEditor::new(&text);
    editor.set("derived-from", &serde_json::Value::String(source.into()));
    editor.finish().into_bytes()
}

/// The pseudo page that link resolution resolves from: the root folder.
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

/// The answer to a write of one file.
fn written(applied: &Applied) -> WriteResult {
    let file = &applied.files[0];
    WriteResult {
        path: file.path.to_string(),
        etag: file.etag.clone().unwrap_or_default(),
        created: file.created,
        commit: applied.commit.clone(),
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
