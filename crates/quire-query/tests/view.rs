//! A saved view's `filters`, `sort` and `group_by`: the shapes read from JSON, the errors for
//! shapes that cannot be used, and their effect on a query's rows.

use chrono::DateTime;
use quire_query::dql::{
    execute_view, parse_query, Catalog, ExecLimits, GroupSpan, PageData, ViewOutput, ViewShape,
};
use quire_query::EvalContext;
use serde_json::{json, Value as Json};

struct Pages(Vec<PageData>);

impl Catalog for Pages {
    fn pages(&self) -> &[PageData] {
        &self.0
    }
    fn resolve_link(&self, _text: &str) -> Option<String> {
        None
    }
}

fn page(path: &str, fm: Json) -> PageData {
    PageData {
        path: path.to_owned(),
        title: path.trim_end_matches(".md").to_owned(),
        frontmatter: fm,
        ..PageData::default()
    }
}

fn pages() -> Pages {
    Pages(vec![
        page(
            "a.md",
            json!({"status": "open", "priority": 3, "labels": ["x", "y"], "owner": "ann"}),
        ),
        page(
            "b.md",
            json!({"status": "done", "priority": 1, "labels": ["y"], "owner": ""}),
        ),
        page("c.md", json!({"status": "open", "priority": 5})),
        page(
            "d.md",
            json!({"status": "waiting", "priority": 3, "owner": "bo"}),
        ),
        page("e.md", json!({"priority": 2, "labels": []})),
    ])
}

fn shape(filters: Json, sort: Json, group_by: Json) -> ViewShape {
    ViewShape::from_json(Some(&filters), Some(&sort), Some(&group_by))
        .unwrap_or_else(|e| panic!("{filters} / {sort} / {group_by}: {e}"))
}

fn run(query: &str, shape: &ViewShape) -> ViewOutput {
    let ctx = EvalContext::at(DateTime::parse_from_rfc3339("2024-06-01T00:00:00Z").unwrap());
    let parsed = parse_query(query).unwrap();
    execute_view(&parsed, shape, &pages(), &ExecLimits::default(), &ctx)
        .unwrap_or_else(|e| panic!("{query}: {e}"))
}

/// The first column of every row.
fn ids(query: &str, shape: &ViewShape) -> Vec<String> {
    run(query, shape)
        .result
        .rows
        .iter()
        .map(|r| r[0].as_str().unwrap_or("").to_owned())
        .collect()
}

fn filtered(filters: Json) -> Vec<String> {
    ids(
        "TABLE status FROM \"\"",
        &shape(filters, Json::Null, Json::Null),
    )
}

fn sorted(sort: Json) -> Vec<String> {
    ids(
        "TABLE priority FROM \"\"",
        &shape(Json::Null, sort, Json::Null),
    )
}

fn rejected(filters: Json, sort: Json, group_by: Json) -> String {
    match ViewShape::from_json(Some(&filters), Some(&sort), Some(&group_by)) {
        Ok(_) => panic!("{filters} / {sort} / {group_by}: accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn no_shape_changes_nothing() {
    let plain = ids("TABLE status FROM \"\"", &ViewShape::default());
    assert_eq!(plain, ["a.md", "b.md", "c.md", "d.md", "e.md"]);
    assert_eq!(filtered(Json::Null), plain);
    assert_eq!(filtered(json!("")), plain);
    assert_eq!(filtered(json!([])), plain);
    assert_eq!(filtered(json!({})), plain);
    assert!(run("TABLE status FROM \"\"", &ViewShape::default())
        .groups
        .is_empty());
}

#[test]
fn every_filter_shape_means_the_same() {
    let open = ["a.md", "c.md"];
    assert_eq!(filtered(json!("status = \"open\"")), open);
    assert_eq!(filtered(json!({"status": "open"})), open);
    assert_eq!(
        filtered(json!([{"field": "status", "value": "open"}])),
        open
    );
    assert_eq!(
        filtered(json!([{"field": "status", "op": "eq", "value": "open"}])),
        open
    );
    assert_eq!(filtered(json!(["status = 'open'"])), open);
}

#[test]
fn filters_combine_and_know_their_operators() {
    assert_eq!(
        filtered(json!({"status": "open", "priority": {">": 3}})),
        ["c.md"]
    );
    assert_eq!(
        filtered(json!({"priority": {">=": 2, "<": 5}})),
        ["a.md", "d.md", "e.md"]
    );
    assert_eq!(
        filtered(json!({"status": ["done", "waiting"]})),
        ["b.md", "d.md"]
    );
    assert_eq!(
        filtered(json!([{"field": "labels", "op": "contains", "value": "x"}])),
        ["a.md"]
    );
    assert_eq!(
        filtered(json!([{"field": "labels", "op": "not contains", "value": "y"}])),
        ["c.md", "d.md", "e.md"]
    );
    assert_eq!(
        filtered(json!([{"field": "status", "op": "not in", "value": ["open"]}])),
        ["b.md", "d.md", "e.md"]
    );
    assert_eq!(
        filtered(json!([{"field": "status", "op": "!=", "value": "open"}])),
        ["b.md", "d.md", "e.md"]
    );
    // Empty: missing, "" or [].
    assert_eq!(
        filtered(json!([{"field": "owner", "op": "empty"}])),
        ["b.md", "c.md", "e.md"]
    );
    assert_eq!(
        filtered(json!([{"field": "labels", "op": "is not empty"}])),
        ["a.md", "b.md"]
    );
    // A field may be any expression.
    assert_eq!(
        filtered(json!([{"field": "priority * 2", "op": ">", "value": 8}])),
        ["c.md"]
    );
}

#[test]
fn every_sort_shape_means_the_same() {
    let by_priority_desc = ["c.md", "a.md", "d.md", "e.md", "b.md"];
    for sort in [
        json!("priority desc"),
        json!("priority DESC"),
        json!("-priority"),
        json!({"field": "priority", "dir": "desc"}),
        json!({"field": "priority", "direction": "descending"}),
        json!({"id": "priority", "desc": true}),
        json!({"column": "priority", "order": "desc"}),
        json!(["priority desc"]),
    ] {
        assert_eq!(sorted(sort.clone()), by_priority_desc, "{sort}");
    }
    assert_eq!(
        sorted(json!("priority")),
        ["b.md", "e.md", "a.md", "d.md", "c.md"]
    );
    assert_eq!(
        sorted(json!({"field": "priority", "desc": false})),
        ["b.md", "e.md", "a.md", "d.md", "c.md"]
    );
}

#[test]
fn sort_is_stable_and_takes_several_keys() {
    // a and d tie on priority: the query's own order (path descending) decides.
    let shape = shape(Json::Null, json!("-priority"), Json::Null);
    assert_eq!(
        ids("TABLE priority FROM \"\" SORT file.path DESC", &shape),
        ["c.md", "d.md", "a.md", "e.md", "b.md"]
    );
    let shape2 = self::shape(
        Json::Null,
        json!([{"field": "priority", "dir": "desc"}, "-owner"]),
        Json::Null,
    );
    assert_eq!(
        ids("TABLE priority FROM \"\"", &shape2),
        ["c.md", "d.md", "a.md", "e.md", "b.md"]
    );
}

#[test]
fn column_headers_can_be_named() {
    let shape = shape(json!({"Prio": {">": 1}}), json!("Prio desc"), Json::Null);
    assert_eq!(
        ids("TABLE priority AS \"Prio\" FROM \"\"", &shape),
        ["c.md", "a.md", "d.md", "e.md"]
    );
    let by_file = self::shape(Json::Null, json!("-File"), Json::Null);
    assert_eq!(
        ids("TABLE priority FROM \"\"", &by_file),
        ["e.md", "d.md", "c.md", "b.md", "a.md"]
    );
}

#[test]
fn groups_keep_their_rows_together_in_key_order() {
    let shape = shape(Json::Null, json!("-priority"), json!("status"));
    let out = run("TABLE priority FROM \"\"", &shape);
    let ids: Vec<&str> = out
        .result
        .rows
        .iter()
        .map(|r| r[0].as_str().unwrap())
        .collect();
    // Null first (type order), then "done", "open" (c before a: priority desc), "waiting".
    assert_eq!(ids, ["e.md", "b.md", "c.md", "a.md", "d.md"]);
    assert_eq!(
        out.groups,
        [
            GroupSpan {
                key: Json::Null,
                rows: 1
            },
            GroupSpan {
                key: json!("done"),
                rows: 1
            },
            GroupSpan {
                key: json!("open"),
                rows: 2
            },
            GroupSpan {
                key: json!("waiting"),
                rows: 1
            },
        ]
    );
    let by_object = self::shape(Json::Null, Json::Null, json!({"field": "status"}));
    assert_eq!(run("LIST FROM \"\"", &by_object).groups.len(), 4);
}

#[test]
fn the_shape_applies_to_the_rows_the_query_returns() {
    // LIMIT 3 keeps a, b, c; the filter then keeps the open ones among them.
    let shape = shape(json!({"status": "open"}), Json::Null, Json::Null);
    assert_eq!(ids("TABLE FROM \"\" LIMIT 3", &shape), ["a.md", "c.md"]);
    // COUNT counts what the filters keep.
    let out = run("COUNT FROM \"\"", &shape);
    assert_eq!(out.result.rows, [[json!(2)]]);
}

#[test]
fn unusable_shapes_say_what_is_wrong() {
    let n = Json::Null;
    let cases = [
        (json!(5), n.clone(), n.clone(), "`filters` is a number"),
        (
            json!({"status": {}}),
            n.clone(),
            n.clone(),
            "`filters.status` is an empty object",
        ),
        (
            json!([{"op": "="}]),
            n.clone(),
            n.clone(),
            "`filters[0]` has no `field`",
        ),
        (
            json!([{"field": "a", "op": "like", "value": 1}]),
            n.clone(),
            n.clone(),
            "unknown operator \"like\"",
        ),
        (
            json!([{"field": "a", "op": "in", "value": 1}]),
            n.clone(),
            n.clone(),
            "needs a list `value`",
        ),
        (
            json!([{"field": "a", "op": ">"}]),
            n.clone(),
            n.clone(),
            "has no `value`",
        ),
        (
            json!("status = "),
            n.clone(),
            n.clone(),
            "is not a field or expression",
        ),
        (n.clone(), json!(3), n.clone(), "`sort` is a number"),
        (
            n.clone(),
            json!({"field": "a", "dir": "up"}),
            n.clone(),
            "use \"asc\" or \"desc\"",
        ),
        (
            n.clone(),
            json!([{"dir": "asc"}]),
            n.clone(),
            "`sort[0]` has no `field`",
        ),
        (n.clone(), n.clone(), json!(["a", "b"]), "names one field"),
        (n.clone(), n.clone(), json!({"by": "a"}), "has no `field`"),
    ];
    for (filters, sort, group_by, expected) in cases {
        let message = rejected(filters.clone(), sort.clone(), group_by.clone());
        assert!(
            message.contains(expected),
            "{filters} / {sort} / {group_by}: {message:?} lacks {expected:?}"
        );
    }
}

#[test]
fn counts_cannot_be_sorted_or_grouped() {
    let shape = shape(Json::Null, json!("priority"), Json::Null);
    let error = shape
        .check(&parse_query("COUNT FROM \"\"").unwrap().kind)
        .unwrap_err();
    assert!(
        error.to_string().contains("no rows to sort or group"),
        "{error}"
    );
    let grouped = self::shape(Json::Null, Json::Null, json!("status"));
    assert!(grouped
        .check(&parse_query("DISTINCT status").unwrap().kind)
        .is_err());
    assert!(grouped
        .check(&parse_query("TABLE FROM \"\"").unwrap().kind)
        .is_ok());
}
