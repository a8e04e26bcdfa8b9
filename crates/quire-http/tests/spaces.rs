//! The spaces API: listing, adding and removing spaces while the server runs, who sees which
//! space, unlisted visibility, and the server's settings files that no API write may touch.

mod support;

use axum::body::Body;
use axum::http::Method;
use quire_config::Config;
use serde_json::{json, Value};
use support::{Reply, TestServer};

fn config(toml: &str) -> Config {
    Config::from_toml_str(toml, &|_| None).unwrap().config
}

fn open() -> Config {
    Config::default()
}

async fn send(
    server: &TestServer,
    method: Method,
    uri: &str,
    key: Option<&str>,
    body: Option<Value>,
) -> Reply {
    let auth = key.map(|k| format!("Bearer {k}"));
    let mut headers = vec![("content-type", "application/json")];
    if let Some(a) = &auth {
        headers.push(("authorization", a.as_str()));
    }
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    server.call(method, uri, &headers, Body::from(body)).await
}

async fn add(server: &TestServer, key: Option<&str>, name: &str, root: &str) -> Reply {
    send(
        server,
        Method::POST,
        "/api/spaces",
        key,
        Some(json!({"name": name, "root": root})),
    )
    .await
}

fn names(reply: &Reply) -> Vec<String> {
    assert_eq!(reply.status, 200, "{}", reply.text());
    reply.json()["spaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

/// The root of a space that does not exist yet, outside every other root.
fn fresh_root(server: &TestServer, name: &str) -> String {
    server
        .dir
        .path()
        .join("added")
        .join(name)
        .display()
        .to_string()
}

fn registry(server: &TestServer) -> Option<String> {
    std::fs::read_to_string(server.dir.path().join("default/.quire/spaces.json")).ok()
}

#[tokio::test]
async fn a_space_is_added_served_listed_and_removed_without_touching_its_files() {
    let server = TestServer::spaces(&["default"], &open());
    let listed = send(&server, Method::GET, "/api/spaces", None, None).await;
    assert_eq!(names(&listed), ["default"]);
    let only = &listed.json()["spaces"][0];
    assert_eq!(only["kind"], "default");
    assert_eq!(only["visibility"], "private");
    assert_eq!(only["api"], "/api/quire/default");
    assert!(only["root"].as_str().unwrap().ends_with("default"));

    let root = fresh_root(&server, "team");
    let reply = add(&server, None, "team", &root).await;
    assert_eq!(reply.status, 201, "{}", reply.text());
    let added = reply.json();
    assert_eq!(added["name"], "team");
    assert_eq!(added["kind"], "dynamic");
    assert_eq!(added["created_root"], true);
    assert_eq!(added["visibility"], "private");
    let root_path = std::path::Path::new(&root);
    assert!(
        root_path.join(".git").is_dir(),
        "initialised like quire init"
    );
    assert!(root_path.join(".quire/config.toml").is_file());

    // Recorded in the default space's spaces.json, committed there.
    let recorded: Value = serde_json::from_str(&registry(&server).unwrap()).unwrap();
    assert_eq!(recorded["spaces"][0]["name"], "team");
    let repo = git2::Repository::open(server.dir.path().join("default")).unwrap();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    assert!(
        head.message().unwrap().contains("spaces: add team"),
        "{:?}",
        head.message()
    );

    // Served at once, by URL prefix and by header, and isolated from the default space.
    let put = server
        .call(
            Method::PUT,
            "/api/quire/team/file?path=plan.md",
            &[],
            "# Team plan\n",
        )
        .await;
    assert_eq!(put.status, 200, "{}", put.text());
    assert!(root_path.join("plan.md").is_file());
    assert!(!server.dir.path().join("default/plan.md").exists());
    let by_header = server
        .call(
            Method::GET,
            "/api/quire/file?path=plan.md",
            &[("x-quire-space", "team")],
            Body::empty(),
        )
        .await;
    assert_eq!(by_header.status, 200);
    assert_eq!(server.get("/api/quire/file?path=plan.md").await.status, 404);

    let listed = send(&server, Method::GET, "/api/spaces", None, None).await;
    assert_eq!(names(&listed), ["default", "team"]);
    let one = send(&server, Method::GET, "/api/spaces/team", None, None).await;
    assert_eq!(one.status, 200);
    assert!(one.json()["files"].as_u64() >= Some(1), "{}", one.text());
    assert_eq!(
        send(&server, Method::GET, "/api/spaces/nope", None, None)
            .await
            .status,
        404
    );
    // /metrics and /readyz see the added space.
    let metrics = server.get("/metrics").await.text();
    assert!(metrics.contains("quire_files{space=\"team\"}"), "{metrics}");
    assert_eq!(server.get("/readyz").await.status, 200);

    // Removal: out of the list and the router, files and history kept, the root released.
    let removed = send(&server, Method::DELETE, "/api/spaces/team", None, None).await;
    assert_eq!(removed.status, 200, "{}", removed.text());
    let removed = removed.json();
    assert_eq!(removed["files_deleted"], false);
    assert_eq!(removed["released"], true);
    assert!(root_path.join("plan.md").is_file());
    assert!(root_path.join(".git").is_dir());
    assert!(quire_service::root_holder(root_path).unwrap().is_none());
    assert_eq!(
        server.get("/api/quire/team/file?path=plan.md").await.status,
        404
    );
    let listed = send(&server, Method::GET, "/api/spaces", None, None).await;
    assert_eq!(names(&listed), ["default"]);
    let recorded: Value = serde_json::from_str(&registry(&server).unwrap()).unwrap();
    assert_eq!(recorded["spaces"], json!([]));

    // Added again over the same folder: served as it is, the page still there.
    let again = add(&server, None, "team", &root).await;
    assert_eq!(again.status, 201, "{}", again.text());
    assert_eq!(again.json()["created_root"], false);
    let read = server.get("/api/quire/team/file?path=plan.md").await;
    assert_eq!(read.text(), "# Team plan\n");
    // Both roots are committed: `git status` is clean.
    server.service.flush();
    for root in [server.dir.path().join("default"), root_path.to_path_buf()] {
        let repo = git2::Repository::open(&root).unwrap();
        let mut opts = git2::StatusOptions::new();
        opts.include_untracked(true);
        let dirty = repo.statuses(Some(&mut opts)).unwrap().len();
        assert_eq!(dirty, 0, "{} is not clean", root.display());
    }
}

#[tokio::test]
async fn bad_requests_to_add_a_space_write_nothing() {
    let server = TestServer::spaces(&["default", "other"], &open());
    let taken = fresh_root(&server, "taken");
    assert_eq!(add(&server, None, "taken", &taken).await.status, 201);
    let before = registry(&server);
    let default_root = server.dir.path().join("default");
    let inside = default_root.join("sub").display().to_string();
    let containing = server.dir.path().display().to_string();
    let file = default_root.join("page.md");
    std::fs::write(&file, "# Page\n").unwrap();
    let fresh = fresh_root(&server, "fresh");
    let cases: Vec<(Value, u16, &str)> = vec![
        (json!({"name": "Team", "root": fresh}), 400, "lowercase"),
        (json!({"name": "a/b", "root": fresh}), 400, "lowercase"),
        (json!({"name": "..", "root": fresh}), 400, "lowercase"),
        (json!({"name": "", "root": fresh}), 400, "lowercase"),
        (json!({"name": "-x", "root": fresh}), 400, "lowercase"),
        (
            json!({"name": "x".repeat(65), "root": fresh}),
            400,
            "lowercase",
        ),
        (json!({"name": "file", "root": fresh}), 400, "route"),
        (json!({"name": "refactor", "root": fresh}), 400, "route"),
        (json!({"name": "public", "root": fresh}), 400, "route"),
        (json!({"name": "other", "root": fresh}), 409, "exists"),
        (json!({"name": "default", "root": fresh}), 409, "exists"),
        (json!({"name": "taken", "root": fresh}), 409, "exists"),
        (
            json!({"name": "fresh", "root": "relative/dir"}),
            400,
            "absolute",
        ),
        (
            json!({"name": "fresh", "root": format!("{fresh}/../../escape")}),
            400,
            "..",
        ),
        (
            json!({"name": "fresh", "root": file.display().to_string()}),
            400,
            "not a folder",
        ),
        (
            json!({"name": "fresh", "root": taken}),
            409,
            "already the root",
        ),
        (json!({"name": "fresh", "root": inside}), 409, "inside"),
        (
            json!({"name": "fresh", "root": containing}),
            409,
            "contains",
        ),
        (json!({"name": "fresh"}), 400, "root"),
        (json!({"root": fresh}), 400, "name"),
        (
            json!({"name": "fresh", "root": fresh, "extra": 1}),
            400,
            "extra",
        ),
    ];
    for (body, status, needle) in cases {
        let reply = send(
            &server,
            Method::POST,
            "/api/spaces",
            None,
            Some(body.clone()),
        )
        .await;
        let message = reply.expect_error(status);
        assert!(message.contains(needle), "{body}: {message}");
    }
    let malformed = server
        .call(
            Method::POST,
            "/api/spaces",
            &[("content-type", "application/json")],
            "{\"name\": ",
        )
        .await;
    malformed.expect_error(400);
    let too_big = server
        .call(
            Method::POST,
            "/api/spaces",
            &[("content-type", "application/json")],
            vec![b' '; quire_http::MAX_BODY_BYTES + 1],
        )
        .await;
    too_big.expect_error(413);
    // Nothing was created or recorded.
    assert!(!std::path::Path::new(&fresh).exists());
    assert!(!default_root.join("sub").exists());
    assert!(!server.dir.path().join("escape").exists());
    assert_eq!(registry(&server), before);
    let listed = send(&server, Method::GET, "/api/spaces", None, None).await;
    assert_eq!(names(&listed), ["default", "other", "taken"]);
}

#[tokio::test]
async fn a_root_another_process_writes_is_refused_with_its_holder() {
    let server = TestServer::spaces(&["default"], &open());
    let root = server.dir.path().join("held");
    std::fs::create_dir_all(&root).unwrap();
    // Another writer of that root (as `quire refactor apply` would be).
    let _other = quire_service::Service::open_as(
        vec![quire_service::SpaceSettings {
            name: "held".into(),
            root: root.clone(),
            history: support::sync_git(),
            assets: Default::default(),
            refactor: Default::default(),
            claims: Default::default(),
            find: Default::default(),
            script: None,
            editorial: Default::default(),
            public_url: None,
            backup: None,
            janitor: Default::default(),
        }],
        &quire_service::Access::Write {
            kind: "apply".into(),
        },
    )
    .unwrap();
    let reply = add(&server, None, "held", &root.display().to_string()).await;
    let message = reply.expect_error(409);
    assert!(message.contains("quire apply"), "{message}");
    assert!(registry(&server).is_none());
    let listed = send(&server, Method::GET, "/api/spaces", None, None).await;
    assert_eq!(names(&listed), ["default"]);
}

#[tokio::test]
async fn configured_spaces_and_the_default_cannot_be_removed() {
    let server = TestServer::spaces(&["default", "other"], &open());
    let reply = send(&server, Method::DELETE, "/api/spaces/default", None, None).await;
    assert!(reply.expect_error(409).contains("default space"));
    let reply = send(&server, Method::DELETE, "/api/spaces/other", None, None).await;
    assert!(reply.expect_error(409).contains("[[spaces]]"));
    send(&server, Method::DELETE, "/api/spaces/none", None, None)
        .await
        .expect_error(404);
    send(&server, Method::DELETE, "/api/spaces/..%2F..", None, None)
        .await
        .expect_error(404);
    let listed = send(&server, Method::GET, "/api/spaces", None, None).await;
    assert_eq!(names(&listed), ["default", "other"]);
}

#[tokio::test]
async fn the_servers_settings_files_cannot_be_written_through_the_api() {
    let server = TestServer::spaces(&["default"], &open());
    for path in [".quire/spaces.json", ".quire/config.toml"] {
        let reply = server
            .call(
                Method::PUT,
                &format!("/api/quire/file?path={path}"),
                &[],
                "[auth]\ntype = \"none\"\n",
            )
            .await;
        assert!(reply.expect_error(403).contains("settings"), "{path}");
        let bulk = server
            .post_json(
                "/api/quire/bulk",
                json!({"files": [{"path": path, "content": "x"}]}),
            )
            .await;
        bulk.expect_error(403);
        assert!(!server.dir.path().join("default").join(path).exists());
    }
}

/// Three keys over two spaces: an unbound admin, an unbound writer, and a reader bound to
/// `b`.
fn keyed() -> Config {
    config(
        "[auth]\ntype = \"apikey\"\napi_key = \"admin\"\n\
         [[auth.api_keys]]\nkey = \"writer\"\nscope = \"write\"\n\
         [[auth.api_keys]]\nkey = \"b-admin\"\nspace = \"b\"\n\
         [[auth.api_keys]]\nkey = \"b-read\"\nspace = \"b\"\nscope = \"read\"\n",
    )
}

#[tokio::test]
async fn managing_spaces_needs_an_unbound_admin_key() {
    let server = TestServer::spaces(&["a", "b"], &keyed());
    let root = fresh_root(&server, "c");
    assert_eq!(add(&server, None, "c", &root).await.status, 401);
    assert_eq!(add(&server, Some("wrong"), "c", &root).await.status, 401);
    assert!(add(&server, Some("writer"), "c", &root)
        .await
        .expect_error(403)
        .contains("admin"));
    assert!(add(&server, Some("b-read"), "c", &root)
        .await
        .expect_error(403)
        .contains("read-only"));
    assert!(add(&server, Some("b-admin"), "c", &root)
        .await
        .expect_error(403)
        .contains("not bound"));
    assert!(!std::path::Path::new(&root).exists());
    let reply = add(&server, Some("admin"), "c", &root).await;
    assert_eq!(reply.status, 201, "{}", reply.text());
    assert!(reply.json()["root"].is_string(), "admins see the root");
    for (key, status) in [
        (None, 401),
        (Some("writer"), 403),
        (Some("b-admin"), 403),
        (Some("b-read"), 403),
    ] {
        let got = send(&server, Method::DELETE, "/api/spaces/c", key, None).await;
        assert_eq!(got.status, status, "{key:?}: {}", got.text());
    }
    let got = send(
        &server,
        Method::DELETE,
        "/api/spaces/c",
        Some("admin"),
        None,
    )
    .await;
    assert_eq!(got.status, 200, "{}", got.text());
}

#[tokio::test]
async fn each_caller_lists_what_its_credential_opens() {
    let server = TestServer::spaces(&["a", "b"], &keyed());
    let list = |key: Option<&'static str>| {
        let server = &server;
        async move { send(server, Method::GET, "/api/spaces", key, None).await }
    };
    assert_eq!(names(&list(Some("admin")).await), ["a", "b"]);
    let writer = list(Some("writer")).await;
    assert_eq!(names(&writer), ["a", "b"]);
    assert!(
        writer.json()["spaces"][0].get("root").is_none(),
        "only admins see roots"
    );
    assert_eq!(names(&list(Some("b-read")).await), ["b"]);
    assert_eq!(list(Some("wrong")).await.status, 401);
    // Nothing is public: a caller without credentials sees no space.
    assert_eq!(names(&list(None).await), Vec::<String>::new());
    for (uri, key, status) in [
        ("/api/spaces/a", Some("b-read"), 403),
        ("/api/spaces/zzz", Some("b-read"), 403),
        ("/api/spaces/b", Some("b-read"), 200),
        ("/api/spaces/a", None, 401),
        ("/api/spaces/zzz", None, 401),
        ("/api/spaces/a", Some("wrong"), 401),
        ("/api/spaces/zzz", Some("admin"), 404),
    ] {
        let got = send(&server, Method::GET, uri, key, None).await;
        assert_eq!(got.status, status, "{uri} {key:?}: {}", got.text());
    }
}

#[tokio::test]
async fn unlisted_spaces_are_reachable_by_url_and_not_listed() {
    let server = TestServer::spaces(&["a", "b", "c"], &keyed());
    let page = "---\nvisibility: public\n---\n# Open\n";
    for space in ["a", "b", "c"] {
        let put = server
            .call(
                Method::PUT,
                &format!("/api/quire/{space}/file?path=open.md"),
                &[("authorization", "Bearer admin")],
                page,
            )
            .await;
        assert_eq!(put.status, 200, "{}", put.text());
    }
    for (space, visibility) in [("a", "public"), ("b", "unlisted")] {
        let reply = server
            .call(
                Method::PUT,
                &format!("/api/quire/{space}/space/visibility"),
                &[
                    ("authorization", "Bearer admin"),
                    ("content-type", "application/json"),
                ],
                json!({ "visibility": visibility }).to_string(),
            )
            .await;
        assert_eq!(reply.status, 200, "{}", reply.text());
    }
    // Without credentials: the public space is listed, the unlisted one is not.
    let anonymous = send(&server, Method::GET, "/api/spaces", None, None).await;
    assert_eq!(names(&anonymous), ["a"]);
    let entry = &anonymous.json()["spaces"][0];
    assert_eq!(entry["visibility"], "public");
    assert!(entry.get("files").is_none() && entry.get("root").is_none());
    // By name, the unlisted one answers; the private one asks for credentials.
    let b = send(&server, Method::GET, "/api/spaces/b", None, None).await;
    assert_eq!(b.status, 200, "{}", b.text());
    assert_eq!(b.json()["visibility"], "unlisted");
    assert_eq!(
        send(&server, Method::GET, "/api/spaces/c", None, None)
            .await
            .status,
        401
    );
    // A public page of the unlisted space by its URL; no tree to list it.
    for (space, file, tree) in [("a", 200, 200), ("b", 200, 404), ("c", 404, 404)] {
        let got = server
            .get(&format!("/api/quire/{space}/public/file?path=open.md"))
            .await;
        assert_eq!(got.status, file, "{space}: {}", got.text());
        let got = server.get(&format!("/api/quire/{space}/public/tree")).await;
        assert_eq!(got.status, tree, "{space}: {}", got.text());
    }
    // Credentials list every space they open, unlisted included.
    let admin = send(&server, Method::GET, "/api/spaces", Some("admin"), None).await;
    assert_eq!(names(&admin), ["a", "b", "c"]);
}
