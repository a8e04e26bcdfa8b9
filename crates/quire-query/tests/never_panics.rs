//! Parsing arbitrary text never panics: it returns a query, an expression or an error with
//! a position inside the input.

use proptest::prelude::*;
use quire_query::dql::parse_query;
use quire_query::{parse, EmptyScope, EvalContext, Template};

const DQL_WORDS: &str = "(TABLE |LIST |COUNT|DISTINCT |FROM |WHERE |SORT |GROUP BY |FLATTEN |LIMIT |AS |WITHOUT ID|\"notes\"|#tag|\\[\\[a\\]\\]|outgoing\\(|and |or |not |-|!|\\(|\\)|\\[|\\]|,|=|<|>|\\+|\\*|/|%|\\.|x|fm|file|1|'s'|lower\\(| )*";

fn check_position(src: &str, position: usize) {
    assert!(
        position <= src.len(),
        "position {position} beyond {}",
        src.len()
    );
}

proptest! {
    #[test]
    fn expression_parser_never_panics(src in any::<String>()) {
        if let Err(e) = parse(&src) {
            check_position(&src, e.position);
        }
    }

    #[test]
    fn dql_parser_never_panics(src in any::<String>()) {
        if let Err(quire_query::dql::QueryError::Syntax { position, .. }) = parse_query(&src) {
            check_position(&src, position);
        }
    }

    #[test]
    fn dql_parser_never_panics_on_query_like_text(src in DQL_WORDS) {
        if let Err(quire_query::dql::QueryError::Syntax { position, .. }) = parse_query(&src) {
            check_position(&src, position);
        }
    }

    #[test]
    fn expressions_evaluate_or_fail_without_panicking(src in "([0-9]|'a'|\"2024-01-02\"|null|x|\\[|\\]|,|\\(|\\)|\\+|-|\\*|/|%|=|<|and |or |not |in |date\\(|dur\\('1d'\\)|length\\(|round\\(| )*") {
        if let Ok(expr) = parse(&src) {
            let _ = expr.eval(&EmptyScope, &EvalContext::at(chrono::DateTime::parse_from_rfc3339("2024-06-01T00:00:00Z").unwrap()));
        }
    }

    #[test]
    fn templates_never_panic(src in any::<String>()) {
        if let Err(e) = Template::parse(&src) {
            check_position(&src, e.position);
        }
    }
}
