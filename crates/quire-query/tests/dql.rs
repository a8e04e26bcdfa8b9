//! DQL parsing and execution over a small fixture catalog.

use std::time::Duration;

use chrono::DateTime;
use quire_query::dql::{
    aggregate, parse_query, run, AggregateError, Calc, CalcFunc, Catalog, Clause, ExecLimits,
    IdColumn, PageData, QueryError, QueryKind, QueryMode, SortOrder, Source,
};
use quire_query::EvalContext;
use serde_json::{json, Value as Json};

struct Fixture(Vec<PageData>);

impl Catalog for Fixture {
    fn pages(&self) -> &[PageData] {
        &self.0
    }
    fn resolve_link(&self, text: &str) -> Option<String> {
        self.0
            .iter()
            .find(|p| {
                p.path == text || p.path.trim_end_matches(".md").rsplit('/').next() == Some(text)
            })
            .map(|p| p.path.clone())
    }
}

fn page(path: &str, tags: &[&str], fm: Json, outlinks: &[&str], mtime: &str) -> PageData {
    PageData {
        path: path.to_owned(),
        title: fm["title"].as_str().unwrap_or(path).to_owned(),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        frontmatter: fm,
        outlinks: outlinks.iter().map(|t| t.to_string()).collect(),
        inlinks: Vec::new(),
        size: 100,
        ctime: None,
        mtime: Some(DateTime::parse_from_rfc3339(mtime).unwrap()),
        word_count: 10,
    }
}

fn fixture() -> Fixture {
    let mut pages = vec![
        page(
            "notes/alpha.md",
            &["#project", "proj/web"],
            json!({"title": "Alpha", "status": "open", "priority": 3, "hours": 2, "tags": ["x", "y"]}),
            &["notes/beta.md", "hub.md"],
            "2024-01-03T00:00:00Z",
        ),
        page(
            "notes/beta.md",
            &["proj"],
            json!({"title": "Beta", "status": "done", "priority": 1, "hours": 5, "tags": ["y"]}),
            &["hub.md"],
            "2024-01-02T00:00:00Z",
        ),
        page(
            "notes/sub/gamma.md",
            &["proj/api", "draft"],
            json!({"title": "Gamma", "status": "open", "priority": 5, "review-by": "2024-02-01"}),
            &[],
            "2024-01-01T00:00:00Z",
        ),
        page(
            "notes2/delta.md",
            &[],
            json!({"title": "Delta", "status": "open", "priority": 3}),
            &["notes/alpha.md"],
            "2024-01-04T00:00:00Z",
        ),
        page(
            "journal/2024-01-05.md",
            &["daily"],
            json!({"status": "open"}),
            &["notes/alpha.md"],
            "2024-01-05T00:00:00Z",
        ),
        page(
            "hub.md",
            &[],
            Json::Null,
            &["notes/alpha.md", "notes/sub/gamma.md"],
            "2024-01-06T00:00:00Z",
        ),
    ];
    // Inlinks as the index would compute them.
    let links: Vec<(String, String)> = pages
        .iter()
        .flat_map(|p| p.outlinks.iter().map(move |t| (p.path.clone(), t.clone())))
        .collect();
    for (source, target) in links {
        if let Some(p) = pages.iter_mut().find(|p| p.path == target) {
            p.inlinks.push(source);
        }
    }
    Fixture(pages)
}

fn query(src: &str) -> quire_query::dql::QueryResult {
    let ctx = EvalContext::at(DateTime::parse_from_rfc3339("2024-06-01T00:00:00Z").unwrap());
    run(src, &fixture(), &ExecLimits::default(), &ctx).unwrap_or_else(|e| panic!("{src}: {e}"))
}

/// The first column of every row.
fn ids(src: &str) -> Vec<Json> {
    query(src).rows.into_iter().map(|r| r[0].clone()).collect()
}

fn syntax_error(src: &str) -> (usize, String) {
    match parse_query(src) {
        Err(QueryError::Syntax { position, message }) => (position, message),
        other => panic!("{src}: expected a syntax error, got {other:?}"),
    }
}

// ---- parsing -------------------------------------------------------------------------

#[test]
fn parses_every_header() {
    let q = parse_query(r#"table without id title as "T", priority"#).unwrap();
    let QueryKind::Table { id, fields } = q.kind else {
        panic!()
    };
    assert_eq!(id, IdColumn::Hidden);
    assert_eq!(
        fields.iter().map(|f| f.header.as_str()).collect::<Vec<_>>(),
        ["T", "priority"]
    );

    let q = parse_query("TABLE FROM #x").unwrap();
    assert!(
        matches!(q.kind, QueryKind::Table { id: IdColumn::Shown, ref fields } if fields.is_empty())
    );
    assert!(matches!(
        parse_query("LIST").unwrap().kind,
        QueryKind::List { expr: None }
    ));
    let q = parse_query("LIST file.name + '!' WHERE x").unwrap();
    assert!(
        matches!(q.kind, QueryKind::List { expr: Some(ref f) } if f.header == "file.name + '!'")
    );
    assert!(matches!(
        parse_query("count").unwrap().kind,
        QueryKind::Count
    ));
    assert!(matches!(
        parse_query("DISTINCT status").unwrap().kind,
        QueryKind::Distinct { .. }
    ));
}

#[test]
fn parses_every_clause_in_any_order_and_repeated() {
    let q = parse_query(
        r#"TABLE title LIMIT 5 WHERE a = 1 FROM "notes" and -#draft
           SORT priority DESC, file.name asc, x GROUP BY status AS s FLATTEN tags AS t
           FLATTEN file.tags FROM outgoing([[hub]]) or [[alpha]] where true"#,
    )
    .unwrap();
    let kinds: Vec<&str> = q
        .clauses
        .iter()
        .map(|c| match c {
            Clause::From(_) => "from",
            Clause::Where(_) => "where",
            Clause::Sort(_) => "sort",
            Clause::GroupBy { .. } => "group",
            Clause::Flatten { .. } => "flatten",
            Clause::Limit(_) => "limit",
        })
        .collect();
    assert_eq!(
        kinds,
        ["limit", "where", "from", "sort", "group", "flatten", "flatten", "from", "where"]
    );
    assert!(matches!(q.clauses[0], Clause::Limit(5)));
    assert_eq!(
        match &q.clauses[2] {
            Clause::From(s) => s.clone(),
            _ => unreachable!(),
        },
        Source::And(
            Box::new(Source::Folder("notes".into())),
            Box::new(Source::Not(Box::new(Source::Tag("draft".into()))))
        )
    );
    let Clause::Sort(keys) = &q.clauses[3] else {
        panic!()
    };
    assert_eq!(
        keys.iter().map(|k| k.order).collect::<Vec<_>>(),
        [SortOrder::Desc, SortOrder::Asc, SortOrder::Asc]
    );
    assert!(matches!(&q.clauses[4], Clause::GroupBy { name: Some(n), .. } if n == "s"));
    assert!(matches!(&q.clauses[5], Clause::Flatten { name, .. } if name == "t"));
    assert!(matches!(&q.clauses[6], Clause::Flatten { name, .. } if name == "file.tags"));
    assert_eq!(
        match &q.clauses[7] {
            Clause::From(s) => s.clone(),
            _ => unreachable!(),
        },
        Source::Or(
            Box::new(Source::LinkedFrom("hub".into())),
            Box::new(Source::LinksTo("alpha".into()))
        )
    );
}

#[test]
fn syntax_errors_carry_positions() {
    assert_eq!(
        syntax_error(""),
        (
            0,
            "empty query: expected TABLE, LIST, COUNT or DISTINCT".into()
        )
    );
    assert_eq!(
        syntax_error("SELECT x"),
        (
            0,
            "expected TABLE, LIST, COUNT or DISTINCT, found 'SELECT'".into()
        )
    );
    assert_eq!(
        syntax_error(r#"LIST WHERE status = "open"#),
        (20, "unterminated string".into())
    );
    assert_eq!(syntax_error("LIST WHERE a = = 1").0, 15);
    assert_eq!(syntax_error("LIST FROM WHERE x"), (10, "expected a FROM source: \"folder\", #tag, [[link]] or outgoing([[link]]), found 'WHERE'".into()));
    assert_eq!(syntax_error("LIST FROM").0, 9);
    assert_eq!(
        syntax_error("LIST FROM (\"a\" or #b"),
        (20, "expected ')', found end of input".into())
    );
    assert_eq!(syntax_error("LIST FROM outgoing(\"a\")").0, 19);
    assert_eq!(
        syntax_error("LIST LIMIT x"),
        (11, "LIMIT needs a whole number, found 'x'".into())
    );
    assert_eq!(syntax_error("LIST LIMIT 2.5").0, 11);
    assert_eq!(syntax_error("LIST LIMIT -1").0, 11);
    assert_eq!(
        syntax_error("LIST WHERE nope(x)"),
        (11, "unknown function 'nope'".into())
    );
    assert_eq!(syntax_error("LIST WHERE lower(a, b)").0, 11);
    assert_eq!(syntax_error("LIST GROUP status").0, 11);
    assert_eq!(syntax_error("TABLE WITHOUT title").0, 14);
    assert_eq!(syntax_error("TABLE a AS").0, 10);
    assert_eq!(
        syntax_error("LIST WHERE x SORTED y"),
        (
            13,
            "expected FROM, WHERE, SORT, GROUP BY, FLATTEN or LIMIT, found 'SORTED'".into()
        )
    );
    assert_eq!(
        syntax_error("LIST WHERE"),
        (10, "expected an expression, found end of input".into())
    );
    assert_eq!(syntax_error("LIST WHERE x = #tag").0, 15);
    assert_eq!(syntax_error("DISTINCT FROM #a").0, 9);
    assert_eq!(syntax_error("LIST FROM [[a").0, 10);
    assert_eq!(
        syntax_error("LIST WHERE a $ b"),
        (13, "unexpected character '$'".into())
    );
    assert_eq!(
        syntax_error(&format!("LIST FROM {}\"a\"", "(".repeat(500))).1,
        "FROM source nests too deeply"
    );
}

// ---- execution -----------------------------------------------------------------------

#[test]
fn from_folder_is_a_prefix_at_folder_boundaries() {
    assert_eq!(
        ids(r#"LIST FROM "notes""#),
        [
            json!("notes/alpha.md"),
            json!("notes/beta.md"),
            json!("notes/sub/gamma.md")
        ]
    );
    assert_eq!(
        ids(r#"LIST FROM "notes/sub/""#),
        [json!("notes/sub/gamma.md")]
    );
    assert_eq!(ids(r#"LIST FROM "hub""#), [json!("hub.md")]);
}

#[test]
fn from_tag_includes_nested_tags_and_ignores_case_and_hash() {
    assert_eq!(
        ids("LIST FROM #proj"),
        [
            json!("notes/alpha.md"),
            json!("notes/beta.md"),
            json!("notes/sub/gamma.md")
        ]
    );
    assert_eq!(ids("LIST FROM #PROJ/web"), [json!("notes/alpha.md")]);
    assert_eq!(ids("LIST FROM #project"), [json!("notes/alpha.md")]);
}

#[test]
fn from_links_and_combinations() {
    assert_eq!(
        ids("LIST FROM [[alpha]]"),
        [
            json!("notes2/delta.md"),
            json!("journal/2024-01-05.md"),
            json!("hub.md")
        ]
    );
    assert_eq!(
        ids("LIST FROM outgoing([[hub]])"),
        [json!("notes/alpha.md"), json!("notes/sub/gamma.md")]
    );
    assert_eq!(
        ids(r#"LIST FROM #proj and -"notes/sub""#),
        [json!("notes/alpha.md"), json!("notes/beta.md")]
    );
    assert_eq!(
        ids(r#"LIST FROM (#daily or "notes2") and ![[nothing]]"#),
        [json!("notes2/delta.md"), json!("journal/2024-01-05.md")]
    );
    assert_eq!(
        ids(r#"LIST FROM "notes" FROM #draft"#),
        [json!("notes/sub/gamma.md")]
    );
}

#[test]
fn where_reads_frontmatter_file_fields_and_links() {
    assert_eq!(
        ids(r#"LIST WHERE status = "open" AND priority > 2"#),
        [
            json!("notes/alpha.md"),
            json!("notes/sub/gamma.md"),
            json!("notes2/delta.md")
        ]
    );
    assert_eq!(
        ids(r#"LIST WHERE review_by and review_by < date("2024-03-01")"#),
        [json!("notes/sub/gamma.md")]
    );
    assert_eq!(
        ids(r#"LIST WHERE fm["review-by"]"#),
        [json!("notes/sub/gamma.md")]
    );
    assert_eq!(
        ids("LIST WHERE file.day = date('2024-01-05')"),
        [json!("journal/2024-01-05.md")]
    );
    assert_eq!(
        ids("LIST WHERE contains(file.outlinks, [[beta]])"),
        [json!("notes/alpha.md")]
    );
    assert_eq!(
        ids("LIST WHERE length(file.inlinks) >= 3"),
        [json!("notes/alpha.md")]
    );
    assert_eq!(
        ids("LIST WHERE file.folder = 'notes/sub'"),
        [json!("notes/sub/gamma.md")]
    );
    assert_eq!(
        ids("LIST WHERE contains(file.tags, '#proj') and !contains(file.etags, '#proj')"),
        [json!("notes/alpha.md"), json!("notes/sub/gamma.md")]
    );
    assert_eq!(
        ids("LIST WHERE file.mtime > date('2024-01-05')"),
        [json!("hub.md")]
    );
    assert_eq!(ids("LIST WHERE file.link = [[hub]]"), [json!("hub.md")]);
}

#[test]
fn table_columns_headers_and_without_id() {
    let result = query(r#"TABLE title, priority * 2 AS "double" FROM "notes" SORT file.name DESC"#);
    assert_eq!(result.mode, QueryMode::Table);
    assert_eq!(result.headers, ["File", "title", "double"]);
    assert_eq!(
        result.rows,
        vec![
            vec![json!("notes/sub/gamma.md"), json!("Gamma"), json!(10)],
            vec![json!("notes/beta.md"), json!("Beta"), json!(2)],
            vec![json!("notes/alpha.md"), json!("Alpha"), json!(6)],
        ]
    );
    let result = query(r#"TABLE WITHOUT ID file.name, fm.nope FROM "hub""#);
    assert_eq!(result.headers, ["file.name", "fm.nope"]);
    assert_eq!(result.rows, vec![vec![json!("hub"), json!(null)]]);
    assert_eq!(
        serde_json::to_value(&result).unwrap(),
        json!({"mode": "TABLE", "headers": ["file.name", "fm.nope"], "rows": [["hub", null]]})
    );
}

#[test]
fn sort_uses_several_keys_and_puts_nulls_first() {
    assert_eq!(
        ids("LIST SORT priority DESC, file.mtime DESC"),
        [
            json!("notes/sub/gamma.md"),
            json!("notes2/delta.md"),
            json!("notes/alpha.md"),
            json!("notes/beta.md"),
            json!("hub.md"),
            json!("journal/2024-01-05.md"),
        ]
    );
    assert_eq!(
        ids("LIST SORT priority LIMIT 3"),
        [
            json!("journal/2024-01-05.md"),
            json!("hub.md"),
            json!("notes/beta.md")
        ]
    );
    assert_eq!(ids("LIST SORT priority DESC LIMIT 0"), Vec::<Json>::new());
}

#[test]
fn limit_applies_where_written() {
    assert_eq!(
        ids("LIST LIMIT 2"),
        [json!("notes/alpha.md"), json!("notes/beta.md")]
    );
    assert_eq!(
        ids("LIST LIMIT 3 SORT file.name DESC"),
        [
            json!("notes/sub/gamma.md"),
            json!("notes/beta.md"),
            json!("notes/alpha.md")
        ]
    );
}

#[test]
fn group_by_binds_key_and_rows() {
    let result = query(
        r#"TABLE length(rows) AS n, rows.file.name, sum(rows.hours) FROM "notes" GROUP BY status"#,
    );
    assert_eq!(
        result.headers,
        ["key", "n", "rows.file.name", "sum(rows.hours)"]
    );
    assert_eq!(
        result.rows,
        vec![
            vec![json!("done"), json!(1), json!(["beta"]), json!(5)],
            vec![json!("open"), json!(2), json!(["alpha", "gamma"]), json!(2)],
        ]
    );
    let result = query(r#"LIST s FROM "notes" GROUP BY status AS s WHERE s = "open""#);
    assert_eq!(result.headers, ["s", "s"]);
    assert_eq!(result.rows, vec![vec![json!("open"), json!("open")]]);
    let result = query(
        r#"TABLE WITHOUT ID key, rows[0].title FROM "notes" GROUP BY priority > 2 SORT key DESC"#,
    );
    assert_eq!(
        result.rows,
        vec![
            vec![json!(true), json!("Alpha")],
            vec![json!(false), json!("Beta")]
        ]
    );
}

#[test]
fn flatten_makes_one_row_per_item() {
    let result = query(r#"TABLE t FROM "notes" FLATTEN fm.tags AS t WHERE t"#);
    assert_eq!(
        result.rows,
        vec![
            vec![json!("notes/alpha.md"), json!("x")],
            vec![json!("notes/alpha.md"), json!("y")],
            vec![json!("notes/beta.md"), json!("y")],
        ]
    );
    let result = query(r#"TABLE WITHOUT ID file.tags FROM "notes/alpha" FLATTEN file.tags"#);
    assert_eq!(
        result.rows,
        vec![
            vec![json!("#project")],
            vec![json!("#proj")],
            vec![json!("#proj/web")]
        ]
    );
    let result =
        query(r#"TABLE WITHOUT ID key, length(rows) FROM "notes" FLATTEN fm.tags AS t GROUP BY t"#);
    assert_eq!(
        result.rows,
        vec![
            vec![json!(null), json!(1)],
            vec![json!("x"), json!(1)],
            vec![json!("y"), json!(2)]
        ]
    );
}

#[test]
fn count_and_distinct() {
    let result = query(r#"COUNT FROM "notes" WHERE status = "open""#);
    assert_eq!(result.mode, QueryMode::Count);
    assert_eq!(result.headers, ["count"]);
    assert_eq!(result.rows, vec![vec![json!(2)]]);

    let result = query("DISTINCT status SORT file.name");
    assert_eq!(result.mode, QueryMode::Distinct);
    assert_eq!(result.headers, ["status", "count"]);
    assert_eq!(
        result.rows,
        vec![vec![json!("open"), json!(4)], vec![json!("done"), json!(1)]]
    );
    let result = query("DISTINCT tags FROM #proj");
    assert_eq!(
        result.rows,
        vec![
            vec![json!("project"), json!(1)],
            vec![json!("proj/web"), json!(1)],
            vec![json!("proj"), json!(1)],
            vec![json!("proj/api"), json!(1)],
            vec![json!("draft"), json!(1)],
        ]
    );
}

#[test]
fn evaluation_errors_and_limits_are_distinct_variants() {
    let ctx = EvalContext::at(DateTime::parse_from_rfc3339("2024-06-01T00:00:00Z").unwrap());
    let catalog = fixture();
    match run(
        "LIST WHERE title * 2",
        &catalog,
        &ExecLimits::default(),
        &ctx,
    ) {
        Err(QueryError::Eval { position, .. }) => assert_eq!(position, 11),
        other => panic!("{other:?}"),
    }
    let tight = ExecLimits {
        max_scan_rows: 3,
        timeout: Duration::from_secs(5),
    };
    assert_eq!(
        run("COUNT", &catalog, &tight, &ctx),
        Err(QueryError::TooManyRows { limit: 3 })
    );
    assert!(run(r#"COUNT FROM "notes""#, &catalog, &tight, &ctx).is_ok());
    assert_eq!(
        run(
            r#"COUNT FROM "notes" FLATTEN [1, 2]"#,
            &catalog,
            &tight,
            &ctx
        ),
        Err(QueryError::TooManyRows { limit: 3 })
    );

    let big = Fixture(
        (0..2000)
            .map(|i| {
                page(
                    &format!("p{i}.md"),
                    &[],
                    json!({}),
                    &[],
                    "2024-01-01T00:00:00Z",
                )
            })
            .collect(),
    );
    let none = ExecLimits {
        max_scan_rows: usize::MAX,
        timeout: Duration::ZERO,
    };
    assert_eq!(
        run("COUNT", &big, &none, &ctx),
        Err(QueryError::Timeout { ms: 0 })
    );
}

#[test]
fn aggregate_groups_and_calculates() {
    let calcs =
        Calc::parse_list("count, avg:priority,sum:hours,min:priority,max:priority,count:hours")
            .unwrap();
    assert_eq!(
        calcs[1],
        Calc {
            func: CalcFunc::Avg,
            field: Some("priority".into())
        }
    );
    let rows = aggregate(&fixture(), "status", &calcs).unwrap();
    assert_eq!(
        Json::Array(rows.into_iter().map(Json::Object).collect()),
        json!([
            {"status": null, "count": 1, "avg_priority": null, "sum_hours": 0, "min_priority": null, "max_priority": null, "count_hours": 0},
            {"status": "done", "count": 1, "avg_priority": 1, "sum_hours": 5, "min_priority": 1, "max_priority": 1, "count_hours": 1},
            {"status": "open", "count": 4, "avg_priority": 3.6666666666666665, "sum_hours": 2, "min_priority": 3, "max_priority": 5, "count_hours": 1},
        ])
    );
    assert_eq!(
        Calc::parse_list("count,median:x"),
        Err(AggregateError::UnknownFunction {
            name: "median".into()
        })
    );
    assert_eq!(
        Calc::parse_list("avg"),
        Err(AggregateError::MissingField { func: "avg".into() })
    );
    let by_folder = aggregate(&fixture(), "file.folder", &[]).unwrap();
    assert_eq!(by_folder.len(), 5);
}
