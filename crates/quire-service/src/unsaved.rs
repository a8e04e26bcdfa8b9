//! Texts an editor holds that are not saved yet, standing in for their files in a read-only
//! space (the language server's): link resolution, backlinks and plans answer as if the
//! texts were on disk. Nothing is written; a writable space refuses them, since its model must
//! follow the files it commits.

use quire_store::StoreError;
use quire_vault::PagePath;

use crate::core::SpaceCore;
use crate::error::{Error, Result};

impl SpaceCore {
    /// Sets (`Some`) or drops (`None`) the unsaved text of a page and brings the link model
    /// up to date: dropping it reads the file from disk again.
    pub(crate) fn set_unsaved(&self, path: &PagePath, text: Option<String>) -> Result<()> {
        self.refuse_writable()?;
        {
            let mut unsaved = self.unsaved.write().unwrap_or_else(|p| p.into_inner());
            match text {
                Some(text) => {
                    unsaved.insert(path.clone(), text);
                }
                None => {
                    unsaved.remove(path);
                }
            }
        }
        self.reread(std::slice::from_ref(path))
    }

    /// The unsaved text of a page, if an editor holds one.
    pub(crate) fn unsaved_text(&self, path: &PagePath) -> Option<String> {
        self.unsaved
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(path)
            .cloned()
    }

    /// Reads the given files (or folders: every file below them, on disk and in the model)
    /// again, after another program changed them; unsaved texts keep standing in for their
    /// files.
    pub(crate) fn reread(&self, paths: &[PagePath]) -> Result<()> {
        self.refuse_writable()?;
        let mut files: Vec<PagePath> = Vec::new();
        for path in paths {
            let prefix = format!("{}/", path.as_str());
            files.extend(
                self.links
                    .vault()
                    .files()
                    .filter(|f| f.as_str().starts_with(&prefix))
                    .cloned(),
            );
            match self.root.kind(path) {
                Ok(Some(quire_store::EntryKind::Dir)) => {
                    let mut below = Vec::new();
                    collect_files(&self.root.tree(Some(path))?, &mut below);
                    files.extend(below);
                }
                _ => files.push(path.clone()),
            }
        }
        files.sort();
        files.dedup();
        let mut changes = Vec::with_capacity(files.len());
        {
            let unsaved = self.unsaved.read().unwrap_or_else(|p| p.into_inner());
            for path in files {
                let disk = match self.root.disk_name(&path) {
                    Ok(disk) => disk,
                    Err(_) => quire_store::DiskName::from(&path),
                };
                let content = match unsaved.get(&path) {
                    Some(text) => Some(text.clone().into_bytes()),
                    None => match self.root.read_on_disk(&disk) {
                        Ok(bytes) => Some(bytes),
                        Err(StoreError::NotFound { .. }) | Err(StoreError::IsFolder { .. }) => None,
                        Err(e) => return Err(e.into()),
                    },
                };
                changes.push((path, disk, content));
            }
        }
        self.links.index_changes(
            &self.root,
            changes
                .iter()
                .map(|(path, disk, content)| (path, disk, content.as_deref())),
        );
        Ok(())
    }

    fn refuse_writable(&self) -> Result<()> {
        match self.writer {
            None => Ok(()),
            Some(_) => Err(Error::bad_request(
                "unsaved texts and re-reads are for read-only spaces; a writable space learns \
                 of changes through its pipeline",
            )),
        }
    }
}

fn collect_files(nodes: &[quire_store::TreeNode], out: &mut Vec<PagePath>) {
    for node in nodes {
        match &node.children {
            Some(children) => collect_files(children, out),
            None if !node.is_dir => {
                if let Ok(path) = PagePath::new(&node.path) {
                    out.push(path);
                }
            }
            None => {}
        }
    }
}
