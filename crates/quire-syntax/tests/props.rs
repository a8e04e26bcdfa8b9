//! Properties of `parse` and `parse_canvas` on arbitrary and markdown-ish text.

use proptest::prelude::*;
use quire_syntax::{parse, parse_canvas, replace_spans, Link, LinkKind, ParsedPage};

/// Text assembled from fragments that open and close every construct the parser knows.
fn markdownish() -> impl Strategy<Value = String> {
    let fragment = prop_oneof![
        Just("[[".to_owned()),
        Just("]]".to_owned()),
        Just("](".to_owned()),
        Just("[".to_owned()),
        Just("]".to_owned()),
        Just("(".to_owned()),
        Just(")".to_owned()),
        Just("![".to_owned()),
        Just("|".to_owned()),
        Just("\\|".to_owned()),
        Just("\\".to_owned()),
        Just("#".to_owned()),
        Just("^".to_owned()),
        Just("```".to_owned()),
        Just("~~~".to_owned()),
        Just("`".to_owned()),
        Just("<!--".to_owned()),
        Just("-->".to_owned()),
        Just("$$".to_owned()),
        Just("$".to_owned()),
        Just("---\n".to_owned()),
        Just("...\n".to_owned()),
        Just("\n".to_owned()),
        Just("\r\n".to_owned()),
        Just("\n    ".to_owned()),
        Just("\t".to_owned()),
        Just("> ".to_owned()),
        Just("- ".to_owned()),
        Just("1. ".to_owned()),
        Just(": ".to_owned()),
        Just("tags: ".to_owned()),
        Just("\"".to_owned()),
        Just("'".to_owned()),
        Just("<".to_owned()),
        Just(">".to_owned()),
        Just("%20".to_owned()),
        Just("%".to_owned()),
        Just("===\n".to_owned()),
        Just(" ".to_owned()),
        "[a-zé/.]{1,6}",
        "\\PC{1,3}",
    ];
    prop::collection::vec(fragment, 0..40).prop_map(|parts| parts.concat())
}

fn check_span(text: &str, span: &std::ops::Range<usize>, what: &str) {
    assert!(
        span.start <= span.end && span.end <= text.len(),
        "{what} {span:?} out of range in {text:?}"
    );
    assert!(
        text.is_char_boundary(span.start) && text.is_char_boundary(span.end),
        "{what} {span:?} splits a character in {text:?}"
    );
}

fn check_link(text: &str, link: &Link) {
    check_span(text, &link.span, "span");
    check_span(text, &link.target_span, "target_span");
    assert!(
        link.span.start <= link.target_span.start && link.target_span.end <= link.span.end,
        "target outside its link: {link:?} in {text:?}"
    );
    if matches!(link.kind, LinkKind::Wiki) {
        assert_eq!(&text[link.target_span.clone()], link.target, "{text:?}");
    }
    assert!(link.line >= 1);
}

fn check_page(text: &str, page: &ParsedPage) {
    for link in &page.links {
        check_link(text, link);
    }
    for heading in &page.headings {
        check_span(text, &heading.span, "heading");
    }
    for tag in &page.tags {
        if let Some(span) = &tag.span {
            check_span(text, span, "tag");
        }
    }
    if let Some(fm) = &page.frontmatter {
        check_span(text, &fm.span, "frontmatter");
        check_span(text, &fm.yaml_span, "yaml");
        assert_eq!(page.body_start, fm.span.end);
    }
    // Link target spans never overlap, so a rewrite can always apply them all at once.
    let edits: Vec<_> = page
        .links
        .iter()
        .map(|l| {
            (
                l.target_span.clone(),
                text[l.target_span.clone()].to_owned(),
            )
        })
        .collect();
    assert_eq!(replace_spans(text, &edits), text);
}

proptest! {
    #[test]
    fn parse_never_panics_and_spans_hold_on_any_string(text in any::<String>()) {
        check_page(&text, &parse(&text));
    }

    #[test]
    fn parse_spans_hold_on_markdownish_text(text in markdownish()) {
        check_page(&text, &parse(&text));
    }

    #[test]
    fn parse_spans_hold_with_frontmatter(fm in markdownish(), body in markdownish()) {
        let text = format!("---\n{fm}\n---\n{body}");
        check_page(&text, &parse(&text));
    }

    #[test]
    fn parse_canvas_never_panics_and_spans_hold(text in any::<String>()) {
        for link in parse_canvas(&text) {
            check_link(&text, &link);
        }
    }

    #[test]
    fn parse_canvas_spans_hold_on_jsonish_text(parts in prop::collection::vec(prop_oneof![
        Just("{".to_owned()), Just("}".to_owned()), Just("[".to_owned()), Just("]".to_owned()),
        Just(",".to_owned()), Just(":".to_owned()), Just("\"nodes\"".to_owned()),
        Just("\"file\"".to_owned()), Just("\"data\"".to_owned()), Just("\"subpath\"".to_owned()),
        Just("\"".to_owned()), Just("\\".to_owned()), Just("\\u00e9".to_owned()), Just("\\ud83d".to_owned()),
        "\"[a-zé/. ]{0,6}\"", "\\PC{1,2}", Just("\n".to_owned()),
    ], 0..40)) {
        let text = parts.concat();
        let links = parse_canvas(&text);
        for link in &links {
            check_link(&text, link);
        }
        let edits: Vec<_> = links
            .iter()
            .map(|l| (l.target_span.clone(), text[l.target_span.clone()].to_owned()))
            .collect();
        prop_assert_eq!(replace_spans(&text, &edits), text.clone());
    }
}
