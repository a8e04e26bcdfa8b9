//! A test server: a real knowledge root in a tempdir, real git, the router called without a
//! socket.

#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use quire_service::{AssetRules, Service, SpaceSettings};
use quire_service::{HistoryOptions, Strategy};
use tower::ServiceExt;

pub struct TestServer {
    pub dir: tempfile::TempDir,
    pub service: Arc<Service>,
    pub app: Router,
}

pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "body is not JSON ({e}): {}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    pub fn text(&self) -> String {
        String::from_utf8(self.body.clone()).expect("utf-8 body")
    }

    pub fn header(&self, name: &str) -> String {
        self.headers
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default()
    }

    /// Asserts a status and an `{"error": …}` body; returns the message.
    pub fn expect_error(&self, status: u16) -> String {
        assert_eq!(
            self.status.as_u16(),
            status,
            "body: {}",
            String::from_utf8_lossy(&self.body)
        );
        let v = self.json();
        let obj = v.as_object().expect("error body is an object");
        obj["error"]
            .as_str()
            .expect("error is a string")
            .to_string()
    }
}

pub fn sync_git() -> HistoryOptions {
    options(Strategy::Git, false)
}

pub fn options(strategy: Strategy, async_commit: bool) -> HistoryOptions {
    HistoryOptions {
        strategy,
        async_commit,
        batch_window: Duration::from_millis(20),
        ..HistoryOptions::default()
    }
}

impl TestServer {
    /// The server once every space's first index pass is done: a test's first search or
    /// export must not meet "the index is being built" (503) on a loaded machine.
    fn indexed(dir: tempfile::TempDir, service: Arc<Service>, app: Router) -> TestServer {
        for space in service.spaces() {
            space.find().flush();
        }
        TestServer { dir, service, app }
    }

    pub fn new() -> TestServer {
        TestServer::with(sync_git(), AssetRules::default(), &[])
    }

    /// A server over a root that already holds `files`.
    pub fn with(history: HistoryOptions, assets: AssetRules, files: &[(&str, &str)]) -> TestServer {
        TestServer::configured(history, assets, Default::default(), files)
    }

    /// Same, with `[refactor]` rules.
    pub fn configured(
        history: HistoryOptions,
        assets: AssetRules,
        refactor: quire_config::RefactorConfig,
        files: &[(&str, &str)],
    ) -> TestServer {
        TestServer::built(history, assets, refactor, None, files)
    }

    /// A server whose restructuring scripts run as `runner` says.
    pub fn scripted(runner: quire_service::ScriptRunner, files: &[(&str, &str)]) -> TestServer {
        TestServer::built(
            sync_git(),
            AssetRules::default(),
            Default::default(),
            Some(runner),
            files,
        )
    }

    fn built(
        history: HistoryOptions,
        assets: AssetRules,
        refactor: quire_config::RefactorConfig,
        script: Option<quire_service::ScriptRunner>,
        files: &[(&str, &str)],
    ) -> TestServer {
        let dir = tempfile::tempdir().expect("tempdir");
        for (path, content) in files {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, content).unwrap();
        }
        let service = Arc::new(
            Service::open(vec![SpaceSettings {
                name: "default".into(),
                root: dir.path().to_path_buf(),
                history,
                assets,
                refactor,
                claims: Default::default(),
                find: Default::default(),
                script,
                editorial: Default::default(),
                public_url: None,
                backup: None,
                janitor: Default::default(),
            }])
            .expect("service opens"),
        );
        let app = quire_http::router(service.clone(), quire_http::HttpSettings::open("default"));
        TestServer::indexed(dir, service, app)
    }

    /// A server over a root holding `files`, configured by `config` (TOML, as in
    /// `.quire/config.toml`), with synchronous git commits.
    pub fn from_config(config: &str, files: &[(&str, &str)]) -> TestServer {
        let dir = tempfile::tempdir().expect("tempdir");
        for (path, content) in files {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, content).unwrap();
        }
        let config = quire_config::Config::from_toml_str(config, &|_| None)
            .expect("config parses")
            .config;
        let mut settings = quire_service::settings_from_config(dir.path(), &config);
        for space in &mut settings {
            space.history = sync_git();
        }
        let default = settings[0].name.clone();
        let service = Arc::new(Service::open(settings).expect("service opens"));
        let app = quire_http::router(service.clone(), quire_http::HttpSettings::open(&default));
        TestServer::indexed(dir, service, app)
    }

    /// Spaces named `names` (the first is the default), each in its own folder below one
    /// tempdir, behind the HTTP settings `config` asks for.
    pub fn spaces(names: &[&str], config: &quire_config::Config) -> TestServer {
        let http = quire_http::HttpSettings::from_config(config, names).expect("settings");
        TestServer::spaces_with(names, http)
    }

    /// [`TestServer::spaces`] with `[webhooks] enabled`: the webhooks of every space, opened
    /// with `settings` and started (the caller stops them).
    pub fn with_webhooks(
        names: &[&str],
        config: &quire_config::Config,
        settings: quire_webhooks::Settings,
    ) -> (TestServer, Arc<quire_webhooks::Webhooks>) {
        let mut http = quire_http::HttpSettings::from_config(config, names).expect("settings");
        let mut hooks = None;
        let server = TestServer::built_spaces(names, |service| {
            let opened = Arc::new(quire_webhooks::Webhooks::open(service, settings).unwrap());
            opened.start();
            http.webhooks = Some(opened.clone());
            hooks = Some(opened);
            http
        });
        (server, hooks.unwrap())
    }

    /// [`TestServer::spaces`] behind HTTP settings made by the caller.
    pub fn spaces_with(names: &[&str], http: quire_http::HttpSettings) -> TestServer {
        TestServer::built_spaces(names, |_| http)
    }

    fn built_spaces(
        names: &[&str],
        http: impl FnOnce(&Service) -> quire_http::HttpSettings,
    ) -> TestServer {
        let dir = tempfile::tempdir().expect("tempdir");
        let settings = names
            .iter()
            .map(|name| {
                let root = dir.path().join(name);
                std::fs::create_dir_all(&root).unwrap();
                SpaceSettings {
                    name: name.to_string(),
                    root,
                    history: sync_git(),
                    assets: AssetRules::default(),
                    refactor: Default::default(),
                    claims: Default::default(),
                    find: Default::default(),
                    script: None,
                    editorial: Default::default(),
                    public_url: None,
                    backup: None,
                    janitor: Default::default(),
                }
            })
            .collect();
        let service = Arc::new(Service::open(settings).expect("service opens"));
        let app = quire_http::router(service.clone(), http(&service));
        TestServer::indexed(dir, service, app)
    }

    pub async fn call(
        &self,
        method: Method,
        uri: &str,
        headers: &[(&str, &str)],
        body: impl Into<Body>,
    ) -> Reply {
        let mut req = Request::builder().method(method).uri(uri);
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let response = self
            .app
            .clone()
            .oneshot(req.body(body.into()).unwrap())
            .await
            .expect("router answers");
        let status = response.status();
        let headers = response.headers().clone();
        let body = response
            .into_body()
            .collect()
            .await
            .unwrap()
            .to_bytes()
            .to_vec();
        Reply {
            status,
            headers,
            body,
        }
    }

    /// The status of a request, without reading the body (streams never end).
    pub async fn status_only(&self, method: Method, uri: &str, headers: &[(&str, &str)]) -> u16 {
        let mut req = Request::builder().method(method).uri(uri);
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let response = self
            .app
            .clone()
            .oneshot(req.body(Body::empty()).unwrap())
            .await
            .expect("router answers");
        response.status().as_u16()
    }

    pub async fn get(&self, uri: &str) -> Reply {
        self.call(Method::GET, uri, &[], Body::empty()).await
    }

    pub async fn put(&self, path: &str, content: &str, actor: &str) -> Reply {
        self.call(
            Method::PUT,
            &format!("/api/quire/file?path={}", enc(path)),
            &[("x-actor", actor)],
            content.to_string(),
        )
        .await
    }

    pub async fn post_json(&self, uri: &str, body: serde_json::Value) -> Reply {
        self.call(
            Method::POST,
            uri,
            &[("content-type", "application/json")],
            body.to_string(),
        )
        .await
    }

    pub fn repo(&self) -> git2::Repository {
        git2::Repository::open(self.dir.path()).expect("root is a git repository")
    }

    pub fn commit_count(&self) -> usize {
        let repo = self.repo();
        let mut walk = repo.revwalk().unwrap();
        walk.push_head().unwrap();
        walk.count()
    }

    pub fn head_author(&self) -> String {
        let repo = self.repo();
        let head = repo.head().unwrap().peel_to_commit().unwrap();
        let name = head.author().name().unwrap().to_string();
        name
    }

    /// `git status` shows nothing (ignored runtime state aside), once deferred index saves
    /// and async batches are flushed.
    pub fn assert_clean(&self) {
        self.service.flush();
        let repo = self.repo();
        let mut opts = git2::StatusOptions::new();
        opts.include_untracked(true).recurse_untracked_dirs(true);
        let statuses = repo.statuses(Some(&mut opts)).unwrap();
        let dirty: Vec<String> = statuses
            .iter()
            .map(|s| format!("{:?} {}", s.status(), s.path().unwrap_or("?")))
            .collect();
        assert!(dirty.is_empty(), "git status is not clean: {dirty:?}");
    }

    pub fn disk(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(self.dir.path().join(path)).ok()
    }
}

/// Percent-encodes a query value.
/// No file of the root (`.git` and `.quire` included) holds `secret` (a password, a key),
/// once everything queued is committed.
pub fn assert_nowhere(s: &TestServer, secret: &str) {
    fn walk(dir: &std::path::Path, secret: &[u8]) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                walk(&path, secret);
            } else if kind.is_file() {
                let bytes = std::fs::read(&path).unwrap_or_default();
                assert!(
                    !bytes.windows(secret.len()).any(|w| w == secret),
                    "{} holds the password",
                    path.display()
                );
            }
        }
    }
    s.service.flush();
    walk(s.dir.path(), secret.as_bytes());
}

/// The `path` of each of `v["results"]`, in order (search answers).
pub fn result_paths(v: &serde_json::Value) -> Vec<String> {
    v["results"]
        .as_array()
        .unwrap_or_else(|| panic!("results in {v}"))
        .iter()
        .map(|h| h["path"].as_str().unwrap().to_string())
        .collect()
}

/// Waits until the default space's embeddings caught up with its pages (vector search on).
pub fn settle_vectors(s: &TestServer) {
    assert!(
        s.service
            .default_space()
            .find()
            .settle_vectors(Duration::from_secs(60)),
        "embeddings caught up"
    );
}

pub fn enc(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}
