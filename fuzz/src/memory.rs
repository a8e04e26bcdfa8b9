//! An in-memory knowledge root for the targets that plan: the restructuring fixture vault
//! (`crates/quire-restructure/tests/fixtures/vault`), read once, with a `Source` over it and an
//! in-memory apply that checks every ETag as the pipeline does.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use quire_restructure::{FileOp, Source, SourceFile, Workspace};
use quire_vault::{PagePath, Vault};

use crate::text::hash;

#[derive(Clone, Default)]
pub struct MemoryRoot {
    pub files: BTreeMap<PagePath, String>,
}

fn etag(text: &str) -> String {
    format!("{:016x}", hash(text.as_bytes()))
}

impl Source for MemoryRoot {
    fn read(&self, path: &PagePath) -> Option<SourceFile> {
        self.files.get(path).map(|text| SourceFile {
            text: text.clone(),
            etag: etag(text),
        })
    }
}

impl MemoryRoot {
    /// The fixture vault, loaded on first use.
    pub fn fixture() -> &'static (MemoryRoot, Vault) {
        static ROOT: OnceLock<(MemoryRoot, Vault)> = OnceLock::new();
        ROOT.get_or_init(|| {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../crates/quire-restructure/tests/fixtures/vault");
            let mut root = MemoryRoot::default();
            load(&dir, &dir, &mut root);
            let vault = root.vault();
            (root, vault)
        })
    }

    fn vault(&self) -> Vault {
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

    pub fn workspace<'a>(&'a self, vault: &'a Vault) -> Workspace<'a> {
        Workspace {
            vault,
            source: self,
            personal_files: self
                .files
                .keys()
                .filter(|p| p.as_str().starts_with(".quire/personal/"))
                .cloned()
                .collect(),
            protect: vec!["private/**".into()],
            scope: None,
            claimed: BTreeMap::new(),
            base: Some("0123abcd".into()),
            actor: None,
            names: Default::default(),
        }
    }

    /// Runs a plan's ops in order, checking each ETag; the error says which op failed.
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
                        return Err(format!("move {from}: ETag changed"));
                    }
                    if self.files.insert(to.clone(), text).is_some() {
                        return Err(format!("move {from}: {to} exists"));
                    }
                }
                FileOp::Delete { path, expect } => {
                    let text = self
                        .files
                        .remove(path)
                        .ok_or(format!("delete: {path} missing"))?;
                    if etag(&text) != *expect {
                        return Err(format!("delete {path}: ETag changed"));
                    }
                }
            }
        }
        Ok(())
    }
}

fn load(root: &Path, dir: &Path, into: &mut MemoryRoot) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        panic!("the fixture vault {} is missing", dir.display());
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            load(root, &path, into);
            continue;
        }
        let Ok(relative) = path.strip_prefix(root) else {
            continue;
        };
        let bytes = std::fs::read(&path).unwrap_or_default();
        let text =
            String::from_utf8(bytes).unwrap_or_else(|_| format!("binary {}", path.display()));
        if let Ok(page) = PagePath::new(&relative.to_string_lossy()) {
            into.files.insert(page, text);
        }
    }
}
