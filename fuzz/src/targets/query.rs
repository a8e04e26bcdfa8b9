//! `dql` and `expr`: the query language and the expression language of `quire-query`.
//!
//! Properties: parse → print → parse is the identity (the trees compared without their
//! spans), and printing is a fixed point; an error's position lies inside the input; what
//! parses also evaluates (or fails with an error) over a small catalog without panicking,
//! within the query limits.

use std::collections::BTreeMap;
use std::time::Duration;

use chrono::DateTime;
use quire_query::dql::{
    execute, parse_query, Catalog, Clause, ExecLimits, PageData, Query, QueryError, QueryKind,
    Source,
};
use quire_query::expr::{Expr, ExprKind};
use quire_query::{parse, EvalContext, Template, Value};
use serde_json::json;

use crate::text::{lossy, tokens};
use crate::Target;

pub const DQL: Target = Target {
    name: "dql",
    run: run_dql,
    dictionary,
    seeds: crate::no_seeds,
};

pub const EXPR: Target = Target {
    name: "expr",
    run: run_expr,
    dictionary,
    seeds: crate::no_seeds,
};

fn dictionary() -> Vec<Vec<u8>> {
    tokens(&[
        "TABLE ",
        "WITHOUT ID ",
        "LIST ",
        "COUNT",
        "DISTINCT ",
        " FROM ",
        " WHERE ",
        " SORT ",
        " GROUP BY ",
        " FLATTEN ",
        " LIMIT ",
        " AS ",
        " ASC",
        " DESC",
        "\"notes\"",
        "#tag",
        "#a/b",
        "[[a]]",
        "[[a|b]]",
        "[[a#h]]",
        "outgoing(",
        "incoming(",
        " and ",
        " or ",
        " not ",
        " in ",
        " not in ",
        "&&",
        "||",
        "!",
        "-",
        "(",
        ")",
        "[",
        "]",
        ",",
        ".",
        "=",
        "==",
        "!=",
        "<",
        "<=",
        ">",
        ">=",
        "+",
        "*",
        "/",
        "%",
        "file.name",
        "file.path",
        "file.tags",
        "file.mtime",
        "fm",
        "fm[\"a-b\"]",
        "title",
        "tags",
        "rows",
        "key",
        "now",
        "null",
        "true",
        "false",
        "0",
        "1.5",
        "'s'",
        "\"s\\\"q\"",
        "without",
        "lower(",
        "upper(",
        "slug(",
        "date(",
        "date(\"2024-01-02\")",
        "now()",
        "dur(",
        "dur(\"3 days\")",
        "year(",
        "length(",
        "contains(",
        "startswith(",
        "endswith(",
        "replace(",
        "split(",
        "join(",
        "regexmatch(",
        "regextest(",
        "\"(a+)+$\"",
        "default(",
        "choice(",
        "round(",
        "min(",
        "max(",
        "sum(",
        "list(",
        "number(",
        "string(",
        "{{",
        "}}",
        "{{title}}",
    ])
}

/// The expression tree without spans: what must survive a print and a parse.
fn expr_shape(e: &Expr) -> String {
    let list = |items: &[Expr]| items.iter().map(expr_shape).collect::<Vec<_>>().join(" ");
    match &e.kind {
        ExprKind::Literal(v) => format!("{v:?}"),
        ExprKind::List(items) => format!("[{}]", list(items)),
        ExprKind::Path(path) => format!("path{path:?}"),
        ExprKind::Member(base, field) => format!("({}).{field:?}", expr_shape(base)),
        ExprKind::Index(base, index) => format!("({})[{}]", expr_shape(base), expr_shape(index)),
        ExprKind::Link(text) => format!("link{text:?}"),
        ExprKind::Unary(op, x) => format!("({op:?} {})", expr_shape(x)),
        ExprKind::Binary(op, a, b) => format!("({} {op:?} {})", expr_shape(a), expr_shape(b)),
        ExprKind::Call(call) => format!("{:?}({})", call.func, list(&call.args)),
    }
}

fn source_shape(s: &Source) -> String {
    match s {
        Source::And(a, b) => format!("({} and {})", source_shape(a), source_shape(b)),
        Source::Or(a, b) => format!("({} or {})", source_shape(a), source_shape(b)),
        Source::Not(a) => format!("(not {})", source_shape(a)),
        other => format!("{other:?}"),
    }
}

fn query_shape(q: &Query) -> String {
    let field = |f: &quire_query::dql::Field| format!("{} as {:?}", expr_shape(&f.expr), f.header);
    let mut out = match &q.kind {
        QueryKind::Table { id, fields } => format!(
            "table {id:?} {}",
            fields.iter().map(field).collect::<Vec<_>>().join(", ")
        ),
        QueryKind::List { expr } => format!("list {:?}", expr.as_ref().map(field)),
        QueryKind::Count => "count".into(),
        QueryKind::Distinct { expr } => format!("distinct {}", field(expr)),
    };
    for clause in &q.clauses {
        out.push_str(" | ");
        out.push_str(&match clause {
            Clause::From(s) => format!("from {}", source_shape(s)),
            Clause::Where(e) => format!("where {}", expr_shape(e)),
            Clause::Sort(keys) => format!(
                "sort {}",
                keys.iter()
                    .map(|k| format!("{} {:?}", expr_shape(&k.expr), k.order))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Clause::GroupBy { expr, name } => format!("group {} {name:?}", expr_shape(expr)),
            Clause::Flatten { expr, name } => format!("flatten {} {name:?}", expr_shape(expr)),
            Clause::Limit(n) => format!("limit {n}"),
        });
    }
    out
}

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

fn catalog() -> Fixture {
    let at = |s: &str| DateTime::parse_from_rfc3339(s).ok();
    let page = |path: &str, tags: &[&str], fm: serde_json::Value, out: &[&str]| PageData {
        path: path.into(),
        title: fm["title"].as_str().unwrap_or(path).into(),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        frontmatter: fm,
        outlinks: out.iter().map(|t| t.to_string()).collect(),
        inlinks: Vec::new(),
        size: 120,
        ctime: at("2024-01-02T03:04:05Z"),
        mtime: at("2024-05-06T07:08:09+02:00"),
        word_count: 17,
    };
    Fixture(vec![
        page(
            "notes/a.md",
            &["#a", "#a/b"],
            json!({"title": "A", "n": 3, "due": "2024-02-03", "list": [1, "x", null]}),
            &["notes/b.md"],
        ),
        page(
            "notes/b.md",
            &["b"],
            json!({"title": "B", "n": -1.5, "status": "done", "review-by": "2024-06-01T10:00:00Z"}),
            &[],
        ),
        page("c d/é.md", &[], json!(null), &["notes/a.md", "notes/b.md"]),
        page(
            "2024-01-02.md",
            &["#day"],
            json!({"tags": ["x", "y"], "nested": {"k": {"v": 1}}}),
            &[],
        ),
    ])
}

fn context() -> EvalContext {
    EvalContext::at(DateTime::parse_from_rfc3339("2024-06-01T12:00:00Z").expect("a fixed clock"))
}

fn run_dql(data: &[u8]) {
    let src = lossy(data);
    let query = match parse_query(&src) {
        Ok(query) => query,
        Err(QueryError::Syntax { position, .. }) => {
            assert!(
                position <= src.len(),
                "error position {position} past the end"
            );
            return;
        }
        Err(other) => panic!("parsing gave a non-syntax error: {other}"),
    };
    let printed = query.to_string();
    let again = parse_query(&printed)
        .unwrap_or_else(|e| panic!("the printed query {printed:?} does not parse: {e}"));
    assert_eq!(
        query_shape(&again),
        query_shape(&query),
        "printed as {printed:?}"
    );
    assert_eq!(again.to_string(), printed, "printing is not a fixed point");
    let limits = ExecLimits {
        max_scan_rows: 2_000,
        timeout: Duration::from_millis(500),
    };
    let _ = execute(&query, &catalog(), &limits, &context());
}

fn run_expr(data: &[u8]) {
    let src = lossy(data);
    match parse(&src) {
        Ok(expr) => {
            let printed = expr.to_string();
            let again = parse(&printed).unwrap_or_else(|e| {
                panic!("the printed expression {printed:?} does not parse: {e}")
            });
            assert_eq!(
                expr_shape(&again),
                expr_shape(&expr),
                "printed as {printed:?}"
            );
            assert_eq!(again.to_string(), printed, "printing is not a fixed point");
            let _ = expr.eval(&scope(), &context());
        }
        Err(e) => assert!(
            e.position <= src.len(),
            "error position {} past the end",
            e.position
        ),
    }
    match Template::parse(&src) {
        Ok(template) => {
            let _ = template.render(&scope(), &context());
        }
        Err(e) => assert!(
            e.position <= src.len(),
            "template error position past the end"
        ),
    }
}

fn scope() -> BTreeMap<String, Value> {
    let fm = json!({"status": "draft", "n": 2, "tags": ["a", "b"], "due": "2024-02-03", "review-by": null});
    BTreeMap::from([
        ("title".to_owned(), Value::String("Page Title".into())),
        (
            "path".to_owned(),
            Value::String("notes/Page Title.md".into()),
        ),
        ("tags".to_owned(), Value::from_json(&json!(["a", "b/c"]))),
        ("fm".to_owned(), Value::from_json(&fm)),
        ("n".to_owned(), Value::Number(7.0)),
        (
            "date".to_owned(),
            Value::from_json(&json!("2023-03-14T09:26:53Z")),
        ),
    ])
}
