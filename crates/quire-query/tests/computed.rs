//! `[dataview] computed_fields`: fields every page has, computed by an expression.

use chrono::DateTime;
use quire_query::dql::{run, Catalog, ComputedField, ExecLimits, PageData, QueryResult};
use quire_query::EvalContext;
use serde_json::{json, Value as Json};

struct Pages {
    pages: Vec<PageData>,
    computed: Vec<ComputedField>,
}

impl Catalog for Pages {
    fn pages(&self) -> &[PageData] {
        &self.pages
    }
    fn resolve_link(&self, _text: &str) -> Option<String> {
        None
    }
    fn computed(&self) -> &[ComputedField] {
        &self.computed
    }
}

fn page(path: &str, fm: Json) -> PageData {
    PageData {
        path: path.to_owned(),
        title: path.trim_end_matches(".md").to_owned(),
        frontmatter: fm,
        size: 10,
        ..PageData::default()
    }
}

fn query(fields: &[(&str, &str)], src: &str) -> QueryResult {
    let catalog = Pages {
        pages: vec![
            page(
                "a.md",
                json!({"status": "draft", "hours": 3, "rate": 10, "due": "2024-05-20"}),
            ),
            page(
                "b.md",
                json!({"status": "done", "hours": 1, "rate": 20, "priority": 1}),
            ),
            page("c.md", json!({"status": "draft", "hours": "many"})),
        ],
        computed: fields
            .iter()
            .map(|(name, expr)| ComputedField::new(name, expr).unwrap())
            .collect(),
    };
    let ctx = EvalContext::at(DateTime::parse_from_rfc3339("2024-06-01T00:00:00Z").unwrap());
    run(src, &catalog, &ExecLimits::default(), &ctx).unwrap_or_else(|e| panic!("{src}: {e}"))
}

#[test]
fn computed_fields_are_read_like_frontmatter_everywhere_in_a_query() {
    let fields = [
        ("is_draft", "status = \"draft\""),
        ("cost", "hours * rate"),
        ("late", "due and due < now()"),
    ];
    let r = query(
        &fields,
        "TABLE cost, late FROM \"\" WHERE is_draft SORT cost DESC",
    );
    assert_eq!(r.headers, ["File", "cost", "late"]);
    // c's cost fails ("many" * null is null: arithmetic with null gives null).
    assert_eq!(
        r.rows,
        [
            vec![json!("a.md"), json!(30), json!(true)],
            vec![json!("c.md"), Json::Null, json!(false)],
        ]
    );
    let r = query(&fields, "LIST FROM \"\" GROUP BY is_draft");
    assert_eq!(r.rows, [[json!(false)], [json!(true)]]);
    let r = query(&fields, "TABLE rows.cost FROM \"\" GROUP BY status");
    assert_eq!(r.rows[0], [json!("done"), json!([20])]);
}

#[test]
fn a_computed_field_sees_the_frontmatter_not_itself() {
    let r = query(
        &[("priority", "default(priority, 3)")],
        "TABLE priority FROM \"\"",
    );
    let values: Vec<&Json> = r.rows.iter().map(|row| &row[1]).collect();
    assert_eq!(values, [&json!(3), &json!(1), &json!(3)]);
}

#[test]
fn a_computed_field_that_fails_on_a_page_is_null_there() {
    let r = query(&[("double", "hours * 2")], "TABLE double FROM \"\"");
    let values: Vec<&Json> = r.rows.iter().map(|row| &row[1]).collect();
    assert_eq!(values, [&json!(6), &json!(2), &Json::Null]);
}

#[test]
fn names_and_expressions_are_checked() {
    for (name, expr, says) in [
        ("2x", "1", "not a field name"),
        ("with-dash", "1", "not a field name"),
        ("file", "1", "gives a meaning"),
        ("Title", "1", "gives a meaning"),
        ("ok", "status = ", "ok: invalid expression at"),
        ("ok", "nosuchfunction(1)", "invalid expression"),
    ] {
        let error = ComputedField::new(name, expr).unwrap_err();
        assert!(error.contains(says), "{name} = {expr}: {error}");
    }
    assert!(ComputedField::new("ist_fällig", "due < now()").is_ok());
}
