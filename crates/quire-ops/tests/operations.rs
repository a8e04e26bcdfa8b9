//! Operations called through the table as MCP and `quire api` call them (JSON in, JSON and
//! text out), on a real space over a tempdir with real git: the behaviours REST and MCP
//! share because both run the same operation.

use quire_ops::{Caller, Output};
use quire_service::{ErrorCode, Space, SpaceSettings};
use serde_json::{json, Value};

struct TestSpace {
    _dir: tempfile::TempDir,
    space: Space,
}

fn space(files: &[(&str, &str)]) -> TestSpace {
    let dir = tempfile::tempdir().expect("tempdir");
    for (path, content) in files {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, content).unwrap();
    }
    let space = Space::open(SpaceSettings {
        name: "test".into(),
        root: dir.path().to_path_buf(),
        history: quire_service::HistoryOptions {
            async_commit: false,
            ..Default::default()
        },
        assets: Default::default(),
        refactor: Default::default(),
        claims: Default::default(),
        find: Default::default(),
        script: None,
        editorial: Default::default(),
        public_url: None,
        backup: None,
        janitor: Default::default(),
    })
    .expect("space opens");
    space.find().flush();
    TestSpace { _dir: dir, space }
}

fn pages() -> TestSpace {
    space(&[
        (
            "notes/alpha.md",
            "---\nstatus: open\npriority: 2\n---\n# Alpha\n\nSee [[beta]]. Zebra words.\n",
        ),
        (
            "notes/beta.md",
            "---\nstatus: open\npriority: 3\n---\n# Beta\n\nBack to [[alpha]].\n",
        ),
        ("memory/day-1.md", "# Day 1\n\nWhat happened.\n"),
    ])
}

/// Calls operation `name` as an agent calls its tool.
fn call(s: &TestSpace, name: &str, args: Value) -> quire_service::Result<Output> {
    let entry = quire_ops::find(name).unwrap_or_else(|| panic!("no operation {name}"));
    let tool = entry.meta.tool.map_or(name, |t| t.name);
    (entry.call)(&s.space, args, &Caller::by("agent"), tool)
}

#[test]
fn velocity_reads_dir_as_path_and_path_wins_over_it() {
    let s = pages();
    let by_path = call(&s, "velocity", json!({"path": "memory"}))
        .unwrap()
        .value;
    let by_dir = call(&s, "velocity", json!({"dir": "memory"}))
        .unwrap()
        .value;
    assert_eq!(by_dir, by_path);
    let both = call(&s, "velocity", json!({"path": "memory", "dir": "../up"}));
    assert_eq!(both.unwrap().value, by_path);
    let bad = call(&s, "velocity", json!({"dir": "../up"})).unwrap_err();
    assert_eq!(bad.code, ErrorCode::BadRequest, "{bad}");
}

#[test]
fn aggregate_computes_function_colon_field_and_names_a_bad_calc() {
    let s = pages();
    let rows = call(
        &s,
        "aggregate",
        json!({"group": "status", "calc": "count,sum:priority"}),
    )
    .unwrap()
    .value;
    let open = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["status"] == "open")
        .unwrap_or_else(|| panic!("no open group: {rows}"));
    assert_eq!(open["count"], 2);
    assert_eq!(open["sum_priority"], 5);
    let e = call(
        &s,
        "aggregate",
        json!({"group": "status", "calc": "median:priority"}),
    )
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::BadRequest);
    assert!(e.message.contains("median"), "{e}");
}

#[test]
fn an_answer_text_carries_the_result_not_a_count() {
    let s = pages();
    let hits = call(&s, "search", json!({"q": "zebra"})).unwrap();
    assert!(hits.text.contains("notes/alpha.md"), "{}", hits.text);
    let back = call(&s, "backlinks", json!({"path": "notes/alpha.md"})).unwrap();
    assert!(back.text.contains("notes/beta.md"), "{}", back.text);
    let rows = call(&s, "aggregate", json!({"group": "status"})).unwrap();
    assert!(rows.text.contains("open"), "{}", rows.text);
    let lint = call(&s, "lint", json!({"content": "[[nowhere]]"})).unwrap();
    assert!(lint.text.contains("nowhere"), "{}", lint.text);
    let section = call(&s, "section", json!({"path": "notes/alpha.md", "index": 0})).unwrap();
    assert!(section.text.contains("Zebra words."), "{}", section.text);
    let eligible = call(&s, "eligible", json!({})).unwrap();
    assert!(eligible.text.contains("notes/beta.md"), "{}", eligible.text);
}

#[test]
fn operations_without_input_refuse_arguments_and_name_the_tool() {
    let s = pages();
    for (name, tool) in [
        ("graph_communities", "quire_graph_communities"),
        ("context", "quire_context"),
        ("analytics", "quire_analytics"),
    ] {
        let e = call(&s, name, json!({"verbose": true})).unwrap_err();
        assert_eq!(e.code, ErrorCode::BadRequest);
        assert!(
            e.message
                .starts_with(&format!("invalid arguments for {tool}: ")),
            "{e}"
        );
        call(&s, name, Value::Null).unwrap();
    }
}

#[test]
fn a_view_saved_by_an_agent_is_its_commit_and_a_stale_etag_writes_nothing() {
    let s = pages();
    let saved = call(
        &s,
        "views_save",
        json!({"name": "open", "view": {"name": "other", "query": "LIST FROM \"notes\""},
               "message": "Save the open view"}),
    )
    .unwrap();
    assert_eq!(saved.value["name"], "open", "the name given wins");
    let file = ".quire/views/open.json";
    let versions = s.space.versions().of(file).unwrap();
    assert_eq!(versions.len(), 1);
    assert_eq!(versions[0].author, "agent");
    assert_eq!(versions[0].message, "Save the open view");

    let stale = call(
        &s,
        "views_save",
        json!({"name": "open", "view": {"query": "TABLE status FROM \"notes\""},
               "if_match": "0000"}),
    )
    .unwrap_err();
    assert_eq!(stale.code, ErrorCode::Conflict, "{stale}");
    let deleted = call(
        &s,
        "views_delete",
        json!({"name": "open", "if_match": "0000"}),
    );
    assert_eq!(deleted.unwrap_err().code, ErrorCode::Conflict);
    assert_eq!(s.space.versions().of(file).unwrap().len(), 1);

    let deleted = call(&s, "views_delete", json!({"name": "open"})).unwrap();
    // The text an agent reads is the result itself.
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&deleted.text).unwrap(),
        deleted.value
    );
    let gone = call(&s, "views_get", json!({"name": "open"})).unwrap_err();
    assert_eq!(gone.code, ErrorCode::NotFound);
}

#[test]
fn the_import_tool_imports_with_the_agents_actor_and_the_export_tool_is_bounded() {
    let rows: String = (1..=3).map(|i| format!("{i},Item {i}\n")).collect();
    let files: Vec<(String, String)> = (0..1005)
        .map(|i| (format!("bulk/p{i:04}.md"), format!("---\nn: {i}\n---\n")))
        .chain([("items.csv".to_string(), format!("id,name\n{rows}"))])
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let s = space(&refs);
    let out = call(
        &s,
        "import",
        json!({"source": "csv", "connection": {"file": "items.csv"}, "id_column": "id",
            "prefix": "items"}),
    )
    .unwrap();
    assert_eq!(out.value["imported"], json!(3), "{}", out.value);
    assert!(
        out.text.starts_with("imported 3, skipped 0"),
        "{}",
        out.text
    );
    let page = std::fs::read_to_string(s.space.root_dir().join("items/item-2.md")).unwrap();
    assert!(page.contains("_source: csv:items.csv\n"), "{page}");
    let preview = call(
        &s,
        "import_preview",
        json!({"source": "csv", "connection": {"file": "items.csv"}, "limit": 2}),
    )
    .unwrap();
    assert_eq!(preview.value["records"].as_array().unwrap().len(), 2);
    let out = call(&s, "export", json!({"format": "jsonl", "path": "bulk"})).unwrap();
    assert_eq!(out.value["count"], json!(1000));
    assert_eq!(out.value["truncated"], json!(true));
    assert_eq!(out.text.lines().count(), 1000);
    let out = call(
        &s,
        "export",
        json!({"format": "csv", "path": "items", "columns": "name"}),
    )
    .unwrap();
    assert_eq!(
        (out.value["count"].clone(), out.value["truncated"].clone()),
        (json!(3), json!(false))
    );
    assert!(
        out.text
            .starts_with("path,name\r\nitems/item-1.md,Item 1\r\n"),
        "{}",
        out.text
    );
}
