//! Canvases over HTTP: success shapes, bad input writing nothing (invalid JSON, wrong suffix,
//! missing fields, traversal), atomic patches with their counters, queries, auto-layout with
//! no two nodes overlapping after each layout, and generation from a fixture link graph.

mod support;

use axum::http::Method;
use quire_service::AssetRules;
use serde_json::{json, Value};
use support::{enc, sync_git, Reply, TestServer};

const BASE: &str = "/api/quire";

fn server(files: &[(&str, &str)]) -> TestServer {
    TestServer::with(sync_git(), AssetRules::default(), files)
}

async fn send(s: &TestServer, method: Method, uri: &str, body: &str) -> Reply {
    s.call(
        method,
        uri,
        &[("content-type", "application/json"), ("x-actor", "ann")],
        body.to_string(),
    )
    .await
}

fn board() -> Value {
    json!({
        "nodes": [
            {"id": "a", "type": "text", "text": "Alpha idea", "x": 0, "y": 0, "width": 250, "height": 60},
            {"id": "b", "type": "file", "file": "notes/b.md", "x": 0, "y": 0, "width": 400, "height": 300},
            {"id": "c", "type": "link", "url": "https://example.org", "x": 0, "y": 0, "width": 300, "height": 120, "color": "2"},
            {"id": "g", "type": "group", "label": "Cluster", "x": 0, "y": 0, "width": 500, "height": 500, "background": "bg.png"}
        ],
        "edges": [
            {"id": "ab", "fromNode": "a", "toNode": "b", "label": "supports"},
            {"id": "bc", "fromNode": "b", "fromSide": "right", "toNode": "c", "toEnd": "arrow"},
            {"id": "ca", "fromNode": "c", "toNode": "a"}
        ],
        "custom": {"kept": true}
    })
}

async fn put_board(s: &TestServer, path: &str) -> Reply {
    let r = send(
        s,
        Method::PUT,
        &format!("{BASE}/canvas?path={}", enc(path)),
        &board().to_string(),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    r
}

fn stored(s: &TestServer, path: &str) -> Value {
    serde_json::from_str(&s.disk(path).expect("canvas on disk")).unwrap()
}

#[tokio::test]
async fn a_canvas_is_written_listed_read_and_deleted_each_as_one_commit() {
    let s = server(&[("notes/b.md", "# B\n")]);
    let before = s.commit_count();
    let written = put_board(&s, "boards/plan.canvas.json").await.json();
    assert_eq!(written["path"], "boards/plan.canvas.json");
    assert_eq!(written["nodes"], 4);
    assert_eq!(written["edges"], 3);
    assert!(written["etag"].is_string());
    assert_eq!(s.commit_count(), before + 1);
    assert_eq!(s.head_author(), "ann");

    let list = s.get(&format!("{BASE}/canvases")).await;
    assert_eq!(list.status, 200);
    assert_eq!(
        list.json(),
        json!({"canvases": ["boards/plan.canvas.json"]})
    );

    let read = s
        .get(&format!("{BASE}/canvas?path=boards/plan.canvas.json"))
        .await;
    assert_eq!(read.status, 200);
    assert_eq!(read.header("content-type"), "application/json");
    assert_eq!(
        read.header("etag"),
        format!("\"{}\"", written["etag"].as_str().unwrap())
    );
    assert_eq!(read.json(), board());

    // The same routes under a space named in the URL.
    let named = s.get(&format!("{BASE}/default/canvases")).await;
    assert_eq!(named.status, 200, "{}", named.text());

    let deleted = send(
        &s,
        Method::DELETE,
        &format!("{BASE}/canvas?path=boards/plan.canvas.json"),
        "",
    )
    .await;
    assert_eq!(deleted.status, 200, "{}", deleted.text());
    assert_eq!(
        deleted.json(),
        json!({"path": "boards/plan.canvas.json", "deleted": true})
    );
    assert!(s.disk("boards/plan.canvas.json").is_none());
    assert_eq!(s.commit_count(), before + 2);
    let gone = s
        .get(&format!("{BASE}/canvas?path=boards/plan.canvas.json"))
        .await;
    gone.expect_error(404);
    send(
        &s,
        Method::DELETE,
        &format!("{BASE}/canvas?path=boards/plan.canvas.json"),
        "",
    )
    .await
    .expect_error(404);
    s.assert_clean();
}

#[tokio::test]
async fn an_empty_canvas_is_allowed() {
    let s = server(&[]);
    let r = send(
        &s,
        Method::PUT,
        &format!("{BASE}/canvas?path=empty.canvas.json"),
        r#"{"nodes":[],"edges":[]}"#,
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["nodes"], 0);
}

#[tokio::test]
async fn bad_canvases_are_refused_and_nothing_is_written() {
    let s = server(&[("notes/b.md", "# B\n")]);
    let before = s.commit_count();
    let node = |extra: Value| {
        let mut n = json!({"id": "a", "type": "text", "text": "t", "x": 0, "y": 0, "width": 10, "height": 10});
        n.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        n
    };
    let cases: Vec<(&str, String)> = vec![
        ("x.canvas.json", "{not json".into()),
        ("x.canvas.json", "".into()),
        ("x.canvas.json", json!({"nodes": []}).to_string()),
        ("x.canvas.json", json!({"edges": []}).to_string()),
        ("x.canvas.json", json!([1, 2]).to_string()),
        ("x.canvas.json", json!({"nodes": [{"id": "a", "type": "text", "text": "t"}], "edges": []}).to_string()),
        ("x.canvas.json", json!({"nodes": [node(json!({"type": ""}))], "edges": []}).to_string()),
        ("x.canvas.json", json!({"nodes": [node(json!({"text": null}))], "edges": []}).to_string()),
        ("x.canvas.json", json!({"nodes": [node(json!({})), node(json!({}))], "edges": []}).to_string()),
        ("x.canvas.json", json!({"nodes": [node(json!({"width": 0}))], "edges": []}).to_string()),
        ("x.canvas.json", json!({"nodes": [node(json!({"x": "left"}))], "edges": []}).to_string()),
        ("x.canvas.json", json!({"nodes": [node(json!({"height": -5}))], "edges": []}).to_string()),
        ("x.canvas.json", json!({"nodes": [node(json!({}))], "edges": [{"id": "e", "fromNode": "a", "toNode": "zz"}]}).to_string()),
        ("x.canvas.json", json!({"nodes": [node(json!({}))], "edges": [{"id": "e", "fromNode": "a"}]}).to_string()),
        ("x.canvas.json", json!({"nodes": [node(json!({}))], "edges": [{"id": "e", "fromNode": "a", "toNode": "a", "toSide": "middle"}]}).to_string()),
        ("x.canvas.json", json!({"nodes": [{"id": "f", "type": "file", "file": "../../etc/passwd", "x": 0, "y": 0, "width": 10, "height": 10}], "edges": []}).to_string()),
        // Wrong suffix, traversal, the state folder.
        ("x.json", board().to_string()),
        ("notes/b.md", board().to_string()),
        ("../x.canvas.json", board().to_string()),
        ("a/../../x.canvas.json", board().to_string()),
        (".quire/x.canvas.json", board().to_string()),
        (".git/x.canvas.json", board().to_string()),
    ];
    for (path, body) in cases {
        let r = send(
            &s,
            Method::PUT,
            &format!("{BASE}/canvas?path={}", enc(path)),
            &body,
        )
        .await;
        let msg = r.expect_error(400);
        assert!(!msg.is_empty(), "{path} {body}");
    }
    send(
        &s,
        Method::PUT,
        &format!("{BASE}/canvas"),
        &board().to_string(),
    )
    .await
    .expect_error(400);
    assert_eq!(s.commit_count(), before);
    assert!(s.disk("x.canvas.json").is_none() && s.disk("x.json").is_none());
    assert_eq!(s.disk("notes/b.md").unwrap(), "# B\n");
    // Every path-like parameter refuses traversal.
    for uri in [
        format!("{BASE}/canvas?path=../x.canvas.json"),
        format!("{BASE}/canvas/query?path=../x.canvas.json"),
        format!("{BASE}/canvas?path=x.json"),
        format!("{BASE}/canvas/query?path=x.json"),
    ] {
        s.get(&uri).await.expect_error(400);
    }
    for (method, uri, body) in [
        (
            Method::DELETE,
            format!("{BASE}/canvas?path=../x.canvas.json"),
            String::new(),
        ),
        (
            Method::PATCH,
            format!("{BASE}/canvas?path=../x.canvas.json"),
            json!({"operations": [{"op": "remove_node", "id": "a"}]}).to_string(),
        ),
        (
            Method::POST,
            format!("{BASE}/canvas/auto-layout?path=../x.canvas.json"),
            "{}".into(),
        ),
        (
            Method::POST,
            format!("{BASE}/canvas/generate"),
            json!({"path": "../x"}).to_string(),
        ),
        (
            Method::POST,
            format!("{BASE}/canvas/generate"),
            json!({"folder": "../"}).to_string(),
        ),
    ] {
        send(&s, method, &uri, &body).await.expect_error(400);
    }
    assert_eq!(s.commit_count(), before);
    s.assert_clean();
}

#[tokio::test]
async fn an_oversized_canvas_is_refused() {
    let s = server(&[]);
    let big = format!(
        r#"{{"nodes":[],"edges":[],"pad":"{}"}}"#,
        "x".repeat(64 * 1024 * 1024)
    );
    let r = send(
        &s,
        Method::PUT,
        &format!("{BASE}/canvas?path=big.canvas.json"),
        &big,
    )
    .await;
    let message = r.expect_error(413);
    assert!(message.contains("body"), "{message}");
    assert!(s.disk("big.canvas.json").is_none());
}

#[tokio::test]
async fn a_patch_counts_what_it_did_and_removing_a_node_removes_its_edges() {
    let s = server(&[("notes/b.md", "# B\n")]);
    put_board(&s, "plan.canvas.json").await;
    let before = s.commit_count();
    let ops = json!({"operations": [
        {"op": "add_node", "node": {"id": "d", "type": "text", "text": "Delta", "x": 10, "y": 10, "width": 200, "height": 80}},
        {"op": "add_node", "node": {"id": "a", "type": "text", "text": "Alpha again", "x": 0, "y": 0, "width": 250, "height": 60}},
        {"op": "update_node", "id": "c", "node": {"color": null, "label": "site"}},
        {"op": "add_edge", "edge": {"id": "ad", "fromNode": "a", "toNode": "d"}},
        {"op": "add_edge", "edge": {"id": "ab", "fromNode": "a", "toNode": "b", "label": "backs"}},
        {"op": "update_edge", "id": "bc", "edge": {"label": "cites"}},
        {"op": "remove_edge", "id": "ca"},
        {"op": "remove_node", "id": "b"}
    ]});
    let r = send(
        &s,
        Method::PATCH,
        &format!("{BASE}/canvas?path=plan.canvas.json"),
        &ops.to_string(),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let out = r.json();
    assert_eq!(out["nodes_inserted"], 1);
    assert_eq!(out["nodes_merged"], 2);
    assert_eq!(out["nodes_deleted"], 1);
    assert_eq!(out["edges_inserted"], 1);
    assert_eq!(out["edges_merged"], 2);
    // `ca` removed, then `ab` and `bc` went with node b.
    assert_eq!(out["edges_deleted"], 3);
    assert_eq!(s.commit_count(), before + 1);
    let c = stored(&s, "plan.canvas.json");
    let ids: Vec<&str> = c["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["a", "c", "g", "d"]);
    assert_eq!(c["nodes"][0]["text"], "Alpha again");
    assert!(c["nodes"][1].get("color").is_none());
    assert_eq!(c["nodes"][1]["label"], "site");
    assert_eq!(
        c["nodes"][2]["background"], "bg.png",
        "unknown keys are kept"
    );
    assert_eq!(c["custom"], json!({"kept": true}));
    let edges: Vec<&str> = c["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert_eq!(edges, ["ad"]);
    s.assert_clean();
}

#[tokio::test]
async fn one_failing_operation_rejects_the_whole_patch() {
    let s = server(&[("notes/b.md", "# B\n")]);
    put_board(&s, "plan.canvas.json").await;
    let before = s.commit_count();
    let disk = s.disk("plan.canvas.json").unwrap();
    let add = json!({"op": "add_node", "node": {"id": "d", "type": "text", "text": "D", "x": 0, "y": 0, "width": 10, "height": 10}});
    let failing = [
        (
            json!({"operations": [add, {"op": "remove_node", "id": "nope"}]}),
            404,
        ),
        (
            json!({"operations": [add, {"op": "update_edge", "id": "nope", "edge": {}}]}),
            404,
        ),
        (
            json!({"operations": [add, {"op": "add_edge", "edge": {"id": "x", "fromNode": "a", "toNode": "ghost"}}]}),
            400,
        ),
        (
            json!({"operations": [add, {"op": "update_node", "id": "a", "node": {"width": "wide"}}]}),
            400,
        ),
        (
            json!({"operations": [add, {"op": "update_node", "id": "a", "node": {"id": "z"}}]}),
            400,
        ),
        (
            json!({"operations": [add, {"op": "update_node", "id": "a", "node": {"text": null}}]}),
            400,
        ),
        (json!({"operations": [add, {"op": "explode"}]}), 400),
        (json!({"operations": [{"op": "add_node"}]}), 400),
        (json!({"operations": []}), 400),
        (json!({"ops": []}), 400),
    ];
    for (body, status) in failing {
        let r = send(
            &s,
            Method::PATCH,
            &format!("{BASE}/canvas?path=plan.canvas.json"),
            &body.to_string(),
        )
        .await;
        r.expect_error(status);
    }
    send(
        &s,
        Method::PATCH,
        &format!("{BASE}/canvas?path=plan.canvas.json"),
        "{oops",
    )
    .await
    .expect_error(400);
    send(
        &s,
        Method::PATCH,
        &format!("{BASE}/canvas?path=missing.canvas.json"),
        &json!({"operations": [add]}).to_string(),
    )
    .await
    .expect_error(404);
    assert_eq!(s.disk("plan.canvas.json").unwrap(), disk);
    assert_eq!(s.commit_count(), before);
    assert!(s.disk("missing.canvas.json").is_none());
    s.assert_clean();
}

#[tokio::test]
async fn a_stale_if_match_refuses_the_patch() {
    let s = server(&[("notes/b.md", "# B\n")]);
    put_board(&s, "plan.canvas.json").await;
    let r = s
        .call(
            Method::PATCH,
            &format!("{BASE}/canvas?path=plan.canvas.json"),
            &[
                ("content-type", "application/json"),
                ("if-match", "\"0000\""),
            ],
            json!({"operations": [{"op": "remove_edge", "id": "ab"}]}).to_string(),
        )
        .await;
    r.expect_error(409);
    assert_eq!(
        stored(&s, "plan.canvas.json")["edges"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
}

#[tokio::test]
async fn queries_filter_by_text_type_and_neighbourhood() {
    let s = server(&[("notes/b.md", "# B\n")]);
    put_board(&s, "plan.canvas.json").await;
    let q = |params: &str| {
        let uri = format!("{BASE}/canvas/query?path=plan.canvas.json{params}");
        let s = &s;
        async move { s.get(&uri).await }
    };
    let ids = |v: &Value, key: &str| -> Vec<String> {
        v[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["id"].as_str().unwrap().to_string())
            .collect()
    };
    let all = q("").await;
    assert_eq!(all.status, 200, "{}", all.text());
    assert_eq!(ids(&all.json(), "nodes").len(), 4);
    assert_eq!(ids(&all.json(), "edges").len(), 3);

    let text = q("&q=ALPHA").await.json();
    assert_eq!(ids(&text, "nodes"), ["a"]);
    assert_eq!(ids(&text, "edges"), Vec::<String>::new());
    let label = q("&q=support").await.json();
    assert_eq!(ids(&label, "edges"), ["ab"]);
    let meta = q("&q=bg.png").await.json();
    assert_eq!(ids(&meta, "nodes"), ["g"]);

    let files = q("&type=file&nodes_only=true").await.json();
    assert_eq!(ids(&files, "nodes"), ["b"]);
    assert_eq!(ids(&files, "edges"), Vec::<String>::new());

    let near = q("&connected=a").await.json();
    assert_eq!(ids(&near, "nodes"), ["b", "c"]);
    assert_eq!(ids(&near, "edges"), ["ab", "ca"]);
    let edges_only = q("&connected=b&edges_only=true").await.json();
    assert_eq!(ids(&edges_only, "nodes"), Vec::<String>::new());
    assert_eq!(ids(&edges_only, "edges"), ["ab", "bc"]);

    q("&connected=ghost").await.expect_error(404);
    q("&type=").await.expect_error(400);
    q("&nodes_only=true&edges_only=true")
        .await
        .expect_error(400);
    q("&nodes_only=maybe").await.expect_error(400);
    s.get(&format!("{BASE}/canvas/query"))
        .await
        .expect_error(400);
    s.get(&format!("{BASE}/canvas/query?path=none.canvas.json"))
        .await
        .expect_error(404);
}

fn rects(canvas: &Value) -> Vec<(i64, i64, i64, i64)> {
    canvas["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n["x"].as_i64().unwrap(),
                n["y"].as_i64().unwrap(),
                n["width"].as_i64().unwrap(),
                n["height"].as_i64().unwrap(),
            )
        })
        .collect()
}

fn assert_no_overlap(canvas: &Value, what: &str) {
    let r = rects(canvas);
    for i in 0..r.len() {
        for j in (i + 1)..r.len() {
            let (a, b) = (r[i], r[j]);
            let apart =
                a.0 + a.2 <= b.0 || b.0 + b.2 <= a.0 || a.1 + a.3 <= b.1 || b.1 + b.3 <= a.1;
            assert!(apart, "{what}: nodes {i} {a:?} and {j} {b:?} overlap");
        }
    }
}

#[tokio::test]
async fn auto_layout_leaves_no_two_nodes_overlapping_after_each_layout() {
    let s = server(&[("notes/b.md", "# B\n")]);
    // Twenty nodes of mixed sizes, all at one point, in a ring with chords.
    let nodes: Vec<Value> = (0..20)
        .map(|i| {
            json!({"id": format!("n{i}"), "type": "text", "text": format!("node {i}"),
            "x": 0, "y": 0, "width": 150 + (i * 37) % 200, "height": 50 + (i * 53) % 150})
        })
        .collect();
    let mut edges: Vec<Value> = (0..20)
        .map(|i| json!({"id": format!("e{i}"), "fromNode": format!("n{i}"), "toNode": format!("n{}", (i + 1) % 20)}))
        .collect();
    edges.extend((0..5).map(
        |i| json!({"id": format!("c{i}"), "fromNode": "n0", "toNode": format!("n{}", i * 3 + 2)}),
    ));
    let body = json!({"nodes": nodes, "edges": edges}).to_string();
    let r = send(
        &s,
        Method::PUT,
        &format!("{BASE}/canvas?path=ring.canvas.json"),
        &body,
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    for layout in ["dot", "neato", "fdp", "circo"] {
        let before = s.commit_count();
        let r = send(
            &s,
            Method::POST,
            &format!("{BASE}/canvas/auto-layout?path=ring.canvas.json"),
            &json!({"layout": layout}).to_string(),
        )
        .await;
        assert_eq!(r.status, 200, "{layout}: {}", r.text());
        assert_eq!(r.json()["nodes"], 20);
        assert_eq!(s.commit_count(), before + 1, "{layout}");
        let c = stored(&s, "ring.canvas.json");
        assert_eq!(
            c["nodes"].as_array().unwrap().len(),
            20,
            "{layout} generates none"
        );
        assert_eq!(c["edges"].as_array().unwrap().len(), 25);
        assert_no_overlap(&c, layout);
    }
    // An empty body is `dot`.
    let r = send(
        &s,
        Method::POST,
        &format!("{BASE}/canvas/auto-layout?path=ring.canvas.json"),
        "",
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let before = s.commit_count();
    for body in [
        r#"{"layout": "grid"}"#,
        "{bad",
        r#"{"layout": "hierarchical"}"#,
    ] {
        send(
            &s,
            Method::POST,
            &format!("{BASE}/canvas/auto-layout?path=ring.canvas.json"),
            body,
        )
        .await
        .expect_error(400);
    }
    send(
        &s,
        Method::POST,
        &format!("{BASE}/canvas/auto-layout?path=none.canvas.json"),
        "{}",
    )
    .await
    .expect_error(404);
    assert_eq!(s.commit_count(), before);
    s.assert_clean();
}

fn fixture() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            "projects/alpha.md",
            "# Alpha\n\nSee [[beta]] and [[notes/idea]].\n",
        ),
        (
            "projects/beta.md",
            "# Beta\n\nBack to [[alpha]]. Also [[gamma]].\n",
        ),
        ("projects/gamma.md", "# Gamma\n\n[[missing page]]\n"),
        ("notes/idea.md", "# Idea\n\nFrom [[alpha]].\n"),
        ("notes/lonely.md", "# Lonely\n"),
    ]
}

#[tokio::test]
async fn generate_builds_file_nodes_and_link_edges_from_the_fixture_graph() {
    let s = server(&fixture());
    let before = s.commit_count();
    let r = s
        .post_json(&format!("{BASE}/canvas/generate"), json!({}))
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["path"], "canvas.canvas.json");
    assert_eq!(s.commit_count(), before + 1);
    let c = stored(&s, "canvas.canvas.json");
    let mut files: Vec<&str> = c["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["file"].as_str().unwrap())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "notes/idea.md",
            "notes/lonely.md",
            "projects/alpha.md",
            "projects/beta.md",
            "projects/gamma.md"
        ]
    );
    assert!(c["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .all(|n| n["type"] == "file" && n["color"].is_string()));
    let by_id: std::collections::HashMap<&str, &str> = c["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["id"].as_str().unwrap(), n["file"].as_str().unwrap()))
        .collect();
    let mut links: Vec<(&str, &str)> = c["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                by_id[e["fromNode"].as_str().unwrap()],
                by_id[e["toNode"].as_str().unwrap()],
            )
        })
        .collect();
    links.sort();
    assert_eq!(
        links,
        [
            ("notes/idea.md", "projects/alpha.md"),
            ("projects/alpha.md", "notes/idea.md"),
            ("projects/alpha.md", "projects/beta.md"),
            ("projects/beta.md", "projects/alpha.md"),
            ("projects/beta.md", "projects/gamma.md"),
        ]
    );
    // Folders get different colours.
    let colour = |file: &str| {
        c["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["file"] == file)
            .unwrap()["color"]
            .clone()
    };
    assert_ne!(colour("notes/idea.md"), colour("projects/alpha.md"));
    assert_eq!(colour("projects/beta.md"), colour("projects/alpha.md"));
    assert_no_overlap(&c, "hierarchical");
    s.assert_clean();
}

#[tokio::test]
async fn generate_honours_folder_layout_colorize_and_path() {
    let s = server(&fixture());
    for layout in ["hierarchical", "radial", "force", "circular"] {
        let r = s
            .post_json(
                &format!("{BASE}/canvas/generate"),
                json!({"path": format!("maps/{layout}"), "layout": layout, "folder": "projects", "colorize": false}),
            )
            .await;
        assert_eq!(r.status, 200, "{layout}: {}", r.text());
        let path = format!("maps/{layout}.canvas.json");
        assert_eq!(r.json()["path"], path.as_str());
        let c = stored(&s, &path);
        let nodes = c["nodes"].as_array().unwrap();
        assert_eq!(nodes.len(), 3, "{layout}");
        assert!(nodes
            .iter()
            .all(|n| n["file"].as_str().unwrap().starts_with("projects/")));
        assert!(nodes.iter().all(|n| n.get("color").is_none()));
        // alpha→beta, beta→alpha, beta→gamma; alpha→notes/idea is outside the folder.
        assert_eq!(c["edges"].as_array().unwrap().len(), 3, "{layout}");
        assert_no_overlap(&c, layout);
    }
    let list = s.get(&format!("{BASE}/canvases")).await.json();
    assert_eq!(list["canvases"].as_array().unwrap().len(), 4);
    let before = s.commit_count();
    for body in [
        json!({"layout": "dot"}),
        json!({"layout": "grid"}),
        json!({"colorize": "yes"}),
    ] {
        s.post_json(&format!("{BASE}/canvas/generate"), body)
            .await
            .expect_error(400);
    }
    send(&s, Method::POST, &format!("{BASE}/canvas/generate"), "{bad")
        .await
        .expect_error(400);
    assert_eq!(s.commit_count(), before);
}

#[tokio::test]
async fn canvas_writes_need_the_write_scope() {
    use axum::http::Method as M;
    for (method, route) in [
        (M::PUT, "/api/quire/canvas"),
        (M::PATCH, "/api/quire/canvas"),
        (M::DELETE, "/api/quire/canvas"),
        (M::POST, "/api/quire/canvas/auto-layout"),
        (M::POST, "/api/quire/canvas/generate"),
        (M::POST, "/api/quire/{space}/canvas/generate"),
    ] {
        assert_eq!(
            quire_http::auth::required_scope(&method, route),
            quire_api::Scope::Write,
            "{method} {route}"
        );
    }
    for route in [
        "/api/quire/canvases",
        "/api/quire/canvas",
        "/api/quire/canvas/query",
    ] {
        assert_eq!(
            quire_http::auth::required_scope(&M::GET, route),
            quire_api::Scope::Read
        );
    }
    let routes = quire_http::route_list();
    for (method, route) in [
        (M::GET, "/api/quire/canvases"),
        (M::PATCH, "/api/quire/{space}/canvas"),
        (M::POST, "/api/quire/{space}/canvas/auto-layout"),
    ] {
        assert!(
            routes.contains(&(method.clone(), route.to_string())),
            "{method} {route}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_patches_without_if_match_all_land() {
    let s = server(&[("notes/b.md", "# B\n")]);
    put_board(&s, "plan.canvas.json").await;
    let uri = format!("{BASE}/canvas?path=plan.canvas.json");
    let op = |id: &str| {
        json!({"operations": [{"op": "add_node", "node":
            {"id": id, "type": "text", "text": id, "x": 0, "y": 0, "width": 100, "height": 50}}]})
        .to_string()
    };
    let (ow, ox, oy, oz) = (op("w"), op("x"), op("y"), op("z"));
    let (w, x, y, z) = tokio::join!(
        send(&s, Method::PATCH, &uri, &ow),
        send(&s, Method::PATCH, &uri, &ox),
        send(&s, Method::PATCH, &uri, &oy),
        send(&s, Method::PATCH, &uri, &oz),
    );
    for r in [&w, &x, &y, &z] {
        assert_eq!(r.status, 200, "{}", r.text());
    }
    let c = stored(&s, "plan.canvas.json");
    let ids: Vec<&str> = c["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap())
        .collect();
    for id in ["w", "x", "y", "z"] {
        assert!(ids.contains(&id), "{id} lost: {ids:?}");
    }
    s.assert_clean();
}

/// The spec's canvas shape: nodes of `id`, `type`, `x`, `y`, `data` (no size, types of the
/// client's own, fractional positions) are stored byte for byte, and patch, query and layout
/// work on them, keeping `data` and every unknown key.
#[tokio::test]
async fn canvases_in_the_specs_shape_are_kept_and_worked_on() {
    let s = server(&[]);
    let body = r#"{"nodes":[{"id":"n1","type":"note","x":10.5,"y":20,"data":{"title":"Plan","tags":["q3"]}},{"id":"n2","type":"text","x":300,"y":20,"data":{"text":"Ship it"},"owner":"ann"}],"edges":[{"id":"e1","fromNode":"n1","toNode":"n2","label":"then"}],"version":"kiwi-1"}"#;
    let r = send(
        &s,
        Method::PUT,
        &format!("{BASE}/canvas?path=spec.canvas.json"),
        body,
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["nodes"], 2);
    assert_eq!(s.disk("spec.canvas.json").unwrap(), body, "stored as sent");
    let r = s.get(&format!("{BASE}/canvas?path=spec.canvas.json")).await;
    assert_eq!(r.text(), body);

    // Query finds text inside `data`, and by the client's own type.
    let q = s
        .get(&format!("{BASE}/canvas/query?path=spec.canvas.json&q=q3"))
        .await
        .json();
    assert_eq!(q["nodes"][0]["id"], "n1", "{q}");
    assert_eq!(q["nodes"][0]["data"]["title"], "Plan");
    let q = s
        .get(&format!(
            "{BASE}/canvas/query?path=spec.canvas.json&type=note"
        ))
        .await
        .json();
    assert_eq!(q["nodes"].as_array().unwrap().len(), 1, "{q}");

    // A patch moves a node and keeps its data; no size is invented.
    let r = send(
        &s,
        Method::PATCH,
        &format!("{BASE}/canvas?path=spec.canvas.json"),
        &json!({"operations": [
            {"op": "update_node", "id": "n1", "node": {"x": 42}},
            {"op": "add_node", "node": {"id": "n3", "type": "task", "x": 0, "y": 0, "data": {"done": false}}},
            {"op": "add_edge", "edge": {"id": "e2", "fromNode": "n2", "toNode": "n3"}}
        ]})
        .to_string(),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let c = stored(&s, "spec.canvas.json");
    let n1 = &c["nodes"][0];
    assert_eq!(n1["x"], 42);
    assert_eq!(n1["y"], 20);
    assert_eq!(n1["data"], json!({"title": "Plan", "tags": ["q3"]}));
    assert!(
        n1.get("width").is_none() && n1.get("height").is_none(),
        "{n1}"
    );
    assert_eq!(c["nodes"][1]["owner"], "ann");
    assert_eq!(c["nodes"][2]["data"]["done"], false);
    assert_eq!(c["version"], "kiwi-1");

    // Auto-layout places them with the default size and keeps every key.
    let r = send(
        &s,
        Method::POST,
        &format!("{BASE}/canvas/auto-layout?path=spec.canvas.json"),
        &json!({"layout": "dot"}).to_string(),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let c = stored(&s, "spec.canvas.json");
    assert_eq!(c["nodes"][0]["data"]["title"], "Plan");
    assert!(c["nodes"][0].get("width").is_none());
    let xy: Vec<(i64, i64)> = c["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["x"].as_i64().unwrap(), n["y"].as_i64().unwrap()))
        .collect();
    for (i, a) in xy.iter().enumerate() {
        for b in &xy[i + 1..] {
            let apart = (a.0 - b.0).abs() >= 250 || (a.1 - b.1).abs() >= 60;
            assert!(apart, "default-sized nodes overlap: {xy:?}");
        }
    }
}
