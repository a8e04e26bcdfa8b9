//! Finding things over HTTP: search, DQL, aggregates, backlinks, the graph, reindex — the
//! success shapes, the bad input, and the index following writes, deletes and restructurings.

mod support;

use axum::http::Method;
use serde_json::json;
use support::{enc, result_paths, TestServer};

fn vault() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            "notes/rust.md",
            "---\nstatus: open\npriority: 3\ntags: [lang]\n---\n# Rust ownership\n\nBorrowing rules keep memory safe. See [[python]].\n",
        ),
        (
            "notes/python.md",
            "---\nstatus: done\npriority: 1\n---\n# Python\n\nA language with garbage collection and borrowing of nothing.\n#lang/dynamic\n",
        ),
        (
            "notes/cafe.md",
            "---\nstatus: verified\npriority: 2\n---\n# Café notes\n\nThe café serves coffee. Links to [[rust]].\n",
        ),
        ("journal/tokyo.md", "# Trip\n\n東京都に住んでいます。 Memory of [[rust]].\n"),
    ]
}

fn server() -> TestServer {
    let s = TestServer::with(support::sync_git(), Default::default(), &vault());
    s.service.default_space().find().flush();
    s
}

#[tokio::test]
async fn search_finds_words_phrases_prefixes_and_ranks_titles_first() {
    let s = server();
    let r = s.get("/api/quire/search?q=borrowing").await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["total"], 2);
    assert_eq!(v["engine"], "sqlite");
    let hit = &v["results"][0];
    assert!(hit["snippet"].as_str().unwrap().contains("<mark>"), "{hit}");
    assert!(hit["title"].is_string() && hit["score"].is_number());

    let v = s.get("/api/quire/search?q=ownership").await.json();
    assert_eq!(result_paths(&v), ["notes/rust.md"]);
    let v = s
        .get(&format!(
            "/api/quire/search?q={}",
            enc("\"garbage collection\"")
        ))
        .await
        .json();
    assert_eq!(result_paths(&v), ["notes/python.md"]);
    let v = s.get("/api/quire/search?q=garb*").await.json();
    assert_eq!(result_paths(&v), ["notes/python.md"]);
    let v = s
        .get(&format!(
            "/api/quire/search?q={}",
            enc("borrowing NOT garbage")
        ))
        .await
        .json();
    assert_eq!(result_paths(&v), ["notes/rust.md"]);
    let v = s
        .get(&format!("/api/quire/search?q={}", enc("coffee OR garbage")))
        .await
        .json();
    assert_eq!(v["total"], 2);
    // Diacritics fold; CJK is findable.
    let v = s.get("/api/quire/search?q=cafe").await.json();
    assert_eq!(result_paths(&v), ["notes/cafe.md"]);
    let v = s
        .get(&format!("/api/quire/search?q={}", enc("東京")))
        .await
        .json();
    assert_eq!(result_paths(&v), ["journal/tokyo.md"]);
    // Filters, limit and offset.
    let v = s.get("/api/quire/search?q=rust&path=journal").await.json();
    assert_eq!(result_paths(&v), ["journal/tokyo.md"]);
    let v = s.get("/api/quire/search?q=borrowing&tag=lang").await.json();
    assert_eq!(v["total"], 2, "{v}");
    let v = s
        .get("/api/quire/search?q=borrowing&limit=1&offset=1")
        .await
        .json();
    assert_eq!(v["total"], 2);
    assert_eq!(v["results"].as_array().unwrap().len(), 1);
}

/// A question typed in plain words, no page holding every word: the pages with any of the
/// telling words, best first, and the answer says so; anything else means what it says.
#[tokio::test]
async fn a_question_no_page_answers_word_for_word_finds_the_pages_with_any_of_its_words() {
    let s = server();
    let exact = s.get("/api/quire/search?q=borrowing").await.json();
    assert_eq!(exact["matching"], "all");
    let q = enc("how does garbage collection keep memory safe");
    let v = s.get(&format!("/api/quire/search?q={q}")).await.json();
    assert_eq!(v["matching"], "any", "{v}");
    let found = result_paths(&v);
    // Python has garbage collection; Rust keeps memory safe; Tokyo mentions memory.
    assert_eq!(found.len(), 3, "{v}");
    assert!(found[..2].contains(&"notes/python.md".to_string()), "{v}");
    assert!(found[..2].contains(&"notes/rust.md".to_string()), "{v}");
    assert_eq!(v["total"], 3);
    // Operators, fields and negations are taken at their word: nothing is nothing.
    for q in [
        "garbage AND safe",
        "tag:lang coffee",
        "coffee NOT café",
        "zebra",
    ] {
        let v = s
            .get(&format!("/api/quire/search?q={}", enc(q)))
            .await
            .json();
        assert_eq!(v["total"], 0, "{q}: {v}");
        assert_eq!(v["matching"], "all", "{q}");
    }
    // The grep tier falls back the same way.
    let g = TestServer::from_config("[search]\nengine = \"grep\"\n", &vault());
    let v = g.get(&format!("/api/quire/search?q={q}")).await.json();
    assert_eq!(v["engine"], "grep");
    assert_eq!(v["matching"], "any");
    assert_eq!(v["total"], 3, "{v}");
}

#[tokio::test]
async fn verified_search_puts_trusted_pages_first() {
    let s = server();
    let v = s.get("/api/quire/search/verified?q=rust").await.json();
    assert_eq!(result_paths(&v)[0], "notes/cafe.md", "{v}");
}

#[tokio::test]
async fn a_malformed_search_is_400_with_the_position_and_writes_nothing() {
    let s = server();
    let commits = s.commit_count();
    for q in ["\"unclosed", "(a OR b", "a AND", "NOT", "-alone", ""] {
        let r = s.get(&format!("/api/quire/search?q={}", enc(q))).await;
        let message = r.expect_error(400);
        if !q.is_empty() {
            assert!(message.contains("at character"), "{q}: {message}");
        }
    }
    let r = s.get("/api/quire/search").await;
    r.expect_error(400);
    assert_eq!(s.commit_count(), commits);
}

#[tokio::test]
async fn the_index_follows_writes_deletes_and_restructurings() {
    let s = server();
    s.put("notes/new.md", "# Fresh\n\nzebra crossing\n", "ann")
        .await;
    let v = s.get("/api/quire/search?q=zebra").await.json();
    assert_eq!(result_paths(&v), ["notes/new.md"]);
    let r = s
        .call(
            axum::http::Method::DELETE,
            "/api/quire/file?path=notes/new.md",
            &[],
            String::new(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(s.get("/api/quire/search?q=zebra").await.json()["total"], 0);

    let r = s
        .post_json(
            "/api/quire/refactor/apply",
            json!({"manifest": {"moves": [{"from": "notes/rust.md", "to": "lang/rust.md"}]}}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = s.get("/api/quire/search?q=ownership").await.json();
    assert_eq!(result_paths(&v), ["lang/rust.md"]);
    let b = s.get("/api/quire/backlinks?path=lang/rust.md").await.json();
    let sources: Vec<&str> = b
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["path"].as_str().unwrap())
        .collect();
    assert_eq!(sources, ["journal/tokyo.md", "notes/cafe.md"]);
}

#[tokio::test]
async fn grep_engine_answers_the_same_queries() {
    let s = grep_server(&vault());
    let v = s.get("/api/quire/search?q=borrowing").await.json();
    assert_eq!(v["engine"], "grep");
    assert_eq!(v["total"], 2);
    let v = s
        .get("/api/quire/search?q=borrowing&tag=lang/dynamic")
        .await
        .json();
    assert_eq!(result_paths(&v), ["notes/python.md"]);
    s.get(&format!("/api/quire/search?q={}", enc("(a")))
        .await
        .expect_error(400);
}

/// Pages whose tags, properties and paths carry words their texts do not.
fn tagged_vault() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            "projects/q3/sprint-review.md",
            "---\ntags: [sprint, zz98765]\nderived-from: run:test-abc12345\naliases: [Retro]\n---\n# Velocity\n\nThe team shipped.\n",
        ),
        (
            "projects/q3/planning.md",
            "---\ntags: [project/alpha]\n---\n# Planning\n\nVelocity targets for the quarter.\n",
        ),
        (
            "notes/daily/2024-01-05.md",
            "# Standup\n\nWorked on #project/beta and the release.\n",
        ),
        ("archive/old.md", "# Old\n\nLast sprint notes.\n"),
    ]
}

/// `(query, pages found, sorted)`: what both engines answer over [`tagged_vault`].
const TAGGED_QUERIES: &[(&str, &[&str])] = &[
    ("zz98765", &["projects/q3/sprint-review.md"]),
    ("abc12345", &["projects/q3/sprint-review.md"]),
    ("retro", &["projects/q3/sprint-review.md"]),
    ("daily", &["notes/daily/2024-01-05.md"]),
    ("tag:sprint", &["projects/q3/sprint-review.md"]),
    ("tag:#Project/Beta", &["notes/daily/2024-01-05.md"]),
    ("file:sprint", &["projects/q3/sprint-review.md"]),
    ("file:2024-01-05.md", &["notes/daily/2024-01-05.md"]),
    ("path:q3 team", &["projects/q3/sprint-review.md"]),
    (
        "(tag:sprint OR tag:project/beta) -path:notes",
        &["projects/q3/sprint-review.md"],
    ),
    (
        "path:archive OR file:planning",
        &["archive/old.md", "projects/q3/planning.md"],
    ),
];

/// Paths found, best first.
async fn found(s: &TestServer, q: &str) -> Vec<String> {
    let r = s.get(&format!("/api/quire/search?q={}", enc(q))).await;
    assert_eq!(r.status, 200, "{q}: {}", r.text());
    let v = r.json();
    assert_eq!(v["total"], v["results"].as_array().unwrap().len(), "{q}");
    result_paths(&v)
}

async fn found_sorted(s: &TestServer, q: &str) -> Vec<String> {
    let mut found = found(s, q).await;
    found.sort();
    found
}

#[tokio::test]
async fn search_finds_tags_properties_and_folder_and_file_names() {
    let s = TestServer::with(support::sync_git(), Default::default(), &tagged_vault());
    s.service.default_space().find().flush();
    for (q, expected) in TAGGED_QUERIES {
        assert_eq!(found_sorted(&s, q).await, *expected, "{q}");
    }
    // A folder name finds every page under it.
    assert_eq!(
        found_sorted(&s, "q3").await,
        ["projects/q3/planning.md", "projects/q3/sprint-review.md"]
    );
    // Nested tags are below their parent.
    let project = found_sorted(&s, "tag:project").await;
    assert_eq!(
        project,
        ["notes/daily/2024-01-05.md", "projects/q3/planning.md"]
    );
    assert!(found(&s, "tag:proj").await.is_empty());
    // The tag and file name rank above a mention in a text; the title above the text.
    assert_eq!(
        found(&s, "sprint").await,
        ["projects/q3/sprint-review.md", "archive/old.md"]
    );
    assert_eq!(
        found(&s, "velocity").await,
        ["projects/q3/sprint-review.md", "projects/q3/planning.md"]
    );
}

#[tokio::test]
async fn an_operator_without_a_value_is_400_with_the_position() {
    let s = TestServer::with(support::sync_git(), Default::default(), &tagged_vault());
    s.service.default_space().find().flush();
    let commits = s.commit_count();
    for (q, at) in [("tag:", 0), ("velocity path:\"\"", 9), ("file: x", 0)] {
        let message = s
            .get(&format!("/api/quire/search?q={}", enc(q)))
            .await
            .expect_error(400);
        assert!(
            message.contains(&format!("at character {at}")) && message.contains("needs a word"),
            "{q}: {message}"
        );
    }
    assert_eq!(s.commit_count(), commits);
}

#[tokio::test]
async fn grep_engine_understands_the_same_operators() {
    let s = grep_server(&tagged_vault());
    for (q, expected) in TAGGED_QUERIES {
        assert_eq!(found_sorted(&s, q).await, *expected, "{q}");
    }
    let v = s.get("/api/quire/search?q=tag:project").await.json();
    assert_eq!(v["engine"], "grep");
    assert_eq!(v["total"], 2, "{v}");
    // Snippets come from the text, not the frontmatter.
    let v = s.get("/api/quire/search?q=team").await.json();
    assert_eq!(
        v["results"][0]["snippet"],
        "# Velocity\n\nThe <mark>team</mark> shipped.\n"
    );
}

/// A server over `files` whose search engine is grep.
fn grep_server(files: &[(&str, &str)]) -> TestServer {
    let dir = tempfile::tempdir().unwrap();
    for (path, content) in files {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, content).unwrap();
    }
    let config = quire_config::Config::from_toml_str("[search]\nengine = \"grep\"\n", &|_| None)
        .unwrap()
        .config;
    let settings = quire_service::settings_from_config(dir.path(), &config);
    let service = std::sync::Arc::new(quire_service::Service::open(settings).unwrap());
    service.default_space().find().flush();
    let app = quire_http::router(service.clone(), quire_http::HttpSettings::open("default"));
    TestServer { dir, service, app }
}

#[tokio::test]
async fn dql_tables_lists_and_counts() {
    let s = server();
    let q = enc("TABLE title, priority FROM \"notes\" WHERE priority > 1 SORT priority DESC");
    let r = s.get(&format!("/api/quire/query?q={q}")).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["mode"], "TABLE");
    assert_eq!(v["headers"], json!(["File", "title", "priority"]));
    assert_eq!(v["rows"][0][0], "notes/rust.md");
    assert_eq!(v["rows"].as_array().unwrap().len(), 2);

    let v = s
        .get(&format!("/api/quire/query?q={}", enc("COUNT FROM #lang")))
        .await
        .json();
    assert_eq!(v["mode"], "COUNT");
    assert_eq!(v["rows"][0][0], 2);
    let v = s
        .get(&format!("/api/quire/query?q={}", enc("LIST FROM [[rust]]")))
        .await
        .json();
    assert_eq!(v["rows"].as_array().unwrap().len(), 2, "{v}");
}

#[tokio::test]
async fn a_malformed_dql_query_is_400_with_the_position() {
    let s = server();
    for q in [
        "TABLE FROM",
        "LIST WHERE (",
        "TABLE x LIMIT -1",
        "SELECT *",
        "",
    ] {
        let r = s.get(&format!("/api/quire/query?q={}", enc(q))).await;
        let message = r.expect_error(400);
        if !q.is_empty() {
            assert!(message.contains(" at "), "{q}: {message}");
        }
    }
}

#[tokio::test]
async fn meta_filters_and_sorts_frontmatter() {
    let s = server();
    let w = enc("priority >= 2");
    let r = s
        .get(&format!("/api/quire/meta?where={w}&sort=-priority"))
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["total"], 2);
    assert_eq!(v["pages"][0]["path"], "notes/rust.md");
    assert_eq!(v["pages"][0]["frontmatter"]["status"], "open");
    assert_eq!(v["pages"][1]["path"], "notes/cafe.md");
    let v = s.get("/api/quire/meta?limit=1&offset=1").await.json();
    assert_eq!(v["total"], 4);
    assert_eq!(v["pages"][0]["path"], "notes/cafe.md");
    let message = s
        .get(&format!("/api/quire/meta?where={}", enc("status = ")))
        .await
        .expect_error(400);
    assert!(message.contains("invalid `where` at"), "{message}");
    s.get(&format!("/api/quire/meta?sort={}", enc("(")))
        .await
        .expect_error(400);
}

/// KiwiFS's client sends `where=$.field=value`, `sort=$.field`, `order` and `limit`.
#[tokio::test]
async fn meta_takes_the_kiwifs_forms() {
    let s = server();
    let v = s
        .get(&format!(
            "/api/quire/meta?where={}&sort={}&order=desc&limit=1",
            enc("$.status=open"),
            enc("$.priority")
        ))
        .await
        .json();
    assert_eq!(v["total"], 1, "{v}");
    assert_eq!(v["pages"][0]["path"], "notes/rust.md");
    let r = s
        .get(&format!(
            "/api/quire/meta?where={}&sort={}&order=asc",
            enc("$.priority>=2"),
            enc("$.priority")
        ))
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["total"], 2, "{v}");
    assert_eq!(v["pages"][0]["path"], "notes/cafe.md");
    assert_eq!(v["pages"][1]["path"], "notes/rust.md");
    let v = s
        .get(&format!(
            "/api/quire/meta?sort={}&order=desc&limit=2",
            enc("$.priority")
        ))
        .await
        .json();
    assert_eq!(v["pages"][0]["path"], "notes/rust.md", "{v}");
    assert_eq!(v["pages"][1]["path"], "notes/cafe.md", "{v}");
    s.get("/api/quire/meta?order=sideways")
        .await
        .expect_error(400);
    s.get(&format!("/api/quire/meta?where={}", enc("$.status")))
        .await
        .expect_error(400);
}

#[tokio::test]
async fn aggregates_group_by_a_field() {
    let s = server();
    let r = s
        .get("/api/quire/query/aggregate?group=status&calc=count,sum:priority")
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let rows = r.json();
    let open = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["status"] == "open")
        .expect("a group for open")
        .clone();
    assert_eq!(open["count"], 1);
    assert_eq!(open["sum_priority"], 3.0);
    s.get("/api/quire/query/aggregate?group=status&calc=median:priority")
        .await
        .expect_error(400);
    s.get("/api/quire/query/aggregate?group=")
        .await
        .expect_error(400);
}

#[tokio::test]
async fn backlinks_name_the_linking_line() {
    let s = server();
    let r = s.get("/api/quire/backlinks?path=notes/rust.md").await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    let first = &v[0];
    assert_eq!(first["path"], "journal/tokyo.md");
    assert_eq!(first["title"], "Trip");
    assert!(first["context"].as_str().unwrap().contains("[[rust]]"));
    s.get("/api/quire/backlinks?path=nope.md")
        .await
        .expect_error(404);
    s.get("/api/quire/backlinks?path=../x.md")
        .await
        .expect_error(400);
    s.get("/api/quire/backlinks").await.expect_error(400);
}

#[tokio::test]
async fn the_graph_and_its_analytics() {
    let s = server();
    let g = s.get("/api/quire/graph").await.json();
    assert_eq!(g["nodes"].as_array().unwrap().len(), 4);
    assert_eq!(g["edges"].as_array().unwrap().len(), 3);
    let node = g["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == "notes/rust.md")
        .unwrap()
        .clone();
    assert_eq!(node["group"], "notes");
    assert_eq!(node["title"], "Rust ownership");

    let a = s.get("/api/quire/graph/analytics?limit=2").await.json();
    assert_eq!(a["total_nodes"], 4);
    assert_eq!(a["total_edges"], 3);
    assert_eq!(a["components"], 1);
    assert_eq!(a["top_pages"].as_array().unwrap().len(), 2);
    assert!(a["top_pages"][0]["pagerank"].is_number());

    let c = s.get("/api/quire/graph/centrality?limit=3").await.json();
    assert!(c["pages"][0]["betweenness"].is_number());
    let m = s.get("/api/quire/graph/communities").await.json();
    assert!(m["communities"].is_array() && m["modularity"].is_number());

    let p = s
        .get("/api/quire/graph/path?from=journal/tokyo.md&to=notes/python.md")
        .await
        .json();
    assert_eq!(
        p["path"],
        json!(["journal/tokyo.md", "notes/rust.md", "notes/python.md"])
    );
    s.get("/api/quire/graph/path?from=notes/python.md&to=journal/tokyo.md")
        .await
        .expect_error(404);
    s.get("/api/quire/graph/path?from=nope.md&to=notes/python.md")
        .await
        .expect_error(404);
    s.get("/api/quire/graph/path?from=notes/python.md")
        .await
        .expect_error(400);

    let w = s
        .get("/api/quire/graph/walk?path=notes/rust.md&neighbors=true")
        .await
        .json();
    assert_eq!(w["outbound"], json!(["notes/python.md"]));
    assert_eq!(w["neighbors"].as_array().unwrap().len(), 2);
    s.get("/api/quire/graph/walk?path=nope.md")
        .await
        .expect_error(404);
}

#[tokio::test]
async fn reindex_rebuilds_and_a_deleted_index_is_rebuilt_at_start() {
    let s = server();
    let r = s.post_json("/api/quire/reindex", json!({})).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["pages"], 4);

    // Deleting the index loses nothing: a new service rebuilds it.
    let root = s.dir.path().to_path_buf();
    let TestServer { dir, service, app } = s;
    drop(app);
    drop(service);
    std::fs::remove_file(root.join(".quire/state/index.db")).unwrap();
    let settings = quire_service::settings_from_config(&root, &Default::default());
    let service = std::sync::Arc::new(quire_service::Service::open(settings).unwrap());
    service.default_space().find().flush();
    let app = quire_http::router(service.clone(), quire_http::HttpSettings::open("default"));
    let s = TestServer { dir, service, app };
    let v = s.get("/api/quire/search?q=ownership").await.json();
    assert_eq!(result_paths(&v), ["notes/rust.md"]);
}

#[tokio::test]
async fn computed_fields_from_the_configuration_are_fields_of_every_query() {
    let config = r#"
[dataview.computed_fields]
cost = "hours * rate"
is_open = 'status = "open"'
"#;
    let s = TestServer::from_config(
        config,
        &[
            (
                "notes/a.md",
                "---\nstatus: open\nhours: 3\nrate: 10\n---\n# A\n",
            ),
            (
                "notes/b.md",
                "---\nstatus: done\nhours: 1\nrate: 20\n---\n# B\n",
            ),
            (
                "notes/c.md",
                "---\nstatus: open\nhours: 5\nrate: 2\n---\n# C\n",
            ),
        ],
    );
    s.service.default_space().find().flush();
    let q = "TABLE cost FROM \"notes\" WHERE is_open SORT cost DESC";
    let r = s.get(&format!("/api/quire/query?q={}", enc(q))).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["headers"], json!(["File", "cost"]));
    assert_eq!(
        v["rows"],
        json!([["notes/a.md", 30], ["notes/c.md", 10]]),
        "{v}"
    );
    // Saved views see them too, in their filters and sort.
    let r = s
        .call(
            Method::PUT,
            "/api/quire/views/costly",
            &[("content-type", "application/json")],
            json!({"query": "TABLE cost FROM \"notes\"", "filters": {"cost": {">": 15}},
                   "sort": "-cost"})
            .to_string(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = s.get("/api/quire/views/costly/execute").await.json();
    assert_eq!(v["rows"], json!([["notes/a.md", 30], ["notes/b.md", 20]]));
}

#[test]
fn a_bad_computed_field_stops_the_start_with_its_name() {
    let dir = tempfile::tempdir().unwrap();
    for (config, says) in [
        (
            "[dataview.computed_fields]\ncost = \"hours *\"\n",
            "cost: invalid expression at",
        ),
        (
            "[dataview.computed_fields]\nfile = \"1\"\n",
            "\"file\" is a name DQL gives a meaning",
        ),
    ] {
        let config = quire_config::Config::from_toml_str(config, &|_| None)
            .unwrap()
            .config;
        let settings = quire_service::settings_from_config(dir.path(), &config);
        let error = match quire_service::Service::open(settings) {
            Ok(_) => panic!("{config:?}: the service opened"),
            Err(e) => e,
        };
        assert!(
            error.message.contains("[dataview] computed_fields"),
            "{}",
            error.message
        );
        assert!(error.message.contains(says), "{}", error.message);
    }
}

#[tokio::test]
async fn reindex_takes_a_bare_post_without_a_body() {
    let s = server();
    let r = s
        .call(
            Method::POST,
            "/api/quire/reindex",
            &[],
            axum::body::Body::empty(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["pages"], 4);
}

#[tokio::test]
async fn verified_search_without_a_query_is_400_naming_it() {
    let s = server();
    let commits = s.commit_count();
    let message = s
        .get("/api/quire/search/verified?limit=3")
        .await
        .expect_error(400);
    assert!(message.contains("`q`"), "{message}");
    s.get("/api/quire/search/verified?q=rust&limit=many")
        .await
        .expect_error(400);
    assert_eq!(s.commit_count(), commits);
}
