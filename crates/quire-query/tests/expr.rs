//! Evaluation of operators and functions through the public API.

use std::collections::BTreeMap;

use chrono::DateTime;
use quire_query::{eval_str, parse, EvalContext, Value};
use serde_json::json;

fn scope() -> BTreeMap<String, Value> {
    let mut scope = BTreeMap::new();
    scope.insert(
        "fm".into(),
        Value::from_json(&json!({
            "status": "open", "priority": 3, "review-by": "2024-05-01",
            "tags": ["a", "b"], "nested": {"k": 1}
        })),
    );
    scope.insert("title".into(), Value::from("Hello World"));
    scope.insert("date".into(), Value::from_json(&json!("2024-03-07")));
    scope.insert(
        "tags".into(),
        Value::from_json(&json!(["project", "draft"])),
    );
    scope
}

fn ctx() -> EvalContext {
    EvalContext::at(DateTime::parse_from_rfc3339("2024-06-15T12:30:00Z").unwrap())
}

fn eval(src: &str) -> serde_json::Value {
    eval_str(src, &scope(), &ctx())
        .unwrap_or_else(|e| panic!("{src}: {e}"))
        .to_json()
}

fn eval_err(src: &str) -> quire_query::Error {
    eval_str(src, &scope(), &ctx()).unwrap_err()
}

#[test]
fn comparisons_and_logic() {
    assert_eq!(
        eval(r#"fm.status = "open" and fm.priority > 2"#),
        json!(true)
    );
    assert_eq!(
        eval(r#"fm.status == 'open' && !(fm.priority >= 4)"#),
        json!(true)
    );
    assert_eq!(eval("fm.priority != 3 or fm.missing = null"), json!(true));
    assert_eq!(eval("not fm.priority < 3"), json!(true));
    assert_eq!(eval(r#"1 = "1""#), json!(false));
    assert_eq!(eval("fm.missing < 0"), json!(true), "null sorts first");
    assert_eq!(eval(r#"fm["review-by"] < "2024-06-01""#), json!(true));
    assert_eq!(eval(r#"date < date("2024-03-08")"#), json!(true));
    assert_eq!(eval(r#""b" > "a" and "B" < "a""#), json!(true));
}

#[test]
fn membership() {
    assert_eq!(eval(r#""project" in tags"#), json!(true));
    assert_eq!(eval(r#""World" in title"#), json!(true));
    assert_eq!(eval(r#""k" in fm.nested"#), json!(true));
    assert_eq!(eval(r#""x" not in fm.tags"#), json!(true));
    assert_eq!(eval(r#"contains(fm.tags, "b")"#), json!(true));
}

#[test]
fn arithmetic_and_concatenation() {
    assert_eq!(eval("1 + 2 * 3 - 4 / 2"), json!(5));
    assert_eq!(eval("7 % 4"), json!(3));
    assert_eq!(eval("-fm.priority"), json!(-3));
    assert_eq!(eval(r#""p" + fm.priority"#), json!("p3"));
    assert_eq!(eval("[1] + [2, 3]"), json!([1, 2, 3]));
    assert_eq!(eval("fm.missing + 1"), json!(null));
    assert_eq!(eval(r#"date + dur("3 days")"#), json!("2024-03-10"));
    assert_eq!(eval(r#"date - dur("1 week")"#), json!("2024-02-29"));
    assert_eq!(eval(r#"date("2024-03-10") - date"#), json!("3d"));
    assert_eq!(eval(r#"dur("1h") * 2"#), json!("2h"));
    assert_eq!(eval("fm.tags[0] + fm.tags[-1]"), json!("ab"));
    assert_eq!(eval("fm.nested.k + fm.nested[\"k\"]"), json!(2));
}

#[test]
fn evaluation_errors_have_positions() {
    let e = eval_err(r#"fm.priority + 1 > 0 and "a" * 2"#);
    assert_eq!(
        (e.position, e.message.as_str()),
        (24, "cannot apply '*' to a string and a number")
    );
    assert_eq!(eval_err("1 / 0").message, "division by zero");
    assert_eq!(
        eval_err(r#"date(date, "%Q")"#).message,
        "invalid date layout '%Q'"
    );
    assert_eq!(eval_err("-title").position, 0);
}

#[test]
fn dates_parse_and_format_with_strftime_and_go_layouts() {
    assert_eq!(
        eval("year(date) * 10000 + month(date) * 100 + day(date)"),
        json!(20240307)
    );
    assert_eq!(eval(r#"date(date, "%Y/%m/%d")"#), json!("2024/03/07"));
    assert_eq!(eval(r#"date(date, "2006-01-02")"#), json!("2024-03-07"));
    assert_eq!(eval(r#"date(date, "Jan 2, 2006")"#), json!("Mar 7, 2024"));
    assert_eq!(eval(r#"date(now(), "15:04")"#), json!("12:30"));
    assert_eq!(eval(r#"date(now, "%H:%M")"#), json!("12:30"));
    assert_eq!(
        eval(r#"date("2024-01-05T08:09:10+02:00", "Monday 3:04PM -07:00")"#),
        json!("Friday 8:09AM +02:00")
    );
    assert_eq!(eval(r#"date("today")"#), json!("2024-06-15"));
    assert_eq!(
        eval(r#"date("2024-01-05 10:00")"#),
        json!("2024-01-05T10:00:00+00:00")
    );
    assert_eq!(eval(r#"date("not a date")"#), json!(null));
    assert_eq!(eval(r#"year("2021-12-31")"#), json!(2021));
    assert_eq!(eval("date.weekday"), json!(4));
}

#[test]
fn string_functions() {
    assert_eq!(eval("slug(title)"), json!("hello-world"));
    assert_eq!(eval("lower(title) + upper('x')"), json!("hello worldX"));
    assert_eq!(
        eval("length(title) + length(fm.tags) + length(fm.missing)"),
        json!(13)
    );
    assert_eq!(
        eval("startswith(title, 'Hell') and endswith(title, 'rld')"),
        json!(true)
    );
    assert_eq!(eval("replace(title, 'o', '0')"), json!("Hell0 W0rld"));
    assert_eq!(eval("split('a,b,c', ',')"), json!(["a", "b", "c"]));
    assert_eq!(eval("join(fm.tags)"), json!("a, b"));
    assert_eq!(eval("join(fm.tags, '|')"), json!("a|b"));
    assert_eq!(eval(r#"regexmatch("H.*d", title)"#), json!(true));
    assert_eq!(eval(r#"regexmatch("World", title)"#), json!(false));
    assert_eq!(eval(r#"regextest("World", title)"#), json!(true));
    assert_eq!(eval(r#"regextest(lower("W"), title)"#), json!(false));
}

#[test]
fn value_functions() {
    assert_eq!(eval("default(fm.missing, 'x')"), json!("x"));
    assert_eq!(eval("default(fm.status, 'x')"), json!("open"));
    assert_eq!(
        eval("choice(fm.priority > 2, 'high', 'low')"),
        json!("high")
    );
    assert_eq!(eval("round(2.567, 2) + round(0.4)"), json!(2.57));
    assert_eq!(eval("min(3, 1, 2) + max([4, 9, null])"), json!(10));
    assert_eq!(eval("sum([1, 2, 3.5])"), json!(6.5));
    assert_eq!(eval(r#"sum([dur("1h"), dur("30m")])"#), json!("1h 30m"));
    assert_eq!(eval("list(1, 'a')"), json!([1, "a"]));
    assert_eq!(eval("list()"), json!([]));
    assert_eq!(eval(r#"number("42") + number("x")"#), json!(null));
    assert_eq!(eval(r#"number(" 4.5 ")"#), json!(4.5));
    assert_eq!(
        eval("string(fm.priority) + string(fm.tags)"),
        json!("3a, b")
    );
    assert_eq!(eval("DEFAULT(null, 1)"), json!(1));
}

#[test]
fn parse_errors_are_found_before_evaluation() {
    assert_eq!(
        parse("nope(1)").unwrap_err().to_string(),
        "at 0: unknown function 'nope'"
    );
    assert_eq!(parse("x and dur()").unwrap_err().position, 6);
    assert_eq!(
        parse("'abc").unwrap_err().to_string(),
        "at 0: unterminated string"
    );
}

#[test]
fn now_prefers_the_scope_then_the_pinned_clock() {
    let mut scope = BTreeMap::new();
    assert_eq!(
        eval_str("now", &scope, &ctx()).unwrap().to_json(),
        json!("2024-06-15T12:30:00+00:00")
    );
    scope.insert("now".to_owned(), Value::from_json(&json!("2020-01-01")));
    assert_eq!(
        eval_str("now", &scope, &ctx()).unwrap().to_json(),
        json!("2020-01-01")
    );
}

#[test]
fn texts_that_would_grow_past_the_limit_are_an_evaluation_error_not_a_memory_bomb() {
    // Each level squares the length: 10, 100, 10,000, 100,000,000 bytes, then 10^16.
    let a = r#"replace("aaaaaaaaaa", "a", "aaaaaaaaaa")"#;
    let b = format!(r#"replace({a}, "a", {a})"#);
    let c = format!(r#"replace({b}, "a", {b})"#);
    let d = format!(r#"replace({c}, "a", {c})"#);
    let err = eval_err(&d);
    assert!(err.message.contains("over the limit"), "{}", err.message);
    let err = eval_err(&c);
    assert!(
        err.message
            .contains("replace would make a text of 100000000 bytes"),
        "{}",
        err.message
    );
    // Joining texts with `+` is held to the same limit; under it, both work as before.
    let hundred = "a".repeat(100);
    let big = format!(r#"replace({b}, "a", "{hundred}")"#);
    assert_eq!(eval(&format!("length({big})")), json!(1_000_000));
    let err = eval_err(&format!("{big} + {big}"));
    assert!(
        err.message.contains("`+` would make a text"),
        "{}",
        err.message
    );
    assert_eq!(eval(r#"replace("a-b", "-", "+") + "!""#), json!("a+b!"));
}
