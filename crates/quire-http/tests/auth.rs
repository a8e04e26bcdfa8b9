//! Authentication: with `apikey` and `perspace`, every route that is not public answers 401
//! without a key and with a wrong key, and works with the right one; a per-space key opens its
//! own space only; scopes limit what a key may do. The routes are taken from the router's own
//! OpenAPI document, not picked by hand.

mod support;

use axum::body::Body;
use axum::http::Method;
use quire_config::Config;
use support::TestServer;

const KEY: &str = "global-key-1234";

fn config(toml: &str) -> Config {
    Config::from_toml_str(toml, &|_| None).unwrap().config
}

fn apikey() -> Config {
    config(&format!("[auth]\ntype = \"apikey\"\napi_key = \"{KEY}\"\n"))
}

fn perspace() -> Config {
    config(
        "[auth]\ntype = \"perspace\"\n\
         [[auth.api_keys]]\nkey = \"key-a\"\nspace = \"a\"\nactor = \"bot-a\"\n\
         [[auth.api_keys]]\nkey = \"key-b\"\nspace = \"b\"\n\
         [[auth.api_keys]]\nkey = \"key-a-read\"\nspace = \"a\"\nscope = \"read\"\n",
    )
}

/// Every (method, route) of the router, `{space}` variants included.
fn routes() -> Vec<(Method, String)> {
    let out = quire_http::route_list();
    assert!(out.len() > 40, "the router lists its routes: {out:?}");
    out
}

fn is_probe(path: &str) -> bool {
    matches!(path, "/health" | "/healthz" | "/readyz" | "/metrics")
}

/// The same route addressed to the space `space` by URL.
fn in_space(path: &str, space: &str) -> Option<String> {
    path.strip_prefix("/api/quire")
        .map(|rest| format!("/api/quire/{space}{rest}"))
}

async fn status(server: &TestServer, method: &Method, uri: &str, key: Option<&str>) -> u16 {
    let auth = key.map(|k| format!("Bearer {k}"));
    let mut headers = vec![];
    if let Some(a) = &auth {
        headers.push(("authorization", a.as_str()));
    }
    server.status_only(method.clone(), uri, &headers).await
}

#[tokio::test]
async fn apikey_every_non_public_route_needs_the_key() {
    let server = TestServer::spaces(&["default", "other"], &apikey());
    for (method, path) in routes() {
        let uris = vec![path.replace("{space}", "other")];
        for uri in uris {
            if is_probe(&uri) {
                assert_eq!(status(&server, &method, &uri, None).await, 200, "{uri}");
                continue;
            }
            if quire_http::auth::is_public(&path) {
                let got = status(&server, &method, &uri, None).await;
                assert!(got != 401 && got != 403, "{uri} is public: {got}");
                continue;
            }
            // The spaces list answers callers without credentials too (with the public
            // spaces only); a credential that is sent must be valid.
            let anonymous_ok = quire_http::auth::credentials_optional(&method, &path);
            for key in [None, Some("wrong"), Some("global-key-123"), Some("")] {
                let got = status(&server, &method, &uri, key).await;
                if anonymous_ok && matches!(key, None | Some("")) {
                    assert_ne!(got, 403, "{method} {uri} with {key:?}");
                    continue;
                }
                assert_eq!(got, 401, "{method} {uri} with {key:?}");
            }
            let got = status(&server, &method, &uri, Some(KEY)).await;
            assert!(
                got != 401 && got != 403,
                "{method} {uri} with the key answered {got}"
            );
        }
    }
}

#[tokio::test]
async fn unauthenticated_answers_are_json_errors_with_a_challenge() {
    let server = TestServer::spaces(&["default"], &apikey());
    let reply = server
        .call(
            Method::PUT,
            "/api/quire/file?path=a.md",
            &[],
            Body::from("# A\n"),
        )
        .await;
    let message = reply.expect_error(401);
    assert!(message.contains("Authorization: Bearer"), "{message}");
    assert!(reply.header("www-authenticate").starts_with("Bearer"));
    assert!(!server.dir.path().join("default/a.md").exists());
}

#[tokio::test]
async fn the_api_description_is_public() {
    let server = TestServer::spaces(&["default"], &apikey());
    assert_eq!(server.get("/api/openapi.json").await.status, 200);
    assert_eq!(server.get("/api/docs").await.status, 200);
    assert_eq!(server.get("/api/docs/swagger-ui.css").await.status, 200);
}

#[tokio::test]
async fn perspace_every_non_public_route_needs_a_key_of_its_space() {
    let server = TestServer::spaces(&["a", "b"], &perspace());
    for (method, path) in routes() {
        if is_probe(&path)
            || path.contains("{space}")
            || !path.starts_with("/api/quire")
            || quire_http::auth::is_public(&path)
        {
            continue;
        }
        let a = in_space(&path, "a").unwrap();
        let b = in_space(&path, "b").unwrap();
        for uri in [&path, &a, &b] {
            for key in [None, Some("wrong"), Some("key-")] {
                assert_eq!(
                    status(&server, &method, uri, key).await,
                    401,
                    "{method} {uri} {key:?}"
                );
            }
        }
        // `a` is the default space: the plain path and the prefixed one are space a.
        for uri in [&path, &a] {
            let got = status(&server, &method, uri, Some("key-a")).await;
            assert!(got != 401 && got != 403, "{method} {uri}: {got}");
            assert_eq!(
                status(&server, &method, uri, Some("key-b")).await,
                403,
                "{uri}"
            );
        }
        let got = status(&server, &method, &b, Some("key-b")).await;
        assert!(got != 401 && got != 403, "{method} {b}: {got}");
        assert_eq!(
            status(&server, &method, &b, Some("key-a")).await,
            403,
            "{b}"
        );
    }
}

#[tokio::test]
async fn perspace_the_space_header_cannot_reach_another_space() {
    let server = TestServer::spaces(&["a", "b"], &perspace());
    let reply = server
        .call(
            Method::PUT,
            "/api/quire/file?path=x.md",
            &[("authorization", "Bearer key-a"), ("x-quire-space", "b")],
            Body::from("# X\n"),
        )
        .await;
    let message = reply.expect_error(403);
    assert!(message.contains("\"a\""), "{message}");
    assert!(!server.dir.path().join("b/x.md").exists());
    assert!(!server.dir.path().join("a/x.md").exists());
}

#[tokio::test]
async fn a_keys_actor_attributes_writes_that_name_none() {
    let server = TestServer::spaces(&["a", "b"], &perspace());
    let reply = server
        .call(
            Method::PUT,
            "/api/quire/file?path=n.md",
            &[("authorization", "Bearer key-a")],
            Body::from("# N\n"),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let repo = git2::Repository::open(server.dir.path().join("a")).unwrap();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    assert_eq!(head.author().name(), Some("bot-a"));
}

#[tokio::test]
async fn a_read_scoped_key_reads_and_plans_but_cannot_write() {
    let server = TestServer::spaces(&["a", "b"], &perspace());
    let auth = [("authorization", "Bearer key-a-read")];
    let read = server
        .call(Method::GET, "/api/quire/tree", &auth, Body::empty())
        .await;
    assert_eq!(read.status, 200);
    let put = server
        .call(
            Method::PUT,
            "/api/quire/file?path=r.md",
            &auth,
            Body::from("x"),
        )
        .await;
    assert!(put.expect_error(403).contains("read-only"));
    assert!(!server.dir.path().join("a/r.md").exists());
    let plan = server
        .call(
            Method::POST,
            "/api/quire/refactor/plan",
            &[
                ("authorization", "Bearer key-a-read"),
                ("content-type", "application/json"),
            ],
            Body::from(r#"{"moves":[{"from":"x.md","to":"y.md"}]}"#),
        )
        .await;
    assert_eq!(plan.status, 200, "{}", plan.text());
    // Converting an editor's rename plans only: a read key may too (400: it renames nothing).
    let edit = server
        .call(
            Method::POST,
            "/api/quire/refactor/from-workspace-edit",
            &[
                ("authorization", "Bearer key-a-read"),
                ("content-type", "application/json"),
            ],
            Body::from(r#"{"documentChanges":[]}"#),
        )
        .await;
    assert!(edit.expect_error(400).contains("renames no files"));
    // A script only plans: the read-scoped key passes (this server runs no scripts: 501).
    let script = server
        .call(
            Method::POST,
            "/api/quire/refactor/script",
            &[
                ("authorization", "Bearer key-a-read"),
                ("content-type", "application/json"),
            ],
            Body::from(r#"{"script":"manifest = {}"}"#),
        )
        .await;
    script.expect_error(501);
}

#[tokio::test]
async fn approving_an_agents_plan_needs_an_admin_key() {
    let config = config(
        "[auth]\ntype = \"apikey\"\napi_key = \"admin\"\n\
         [[auth.api_keys]]\nkey = \"writer\"\nscope = \"write\"\n",
    );
    let server = TestServer::spaces(&["default"], &config);
    let body = r#"{"manifest":{"moves":[{"from":"x.md","to":"y.md"}]},"digest":"d"}"#;
    let as_writer = server
        .call(
            Method::POST,
            "/api/quire/refactor/approve",
            &[
                ("authorization", "Bearer writer"),
                ("content-type", "application/json"),
            ],
            Body::from(body),
        )
        .await;
    assert!(as_writer.expect_error(403).contains("admin"));
    let as_admin = server
        .call(
            Method::POST,
            "/api/quire/refactor/approve",
            &[
                ("authorization", "Bearer admin"),
                ("content-type", "application/json"),
            ],
            Body::from(body),
        )
        .await;
    assert_ne!(as_admin.status.as_u16(), 403);
}

/// A configuration with one token of each scope made as `quire token create` makes them
/// (Argon2 hashes, no key in clear); returns it and the tokens.
fn scoped() -> (Config, [String; 3]) {
    let mut toml = String::from("[auth]\ntype = \"apikey\"\napi_key = \"root-key\"\n");
    let mut tokens = Vec::new();
    for scope in ["read", "write", "admin"] {
        let (id, token, hash) = quire_http::auth::new_token().unwrap();
        toml.push_str(&format!(
            "[[auth.api_keys]]\nid = \"{id}\"\nkey_hash = \"{hash}\"\nscope = \"{scope}\"\nactor = \"{scope}-bot\"\n"
        ));
        tokens.push(token);
    }
    (config(&toml), tokens.try_into().unwrap())
}

#[tokio::test]
async fn every_route_needs_its_scope_and_no_less() {
    let (config, [read, write, admin]) = scoped();
    let server = TestServer::spaces(&["default", "other"], &config);
    let mut checked = 0;
    for (method, path) in routes() {
        let uri = path.replace("{space}", "other");
        let public = quire_http::auth::is_public(&path);
        let needed = quire_http::auth::required_scope(&method, &path);
        for (token, scope) in [
            (&read, quire_api::Scope::Read),
            (&write, quire_api::Scope::Write),
            (&admin, quire_api::Scope::Admin),
        ] {
            let got = status(&server, &method, &uri, Some(token)).await;
            if public || scope.allows(needed) {
                assert!(
                    got != 401 && got != 403,
                    "{method} {uri} with a {scope:?} token answered {got}"
                );
            } else {
                assert_eq!(got, 403, "{method} {uri} with a {scope:?} token");
            }
        }
        if !public {
            if !quire_http::auth::credentials_optional(&method, &path) {
                assert_eq!(
                    status(&server, &method, &uri, None).await,
                    401,
                    "{method} {uri}"
                );
            }
            // Another last digit (a token ending in 0 would otherwise be forged as itself).
            let last = if read.ends_with('0') { '1' } else { '0' };
            let forged = format!("{}{last}", &read[..read.len() - 1]);
            assert_eq!(
                status(&server, &method, &uri, Some(&forged)).await,
                401,
                "{method} {uri} with a forged token"
            );
        }
        checked += 1;
    }
    assert!(checked > 40);
    // Nothing was written by the refused writes.
    assert!(!server.dir.path().join("default/a.md").exists());
}

#[tokio::test]
async fn a_read_scope_covers_every_get_and_no_write() {
    for (method, path) in routes() {
        let needed = quire_http::auth::required_scope(&method, &path);
        if method == Method::GET {
            assert_ne!(needed, quire_api::Scope::Write, "{path}");
        }
        if matches!(method, Method::PUT | Method::DELETE | Method::PATCH) {
            assert!(needed >= quire_api::Scope::Write, "{method} {path}");
        }
    }
}

/// A route with its parameters filled in (values no resource has: the answer is a 4xx).
fn filled(path: &str) -> String {
    let mut out = String::new();
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..].find('}').map_or(rest.len(), |c| open + c);
        let value = match &rest[open + 1..close] {
            "space" => "default".to_string(),
            "token" => "0".repeat(64),
            "*path" => "nowhere.md".to_string(),
            _ => "nothing".to_string(),
        };
        out.push_str(&value);
        rest = &rest[(close + 1).min(rest.len())..];
    }
    out.push_str(rest);
    out
}

#[tokio::test]
async fn no_route_answers_500_with_or_without_the_space_in_the_url() {
    let server = TestServer::spaces(&["default", "other"], &quire_config::Config::default());
    for (method, path) in routes() {
        if path.ends_with("/events") {
            continue; // a stream: it answers 200 and never ends
        }
        let uri = filled(&path);
        let call = server.call(
            method.clone(),
            &uri,
            &[("content-type", "application/json"), ("x-actor", "walker")],
            "{}",
        );
        let reply = tokio::time::timeout(std::time::Duration::from_secs(20), call)
            .await
            .unwrap_or_else(|_| panic!("{method} {uri} did not answer in 20 s"));
        assert!(
            matches!(reply.status.as_u16(), 0..=499 | 501 | 503),
            "{method} {uri}: {} {}",
            reply.status,
            reply.text()
        );
    }
}
