//! `workspace_edit`: an editor's LSP `WorkspaceEdit` turned into a manifest and planned
//! (`Restructure::plan_workspace_edit` over a real, read-only space), and a plan turned back
//! into a `WorkspaceEdit` (`quire_api::workspace_edit::workspace_edit`).
//!
//! The input is the edit's JSON; `ROOT` in it stands for the root's absolute path as a URI
//! writes it (`file://ROOT/a.md`, `file://localhostROOT/a.md`), so a corpus names files under
//! the root wherever the root is. Properties: a request that decodes
//! serialises and decodes to itself; converting and planning it either succeeds or is refused
//! with a 4xx (never a 5xx, never a panic); every move of the manifest is root-relative with no
//! `.` or `..` component; every URI of the outgoing edit lies under the root and decodes to a
//! valid path.

use std::path::PathBuf;
use std::sync::OnceLock;

use quire_api::workspace_edit::{
    file_uri, workspace_edit, DocumentChange, FileOperation, WorkspaceEditRequest,
};
use quire_service::{Access, AssetRules, HistoryOptions, Space, SpaceSettings, Strategy};
use quire_syntax::percent_decode;
use quire_vault::PagePath;

use crate::memory::MemoryRoot;
use crate::text::{lossy, tokens};
use crate::Target;

pub const TARGET: Target = Target {
    name: "workspace_edit",
    run,
    dictionary,
    seeds: crate::no_seeds,
};

fn dictionary() -> Vec<Vec<u8>> {
    tokens(&[
        "{\"documentChanges\":[", "]}", "{\"kind\":\"rename\",\"oldUri\":\"file://ROOT/notes/a.md\",\"newUri\":\"file://ROOT/x/a.md\"}",
        "{\"kind\":\"create\",\"uri\":\"file://ROOT/n.md\"}", "{\"kind\":\"delete\",\"uri\":\"file://ROOT/notes/\"}",
        "{\"textDocument\":{\"uri\":\"file://ROOT/a.md\",\"version\":1},\"edits\":[]}",
        "\"changes\":{}", "\"changeAnnotations\":{}", "\"options\":{\"overwrite\":true}",
        "file://ROOT/", "file://localhost", "file:///", "file:", "FILE://", "%2e%2e/", "%2F",
        "%20", "%C3%A9", "%", "../", "./", "//", "?q", "#frag", "notes/", "projects/",
        "*", "?", "$1", "\\", "\"", ",",
    ])
}

/// The space: the fixture vault written once into a folder shared by every run of this
/// target (written through a temporary folder renamed into place), opened read-only.
fn space() -> &'static (Space, String) {
    static SPACE: OnceLock<(Space, String)> = OnceLock::new();
    SPACE.get_or_init(|| {
        let dir = std::env::temp_dir().join("quire-fuzz-workspace-edit-kb");
        if !dir.exists() {
            let staging = tempfile::tempdir_in(std::env::temp_dir()).expect("a temporary folder");
            for (path, text) in &MemoryRoot::fixture().0.files {
                let full = staging.path().join(path.as_str());
                std::fs::create_dir_all(full.parent().expect("a file has a folder"))
                    .expect("the fixture folder is written");
                std::fs::write(full, text).expect("the fixture file is written");
            }
            // Another process may have won the race: its folder is as good as ours.
            let staged = staging.keep();
            if std::fs::rename(&staged, &dir).is_err() {
                let _ = std::fs::remove_dir_all(&staged);
            }
        }
        let root: PathBuf = dir.canonicalize().expect("the fuzz root exists");
        let settings = SpaceSettings {
            name: "fuzz".into(),
            root: root.clone(),
            history: HistoryOptions {
                strategy: Strategy::None,
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
        };
        let space = Space::open_as(settings, &Access::ReadOnly).expect("the fuzz space opens");
        (space, file_uri(&root.to_string_lossy()))
    })
}

fn run(data: &[u8]) {
    let (space, root_uri) = space();
    let root_path = root_uri.trim_start_matches("file://");
    let text = lossy(data).replace("ROOT", root_path);
    let Ok(edit) = serde_json::from_str::<WorkspaceEditRequest>(&text) else {
        return;
    };
    let json = serde_json::to_string(&edit).expect("a request serialises");
    let again: WorkspaceEditRequest = serde_json::from_str(&json).expect("it decodes again");
    assert_eq!(again, edit, "a request changed through its JSON");

    let planned = match space
        .restructure()
        .plan_workspace_edit(&edit, false, Some("fuzz"), "fuzz")
    {
        Ok(planned) => planned,
        Err(e) => {
            let status = e.code.http_status();
            assert!(
                (400..500).contains(&status),
                "refused with {status}: {}",
                e.message
            );
            return;
        }
    };
    for entry in &planned.manifest.moves {
        for path in [entry.from.as_deref(), Some(entry.to.as_str())]
            .into_iter()
            .flatten()
        {
            assert!(!path.starts_with('/'), "the move names {path:?}");
            assert!(
                !path.split('/').any(|s| s == "." || s == ".."),
                "the move names {path:?}"
            );
        }
    }
    let outgoing = workspace_edit(&planned.plan, root_uri);
    for change in &outgoing.document_changes {
        let uris: Vec<&str> = match change {
            DocumentChange::Edit(edit) => vec![&edit.text_document.uri],
            DocumentChange::File(FileOperation::Rename { old_uri, new_uri }) => {
                vec![old_uri, new_uri]
            }
            DocumentChange::File(FileOperation::Delete { uri }) => vec![uri],
        };
        for uri in uris {
            let rest = uri
                .strip_prefix(root_uri.as_str())
                .and_then(|r| r.strip_prefix('/'))
                .unwrap_or_else(|| panic!("{uri} is not under {root_uri}"));
            let path = percent_decode(rest);
            assert!(PagePath::new(&path).is_ok(), "{uri} names {path:?}");
        }
    }
}
