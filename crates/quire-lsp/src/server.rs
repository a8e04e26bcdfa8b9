//! The server's state (the space, the open documents) and the dispatch of requests and
//! notifications to the features.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use lsp_server::{Message, Notification, Request, RequestId, Response};
use lsp_types::{
    DidChangeTextDocumentParams, DidChangeWatchedFilesParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams,
};
use quire_service::Space;
use quire_syntax::{Link, LinkKind, ParsedPage};
use quire_vault::{PagePath, Resolution};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use crate::text::{Lines, RootUris};

/// An open document: the editor's text is the truth for it.
pub struct Doc {
    pub uri: String,
    pub version: i32,
    pub text: String,
    pub parsed: ParsedPage,
}

pub struct Server {
    pub space: Arc<Space>,
    pub roots: RootUris,
    /// Open documents below the root, by path.
    pub docs: BTreeMap<PagePath, Doc>,
    client: ClientCaps,
    /// Counts the changes of the link model (a buffer, a file on disk): the `resultId` of
    /// pulled diagnostics, which are unchanged while it is.
    pub generation: u64,
    sender: crossbeam_channel::Sender<Message>,
    next_id: i32,
}

/// What the editor said it can do, as far as the server cares.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClientCaps {
    /// It watches files for the server when asked (dynamic registration).
    pub watching: bool,
    /// It pulls diagnostics and pulls again when told to (`workspace/diagnostic/refresh`):
    /// diagnostics are then not also pushed, which would show each one twice.
    pub pull: bool,
}

impl ClientCaps {
    pub fn of(params: &Value) -> ClientCaps {
        let caps = &params["capabilities"];
        ClientCaps {
            watching: caps["workspace"]["didChangeWatchedFiles"]["dynamicRegistration"]
                .as_bool()
                .unwrap_or(false),
            pull: caps["textDocument"]["diagnostic"].is_object()
                && caps["workspace"]["diagnostics"]["refreshSupport"]
                    .as_bool()
                    .unwrap_or(false),
        }
    }
}

/// A failed request: its JSON-RPC error code and message.
pub struct Failure {
    pub code: i32,
    pub message: String,
}

impl Failure {
    pub fn invalid(message: impl Into<String>) -> Failure {
        Failure {
            code: lsp_server::ErrorCode::InvalidParams as i32,
            message: message.into(),
        }
    }

    pub fn failed(message: impl Into<String>) -> Failure {
        Failure {
            code: lsp_server::ErrorCode::RequestFailed as i32,
            message: message.into(),
        }
    }
}

impl From<quire_service::Error> for Failure {
    fn from(e: quire_service::Error) -> Failure {
        Failure::failed(e.message)
    }
}

pub type Answer = Result<Value, Failure>;

/// The root URI the editor sent at initialize, if any.
pub fn client_root(params: &Value) -> Option<String> {
    params["rootUri"]
        .as_str()
        .map(str::to_owned)
        .or_else(|| {
            params["workspaceFolders"][0]["uri"]
                .as_str()
                .map(str::to_owned)
        })
        .or_else(|| {
            params["rootPath"]
                .as_str()
                .map(quire_api::workspace_edit::file_uri)
        })
}

/// What the server offers. Full text sync; diagnostics pushed, or pulled per page and for the
/// whole root; file operations on every file and folder, since a page can link to any file
/// (an image, a PDF, a canvas), not only to pages.
pub fn capabilities() -> Value {
    let filters = json!([
        {"scheme": "file", "pattern": {"glob": "**/*", "matches": "file"}},
        {"scheme": "file", "pattern": {"glob": "**/*", "matches": "folder"}},
    ]);
    json!({
        "textDocumentSync": {"openClose": true, "change": 1, "save": {"includeText": false}},
        "definitionProvider": true,
        "referencesProvider": true,
        "hoverProvider": true,
        "completionProvider": {"triggerCharacters": ["[", "(", "#", "^", "/"]},
        "documentSymbolProvider": true,
        "workspaceSymbolProvider": true,
        "renameProvider": {"prepareProvider": true},
        "codeActionProvider": {"codeActionKinds": ["quickfix"]},
        "diagnosticProvider": {
            "identifier": "quire",
            "interFileDependencies": true,
            "workspaceDiagnostics": true,
        },
        "workspace": {
            "fileOperations": {
                "willRename": {"filters": filters},
                "didRename": {"filters": filters},
                "didCreate": {"filters": filters},
                "didDelete": {"filters": filters},
            }
        },
    })
}

fn params<P: DeserializeOwned>(value: Value) -> Result<P, Failure> {
    serde_json::from_value(value).map_err(|e| Failure::invalid(format!("bad params: {e}")))
}

impl Server {
    pub fn new(
        space: Arc<Space>,
        client_root: Option<&str>,
        client: ClientCaps,
        sender: crossbeam_channel::Sender<Message>,
    ) -> Server {
        let roots = RootUris::new(space.root_dir(), client_root);
        Server {
            space,
            roots,
            docs: BTreeMap::new(),
            client,
            generation: 0,
            sender,
            next_id: 0,
        }
    }

    pub fn sender(&self) -> &crossbeam_channel::Sender<Message> {
        &self.sender
    }

    fn send(&self, message: Message) {
        let _ = self.sender.send(message);
    }

    /// Asks the editor to tell the server of files changed on disk (when the server cannot
    /// watch the root itself).
    pub fn register_watching(&mut self) {
        self.next_id += 1;
        let request = Request::new(
            RequestId::from(format!("quire-watch-{}", self.next_id)),
            "client/registerCapability".into(),
            json!({"registrations": [{
                "id": "quire-watch",
                "method": "workspace/didChangeWatchedFiles",
                "registerOptions": {"watchers": [{"globPattern": "**/*"}]},
            }]}),
        );
        self.send(Message::Request(request));
    }

    pub fn request(&mut self, request: Request) -> Response {
        let Request { id, method, params } = request;
        let answer = self.answer(&method, params);
        match answer {
            Ok(value) => Response::new_ok(id, value),
            Err(failure) => {
                tracing::debug!("{method} failed: {}", failure.message);
                Response::new_err(id, failure.code, failure.message)
            }
        }
    }

    fn answer(&mut self, method: &str, value: Value) -> Answer {
        match method {
            "textDocument/definition" => self.definition(params(value)?),
            "textDocument/references" => self.references(params(value)?),
            "textDocument/hover" => self.hover(params(value)?),
            "textDocument/completion" => self.completion(params(value)?),
            "textDocument/documentSymbol" => self.document_symbols(params(value)?),
            "workspace/symbol" => self.workspace_symbols(params(value)?),
            "textDocument/prepareRename" => self.prepare_rename(params(value)?),
            "textDocument/rename" => self.rename(params(value)?),
            "textDocument/codeAction" => self.code_actions(params(value)?),
            "textDocument/diagnostic" => self.document_diagnostic(params(value)?),
            "workspace/diagnostic" => self.workspace_diagnostic(params(value)?),
            "workspace/willRenameFiles" => self.will_rename_files(params(value)?),
            _ => Err(Failure {
                code: lsp_server::ErrorCode::MethodNotFound as i32,
                message: format!("quire lsp does not answer {method}"),
            }),
        }
    }

    pub fn notification(&mut self, notification: Notification) {
        let Notification { method, params } = notification;
        let done = match method.as_str() {
            "textDocument/didOpen" => serde_json::from_value(params).map(|p| self.did_open(p)),
            "textDocument/didChange" => serde_json::from_value(params).map(|p| self.did_change(p)),
            "textDocument/didClose" => serde_json::from_value(params).map(|p| self.did_close(p)),
            "workspace/didChangeWatchedFiles" => {
                serde_json::from_value::<DidChangeWatchedFilesParams>(params).map(|p| {
                    let uris: Vec<String> = p
                        .changes
                        .iter()
                        .map(|c| c.uri.as_str().to_owned())
                        .collect();
                    self.reread(uris.iter().map(String::as_str));
                })
            }
            "workspace/didRenameFiles" => {
                serde_json::from_value::<lsp_types::RenameFilesParams>(params).map(|p| {
                    let uris = p.files.iter().flat_map(|f| [&f.old_uri, &f.new_uri]);
                    self.reread(uris.map(String::as_str));
                })
            }
            "workspace/didCreateFiles" => {
                serde_json::from_value::<lsp_types::CreateFilesParams>(params)
                    .map(|p| self.reread(p.files.iter().map(|f| f.uri.as_str())))
            }
            "workspace/didDeleteFiles" => {
                serde_json::from_value::<lsp_types::DeleteFilesParams>(params)
                    .map(|p| self.reread(p.files.iter().map(|f| f.uri.as_str())))
            }
            _ => Ok(()),
        };
        if let Err(e) = done {
            tracing::warn!("{method}: bad params: {e}");
        }
    }

    fn did_open(&mut self, p: DidOpenTextDocumentParams) {
        let uri = p.text_document.uri.as_str().to_owned();
        let Some(path) = self.roots.path_of(&uri) else {
            return;
        };
        self.set_doc(path, uri, p.text_document.version, p.text_document.text);
    }

    fn did_change(&mut self, p: DidChangeTextDocumentParams) {
        let uri = p.text_document.uri.as_str().to_owned();
        let Some(path) = self.roots.path_of(&uri) else {
            return;
        };
        let Some(doc) = self.docs.get(&path) else {
            return;
        };
        let mut text = doc.text.clone();
        for change in p.content_changes {
            match change.range {
                None => text = change.text,
                Some(range) => {
                    let lines = Lines::new(&text);
                    let start = lines.offset(range.start.line, range.start.character);
                    let end = lines.offset(range.end.line, range.end.character);
                    text.replace_range(start..end.max(start), &change.text);
                }
            }
        }
        self.set_doc(path, uri, p.text_document.version, text);
    }

    fn did_close(&mut self, p: DidCloseTextDocumentParams) {
        let uri = p.text_document.uri.as_str();
        let Some(path) = self.roots.path_of(uri) else {
            return;
        };
        if let Some(doc) = self.docs.remove(&path) {
            if let Err(e) = self.space.set_unsaved(&path, None) {
                tracing::warn!("closing {path}: {}", e.message);
            }
            if !self.client.pull {
                self.publish(&doc.uri, None, Vec::new());
            }
            self.model_changed(true);
        }
    }

    fn set_doc(&mut self, path: PagePath, uri: String, version: i32, text: String) {
        if let Err(e) = self.space.set_unsaved(&path, Some(text.clone())) {
            tracing::warn!("{path}: {}", e.message);
        }
        let parsed = quire_syntax::parse(&text);
        self.docs.insert(
            path,
            Doc {
                uri,
                version,
                text,
                parsed,
            },
        );
        // A pulling editor pulls again after the change it sent.
        self.model_changed(false);
    }

    /// Files another program changed, as the editor reports them: read again (open
    /// documents keep their texts).
    fn reread<'a>(&mut self, uris: impl Iterator<Item = &'a str>) {
        let paths: Vec<PagePath> = uris.filter_map(|u| self.roots.path_of(u)).collect();
        self.reread_paths(paths);
    }

    /// What the root's watcher saw change on disk (`None`: anything may have changed).
    pub fn disk_changed(&mut self, paths: Option<Vec<PagePath>>) {
        let paths = match paths {
            Some(paths) => paths,
            None => self.everything(),
        };
        let paths = paths.into_iter().filter(|p| !is_internal(p)).collect();
        self.reread_paths(paths);
    }

    fn reread_paths(&mut self, paths: Vec<PagePath>) {
        if paths.is_empty() {
            return;
        }
        if let Err(e) = self.space.reread(&paths) {
            tracing::warn!("reading changed files: {}", e.message);
        }
        self.model_changed(true);
    }

    /// Every file the model knows and every entry at the top of the root (a folder standing
    /// for everything below it): what to read again after lost events.
    fn everything(&self) -> Vec<PagePath> {
        let mut paths: Vec<PagePath> = self.space.vault().files().cloned().collect();
        match std::fs::read_dir(self.space.root_dir()) {
            Ok(entries) => paths.extend(
                entries
                    .flatten()
                    .filter_map(|e| e.file_name().to_str().and_then(|n| PagePath::new(n).ok())),
            ),
            Err(e) => tracing::warn!("listing the root: {e}"),
        }
        paths
    }

    /// After a change of the link model: diagnostics of every open document are pushed again
    /// (links elsewhere may have come or gone), or a pulling editor is told to pull again
    /// when `refresh` (it pulls by itself after a change it sent).
    pub fn model_changed(&mut self, refresh: bool) {
        self.generation += 1;
        if !self.client.pull {
            for (path, doc) in &self.docs {
                let diagnostics = self.diagnostics(path, doc);
                self.publish(&doc.uri, Some(doc.version), diagnostics);
            }
        } else if refresh {
            self.next_id += 1;
            let id = RequestId::from(format!("quire-refresh-{}", self.next_id));
            self.send(Message::Request(Request::new(
                id,
                "workspace/diagnostic/refresh".into(),
                Value::Null,
            )));
        }
    }

    fn publish(&self, uri: &str, version: Option<i32>, diagnostics: Vec<Value>) {
        let mut params = json!({"uri": uri, "diagnostics": diagnostics});
        if let Some(version) = version {
            params["version"] = json!(version);
        }
        self.send(Message::Notification(Notification::new(
            "textDocument/publishDiagnostics".into(),
            params,
        )));
    }

    /// The open document a request names.
    pub fn doc(&self, uri: &str) -> Result<(PagePath, &Doc), Failure> {
        let path = self.roots.path_of(uri).ok_or_else(|| {
            Failure::invalid(format!("{uri} is not a page of this knowledge base"))
        })?;
        match self.docs.get(&path) {
            Some(doc) => Ok((path, doc)),
            None => Err(Failure::invalid(format!(
                "{path} is not open (send textDocument/didOpen first)"
            ))),
        }
    }

    /// A page's text: the editor's when it is open, else the file's.
    pub fn text_of(&self, path: &PagePath) -> Option<Cow<'_, str>> {
        if let Some(doc) = self.docs.get(path) {
            return Some(Cow::Borrowed(&doc.text));
        }
        let content = self.space.files().read(path.as_str()).ok()?;
        String::from_utf8(content.bytes).ok().map(Cow::Owned)
    }

    /// What a link names, by the space's link model.
    pub fn resolve(&self, from: &PagePath, link: &Link) -> Resolution {
        self.space.vault().resolve(from, link)
    }

    /// The version to name a document with in an edit: the open document's, else `null`.
    pub fn version_of(&self, path: &PagePath) -> Value {
        self.docs
            .get(path)
            .map_or(Value::Null, |doc| json!(doc.version))
    }
}

/// quire's own bookkeeping and git's (at the top of the root): no files of the knowledge base.
pub fn is_internal(path: &PagePath) -> bool {
    let top = path.as_str().split('/').next().unwrap_or_default();
    top == ".quire" || top == ".git"
}

/// The link of a parsed page at a byte offset (its whole occurrence, ends included).
pub fn link_at(parsed: &ParsedPage, offset: usize) -> Option<&Link> {
    parsed
        .links
        .iter()
        .find(|l| l.kind != LinkKind::Canvas && l.span.start <= offset && offset <= l.span.end)
}
