//! `quire lsp`: the markdown language server, over a space of `quire-service`.
//!
//! It answers from the real link model: pages are parsed by `quire-syntax` (exact byte spans),
//! links resolved by the space's `Vault` exactly as everywhere else, and file renames planned
//! by the restructuring planner (`Restructure::plan_workspace_edit`) and turned into edits by
//! `quire_api::workspace_edit`. Open buffers are the truth for open files: their texts are
//! laid over the files in the (read-only) space with `Space::set_unsaved`. The server never
//! writes the root; every change it proposes is an edit the editor applies.
//!
//! Synchronous (`lsp-server`'s messages, our own framing in `transport`): one thread answers
//! requests in order, and re-reads what the root's watcher reports changed on disk (a move in
//! a shell, a save by another program) between them.

mod check;
mod complete;
mod edit;
mod navigate;
mod server;
pub mod text;
pub mod transport;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use lsp_server::{Connection, ErrorCode, Message, Response, ResponseError};
use quire_service::Space;

pub use server::capabilities;
pub use transport::{stdio, IoThreads};

/// How the server finds and opens its space.
pub struct Launch<'a> {
    /// The root given on the command line; else the editor's root (`rootUri`, the first
    /// workspace folder, `rootPath`), else the working folder.
    pub root: Option<PathBuf>,
    /// Opens the space of a root (read-only: the language server never writes).
    pub open: &'a dyn Fn(&Path) -> Result<Arc<Space>, String>,
}

/// Serves one editor over `connection` until it shuts down (or closes the connection).
///
/// A root that cannot be opened is the answer to `initialize` (an error naming the folder);
/// the session then waits for the editor's `exit`, refusing every request with the reason.
pub fn serve(connection: &Connection, launch: Launch<'_>) -> Result<(), String> {
    let (id, params) = connection
        .initialize_start()
        .map_err(|e| format!("initialize: {e}"))?;
    let client_root = server::client_root(&params);
    let space = match open_space(&launch, client_root.as_deref()) {
        Ok(space) => space,
        Err(message) => {
            tracing::error!("{message}");
            let _ = connection.sender.send(Message::Response(Response {
                id,
                response_result: Err(ResponseError {
                    code: ErrorCode::RequestFailed as i32,
                    message: message.clone(),
                    // `InitializeError`: trying again changes nothing.
                    data: Some(serde_json::json!({"retry": false})),
                }),
            }));
            refuse_until_exit(connection, &message);
            return Ok(());
        }
    };
    let client = server::ClientCaps::of(&params);
    connection
        .initialize_finish(
            id,
            serde_json::json!({
                "capabilities": capabilities(),
                "serverInfo": {"name": "quire", "version": env!("CARGO_PKG_VERSION")},
            }),
        )
        .map_err(|e| format!("initialize: {e}"))?;
    let mut server = server::Server::new(
        space.clone(),
        client_root.as_deref(),
        client,
        connection.sender.clone(),
    );
    // The root is watched here; the editor's own watching is asked for only without it.
    let (changed, disk_changes) = crossbeam_channel::unbounded();
    let _watching = match space.watch_changes(move |paths| {
        let _ = changed.send(paths);
    }) {
        Ok(watching) => Some(watching),
        Err(e) => {
            tracing::warn!("cannot watch {}: {e}", space.root_dir().display());
            if client.watching {
                server.register_watching();
            }
            None
        }
    };
    loop {
        crossbeam_channel::select! {
            recv(connection.receiver) -> message => {
                let Ok(message) = message else { return Ok(()) };
                match message {
                    Message::Request(request) => {
                        if connection
                            .handle_shutdown(&request)
                            .map_err(|e| format!("shutdown: {e}"))?
                        {
                            return Ok(());
                        }
                        let response = server.request(request);
                        if connection.sender.send(Message::Response(response)).is_err() {
                            return Ok(());
                        }
                    }
                    Message::Notification(notification) => {
                        if notification.method == "exit" {
                            return Ok(());
                        }
                        server.notification(notification);
                    }
                    Message::Response(_) => {}
                }
            }
            recv(disk_changes) -> paths => {
                if let Ok(paths) = paths {
                    server.disk_changed(paths);
                }
            }
        }
    }
}

/// The space of the root given, else the editor's, else the working folder's.
fn open_space(launch: &Launch<'_>, client_root: Option<&str>) -> Result<Arc<Space>, String> {
    let root = match launch
        .root
        .clone()
        .or_else(|| client_root.and_then(text::local_path))
    {
        Some(root) => root,
        None => std::env::current_dir()
            .map_err(|e| format!("quire lsp cannot read the working folder: {e}"))?,
    };
    (launch.open)(&root).map_err(|e| format!("quire lsp cannot open {}: {e}", root.display()))
}

/// After a failed `initialize`: `shutdown` is answered, every other request refused with
/// `why`, until `exit` (or the editor leaving).
fn refuse_until_exit(connection: &Connection, why: &str) {
    for message in &connection.receiver {
        let response = match message {
            Message::Request(request) if request.method == "shutdown" => {
                Response::new_ok(request.id, serde_json::Value::Null)
            }
            Message::Request(request) => Response::new_err(
                request.id,
                ErrorCode::ServerNotInitialized as i32,
                why.to_owned(),
            ),
            Message::Notification(n) if n.method == "exit" => return,
            _ => continue,
        };
        if connection.sender.send(Message::Response(response)).is_err() {
            return;
        }
    }
}
