//! Behaviour of `parse_canvas`: node file references with exact spans, tolerant of bad JSON.

use quire_syntax::{parse_canvas, print_target, replace_spans, LinkKind, LinkPlace};

#[test]
fn canvas_node_files_are_links() {
    let text = r##"{
  "nodes": [
    {"id": "1", "type": "file", "file": "notes/Plan.md", "subpath": "#Goals", "x": 0},
    {"id": "2", "type": "text", "text": "mentions \"file\": \"no.md\""},
    {"id": "3", "type": "custom", "data": {"file": "assets/caf\u00e9 \"x\".png", "n": [1, {"file": "deep.md"}]}}
  ],
  "edges": [{"id": "e", "fromNode": "1", "toNode": "3", "file": "edge.md"}],
  "file": "root.md"
}"##;
    let links = parse_canvas(text);
    let got: Vec<(&str, &str, Option<&str>, u32)> = links
        .iter()
        .map(|l| {
            (
                &text[l.target_span.clone()],
                l.target.as_str(),
                l.fragment.as_deref(),
                l.line,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("notes/Plan.md", "notes/Plan.md", Some("Goals"), 3),
            (
                r#"assets/caf\u00e9 \"x\".png"#,
                "assets/café \"x\".png",
                None,
                5
            ),
        ]
    );
    for link in &links {
        assert_eq!(link.kind, LinkKind::Canvas);
        assert_eq!(link.place, LinkPlace::Canvas);
        assert_eq!(
            &text[link.span.clone()],
            format!("\"{}\"", &text[link.target_span.clone()])
        );
    }
}

#[test]
fn canvas_rewrite_through_the_printer_round_trips() {
    let text = r#"{"nodes":[{"id":"a","file":"old.md"}]}"#;
    let link = &parse_canvas(text)[0];
    let new = print_target(LinkKind::Canvas, false, "new \"dir\"/ü.md");
    let rewritten = replace_spans(text, &[(link.target_span.clone(), new)]);
    assert_eq!(parse_canvas(&rewritten)[0].target, "new \"dir\"/ü.md");
}

#[test]
fn invalid_canvas_json_returns_what_was_found() {
    let cases: &[(&str, &[&str])] = &[
        ("", &[]),
        ("not json", &[]),
        (
            r#"{"nodes":[{"file":"a.md"},{"file":"b.md""#,
            &["a.md", "b.md"],
        ),
        (
            r#"{"nodes":[{"file":"a.md"} {"file":"b.md"}]}"#,
            &["a.md", "b.md"],
        ),
        (r#"{"nodes":[{"file":"a.md",},],}"#, &["a.md"]),
        (r#"{"nodes":[{"file":"unterminated"#, &[]),
        (r#"{"nodes":[{"file":12}]}"#, &[]),
        (r#"[{"nodes":[{"file":"x.md"}]}]"#, &[]),
    ];
    for (text, targets) in cases {
        let got: Vec<String> = parse_canvas(text).into_iter().map(|l| l.target).collect();
        assert_eq!(got, *targets, "{text}");
    }
}

#[test]
fn deeply_nested_canvas_json_does_not_overflow() {
    let text = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(parse_canvas(&text).is_empty());
}
