//! `frontmatter`: the frontmatter parser and its YAML fast path.
//!
//! Properties: wherever the fast path accepts YAML, its mapping equals what `serde_yaml_ng`
//! (the full parser) reads; a page's frontmatter value is the fast path's mapping, else the
//! full parser's mapping, else null with a diagnostic. Both the YAML between a page's fences
//! and the whole input read as YAML are checked.

use quire_syntax::fuzzing::{fast_yaml, full_yaml, guarded_yaml};
use quire_syntax::parse_frontmatter;
use serde_json::Value;

use crate::text::{lossy, tokens};
use crate::Target;

pub const TARGET: Target = Target {
    name: "frontmatter",
    run,
    dictionary,
    seeds: crate::no_seeds,
};

fn dictionary() -> Vec<Vec<u8>> {
    tokens(&[
        "---\n",
        "\n---\n",
        "...\n",
        "title: ",
        "tags: ",
        "aliases:\n",
        "  - ",
        "- ",
        ": ",
        "[",
        "]",
        "{",
        "}",
        ", ",
        "\"",
        "'",
        "''",
        "\\\"",
        "#",
        " # ",
        "~",
        "null",
        "Null",
        "true",
        "False",
        "yes",
        "no",
        "on",
        "0x1F",
        "0o7",
        "0b1",
        ".inf",
        "-.inf",
        ".nan",
        "1e3",
        "1.5",
        "-0",
        "+5",
        "007",
        "12:30",
        "2024-01-05",
        "12345678901234567890",
        "&anchor ",
        "*anchor",
        "<<: ",
        "!!str ",
        "|\n",
        ">-\n",
        "? ",
        "%YAML 1.2\n",
        "\t",
        "\r\n",
        "\u{85}",
        "\u{2028}",
        "\u{feff}",
        "\u{a0}",
        "[[Page]]",
        "\"[[a|b]]\"",
        "-x",
        "--",
        "_k",
        "k-1",
    ])
}

fn run(data: &[u8]) {
    let text = lossy(data);
    let text = text.as_ref();
    check_fast_path(text);
    if let Some(fm) = parse_frontmatter(text) {
        let yaml = &text[fm.yaml_span.clone()];
        check_fast_path(yaml);
        let expected = match fast_yaml(yaml) {
            Some(map) => Value::Object(map),
            None => guarded_yaml(yaml).unwrap_or(Value::Null),
        };
        assert_eq!(fm.value, expected, "the page's frontmatter value");
        assert!(
            fm.value.is_object() || fm.value.is_null(),
            "frontmatter is a mapping or null"
        );
    }
}

/// The fast path agrees with `serde_yaml_ng` wherever it accepts. (It accepts only flat
/// flow lists, so the unguarded parser meets no deep nesting here.)
fn check_fast_path(yaml: &str) {
    if let Some(map) = fast_yaml(yaml) {
        let full = full_yaml(yaml);
        assert_eq!(
            full.as_ref().ok(),
            Some(&Value::Object(map.clone())),
            "the fast path read {yaml:?} as {map:?}; the full parser: {full:?}"
        );
    }
}
