//! A space over a real root in a tempdir, with real git, called without any adapter.

#![allow(dead_code)]

use std::path::Path;

use quire_service::{AssetRules, HistoryOptions, Space, SpaceSettings, Strategy};

pub struct TestSpace {
    pub dir: tempfile::TempDir,
    pub space: Space,
}

/// Synchronous git commits: every change is committed before the call returns.
pub fn sync_git() -> HistoryOptions {
    HistoryOptions {
        async_commit: false,
        ..HistoryOptions::default()
    }
}

impl TestSpace {
    /// A space over a root holding `files`, with synchronous git commits.
    pub fn new(files: &[(&str, &str)]) -> TestSpace {
        TestSpace::with(sync_git(), Default::default(), files)
    }

    pub fn with(
        history: HistoryOptions,
        refactor: quire_config::RefactorConfig,
        files: &[(&str, &str)],
    ) -> TestSpace {
        let dir = tempfile::tempdir().expect("tempdir");
        for (path, content) in files {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, content).unwrap();
        }
        let space = Space::open(SpaceSettings {
            name: "test".into(),
            root: dir.path().to_path_buf(),
            history,
            assets: AssetRules::default(),
            refactor,
            claims: Default::default(),
            find: Default::default(),
            script: None,
            editorial: Default::default(),
            public_url: None,
            backup: None,
            janitor: Default::default(),
        })
        .expect("space opens");
        // The first index pass done: a test's first search must not meet "being built".
        space.find().flush();
        TestSpace { dir, space }
    }

    pub fn cow() -> TestSpace {
        TestSpace::with(
            HistoryOptions {
                strategy: Strategy::Cow,
                ..sync_git()
            },
            Default::default(),
            &[("a.md", "# A\n")],
        )
    }

    pub fn disk(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(self.dir.path().join(path)).ok()
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// The id of HEAD, read from the files git keeps (no libgit2 needed).
    pub fn head(&self) -> Option<String> {
        self.space.versions().head()
    }

    /// The commit message of the newest version of `path`.
    pub fn last_message(&self, path: &str) -> String {
        self.space.versions().of(path).unwrap()[0].message.clone()
    }

    pub fn last_author(&self, path: &str) -> String {
        self.space.versions().of(path).unwrap()[0].author.clone()
    }

    /// The ref file HEAD points at (`.git/refs/heads/<branch>`).
    pub fn head_ref(&self) -> std::path::PathBuf {
        let head = std::fs::read_to_string(self.dir.path().join(".git/HEAD")).unwrap();
        let name = head.trim().strip_prefix("ref: ").expect("HEAD is symbolic");
        self.dir.path().join(".git").join(name)
    }
}
