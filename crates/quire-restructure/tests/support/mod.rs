//! Test support: an in-memory root (files by path), the vault and `Source` over it, and an
//! in-memory apply of a plan's ops.

#![allow(dead_code)]

use std::collections::BTreeMap;

use quire_restructure::{FileOp, PageTimes, Source, SourceFile, Workspace};
use quire_vault::{PagePath, Vault};
use sha2::{Digest, Sha256};

/// Every file of a root, `.quire/` included, by path.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryRoot {
    pub files: BTreeMap<PagePath, String>,
}

/// A content hash standing in for the git blob id.
pub fn etag(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .take(10)
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Source for MemoryRoot {
    fn read(&self, path: &PagePath) -> Option<SourceFile> {
        self.files.get(path).map(|text| SourceFile {
            text: text.clone(),
            etag: etag(text),
        })
    }

    /// Every page was created on 2023-03-14 and last changed on 2024-06-01 (UTC).
    fn times(&self, path: &PagePath) -> PageTimes {
        if !self.files.contains_key(path) {
            return PageTimes::default();
        }
        let at = |s: &str| chrono::DateTime::parse_from_rfc3339(s).ok();
        PageTimes {
            created: at("2023-03-14T09:26:53Z"),
            modified: at("2024-06-01T12:00:00Z"),
        }
    }
}

impl MemoryRoot {
    pub fn insert(&mut self, path: &str, text: &str) {
        self.files.insert(
            PagePath::new(path).expect("valid fixture path"),
            text.to_owned(),
        );
    }

    /// The vault of every file outside `.quire/`, pages and canvases summarised.
    pub fn vault(&self) -> Vault {
        let mut vault = Vault::new();
        for (path, text) in &self.files {
            if path.as_str().starts_with(".quire/") {
                continue;
            }
            if path.is_page() {
                vault.upsert_page(path.clone(), text);
            } else if path.is_canvas() {
                vault.upsert_canvas(path.clone(), text);
            } else {
                vault.insert_file(path.clone());
            }
        }
        vault
    }

    pub fn personal_files(&self) -> Vec<PagePath> {
        self.files
            .keys()
            .filter(|p| p.as_str().starts_with(".quire/personal/") && p.as_str().ends_with(".json"))
            .cloned()
            .collect()
    }

    pub fn workspace<'a>(&'a self, vault: &'a Vault) -> Workspace<'a> {
        Workspace {
            vault,
            source: self,
            personal_files: self.personal_files(),
            protect: Vec::new(),
            scope: None,
            claimed: BTreeMap::new(),
            base: Some("0123abcd".into()),
            actor: None,
            names: Default::default(),
        }
    }

    /// Runs `ops` in order, checking every ETag as apply would.
    pub fn apply(&mut self, ops: &[FileOp]) -> Result<(), String> {
        for op in ops {
            match op {
                FileOp::Write {
                    path,
                    content,
                    expect,
                } => {
                    let current = self.files.get(path).map(|t| etag(t));
                    if current != *expect {
                        return Err(format!(
                            "write {path}: expected {expect:?}, found {current:?}"
                        ));
                    }
                    self.files.insert(path.clone(), content.clone());
                }
                FileOp::Move { from, to, expect } => {
                    let text = self
                        .files
                        .remove(from)
                        .ok_or(format!("move: {from} missing"))?;
                    if etag(&text) != *expect {
                        return Err(format!("move {from}: etag changed"));
                    }
                    if self.files.contains_key(to) {
                        return Err(format!("move {from}: {to} exists"));
                    }
                    self.files.insert(to.clone(), text);
                }
                FileOp::Delete { path, expect } => {
                    let text = self
                        .files
                        .remove(path)
                        .ok_or(format!("delete: {path} missing"))?;
                    if etag(&text) != *expect {
                        return Err(format!("delete {path}: etag changed"));
                    }
                }
            }
        }
        Ok(())
    }
}

/// Loads a fixture folder into memory.
pub fn load_dir(dir: &std::path::Path) -> MemoryRoot {
    let mut root = MemoryRoot::default();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).expect("fixture folder") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let relative = path.strip_prefix(dir).expect("under root");
                let text = std::fs::read_to_string(&path).expect("fixture text");
                root.insert(&relative.to_string_lossy().replace('\\', "/"), &text);
            }
        }
    }
    root
}

/// A generated vault as a memory root (binary files stand in as text).
pub fn generated(spec: &quire_testkit::VaultSpec) -> MemoryRoot {
    let mut root = MemoryRoot::default();
    for file in quire_testkit::generate(spec).files {
        let text = match file.text() {
            Some(text) => text.to_owned(),
            None => format!("binary {}", file.path),
        };
        root.insert(&file.path, &text);
    }
    root
}

/// The links of a page or canvas.
pub fn links_of(path: &PagePath, text: &str) -> Vec<quire_syntax::Link> {
    if path.is_canvas() {
        quire_syntax::parse_canvas(text)
    } else {
        quire_syntax::parse(text).links
    }
}
