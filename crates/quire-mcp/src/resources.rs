//! The `quire://` resources: `quire://schema` (every tool with its input schema),
//! `quire://file/{path}`, `quire://tree/{path}` and, when raw moves exist,
//! `quire://refactor/raw-moves`; and `resources/subscribe`, fed by the space's event bus.

use quire_api::Event;
use quire_service::{Error, ErrorCode};
use rmcp::model::{
    ListResourcesResult, ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
    ResourceUpdatedNotificationParam,
};
use rmcp::service::Peer;
use rmcp::{ErrorData, RoleServer};

use crate::McpServer;

pub(crate) const SCHEMA: &str = "quire://schema";
pub(crate) const FILE: &str = "quire://file/";
pub(crate) const TREE: &str = "quire://tree/";
pub(crate) const RAW_MOVES: &str = "quire://refactor/raw-moves";

pub(crate) async fn list(server: &McpServer) -> Result<ListResourcesResult, ErrorData> {
    let space = server.space();
    let raw_moves = tokio::task::spawn_blocking(move || space.raw_moves())
        .await
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?
        .unwrap_or_default();
    let mut out = vec![
        Resource::new(SCHEMA, "schema")
            .with_description(
                "Every quire_* tool with its description and input JSON Schema, and the \
                 resources; the REST API is described at /api/openapi.json",
            )
            .with_mime_type("application/json"),
        Resource::new(TREE, "tree")
            .with_description("The files and folders of the whole knowledge root")
            .with_mime_type("application/json"),
    ];
    if !raw_moves.is_empty() {
        out.push(
            Resource::new(RAW_MOVES, "raw-moves")
                .with_description(
                    "Moves made without rewriting links (outside quire, or a rename with \
                     relink off); repair them with a `relinks` manifest",
                )
                .with_mime_type("application/json"),
        );
    }
    Ok(ListResourcesResult::with_all_items(out))
}

pub(crate) fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new("quire://file/{path}", "file")
            .with_description("A file's content by root-relative path (percent-encode spaces)")
            .with_mime_type("text/markdown"),
        ResourceTemplate::new("quire://tree/{path}", "tree")
            .with_description("The files and folders below a folder")
            .with_mime_type("application/json"),
    ]
}

/// Reads a resource; an unknown URI or missing file is a resource-not-found error.
pub(crate) async fn read(server: &McpServer, uri: &str) -> Result<ReadResourceResult, ErrorData> {
    let space = server.space();
    let owned = uri.to_string();
    let contents = tokio::task::spawn_blocking(move || -> Result<ResourceContents, Error> {
        let uri = owned.as_str();
        if uri == SCHEMA {
            let vectors = space.vector_status().is_some();
            let tools =
                serde_json::to_value(crate::tools::list(vectors)).map_err(Error::internal)?;
            let templates = serde_json::to_value(templates()).map_err(Error::internal)?;
            let body = serde_json::json!({
                "tools": tools,
                "resources": [SCHEMA, TREE, RAW_MOVES],
                "resourceTemplates": templates,
                "rest": "/api/openapi.json",
            });
            return Ok(json(uri, &body));
        }
        if uri == RAW_MOVES {
            let moves = space.raw_moves()?;
            return Ok(json(uri, &serde_json::json!({ "moves": moves })));
        }
        if let Some(path) = uri.strip_prefix(TREE).map(decode) {
            let under = Some(path.as_str()).filter(|p| !p.is_empty());
            let nodes = space.files().tree(under)?;
            return Ok(json(uri, &serde_json::json!({ "nodes": nodes })));
        }
        if let Some(path) = uri.strip_prefix(FILE).map(decode) {
            let file = space.files().read(&path)?;
            return Ok(match String::from_utf8(file.bytes) {
                Ok(text) => ResourceContents::text(text, uri).with_mime_type(mime_of(&path)),
                Err(e) => ResourceContents::blob(base64(e.as_bytes()), uri)
                    .with_mime_type("application/octet-stream"),
            });
        }
        Err(Error::not_found(format!(
            "no resource {uri:?}: use quire://schema, quire://file/<path>, \
             quire://tree/<folder> or quire://refactor/raw-moves"
        )))
    })
    .await
    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    match contents {
        Ok(c) => Ok(ReadResourceResult::new(vec![c])),
        Err(e) if e.code == ErrorCode::NotFound => {
            Err(ErrorData::resource_not_found(e.to_string(), None))
        }
        Err(e) => Err(ErrorData::invalid_params(e.to_string(), None)),
    }
}

/// Subscribes this session to `uri`; the first subscription starts forwarding the space's
/// events as `notifications/resources/updated`.
pub(crate) fn subscribe(
    server: &McpServer,
    uri: String,
    peer: Peer<RoleServer>,
) -> Result<(), ErrorData> {
    let known = uri == SCHEMA || uri == RAW_MOVES || uri.starts_with(FILE) || uri.starts_with(TREE);
    if !known {
        return Err(ErrorData::resource_not_found(
            format!("no resource {uri:?} to subscribe to"),
            None,
        ));
    }
    server
        .subscriptions
        .lock()
        .expect("subscriptions lock")
        .insert(uri);
    let mut forwarding = server.forwarding.lock().expect("forwarding lock");
    if !*forwarding {
        *forwarding = true;
        let mut events = server.space().events().subscribe();
        let subscriptions = server.subscriptions.clone();
        tokio::spawn(async move {
            loop {
                let event = match events.recv().await {
                    Ok(event) => event,
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                };
                let wanted: Vec<String> = {
                    let subs = subscriptions.lock().expect("subscriptions lock");
                    touched(&event)
                        .into_iter()
                        .filter(|u| subs.contains(u))
                        .collect()
                };
                for uri in wanted {
                    let note = ResourceUpdatedNotificationParam::new(uri);
                    if peer.notify_resource_updated(note).await.is_err() {
                        return;
                    }
                }
            }
        });
    }
    Ok(())
}

/// The resource URIs an event changes: each file, and the tree of every folder above it.
fn touched(event: &Event) -> Vec<String> {
    let paths: Vec<&str> = match event {
        Event::Write { path, .. } | Event::Delete { path, .. } => vec![path.as_str()],
        Event::Bulk { paths, .. } | Event::Import { paths, .. } => {
            paths.iter().map(String::as_str).collect()
        }
        #[allow(unreachable_patterns)]
        _ => Vec::new(),
    };
    let mut out = Vec::new();
    for path in paths {
        out.push(format!("{FILE}{path}"));
        out.push(TREE.to_string());
        let mut folder = path;
        while let Some((parent, _)) = folder.rsplit_once('/') {
            out.push(format!("{TREE}{parent}"));
            out.push(format!("{TREE}{parent}/"));
            folder = parent;
        }
    }
    out.sort();
    out.dedup();
    out
}

fn json(uri: &str, value: &serde_json::Value) -> ResourceContents {
    ResourceContents::text(value.to_string(), uri).with_mime_type("application/json")
}

fn mime_of(path: &str) -> &'static str {
    if path.ends_with(".md") {
        "text/markdown"
    } else if path.ends_with(".json") || path.ends_with(".canvas") {
        "application/json"
    } else {
        "text/plain"
    }
}

/// The path part of a `quire://file/…` or `quire://tree/…` URI: percent-decoded by the
/// project's one decoder (escapes that do not decode stay as written), without trailing `/`.
fn decode(s: &str) -> String {
    quire_syntax::percent_decode(s)
        .trim_end_matches('/')
        .to_string()
}

/// A blob's bytes in standard padded base64, as MCP's `blob` field carries them.
fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_handles_escapes_and_trailing_slashes() {
        assert_eq!(decode("a%20b/c.md"), "a b/c.md");
        assert_eq!(decode("notes/"), "notes");
        assert_eq!(decode("100%"), "100%");
        assert_eq!(decode("%aé.md"), "%aé.md");
        assert_eq!(decode("caf%C3%A9.md"), "café.md");
    }

    #[test]
    fn base64_pads() {
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
    }

    #[test]
    fn an_event_touches_its_file_and_the_trees_above() {
        let event = Event::Write {
            path: "a/b/c.md".into(),
            actor: "x".into(),
            timestamp: "t".into(),
        };
        let uris = touched(&event);
        for uri in [
            "quire://file/a/b/c.md",
            "quire://tree/",
            "quire://tree/a",
            "quire://tree/a/b",
        ] {
            assert!(uris.contains(&uri.to_string()), "{uri}");
        }
    }
}
