//! Analytics and health over HTTP: the dashboard, page health, stale pages, the janitor,
//! contradictions, velocity, memory, context, eligible tasks, search evaluation and search
//! analytics — each success shape on a small vault, and bad input answered 400 with nothing
//! written.

mod support;

use std::time::{Duration, SystemTime};

use axum::http::Method;
use quire_service::{AssetRules, Strategy};
use serde_json::{json, Value};
use support::{enc, TestServer};

fn vault() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            "notes/alpha.md",
            "---\ntitle: Project X\nstatus: open\npriority: high\ndue: 2030-01-01\nreview-by: 2020-01-01\n---\n\
             # Alpha\n\nAlpha talks about ownership. See [[beta]] and [[missing-page]] and \
             [the web](https://example.com).\n",
        ),
        (
            "notes/beta.md",
            "---\naliases: [project x]\nstatus: done\n---\n# Beta\n\nBack to [[alpha]].\n",
        ),
        ("notes/gamma.md", "# Gamma\n\nNo frontmatter here, a link to [[beta]].\n"),
        ("notes/empty.md", "---\nstatus: todo\npriority: 1\n---\n"),
        (
            "memory/episodes/e1.md",
            "---\n_source: chat\n---\nFirst episode.\n",
        ),
        (
            "memory/episodes/e2.md",
            "---\n_source: chat\n---\nSecond episode.\n",
        ),
        (
            "memory/summary.md",
            "---\n_source: import\nmerged-from: [\"[[memory/episodes/e1]]\", \"[[gone]]\"]\n---\nWhat we learnt.\n",
        ),
        (".quire/playbook.md", "Be kind.\n"),
    ]
}

/// The vault, with `notes/gamma.md` last modified 40 days ago, indexed.
fn server() -> TestServer {
    let s = TestServer::with(support::sync_git(), AssetRules::default(), &vault());
    age(&s, "notes/gamma.md", 40);
    s
}

/// Sets a file's modification time `days` back and reindexes, so the catalog sees it.
fn age(s: &TestServer, path: &str, days: u64) {
    let file = std::fs::File::options()
        .write(true)
        .open(s.dir.path().join(path))
        .unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(days * 86_400))
        .unwrap();
    let space = s.service.default_space();
    space.find().flush();
    space.find().reindex().unwrap();
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn the_dashboard_counts_stale_orphan_empty_and_broken_pages() {
    let s = server();
    let r = s.get("/api/quire/analytics").await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["total_pages"], 7, "{v}");
    // alpha is past its review-by date; gamma was not modified for 40 days, more than
    // `[analytics] stale_days` (30 by default).
    assert_eq!(v["stale_pages"], 2, "{v}");
    // gamma, empty, e2 and summary: nothing links to them (e1 is named in frontmatter).
    assert_eq!(v["orphan_pages"], 4, "{v}");
    // [[missing-page]] and the frontmatter's [[gone]]; the external URL is no link.
    assert_eq!(v["broken_links"], 2, "{v}");
    assert_eq!(v["empty_pages"], 1, "{v}");
    assert_eq!(v["pages_without_frontmatter"], 1, "{v}");
    // Six wiki links, four resolve.
    assert_eq!(v["link_coverage_pct"], 66.7, "{v}");
    let recent = v["recently_updated"].as_array().unwrap();
    assert_eq!(recent.len(), 7);
    assert_eq!(recent[6]["path"], "notes/gamma.md", "the oldest last: {v}");
    assert!(recent[0]["updated"].as_str().unwrap().ends_with('Z'));

    let o = s.get("/api/quire/analytics/overview").await.json();
    for key in [
        "total_pages",
        "stale_pages",
        "orphan_pages",
        "broken_links",
        "empty_pages",
        "pages_without_frontmatter",
        "link_coverage_pct",
    ] {
        assert_eq!(o[key], v[key], "{key}");
    }
    assert!(o.get("recently_updated").is_none());
}

#[tokio::test]
async fn page_health_lists_a_pages_issues() {
    let s = server();
    let r = s.get("/api/quire/health-check?path=notes/alpha.md").await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["path"], "notes/alpha.md");
    assert_eq!(v["link_count"], 2, "{v}");
    assert_eq!(v["backlink_count"], 1, "{v}");
    assert!(v["word_count"].as_u64().unwrap() > 5);
    assert_eq!(v["days_since_update"], 0);
    let types: Vec<&str> = v["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["broken_link", "stale"], "{v}");
    assert!(v["issues"][0]["message"]
        .as_str()
        .unwrap()
        .contains("missing-page"));

    let v = s
        .get("/api/quire/health-check?path=notes/gamma.md")
        .await
        .json();
    let types: Vec<&str> = v["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["stale", "no_frontmatter", "orphan"], "{v}");
    assert_eq!(v["days_since_update"], 40);
    let v = s
        .get("/api/quire/health-check?path=notes/empty.md")
        .await
        .json();
    assert!(v["issues"].to_string().contains("\"empty\""), "{v}");
}

#[tokio::test]
async fn page_health_refuses_bad_and_unknown_paths() {
    let s = server();
    let commits = s.commit_count();
    s.get("/api/quire/health-check").await.expect_error(400);
    s.get("/api/quire/health-check?path=")
        .await
        .expect_error(400);
    s.get(&format!("/api/quire/health-check?path={}", enc("../x.md")))
        .await
        .expect_error(400);
    s.get("/api/quire/health-check?path=notes/nope.md")
        .await
        .expect_error(404);
    assert_eq!(s.commit_count(), commits);
}

#[tokio::test]
async fn stale_pages_are_past_review_by_most_overdue_first() {
    let s = server();
    let r = s.get("/api/quire/stale").await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    let entries = v.as_array().unwrap();
    assert_eq!(entries.len(), 1, "{v}");
    assert_eq!(entries[0]["path"], "notes/alpha.md");
    assert_eq!(entries[0]["title"], "Project X");
    assert_eq!(entries[0]["review_by"], "2020-01-01");
    assert!(entries[0]["days_overdue"].as_i64().unwrap() > 2000);
}

#[tokio::test]
async fn the_janitor_also_calls_long_unmodified_pages_stale() {
    let s = server();
    let r = s.get("/api/quire/janitor").await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(strings(&v["stale"]), ["notes/alpha.md", "notes/gamma.md"]);
    assert_eq!(
        strings(&v["orphans"]),
        [
            "memory/episodes/e2.md",
            "memory/summary.md",
            "notes/empty.md",
            "notes/gamma.md"
        ]
    );
    assert_eq!(strings(&v["empty"]), ["notes/empty.md"]);
    assert_eq!(strings(&v["missing_frontmatter"]), ["notes/gamma.md"]);
    let broken = v["broken_links"].as_array().unwrap();
    assert_eq!(broken.len(), 2);
    assert_eq!(broken[0]["path"], "memory/summary.md");
    assert_eq!(broken[0]["target"], "gone");
    assert_eq!(broken[1]["path"], "notes/alpha.md");
    assert_eq!(broken[1]["target"], "missing-page");
    assert!(broken[1]["line"].as_u64().unwrap() > 1);
    let recommendations = strings(&v["recommendations"]);
    assert_eq!(recommendations.len(), 5, "{recommendations:?}");
    assert!(recommendations[0].contains("notes/gamma.md"));
}

#[tokio::test]
async fn pages_of_one_title_with_different_status_contradict() {
    let s = server();
    let r = s.get("/api/quire/contradictions").await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(
        v,
        json!([{
            "pages": ["notes/alpha.md", "notes/beta.md"],
            "claim": "status of \"Project X\"",
            "details": "notes/alpha.md: status = open; notes/beta.md: status = done"
        }])
    );
}

#[tokio::test]
async fn velocity_finds_hot_pages_bursts_and_single_authors() {
    let s = server();
    for i in 0..5 {
        let r = s
            .put(
                "notes/alpha.md",
                &format!("# Alpha\n\nversion {i}\n"),
                "bob",
            )
            .await;
        assert!(r.status.is_success(), "{}", r.text());
    }
    let r = s.get("/api/quire/velocity?period=30d&limit=3").await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["period"], "30d");
    // Seven pages in the first commit (the playbook is no page), then five writes.
    assert_eq!(v["total_changes"], 12, "{v}");
    assert_eq!(
        v["hot_spots"][0],
        json!({"path": "notes/alpha.md", "changes": 6})
    );
    assert_eq!(v["hot_spots"].as_array().unwrap().len(), 3);
    let cold = v["cold_spots"].as_array().unwrap();
    assert_eq!(cold.len(), 3);
    assert_eq!(cold[0]["changes"], 1);
    let bob = v["bursts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["actor"] == "bob")
        .unwrap_or_else(|| panic!("no burst of bob: {v}"));
    assert_eq!(bob["changes"], 5);
    assert_eq!(bob["date"].as_str().unwrap().len(), "2026-01-01".len());
    let single = strings(&v["single_author_pages"]);
    assert_eq!(single.len(), 3);
    assert!(
        !single.contains(&"notes/alpha.md".to_string()),
        "{single:?}"
    );

    let v = s
        .get("/api/quire/velocity?period=2w&dir=memory")
        .await
        .json();
    assert_eq!(v["total_changes"], 3, "{v}");
    assert!(v["hot_spots"]
        .as_array()
        .unwrap()
        .iter()
        .all(|h| h["path"].as_str().unwrap().starts_with("memory/")));
    let v = s
        .get("/api/quire/velocity?path=memory/episodes")
        .await
        .json();
    assert_eq!(v["period"], "30d");
    assert_eq!(v["total_changes"], 2, "{v}");
}

#[tokio::test]
async fn velocity_refuses_bad_periods_and_answers_501_without_versioning() {
    let s = server();
    let commits = s.commit_count();
    for period in ["30x", "abc", "0d", "d", "-1w", "1.5m"] {
        let message = s
            .get(&format!("/api/quire/velocity?period={}", enc(period)))
            .await
            .expect_error(400);
        assert!(message.contains("period"), "{period}: {message}");
    }
    s.get("/api/quire/velocity?limit=many")
        .await
        .expect_error(400);
    s.get("/api/quire/velocity?path=../up")
        .await
        .expect_error(400);
    assert_eq!(s.commit_count(), commits);

    let unversioned = TestServer::with(
        support::options(Strategy::None, false),
        AssetRules::default(),
        &vault(),
    );
    unversioned
        .get("/api/quire/velocity")
        .await
        .expect_error(501);
}

#[tokio::test]
async fn the_memory_report_tells_merged_from_unmerged_episodes() {
    let s = server();
    let r = s.get("/api/quire/memory/report").await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["episodic_count"], 2);
    assert_eq!(v["merged_from_refs"], 1);
    assert_eq!(
        strings(&v["episodic_files"]),
        ["memory/episodes/e1.md", "memory/episodes/e2.md"]
    );
    assert_eq!(strings(&v["unmerged"]), ["memory/episodes/e2.md"]);
    let warnings = strings(&v["warnings"]);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("gone"));

    let same = s
        .get("/api/quire/memory/report?prefix=/memory/episodes/")
        .await
        .json();
    assert_eq!(same["episodic_files"], v["episodic_files"]);
    let none = s
        .get("/api/quire/memory/report?prefix=nowhere")
        .await
        .json();
    assert_eq!(none["episodic_count"], 0);
    assert!(none["warnings"].to_string().contains("nowhere"));
    s.get(&format!(
        "/api/quire/memory/report?prefix={}",
        enc("../out")
    ))
    .await
    .expect_error(400);
}

#[tokio::test]
async fn context_holds_the_three_texts_missing_ones_empty() {
    let s = server();
    let r = s.get("/api/quire/context").await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        r.json(),
        json!({"playbook": "Be kind.\n", "schema": "", "index": ""})
    );
}

#[tokio::test]
async fn eligible_ranks_open_tasks_by_priority_then_due() {
    let s = server();
    let r = s.get("/api/quire/eligible").await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    let tasks = v["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 2, "{v}");
    assert_eq!(
        tasks[0],
        json!({"path": "notes/alpha.md", "title": "Project X", "status": "open",
               "priority": "high", "due": "2030-01-01"})
    );
    assert_eq!(tasks[1]["path"], "notes/empty.md");
    assert_eq!(tasks[1]["priority"], "1");
    let v = s.get("/api/quire/eligible?limit=1").await.json();
    assert_eq!(v["tasks"].as_array().unwrap().len(), 1);
    s.get("/api/quire/eligible?limit=-1")
        .await
        .expect_error(400);
}

#[tokio::test]
async fn eval_scores_full_text_search_and_leaves_semantic_null() {
    let s = server();
    let r = s
        .post_json(
            "/api/quire/eval",
            json!({"queries": [
                {"question": "ownership", "expected_paths": ["notes/alpha.md"]},
                {"question": "zebra", "expected_paths": ["notes/beta.md"]},
                {"question": "\"unclosed", "expected_paths": ["notes/beta.md"]}
            ]}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert!(v["semantic"].is_null());
    assert!(v["hybrid"].is_null());
    let third = 1.0 / 3.0;
    assert_eq!(v["fts"]["hit_rate"].as_f64().unwrap(), third);
    assert_eq!(v["fts"]["mrr"].as_f64().unwrap(), third);
    assert!((v["fts"]["precision_at_5"].as_f64().unwrap() - 0.2 / 3.0).abs() < 1e-9);
    assert_eq!(
        v["per_query"][0],
        json!({"question": "ownership", "fts_rank": 1, "semantic_rank": null, "hybrid_rank": null})
    );
    assert!(v["per_query"][1]["fts_rank"].is_null());
    assert!(v["per_query"][2]["fts_rank"].is_null());
}

#[tokio::test]
async fn eval_questions_stay_out_of_the_search_analytics() {
    let s = server();
    s.get("/api/quire/search?q=ownership").await;
    let r = s
        .post_json(
            "/api/quire/eval",
            json!({"queries": [
                {"question": "ownership", "expected_paths": ["notes/alpha.md"]},
                {"question": "zebra", "expected_paths": ["notes/beta.md"]}
            ]}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = s.get("/api/quire/analytics/searches").await.json();
    assert_eq!(v["total"], 1, "only the search someone asked: {v}");
    assert_eq!(v["top"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["top"][0]["query"], "ownership");
    assert_eq!(v["top"][0]["count"], 1);
    let failed = s.get("/api/quire/analytics/failed-searches").await.json();
    assert_eq!(
        failed["queries"],
        json!([]),
        "zebra failed only in the eval"
    );
    let gaps = s.get("/api/quire/analytics/content-gaps").await.json();
    assert_eq!(gaps["gaps"], json!([]));
    let trends = s.get("/api/quire/analytics/trends").await.json();
    let searched: u64 = trends["trend"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["searches"].as_u64().unwrap())
        .sum();
    assert_eq!(searched, 1);
}

#[tokio::test]
async fn eval_refuses_empty_or_malformed_bodies() {
    let s = server();
    let commits = s.commit_count();
    let m = s
        .post_json("/api/quire/eval", json!({"queries": []}))
        .await
        .expect_error(400);
    assert!(m.contains("empty"), "{m}");
    s.post_json(
        "/api/quire/eval",
        json!({"queries": [{"question": " ", "expected_paths": []}]}),
    )
    .await
    .expect_error(400);
    s.post_json("/api/quire/eval", json!({"questions": []}))
        .await
        .expect_error(400);
    s.call(
        axum::http::Method::POST,
        "/api/quire/eval",
        &[("content-type", "application/json")],
        "{not json",
    )
    .await
    .expect_error(400);
    assert_eq!(s.commit_count(), commits);
}

#[tokio::test]
async fn searches_are_recorded_and_failed_ones_become_content_gaps() {
    let s = server();
    for q in ["ownership", "zebra", "Zebra ", "quokka"] {
        let r = s.get(&format!("/api/quire/search?q={}", enc(q))).await;
        assert_eq!(r.status, 200, "{}", r.text());
    }
    // A further page of a search is not another search; a malformed one is not recorded.
    s.get("/api/quire/search?q=ownership&offset=1").await;
    s.get("/api/quire/search?q=%22unclosed")
        .await
        .expect_error(400);

    let r = s.get("/api/quire/analytics/searches").await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["total"], 4, "{v}");
    assert_eq!(v["recent"][0]["query"], "quokka");
    assert_eq!(v["recent"][0]["results"], 0);
    assert_eq!(v["recent"][3]["results"], 1);
    assert_eq!(v["top"][0]["query"], "Zebra");
    assert_eq!(v["top"][0]["count"], 2);

    let v = s.get("/api/quire/analytics/failed-searches").await.json();
    let failed: Vec<(String, u64)> = v["queries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| {
            (
                q["query"].as_str().unwrap().into(),
                q["count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(failed, [("Zebra".into(), 2), ("quokka".into(), 1)]);

    let newest = s.get("/api/quire/analytics/searches?limit=1").await.json();
    let today = &newest["recent"][0]["timestamp"].as_str().unwrap()[..10];
    let v = s.get("/api/quire/analytics/trends?days=7").await.json();
    assert_eq!(v["days"], 7);
    assert_eq!(
        v["trend"],
        json!([{"date": today, "searches": 4, "failed": 3}])
    );

    let gaps = |v: Value| -> Vec<String> {
        v["gaps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["query"].as_str().unwrap().to_string())
            .collect()
    };
    let v = s.get("/api/quire/analytics/content-gaps").await.json();
    assert_eq!(gaps(v), ["Zebra", "quokka"]);
    let r = s
        .post_json(
            "/api/quire/analytics/content-gaps/dismiss",
            json!({"query": "zebra"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json(), json!({"dismissed": "zebra"}));
    let v = s.get("/api/quire/analytics/content-gaps").await.json();
    assert_eq!(gaps(v), ["quokka"]);
}

#[tokio::test]
async fn search_analytics_refuse_bad_input_and_write_no_files() {
    let s = server();
    let commits = s.commit_count();
    s.get("/api/quire/search?q=ownership").await;
    let dismiss = "/api/quire/analytics/content-gaps/dismiss";
    s.post_json(dismiss, json!({"query": "  "}))
        .await
        .expect_error(400);
    s.post_json(dismiss, json!({})).await.expect_error(400);
    s.post_json(dismiss, json!({"query": "ownership"}))
        .await
        .expect_error(404);
    s.get("/api/quire/analytics/trends?days=0")
        .await
        .expect_error(400);
    s.get("/api/quire/analytics/trends?days=400")
        .await
        .expect_error(400);
    s.get("/api/quire/analytics/searches?limit=x")
        .await
        .expect_error(400);
    assert_eq!(s.commit_count(), commits);
    s.assert_clean();
}

#[tokio::test]
async fn sources_group_pages_by_their_source() {
    let s = server();
    let r = s.get("/api/quire/analytics/sources").await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        r.json(),
        json!({
            "sources": [{"source": "chat", "pages": 2}, {"source": "import", "pages": 1}],
            "unsourced": 4
        })
    );
}

#[tokio::test]
async fn a_read_scoped_key_may_evaluate_but_not_dismiss() {
    let config = quire_config::Config::from_toml_str(
        "[auth]\ntype = \"perspace\"\n\
         [[auth.api_keys]]\nkey = \"key-a-read\"\nspace = \"a\"\nscope = \"read\"\n",
        &|_| None,
    )
    .unwrap()
    .config;
    let s = TestServer::spaces(&["a"], &config);
    s.service.default_space().find().flush();
    let headers = [
        ("authorization", "Bearer key-a-read"),
        ("content-type", "application/json"),
    ];
    let eval = s
        .call(
            axum::http::Method::POST,
            "/api/quire/eval",
            &headers,
            r#"{"queries":[{"question":"x","expected_paths":[]}]}"#,
        )
        .await;
    assert_eq!(eval.status, 200, "{}", eval.text());
    let dismiss = s
        .call(
            axum::http::Method::POST,
            "/api/quire/analytics/content-gaps/dismiss",
            &headers,
            r#"{"query":"x"}"#,
        )
        .await;
    dismiss.expect_error(403);
}

/// `[analytics] track_views`: reads of pages through `GET /file` (and published pages and
/// share links) are counted; `/analytics/views` answers the counts, `/v2` the engagement.
#[tokio::test]
async fn page_views_are_counted_when_tracking_is_on() {
    let s = TestServer::from_config(
        "[analytics]\ntrack_views = true\n",
        &[
            ("notes/a.md", "# A\n"),
            ("notes/b.md", "# B\n"),
            ("pic.png", "not really a png"),
        ],
    );
    let read = |path: &str, actor: &str, client: &str| {
        let uri = format!("/api/quire/file?path={path}");
        let headers = [
            ("x-actor", actor.to_string()),
            ("x-quire-client", client.to_string()),
        ];
        (uri, headers)
    };
    for (path, actor, client) in [
        ("notes/a.md", "ann", "web-ui"),
        ("notes/a.md", "ann", "web-ui"),
        ("notes/a.md", "bob", "script"),
        ("notes/b.md", "ann", "web-ui"),
        ("pic.png", "ann", "web-ui"),
    ] {
        let (uri, headers) = read(path, actor, client);
        let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let r = s.call(Method::GET, &uri, &headers, String::new()).await;
        assert_eq!(r.status, 200, "{}", r.text());
    }
    let v = s.get("/api/quire/analytics/views").await.json();
    assert_eq!(v["tracking"], true, "{v}");
    assert_eq!(v["days"], 30);
    assert_eq!(
        v["total"], 4,
        "a file that is not a page is no page view: {v}"
    );
    assert_eq!(
        v["pages"],
        json!([{"path": "notes/a.md", "views": 3}, {"path": "notes/b.md", "views": 1}])
    );
    let one = s
        .get("/api/quire/analytics/views?path=notes/b.md&days=7&limit=5")
        .await
        .json();
    assert_eq!(one["total"], 1, "{one}");
    let v2 = s
        .get("/api/quire/analytics/views/v2?path=notes/a.md")
        .await
        .json();
    let a = &v2["pages"][0];
    assert_eq!(a["views"], 3, "{v2}");
    assert_eq!(a["viewers"], 2);
    assert_eq!(a["by_client"], json!({"script": 1, "web-ui": 2}));
    assert_eq!(a["by_day"].as_array().unwrap().len(), 1);
    assert!(a["first_viewed"].as_str().unwrap() <= a["last_viewed"].as_str().unwrap());
    for bad in ["days=0", "days=4000", "limit=0", "days=soon"] {
        let message = s
            .get(&format!("/api/quire/analytics/views?{bad}"))
            .await
            .expect_error(400);
        assert!(message.contains('`'), "{bad}: {message}");
    }
}

#[tokio::test]
async fn without_tracking_page_views_are_empty_and_say_so() {
    let s = TestServer::from_config("", &[("notes/a.md", "# A\n")]);
    s.get("/api/quire/file?path=notes/a.md").await;
    let v = s.get("/api/quire/analytics/views").await.json();
    assert_eq!(v["tracking"], false, "{v}");
    assert_eq!(v["total"], 0);
    assert_eq!(v["pages"], json!([]));
    let v2 = s.get("/api/quire/analytics/views/v2").await.json();
    assert_eq!(v2["tracking"], false);
    assert_eq!(v2["pages"], json!([]));
    assert!(s.disk(".quire/state/page_views.db").is_none());
}
