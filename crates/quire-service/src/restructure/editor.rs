//! Editor renames: an LSP `WorkspaceEdit` becomes a manifest of moves. Only file renames are
//! kept; text edits, creates and deletes are listed as ignored, since the plan computes its own
//! link edits. A URI must be a local `file://` URI under the root (see docs/decisions.md, "Editor
//! renames: URI mapping").

use std::path::Path;

use quire_api::restructure::MoveEntry;
use quire_api::workspace_edit::{IncomingChange, IncomingFileOperation, WorkspaceEditRequest};
use quire_restructure::Manifest;

use crate::error::{Error, Result};

/// The manifest an edit's renames become, and every part of the edit left unused, with why.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Converted {
    pub manifest: Manifest,
    pub ignored: Vec<String>,
}

/// Converts `edit` for the knowledge base at `root` (its canonical folder). `is_dir` says
/// whether a root-relative path is a folder now: such a rename moves the whole folder. A
/// rename whose old path does not exist still becomes a move, for the planner to report.
///
/// Refused (bad request): a rename whose URI is not a `file://` URI under the root, and an
/// edit without any rename.
pub(crate) fn manifest_of(
    edit: &WorkspaceEditRequest,
    root: &Path,
    is_dir: impl Fn(&str) -> bool,
) -> Result<Converted> {
    let root = root.to_string_lossy();
    let root = root.trim_end_matches('/');
    let mut moves = Vec::new();
    let mut ignored = Vec::new();
    let shown = |uri: &str| match root_relative(uri, root) {
        Ok(path) => path.path,
        Err(_) => uri.to_string(),
    };
    for (i, change) in edit.document_changes.iter().flatten().enumerate() {
        let at = format!("documentChanges[{i}]");
        match change {
            IncomingChange::File(IncomingFileOperation::Rename {
                old_uri,
                new_uri,
                options,
            }) => {
                let old = root_relative(old_uri, root)
                    .map_err(|why| refused(&at, "oldUri", old_uri, &why, root))?;
                let new = root_relative(new_uri, root)
                    .map_err(|why| refused(&at, "newUri", new_uri, &why, root))?;
                moves.push(move_entry(&old, &new, is_dir(&old.path)));
                if options.as_ref().and_then(|o| o.overwrite) == Some(true) {
                    ignored.push(format!(
                        "{at}.options.overwrite: not honoured; a move never overwrites, an \
                         existing destination is reported as a conflict"
                    ));
                }
            }
            IncomingChange::File(IncomingFileOperation::Create { uri, .. }) => {
                ignored.push(format!(
                    "{at}: create of {} ignored; only renames are planned",
                    shown(uri)
                ));
            }
            IncomingChange::File(IncomingFileOperation::Delete { uri, .. }) => {
                ignored.push(format!(
                    "{at}: delete of {} ignored; only renames are planned",
                    shown(uri)
                ));
            }
            IncomingChange::Edit(edit) => {
                ignored.push(format!(
                    "{at}: text edits of {} ignored; the plan computes its own link edits",
                    shown(&edit.text_document.uri)
                ));
            }
            IncomingChange::Other(_) => {
                ignored.push(format!(
                    "{at}: neither a file operation nor a text document edit; ignored"
                ));
            }
        }
    }
    if let Some(changes) = edit.changes.as_ref().filter(|c| !c.is_empty()) {
        ignored.push(format!(
            "changes: text edits of {} document(s) ignored; the plan computes its own link edits",
            changes.len()
        ));
    }
    if edit.change_annotations.is_some() {
        ignored.push("changeAnnotations: ignored with the text edits they annotate".into());
    }
    if moves.is_empty() {
        return Err(Error::bad_request(
            "the workspace edit renames no files: send documentChanges entries with \
             kind \"rename\", oldUri and newUri (text edits alone are not planned)",
        ));
    }
    Ok(Converted {
        manifest: Manifest {
            moves,
            ..Manifest::default()
        },
        ignored,
    })
}

fn refused(at: &str, field: &str, uri: &str, why: &str, root: &str) -> Error {
    Error::bad_request(format!(
        "{at}: {field} {uri:?} {why}; renames must stay inside the knowledge base \
         (file://{root}/…)"
    ))
}

/// A path below the root, as the URI wrote it.
#[derive(Debug, Clone, PartialEq)]
struct RootPath {
    /// Root-relative, `/`-separated, without a trailing `/`.
    path: String,
    /// The URI ended with `/`: it names a folder.
    folder: bool,
}

/// The move of one rename. A folder (now a folder in the root, or written with a trailing
/// `/`) moves as `from: "dir/"` to `to: "newdir/"`.
fn move_entry(old: &RootPath, new: &RootPath, old_is_dir: bool) -> MoveEntry {
    let folder = old.folder || old_is_dir;
    let to = if folder || new.folder {
        format!("{}/", new.path)
    } else {
        new.path.clone()
    };
    if folder {
        return MoveEntry {
            from: Some(format!("{}/", old.path)),
            from_regex: None,
            to,
        };
    }
    if old.path.contains(['*', '?']) {
        // The planner reads `*` and `?` in `from` as a glob; an anchored literal regex moves
        // exactly this file (and `$` in `to` must not expand a capture).
        return MoveEntry {
            from: None,
            from_regex: Some(regex_literal(&old.path)),
            to: to.replace('$', "$$"),
        };
    }
    MoveEntry {
        from: Some(old.path.clone()),
        from_regex: None,
        to,
    }
}

fn regex_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for c in text.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The root-relative path a `file://` URI names, or why it names none. `root` is the root's
/// absolute path without a trailing `/`.
fn root_relative(uri: &str, root: &str) -> std::result::Result<RootPath, String> {
    let absolute = file_uri_path(uri)?;
    let rest = if absolute == root || absolute == format!("{root}/") {
        return Err("is the knowledge base's root itself".into());
    } else if let Some(rest) = absolute
        .strip_prefix(root)
        .and_then(|r| r.strip_prefix('/'))
    {
        rest
    } else {
        return Err(format!("is outside the knowledge base ({absolute})"));
    };
    let mut segments = Vec::new();
    for segment in rest.split('/') {
        match segment {
            "" => {}
            "." | ".." => return Err("contains `.` or `..` segments".into()),
            s => segments.push(s),
        }
    }
    if segments.is_empty() {
        // `file:///kb//` names the root as surely as `file:///kb/`.
        return Err("is the knowledge base's root itself".into());
    }
    Ok(RootPath {
        path: segments.join("/"),
        folder: rest.ends_with('/'),
    })
}

/// The absolute, percent-decoded path of a local `file:` URI: `file:///p`, `file://localhost/p`
/// or `file:/p`. A query or fragment is dropped.
fn file_uri_path(uri: &str) -> std::result::Result<String, String> {
    let uri = uri.trim();
    let Some((scheme, rest)) = uri.split_once(':') else {
        return Err("is not a URI (file:///…)".into());
    };
    if !scheme.eq_ignore_ascii_case("file") {
        return Err(format!("is not a file:// URI (scheme {scheme:?})"));
    }
    let path = match rest.strip_prefix("//") {
        Some(after) => {
            let (host, path) = after.split_at(after.find('/').unwrap_or(after.len()));
            if !host.is_empty() && !host.eq_ignore_ascii_case("localhost") {
                return Err(format!("names the host {host:?}, not a local file"));
            }
            path
        }
        None => rest,
    };
    if !path.starts_with('/') {
        return Err("has no absolute path".into());
    }
    let path = path.split(['?', '#']).next().unwrap_or_default();
    quire_syntax::percent_decode_strict(path).map_err(|e| match e {
        quire_syntax::PercentError::BadEscape { .. } => {
            "has a `%` that is not followed by two hex digits".into()
        }
        quire_syntax::PercentError::NotUtf8 => "decodes to a path that is not UTF-8".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use quire_api::workspace_edit::file_uri;

    const ROOT: &str = "/srv/my kb";

    fn edit(json: serde_json::Value) -> WorkspaceEditRequest {
        serde_json::from_value(json).expect("the edit parses")
    }

    fn rename(old: &str, new: &str) -> serde_json::Value {
        serde_json::json!({"kind": "rename", "oldUri": old, "newUri": new})
    }

    fn convert(json: serde_json::Value) -> Result<Converted> {
        manifest_of(&edit(json), Path::new(ROOT), |p| p == "notes" || p == "a/b")
    }

    fn moves(c: &Converted) -> Vec<(Option<&str>, Option<&str>, &str)> {
        c.manifest
            .moves
            .iter()
            .map(|m| (m.from.as_deref(), m.from_regex.as_deref(), m.to.as_str()))
            .collect()
    }

    #[test]
    fn uris_decode_to_root_relative_paths() {
        let root = ROOT;
        let ok = |uri: &str| root_relative(uri, root).unwrap();
        assert_eq!(ok("file:///srv/my%20kb/a%20b/%C3%BC.md").path, "a b/ü.md");
        assert_eq!(ok("file://localhost/srv/my%20kb/x.md").path, "x.md");
        assert_eq!(ok("FILE://LOCALHOST/srv/my%20kb/x.md").path, "x.md");
        assert_eq!(ok("file:/srv/my%20kb/x.md").path, "x.md");
        assert_eq!(ok("file:///srv/my kb/x.md#L3").path, "x.md");
        let dir = ok("file:///srv/my%20kb/notes/");
        assert_eq!((dir.path.as_str(), dir.folder), ("notes", true));
        assert_eq!(ok(&file_uri("/srv/my kb/a/b c.md")).path, "a/b c.md");
    }

    #[test]
    fn uris_outside_the_root_are_refused() {
        let bad = |uri: &str| root_relative(uri, ROOT).unwrap_err();
        assert!(bad("file:///srv/other/x.md").contains("outside"));
        assert!(bad("file:///srv/my%20kbx/x.md").contains("outside"));
        assert!(bad("file:///srv/my%20kb").contains("root itself"));
        assert!(bad("file:///srv/my%20kb/../etc/x.md").contains(".."));
        assert!(bad("https://example.com/x.md").contains("not a file://"));
        assert!(bad("untitled").contains("not a URI"));
        assert!(bad("file://server/srv/my%20kb/x.md").contains("host"));
        assert!(bad("file:///srv/my%20kb/%zz.md").contains("hex"));
        assert!(bad("file:///srv/my%20kb/%FF.md").contains("UTF-8"));
        assert!(bad("file:relative.md").contains("absolute"));
    }

    /// Found by the `workspace_edit` fuzz target: `file:///kb//` passed as a path under the
    /// root, and a folder renamed to it became a move to `/`.
    #[test]
    fn the_root_written_with_extra_slashes_is_the_root_itself() {
        let bad = |uri: &str| root_relative(uri, ROOT).unwrap_err();
        for uri in [
            "file:///srv/my%20kb//",
            "file:///srv/my%20kb///",
            "file:///srv/my%20kb//?q",
        ] {
            assert!(bad(uri).contains("root itself"), "{uri}");
        }
        let folder_to_root = convert(serde_json::json!({"documentChanges": [
            rename("file:///srv/my%20kb/notes/", "file:///srv/my%20kb//")
        ]}));
        assert!(folder_to_root.unwrap_err().message.contains("root itself"));
    }

    #[test]
    fn renames_become_moves_and_the_rest_is_ignored() {
        let c = convert(serde_json::json!({
            "documentChanges": [
                {"textDocument": {"uri": "file:///srv/my%20kb/a.md", "version": 1}, "edits": []},
                rename("file:///srv/my%20kb/a.md", "file:///srv/my%20kb/z/a.md"),
                rename("file:///srv/my%20kb/notes", "file:///srv/my%20kb/archive/notes"),
                rename("file:///srv/my%20kb/x/", "file:///srv/my%20kb/y"),
                rename("file:///srv/my%20kb/c.md", "file:///srv/my%20kb/d/"),
                {"kind": "create", "uri": "file:///srv/my%20kb/new.md"},
                {"kind": "delete", "uri": "file:///elsewhere/old.md"},
                {"unexpected": true}
            ],
            "changes": {"file:///srv/my%20kb/b.md": [], "file:///srv/my%20kb/c.md": []}
        }))
        .unwrap();
        assert_eq!(
            moves(&c),
            vec![
                (Some("a.md"), None, "z/a.md"),
                (Some("notes/"), None, "archive/notes/"),
                (Some("x/"), None, "y/"),
                (Some("c.md"), None, "d/"),
            ]
        );
        assert_eq!(c.ignored.len(), 5, "{:?}", c.ignored);
        assert!(c.ignored[0].starts_with("documentChanges[0]: text edits of a.md"));
        assert!(c.ignored[1].contains("create of new.md"));
        assert!(c.ignored[2].contains("delete of file:///elsewhere/old.md"));
        assert!(c.ignored[3].starts_with("documentChanges[7]"));
        assert!(c.ignored[4].contains("2 document(s)"));
        assert!(quire_restructure::validate_manifest(&c.manifest).is_ok());
    }

    #[test]
    fn glob_characters_in_a_file_name_move_that_file_only() {
        let c = convert(serde_json::json!({"documentChanges": [
            rename("file:///srv/my%20kb/what%3F.md", "file:///srv/my%20kb/a/$1.md")
        ]}))
        .unwrap();
        assert_eq!(moves(&c), vec![(None, Some("what\\?\\.md"), "a/$$1.md")]);
        let regex = quire_restructure::validate_manifest(&c.manifest);
        assert!(regex.is_ok(), "{regex:?}");
    }

    #[test]
    fn an_edit_without_renames_or_with_a_foreign_uri_is_refused() {
        let none = convert(serde_json::json!({"changes": {"file:///srv/my%20kb/a.md": []}}));
        assert!(none.unwrap_err().message.contains("renames no files"));
        let empty = convert(serde_json::json!({}));
        assert!(empty.unwrap_err().message.contains("renames no files"));
        let outside = convert(serde_json::json!({"documentChanges": [
            rename("file:///srv/my%20kb/a.md", "file:///tmp/a.md")
        ]}))
        .unwrap_err();
        assert!(
            outside.message.starts_with("documentChanges[0]: newUri"),
            "{}",
            outside.message
        );
        assert!(outside.message.contains("outside"), "{}", outside.message);
        let scheme = convert(serde_json::json!({"documentChanges": [
            rename("untitled:Untitled-1", "file:///srv/my%20kb/a.md")
        ]}))
        .unwrap_err();
        assert!(scheme.message.contains("oldUri"), "{}", scheme.message);
    }
}
