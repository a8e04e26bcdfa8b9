//! LSP `WorkspaceEdit`s both ways. Outgoing: a plan as an edit (text edits of the rewritten
//! link targets at their positions before the plan, then file renames and deletes), so an
//! editor (or `quire-lsp`) can use it as it is. Incoming: an editor's edit whose file renames
//! become a manifest (`POST /refactor/from-workspace-edit`); its text edits are ignored.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use utoipa::ToSchema;

use crate::restructure::{Manifest, Plan};

/// An LSP `WorkspaceEdit` with `documentChanges`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceEdit {
    pub document_changes: Vec<DocumentChange>,
}

/// One entry of `documentChanges`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(untagged)]
pub enum DocumentChange {
    Edit(TextDocumentEdit),
    File(FileOperation),
}

/// Text edits of one document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TextDocumentEdit {
    pub text_document: VersionedDocument,
    pub edits: Vec<TextEdit>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct VersionedDocument {
    pub uri: String,
    /// Always `null`: the edit applies to the file as it is on disk.
    pub version: Option<i32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TextEdit {
    pub range: Range,
    pub new_text: String,
}

/// 0-based lines, UTF-16 code unit columns, as LSP counts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Range {
    pub start: Position,
    pub end: Position,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Position {
    pub line: u32,
    pub character: u32,
}

/// A file rename or delete.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum FileOperation {
    #[serde(rename_all = "camelCase")]
    Rename {
        old_uri: String,
        new_uri: String,
    },
    Delete {
        uri: String,
    },
}

/// An LSP `WorkspaceEdit` as an editor sends it (`POST /refactor/from-workspace-edit`). Only
/// the file renames of `documentChanges` are used; every other part is listed as ignored.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceEditRequest {
    /// Renames (`kind: "rename"`, `oldUri`, `newUri`) become moves; text document edits,
    /// creates and deletes are ignored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document_changes: Option<Vec<IncomingChange>>,
    /// Text edits by document URI: ignored (the plan computes its own link edits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub changes: Option<BTreeMap<String, serde_json::Value>>,
    /// Annotations of the edits: ignored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub change_annotations: Option<serde_json::Value>,
}

/// One entry of an incoming `documentChanges`: a file operation (told apart by `kind`), a text
/// document edit (`textDocument` and `edits`), or anything else (kept, to be listed as
/// ignored).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema, JsonSchema)]
#[serde(untagged)]
pub enum IncomingChange {
    File(IncomingFileOperation),
    Edit(IncomingTextDocumentEdit),
    #[schema(value_type = Object)]
    Other(serde_json::Value),
}

/// LSP leaves the entries untagged: `kind` marks a file operation, `textDocument` a text edit.
/// A file operation or text edit of the wrong shape is refused with the reason; an entry that
/// is neither is kept as it is.
impl<'de> Deserialize<'de> for IncomingChange {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        let Some(object) = value.as_object() else {
            return Err(D::Error::custom(
                "each entry of documentChanges must be an object",
            ));
        };
        let kind = object
            .get("kind")
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned);
        let text_document = object.contains_key("textDocument");
        match kind.as_deref() {
            Some(kind @ ("rename" | "create" | "delete")) => {
                IncomingFileOperation::deserialize(value)
                    .map(IncomingChange::File)
                    .map_err(|e| D::Error::custom(format!("a {kind} entry: {e}")))
            }
            None if text_document => IncomingTextDocumentEdit::deserialize(value)
                .map(IncomingChange::Edit)
                .map_err(|e| D::Error::custom(format!("a text document edit: {e}"))),
            _ => Ok(IncomingChange::Other(value)),
        }
    }
}

/// A file operation of an incoming `WorkspaceEdit`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum IncomingFileOperation {
    #[serde(rename_all = "camelCase")]
    Rename {
        old_uri: String,
        new_uri: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        options: Option<RenameOptions>,
    },
    Create {
        uri: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schema(value_type = Option<Object>)]
        options: Option<serde_json::Value>,
    },
    Delete {
        uri: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schema(value_type = Option<Object>)]
        options: Option<serde_json::Value>,
    },
}

/// LSP `RenameFileOptions`. A rename never overwrites, whatever `overwrite` says.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RenameOptions {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overwrite: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore_if_exists: Option<bool>,
}

/// An incoming text document edit: only its document is read (to say what was ignored).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IncomingTextDocumentEdit {
    pub text_document: IncomingDocument,
    #[serde(default)]
    #[schema(value_type = Vec<Object>)]
    pub edits: Vec<serde_json::Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct IncomingDocument {
    pub uri: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<i64>,
}

/// The answer of `POST /refactor/from-workspace-edit`: the manifest the renames became, its
/// plan, and every part of the edit that was not used, with why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct WorkspaceEditPlan {
    pub manifest: Manifest,
    pub plan: Plan,
    /// Each unused part of the edit and why, e.g. `documentChanges[1]: text edits of a.md
    /// ignored; …`.
    pub ignored: Vec<String>,
}

/// The plan as a `WorkspaceEdit` for files under `root_uri` (a `file://` URI of the root).
/// Text edits name each page where it is before the plan, since editors apply text edits
/// before renames.
pub fn workspace_edit(plan: &Plan, root_uri: &str) -> WorkspaceEdit {
    let root = root_uri.trim_end_matches('/');
    let uri = |path: &str| format!("{root}/{}", encode_uri_path(path));
    let mut changes = Vec::new();
    for edit in &plan.edits {
        let current = edit.from.as_ref().unwrap_or(&edit.path);
        let edits: Vec<TextEdit> = edit
            .links
            .iter()
            .filter_map(|link| {
                let range = link.range?;
                Some(TextEdit {
                    range: Range {
                        start: Position {
                            line: range.start.0,
                            character: range.start.1,
                        },
                        end: Position {
                            line: range.end.0,
                            character: range.end.1,
                        },
                    },
                    new_text: link.new.clone(),
                })
            })
            .collect();
        if !edits.is_empty() {
            changes.push(DocumentChange::Edit(TextDocumentEdit {
                text_document: VersionedDocument {
                    uri: uri(current.as_str()),
                    version: None,
                },
                edits,
            }));
        }
    }
    for change in &plan.moves {
        changes.push(DocumentChange::File(FileOperation::Rename {
            old_uri: uri(change.from.as_str()),
            new_uri: uri(change.to.as_str()),
        }));
    }
    for change in &plan.merges {
        changes.push(DocumentChange::File(FileOperation::Delete {
            uri: uri(change.from.as_str()),
        }));
    }
    WorkspaceEdit {
        document_changes: changes,
    }
}

/// Percent-encodes a `/`-separated path for a URI, keeping `/` and the unreserved bytes.
pub fn encode_uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The `file://` URI of an absolute path written with `/`.
pub fn file_uri(absolute: &str) -> String {
    format!("file://{}", encode_uri_path(absolute))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_paths_encode_spaces_and_unicode() {
        assert_eq!(encode_uri_path("a b/ü.md"), "a%20b/%C3%BC.md");
        assert_eq!(encode_uri_path("x-y_z.md"), "x-y_z.md");
        assert_eq!(file_uri("/srv/my kb"), "file:///srv/my%20kb");
    }

    #[test]
    fn renames_and_deletes_have_the_lsp_shape() {
        let change = DocumentChange::File(FileOperation::Rename {
            old_uri: "file:///a".into(),
            new_uri: "file:///b".into(),
        });
        assert_eq!(
            serde_json::to_value(&change).unwrap(),
            serde_json::json!({"kind": "rename", "oldUri": "file:///a", "newUri": "file:///b"})
        );
        let edit = WorkspaceEdit {
            document_changes: vec![DocumentChange::Edit(TextDocumentEdit {
                text_document: VersionedDocument {
                    uri: "file:///x".into(),
                    version: None,
                },
                edits: vec![],
            })],
        };
        assert_eq!(
            serde_json::to_value(&edit).unwrap(),
            serde_json::json!({"documentChanges": [{"textDocument": {"uri": "file:///x", "version": null}, "edits": []}]})
        );
    }

    #[test]
    fn incoming_entries_are_told_apart_by_kind_and_text_document() {
        let body = serde_json::json!({
            "documentChanges": [
                {"kind": "rename", "oldUri": "file:///kb/a.md", "newUri": "file:///kb/b.md",
                 "options": {"overwrite": true}, "annotationId": "x"},
                {"textDocument": {"uri": "file:///kb/c.md", "version": 3},
                 "edits": [{"range": {}, "newText": "x", "annotationId": "y"}]},
                {"kind": "create", "uri": "file:///kb/new.md"},
                {"kind": "delete", "uri": "file:///kb/old.md", "options": {"recursive": true}},
                {"something": "else"}
            ],
            "changes": {"file:///kb/c.md": []}
        });
        let edit: WorkspaceEditRequest = serde_json::from_value(body).unwrap();
        let changes = edit.document_changes.unwrap();
        assert!(matches!(
            &changes[0],
            IncomingChange::File(IncomingFileOperation::Rename { options: Some(o), .. })
                if o.overwrite == Some(true)
        ));
        assert!(
            matches!(&changes[1], IncomingChange::Edit(e) if e.text_document.uri == "file:///kb/c.md")
        );
        assert!(matches!(
            &changes[2],
            IncomingChange::File(IncomingFileOperation::Create { .. })
        ));
        assert!(matches!(
            &changes[3],
            IncomingChange::File(IncomingFileOperation::Delete { .. })
        ));
        assert!(matches!(&changes[4], IncomingChange::Other(_)));
        assert_eq!(edit.changes.unwrap().len(), 1);
    }

    #[test]
    fn a_malformed_rename_is_refused_with_the_reason() {
        let body =
            serde_json::json!({"documentChanges": [{"kind": "rename", "oldUri": "file:///a"}]});
        let err = serde_json::from_value::<WorkspaceEditRequest>(body).unwrap_err();
        assert!(err.to_string().contains("rename entry"), "{err}");
        assert!(err.to_string().contains("newUri"), "{err}");
        let body = serde_json::json!({"documentChanges": ["file:///a"]});
        let err = serde_json::from_value::<WorkspaceEditRequest>(body).unwrap_err();
        assert!(err.to_string().contains("must be an object"), "{err}");
        let empty: WorkspaceEditRequest = serde_json::from_str("{}").unwrap();
        assert_eq!(empty, WorkspaceEditRequest::default());
    }
}
