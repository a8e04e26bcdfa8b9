//! Settings documents: the JSON files of one kind under `.quire/` (views, workflows,
//! schemas), one file a name (`<dir>/<name>.json`). Listing, reading, writing and deleting
//! them is the same for every kind; each kind keeps only what is its own (its checks, what
//! it does with the content). Every write and delete is one pass of the pipeline.

use quire_store::{Root, StoreError};
use quire_vault::PagePath;
use serde::de::DeserializeOwned;

use crate::change::{Applied, Change, FileOp, WriteOptions};
use crate::core::SpaceCore;
use crate::error::{Error, Result};

/// One kind of settings document.
pub(crate) struct Documents {
    /// The folder inside the root, e.g. `.quire/views`.
    pub(crate) dir: &'static str,
    /// What one is called in messages and commit messages: `view`, `workflow`, `schema`.
    pub(crate) kind: &'static str,
}

impl Documents {
    /// The file of `name`, after checking the name (`[A-Za-z0-9_-]{1,64}`).
    pub(crate) fn path(&self, name: &str) -> Result<PagePath> {
        crate::names::check_name(self.kind, name)?;
        Ok(PagePath::new(&format!("{}/{name}.json", self.dir))?)
    }

    /// The names of the documents that exist, sorted (files whose stem is no valid name,
    /// such as a workflow's `<name>.order.json`, are not documents).
    pub(crate) fn names(&self, root: &Root) -> Result<Vec<String>> {
        let dir = PagePath::new(self.dir).expect("constant path is valid");
        let nodes = match root.tree(Some(&dir)) {
            Ok(nodes) => nodes,
            Err(StoreError::NotFound { .. }) => Vec::new(),
            Err(e) => return Err(e.into()),
        };
        let mut names: Vec<String> = nodes
            .iter()
            .filter(|n| !n.is_dir)
            .filter_map(|n| n.name.strip_suffix(".json"))
            .filter(|name| crate::names::check_name(self.kind, name).is_ok())
            .map(str::to_string)
            .collect();
        names.sort();
        Ok(names)
    }

    /// The bytes of a document; not found (`no view named x`) when there is none.
    pub(crate) fn read(&self, root: &Root, name: &str) -> Result<Vec<u8>> {
        let path = self.path(name)?;
        match root.read(&path) {
            Err(StoreError::NotFound { .. }) => Err(self.missing(name)),
            other => Ok(other?),
        }
    }

    /// A document read as JSON of type `T`; unprocessable when its file holds no such value.
    pub(crate) fn read_json<T: DeserializeOwned>(&self, root: &Root, name: &str) -> Result<T> {
        let bytes = self.read(root, name)?;
        serde_json::from_slice(&bytes).map_err(|e| {
            Error::unprocessable(format!(
                "{}/{name}.json does not hold a valid {}: {e}",
                self.dir, self.kind
            ))
        })
    }

    /// Every document that reads as `T`, by name; one that does not is skipped and logged.
    pub(crate) fn list_json<T: DeserializeOwned>(&self, root: &Root) -> Result<Vec<(String, T)>> {
        let mut out = Vec::new();
        for name in self.names(root)? {
            match self.read_json(root, &name) {
                Ok(value) => out.push((name, value)),
                Err(e) => tracing::warn!("{}/{name}.json is skipped: {}", self.dir, e.message),
            }
        }
        Ok(out)
    }

    /// Writes one document (created or replaced) by the caller of `opts`, as its own change:
    /// `Save <kind> <name>` unless the caller gave a message.
    pub(crate) fn write_one(
        &self,
        core: &SpaceCore,
        name: &str,
        bytes: Vec<u8>,
        opts: &WriteOptions,
    ) -> Result<Applied> {
        let op = FileOp {
            path: self.path(name)?,
            content: Some(bytes),
            expect: opts.expect.clone(),
        };
        core.apply(Change::one(op, opts, || {
            format!("Save {} {name}", self.kind)
        }))
    }

    /// Deletes one document as its own change (`Delete <kind> <name>`), with the files
    /// `also` names when they exist (a workflow's column order); not found when the document
    /// does not exist.
    pub(crate) fn delete_one(
        &self,
        core: &SpaceCore,
        name: &str,
        also: &[PagePath],
        opts: &WriteOptions,
    ) -> Result<Applied> {
        let path = self.path(name)?;
        if core.root.kind(&path)?.is_none() {
            return Err(self.missing(name));
        }
        let mut change = Change::one(
            FileOp {
                path,
                content: None,
                expect: opts.expect.clone(),
            },
            opts,
            || format!("Delete {} {name}", self.kind),
        );
        for path in also {
            if core.root.kind(path)?.is_some() {
                change.ops.push(FileOp {
                    path: path.clone(),
                    content: None,
                    expect: crate::change::Expect::Anything,
                });
            }
        }
        core.apply(change)
    }

    fn missing(&self, name: &str) -> Error {
        Error::not_found(format!("no {} named {name}", self.kind))
    }
}
