//! `syntax_parse`: the markdown and link scanner (`quire_syntax::parse`) on any page text.
//!
//! Properties: every span lies in the page on character boundaries; the link targets' spans
//! are sorted and disjoint, so they cut the page into pieces that join back to it; a target
//! span holds the target as written (wiki) or its escaped, percent-encoded spelling
//! (markdown); printing every target again with the one link printer gives a page whose links
//! have the same targets; the frontmatter-only parser agrees with the full one; sections and
//! blocks cut out of the page lie inside it.

use quire_syntax::{parse, parse_frontmatter, percent_decode, print_target, try_replace_spans};
use quire_syntax::{LinkKind, ParsedPage};

use crate::text::{check_range, lossy, tokens};
use crate::Target;

pub const TARGET: Target = Target {
    name: "syntax_parse",
    run,
    dictionary,
    seeds: crate::no_seeds,
};

fn dictionary() -> Vec<Vec<u8>> {
    tokens(&[
        "[[",
        "]]",
        "![[",
        "|",
        "#",
        "#^",
        "^block",
        "](",
        "![",
        "[t](",
        "<",
        ">",
        "\"t\"",
        "[ref]: ",
        "---\n",
        "\n---\n",
        "...\n",
        "```\n",
        "~~~",
        "`",
        "$$",
        "$",
        "%%",
        "<!--",
        "-->",
        "# ",
        "## ",
        "\n===\n",
        "\n---",
        "    ",
        "> ",
        "- ",
        "1. ",
        "#tag",
        "#a/b",
        "tags: [a, b]\n",
        "up: \"[[x]]\"\n",
        "%20",
        "%C3%A9",
        "%2",
        "%ZZ",
        "\\(",
        "\\)",
        "a.md",
        "../",
        "./",
        "http://x",
        "C:",
        "mailto:",
        "\r\n",
        "\t",
        "|alias",
    ])
}

fn run(data: &[u8]) {
    let text = lossy(data);
    let text = text.as_ref();
    let page = parse(text);
    check_spans(text, &page);
    assert_eq!(
        parse_frontmatter(text),
        page.frontmatter,
        "parse_frontmatter disagrees with parse"
    );
    check_sections(text, &page);
    check_reprinting(text, &page);
}

fn check_spans(text: &str, page: &ParsedPage) {
    check_range(text, &(page.body_start..text.len()), "body");
    if let Some(fm) = &page.frontmatter {
        check_range(text, &fm.span, "frontmatter span");
        check_range(text, &fm.yaml_span, "frontmatter YAML span");
        assert!(fm.span.start == 0 && fm.yaml_span.end <= fm.span.end);
        assert_eq!(
            page.body_start, fm.span.end,
            "the body starts after the frontmatter"
        );
    } else {
        assert_eq!(page.body_start, 0);
    }
    let mut previous_end = 0;
    for heading in &page.headings {
        check_range(text, &heading.span, "heading");
        assert!(heading.span.start >= previous_end, "headings overlap");
        assert!(
            (1..=6).contains(&heading.level),
            "heading level {}",
            heading.level
        );
        previous_end = heading.span.end;
    }
    for tag in &page.tags {
        if let Some(span) = &tag.span {
            check_range(text, span, "tag");
        }
    }
    let mut previous_end = page.body_start;
    for code in &page.code {
        check_range(text, code, "code");
        assert!(
            code.start >= previous_end,
            "code ranges overlap or are out of order"
        );
        previous_end = code.end;
    }
    for pair in page.links.windows(2) {
        assert!(
            pair[0].span.start <= pair[1].span.start,
            "links out of order"
        );
    }
    for link in &page.links {
        check_range(text, &link.span, "link");
        check_range(text, &link.target_span, "link target");
        assert!(
            link.span.start <= link.target_span.start && link.target_span.end <= link.span.end,
            "target {:?} outside its link {:?}",
            link.target_span,
            link.span
        );
        let written = &text[link.target_span.clone()];
        match link.kind {
            LinkKind::Wiki => assert_eq!(written, link.target, "a wiki target as written"),
            LinkKind::Markdown | LinkKind::MarkdownReference => assert_eq!(
                percent_decode(&unescape(written)),
                link.target,
                "a markdown target decoded"
            ),
            LinkKind::Canvas => panic!("a canvas link in a page"),
        }
    }
    // The target spans cut the page into pieces: in order, disjoint, joining back to it.
    let mut spans: Vec<_> = page.links.iter().map(|l| l.target_span.clone()).collect();
    spans.sort_by_key(|s| (s.start, s.end));
    for pair in spans.windows(2) {
        assert!(
            pair[0].end <= pair[1].start,
            "target spans {pair:?} overlap"
        );
    }
    let identity: Vec<_> = spans
        .iter()
        .map(|s| (s.clone(), text[s.clone()].to_owned()))
        .collect();
    assert_eq!(
        try_replace_spans(text, &identity).as_deref(),
        Ok(text),
        "the pieces do not join back to the page"
    );
}

/// Markdown backslash escapes removed, as the scanner reads destinations.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(&next) = chars.peek().filter(|n| n.is_ascii_punctuation()) {
                out.push(next);
                chars.next();
                continue;
            }
        }
        out.push(c);
    }
    out
}

fn check_sections(text: &str, page: &ParsedPage) {
    let lines = text.split('\n').count() as u32;
    for (i, heading) in page.headings.iter().enumerate().take(32) {
        let part = quire_syntax::section_at(text, page, i);
        assert!(
            text.contains(part.content.as_str()),
            "a section is not part of the page"
        );
        assert!(part.lines.start >= 1 && part.lines.start <= part.lines.end);
        assert!(
            part.lines.end <= lines,
            "section lines {:?} of {lines}",
            part.lines
        );
        // `#` and spaces around the wanted text are ignored, so "#x" may find a heading "x".
        if let Some(found) = quire_syntax::heading_section(text, page, &heading.text) {
            assert!(
                text.contains(found.content.as_str()),
                "a found section is not in the page"
            );
        }
    }
    for id in page.block_ids.iter().take(32) {
        if let Some(part) = quire_syntax::block(text, page, &format!("^{}", id.id)) {
            assert!(part.content.len() <= text.len());
            assert!(part.lines.start >= 1 && part.lines.start <= part.lines.end);
            assert!(
                part.lines.end <= lines,
                "block lines {:?} of {lines}",
                part.lines
            );
        }
    }
}

/// The longest link destination the scanner reads (`MAX_DESTINATION` in quire-syntax's inline
/// scanner): longer than any path the operating system opens (`PATH_MAX`).
const MAX_DESTINATION: usize = 4096;

/// Whether parentheses nest past the 32 levels a destination may hold (CommonMark's limit,
/// `MAX_PAREN_DEPTH` in the scanner): text that is no link only for that depth may become one
/// when a link inside it is printed with its parentheses encoded (a limit, not a bug:
/// docs/RELIABILITY.md).
fn parens_nest_deeper_than_links_read(text: &str) -> bool {
    let mut depth = 0usize;
    text.bytes().any(|c| {
        match c {
            b'(' => depth += 1,
            b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        depth > 32
    })
}

/// Every target printed again by the one link printer leaves the page's links naming the
/// same targets (unless escaping made a destination longer than the scanner reads).
fn check_reprinting(text: &str, page: &ParsedPage) {
    let edits: Vec<_> = page
        .links
        .iter()
        .map(|l| quire_syntax::target_edit(text, l, print_target(l.kind, l.angle, &l.target)))
        .collect();
    // The destination as reprinted: the printed target and what follows it in the link.
    let too_long =
        page.links.iter().zip(&edits).any(|(l, (span, printed))| {
            printed.len() + (l.span.end - span.end) > MAX_DESTINATION - 8
        });
    if too_long || parens_nest_deeper_than_links_read(text) {
        return;
    }
    if try_replace_spans(text, &edits).is_err() {
        panic!("the link spans cannot be rewritten");
    }
    // Replacing a target may change the text around it (encoding a `<` can make text that was
    // no link one): the checked rewrite says so, and the planner then refuses the page.
    let Ok(printed) = quire_syntax::relink_checked(text, &edits) else {
        return;
    };
    let again = parse(&printed);
    let before: Vec<_> = page.links.iter().map(|l| (l.kind, &l.target)).collect();
    let after: Vec<_> = again.links.iter().map(|l| (l.kind, &l.target)).collect();
    assert_eq!(
        before, after,
        "reprinted targets read differently:\n{printed:?}"
    );
}
