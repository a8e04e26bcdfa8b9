//! A real space over a temporary folder, with real git, for the tests of this crate.

use std::path::Path;
use std::sync::Arc;

use quire_service::{AssetRules, HistoryOptions, Service, SpaceSettings};

/// A service of one space, `default`, at `root`, committing synchronously.
pub fn service(root: &Path) -> Arc<Service> {
    let service = Service::open(vec![SpaceSettings {
        name: "default".into(),
        root: root.to_path_buf(),
        history: HistoryOptions {
            async_commit: false,
            ..HistoryOptions::default()
        },
        assets: AssetRules::default(),
        refactor: Default::default(),
        claims: Default::default(),
        find: Default::default(),
        script: None,
        editorial: Default::default(),
        public_url: None,
        backup: None,
        janitor: Default::default(),
    }])
    .unwrap();
    Arc::new(service)
}

/// The commits of the repository at `root`, newest first: `author<TAB>subject`.
pub fn commits(root: &Path) -> Vec<String> {
    let out = std::process::Command::new("git")
        .args(["log", "--format=%an\t%s"])
        .current_dir(root)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}
