//! A plan as an LSP `WorkspaceEdit` (editor renames): text edits of the rewritten link targets
//! at their positions before the plan, then file renames and deletes. The shape is the LSP
//! one, so an editor (or `quire-lsp`) can use it as it is.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::restructure::Plan;

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
}
