//! Behaviour of `parse`: links, code awareness, frontmatter, headings, tags, block ids.

use quire_syntax::{parse, Link, LinkKind, LinkPlace};

/// Written targets (the bytes of `target_span`) of the page's links, in order.
fn written_targets(text: &str) -> Vec<&str> {
    parse(text)
        .links
        .iter()
        .map(|l| &text[l.target_span.clone()])
        .collect()
}

fn only_link(text: &str) -> Link {
    let page = parse(text);
    assert_eq!(page.links.len(), 1, "{text:?}: {:#?}", page.links);
    page.links.into_iter().next().unwrap()
}

#[test]
fn wiki_link_forms() {
    // text, written target, target, fragment, alias, embed
    type Case<'a> = (
        &'a str,
        &'a str,
        &'a str,
        Option<&'a str>,
        Option<&'a str>,
        bool,
    );
    let cases: &[Case] = &[
        ("see [[Note]] here", "Note", "Note", None, None, false),
        (
            "[[folder/Note.md|Alias text]]",
            "folder/Note.md",
            "folder/Note.md",
            None,
            Some("Alias text"),
            false,
        ),
        (
            "[[Note#Heading Two]]",
            "Note",
            "Note",
            Some("Heading Two"),
            None,
            false,
        ),
        (
            "[[Note#^block-1]]",
            "Note",
            "Note",
            Some("^block-1"),
            None,
            false,
        ),
        (
            "[[#Local heading]]",
            "",
            "",
            Some("Local heading"),
            None,
            false,
        ),
        ("![[image.png]]", "image.png", "image.png", None, None, true),
        (
            "![[Note#Sec|shown]]",
            "Note",
            "Note",
            Some("Sec"),
            Some("shown"),
            true,
        ),
        (
            "| [[Note\\|alias]] | x |",
            "Note",
            "Note",
            None,
            Some("alias"),
            false,
        ),
        (
            "| [[Note#H\\|alias]] |",
            "Note",
            "Note",
            Some("H"),
            Some("alias"),
            false,
        ),
        (
            "[[ spaced name ]]",
            "spaced name",
            "spaced name",
            None,
            None,
            false,
        ),
        ("[[a|b|c]]", "a", "a", None, Some("b|c"), false),
        ("[[[inner]]]", "inner", "inner", None, None, false),
        (
            "[[Café/Ünïcode]]",
            "Café/Ünïcode",
            "Café/Ünïcode",
            None,
            None,
            false,
        ),
    ];
    for (text, written, target, fragment, alias, embed) in cases {
        let link = only_link(text);
        assert_eq!(link.kind, LinkKind::Wiki, "{text}");
        assert_eq!(link.place, LinkPlace::Body, "{text}");
        assert_eq!(&text[link.target_span.clone()], *written, "{text}");
        assert_eq!(link.target, *target, "{text}");
        assert_eq!(link.fragment.as_deref(), *fragment, "{text}");
        assert_eq!(link.alias.as_deref(), *alias, "{text}");
        assert_eq!(link.embed, *embed, "{text}");
    }
}

#[test]
fn wiki_link_spans_cover_the_whole_occurrence() {
    let text = "a ![[x|y]] b [[z]]";
    let page = parse(text);
    let spans: Vec<&str> = page.links.iter().map(|l| &text[l.span.clone()]).collect();
    assert_eq!(spans, ["![[x|y]]", "[[z]]"]);
}

#[test]
fn wiki_links_need_a_name_and_one_line() {
    for text in [
        "[[]]",
        "[[|alias]]",
        "[[a\nb]]",
        "[[unclosed",
        "[ [a]]",
        "\\[[a]]",
    ] {
        assert!(
            parse(text).links.iter().all(|l| l.kind != LinkKind::Wiki),
            "{text:?}: {:?}",
            parse(text).links
        );
    }
}

#[test]
fn markdown_link_forms() {
    // text, written target, target, fragment, alias, title, angle, embed
    type Case<'a> = (
        &'a str,
        &'a str,
        &'a str,
        Option<&'a str>,
        Option<&'a str>,
        Option<&'a str>,
        bool,
        bool,
    );
    let cases: &[Case] = &[
        (
            "[text](note.md)",
            "note.md",
            "note.md",
            None,
            Some("text"),
            None,
            false,
            false,
        ),
        (
            "[t](dir/My%20Note.md#Sec)",
            "dir/My%20Note.md",
            "dir/My Note.md",
            Some("Sec"),
            Some("t"),
            None,
            false,
            false,
        ),
        (
            "[t](<My Note.md>)",
            "My Note.md",
            "My Note.md",
            None,
            Some("t"),
            None,
            true,
            false,
        ),
        (
            "[t](<a b.md#H I>)",
            "a b.md",
            "a b.md",
            Some("H I"),
            Some("t"),
            None,
            true,
            false,
        ),
        (
            "[t](note.md \"Title\")",
            "note.md",
            "note.md",
            None,
            Some("t"),
            Some("Title"),
            false,
            false,
        ),
        (
            "[t](note.md 'Single')",
            "note.md",
            "note.md",
            None,
            Some("t"),
            Some("Single"),
            false,
            false,
        ),
        (
            "[t](note.md (Paren))",
            "note.md",
            "note.md",
            None,
            Some("t"),
            Some("Paren"),
            false,
            false,
        ),
        (
            "![alt](img/a.png)",
            "img/a.png",
            "img/a.png",
            None,
            Some("alt"),
            None,
            false,
            true,
        ),
        (
            "[a [nested] text](n.md)",
            "n.md",
            "n.md",
            None,
            Some("a [nested] text"),
            None,
            false,
            false,
        ),
        (
            "[t](file_(1).md)",
            "file_(1).md",
            "file_(1).md",
            None,
            Some("t"),
            None,
            false,
            false,
        ),
        (
            "[t](/root/x.md)",
            "/root/x.md",
            "/root/x.md",
            None,
            Some("t"),
            None,
            false,
            false,
        ),
        (
            "[t](../up.md)",
            "../up.md",
            "../up.md",
            None,
            Some("t"),
            None,
            false,
            false,
        ),
        (
            "[t](caf%C3%A9.md)",
            "caf%C3%A9.md",
            "café.md",
            None,
            Some("t"),
            None,
            false,
            false,
        ),
        (
            "[t](bad%zz.md)",
            "bad%zz.md",
            "bad%zz.md",
            None,
            Some("t"),
            None,
            false,
            false,
        ),
        (
            "[t](a\\_b.md)",
            "a\\_b.md",
            "a_b.md",
            None,
            Some("t"),
            None,
            false,
            false,
        ),
        (
            "[](empty-text.md)",
            "empty-text.md",
            "empty-text.md",
            None,
            None,
            None,
            false,
            false,
        ),
        (
            "[t]( spaced.md )",
            "spaced.md",
            "spaced.md",
            None,
            Some("t"),
            None,
            false,
            false,
        ),
    ];
    for (text, written, target, fragment, alias, title, angle, embed) in cases {
        let link = only_link(text);
        assert_eq!(link.kind, LinkKind::Markdown, "{text}");
        assert_eq!(&text[link.target_span.clone()], *written, "{text}");
        assert_eq!(link.target, *target, "{text}");
        assert_eq!(link.fragment.as_deref(), *fragment, "{text}");
        assert_eq!(link.alias.as_deref(), *alias, "{text}");
        assert_eq!(link.title.as_deref(), *title, "{text}");
        assert_eq!(link.angle, *angle, "{text}");
        assert_eq!(link.embed, *embed, "{text}");
        assert_eq!(&text[link.span.clone()], text.trim(), "{text}");
    }
}

#[test]
fn markdown_links_to_urls_fragments_and_nothing_are_skipped() {
    let cases = [
        "[a](https://example.com/x.md)",
        "[a](http://x)",
        "[a](mailto:me@example.com)",
        "[a](obsidian://open?vault=x)",
        "[a](C:/Users/x.md)",
        "[a](#local-heading)",
        "[a]()",
        "[a](<>)",
        "<https://example.com>",
        "[a] (not-a-link.md)",
        "[a](broken.md \"title)",
        "[a](x.md junk)",
    ];
    for text in cases {
        assert_eq!(parse(text).links, vec![], "{text}");
    }
}

#[test]
fn image_inside_link_text_gives_both_links_in_order() {
    let text = "[![badge](img/b.png)](docs/page.md)";
    assert_eq!(written_targets(text), ["docs/page.md", "img/b.png"]);
    let page = parse(text);
    assert!(!page.links[0].embed && page.links[1].embed);
}

#[test]
fn reference_definitions_are_links_and_uses_are_not() {
    let text = "Use [the note][n] and [n].\n\n[n]: notes/the%20note.md \"Shown\"\n   [u]: <a b.md>\n[url]: https://x.org\n[^1]: footnote [[F]]\n";
    let page = parse(text);
    let defs: Vec<(&str, &str, Option<&str>, bool, u32)> = page
        .links
        .iter()
        .filter(|l| l.kind == LinkKind::MarkdownReference)
        .map(|l| {
            (
                &text[l.target_span.clone()],
                l.target.as_str(),
                l.title.as_deref(),
                l.angle,
                l.line,
            )
        })
        .collect();
    assert_eq!(
        defs,
        [
            (
                "notes/the%20note.md",
                "notes/the note.md",
                Some("Shown"),
                false,
                3
            ),
            ("a b.md", "a b.md", None, true, 4),
        ]
    );
    // The footnote text is ordinary text: its wiki link counts.
    assert_eq!(
        written_targets(text),
        ["notes/the%20note.md", "a b.md", "F"]
    );
}

#[test]
fn reference_definition_cannot_interrupt_a_paragraph() {
    let text = "Some text\n[n]: x.md\n";
    assert_eq!(parse(text).links, vec![]);
}

#[test]
fn links_inside_code_comments_and_math_are_not_found() {
    let cases = [
        "```\n[[a]] [b](b.md)\n```",
        "```rust title=\"x\"\n[[a]]\n```",
        "~~~\n[[a]]\n~~~",
        "````\n```\n[[a]]\n```\n````",
        "```\n[[a]]\n~~~\n[[b]]",
        "```\nunclosed [[a]]\n\n[[b]]",
        "para\n\n    [[indented code]]",
        "\t[[tab indented]]",
        "`[[inline code]]`",
        "``code with ` and [[a]]``",
        "<!-- [[comment]] -->",
        "<!--\n[[multi\nline]]\n-->",
        "$$\n[[math]]\n$$",
        "$$ [[inline display]] $$",
        "$x [[math]]$",
        "> ```\n> [[quoted code]]\n> ```",
        "- item\n\n  ```\n  [[code in list]]\n  ```",
    ];
    for text in cases {
        assert_eq!(parse(text).links, vec![], "{text:?}");
    }
}

#[test]
fn links_after_closed_code_and_comments_are_found_again() {
    let cases: &[(&str, &[&str], &[u32])] = &[
        ("```\n[[a]]\n```\n[[b]]", &["b"], &[4]),
        ("~~~~\n~~~\n[[a]]\n~~~~\n[[b]]", &["b"], &[5]),
        ("`[[a]]` [[b]]", &["b"], &[1]),
        ("<!-- [[a]] --> [[b]]", &["b"], &[1]),
        ("<!--\n[[a]]\n--> [[b]]\n[[c]]", &["b", "c"], &[3, 4]),
        ("$$\n[[a]]\n$$ [[b]]", &["b"], &[3]),
        ("$5 and [[b]] cost $10", &["b"], &[1]),
        (
            "para\n    [[lazy continuation]]",
            &["lazy continuation"],
            &[2],
        ),
        ("- list\n    - [[nested item]]", &["nested item"], &[2]),
        (
            "- list\n\n    [[item paragraph]]",
            &["item paragraph"],
            &[3],
        ),
        ("<!-- unclosed [[a]]", &["a"], &[1]),
        ("`unclosed [[a]]", &["a"], &[1]),
        (
            "> quote [[q]]\n> ```\n> [[no]]\n> ```\n> [[yes]]",
            &["q", "yes"],
            &[1, 5],
        ),
        ("> ```\n> [[no]]\n\n[[after quote]]", &["after quote"], &[4]),
    ];
    for (text, targets, lines) in cases {
        let page = parse(text);
        let got: Vec<&str> = page.links.iter().map(|l| l.target.as_str()).collect();
        let got_lines: Vec<u32> = page.links.iter().map(|l| l.line).collect();
        assert_eq!(got, *targets, "{text:?}");
        assert_eq!(got_lines, *lines, "{text:?}");
    }
}

#[test]
fn line_numbers_count_from_one_including_frontmatter() {
    let text = "---\na: 1\n---\n\nfirst [[x]]\r\nsecond [y](y.md)\n";
    let lines: Vec<u32> = parse(text).links.iter().map(|l| l.line).collect();
    assert_eq!(lines, [5, 6]);
}

#[test]
fn frontmatter_block_and_value() {
    let text = "---\ntitle: Hello\ncount: 3\nlist: [a, b]\n---\nbody\n";
    let page = parse(text);
    let fm = page.frontmatter.unwrap();
    assert_eq!(fm.span, 0..text.find("body").unwrap());
    assert_eq!(
        &text[fm.yaml_span.clone()],
        "title: Hello\ncount: 3\nlist: [a, b]\n"
    );
    assert_eq!(
        fm.value,
        serde_json::json!({"title": "Hello", "count": 3, "list": ["a", "b"]})
    );
    assert_eq!(page.body_start, fm.span.end);
    assert!(page.diagnostics.is_empty());
}

#[test]
fn frontmatter_fences_and_edge_cases() {
    // text, frontmatter present, value
    let cases: &[(&str, bool, serde_json::Value)] = &[
        ("---\na: 1\n...\nbody", true, serde_json::json!({"a": 1})),
        (
            "---\r\na: 1\r\n---\r\nbody",
            true,
            serde_json::json!({"a": 1}),
        ),
        ("---\n---\n", true, serde_json::json!({})),
        ("---\n# only a comment\n---", true, serde_json::json!({})),
        ("---\na: 1\n", false, serde_json::Value::Null),
        ("---\na: 1", false, serde_json::Value::Null),
        ("\n---\na: 1\n---\n", false, serde_json::Value::Null),
        ("--- \na: 1\n---  \n", true, serde_json::json!({"a": 1})),
        (
            "---\n1: one\ntrue: yes\n---\n",
            true,
            serde_json::json!({"1": "one", "true": "yes"}),
        ),
        (
            "---\nd: 2024-01-05\n---\n",
            true,
            serde_json::json!({"d": "2024-01-05"}),
        ),
    ];
    for (text, present, value) in cases {
        let page = parse(text);
        assert_eq!(
            quire_syntax::body_start(text),
            page.body_start,
            "body_start agrees with parse: {text:?}"
        );
        assert_eq!(page.frontmatter.is_some(), *present, "{text:?}");
        if let Some(fm) = page.frontmatter {
            assert_eq!(fm.value, *value, "{text:?}");
            assert_eq!(page.body_start, fm.span.end);
        } else {
            assert_eq!(page.body_start, 0);
        }
    }
}

#[test]
fn invalid_frontmatter_gives_null_and_a_diagnostic() {
    let cases = [
        ("---\na: [unclosed\n---\n", 3),
        ("---\n- a list\n---\n", 2),
        ("---\na: 1\na: 2\n---\n", 3),
    ];
    for (text, line) in cases {
        let page = parse(text);
        assert_eq!(
            page.frontmatter.as_ref().unwrap().value,
            serde_json::Value::Null,
            "{text:?}"
        );
        assert_eq!(page.diagnostics.len(), 1, "{text:?}");
        assert!(
            page.diagnostics[0].line >= 2 && page.diagnostics[0].line <= line,
            "{:?}",
            page.diagnostics
        );
    }
}

#[test]
fn frontmatter_wiki_links_carry_their_top_level_key() {
    let text = "---\nup: \"[[Projects]]\"\nrelated:\n  - \"[[A|alias]]\"\n  - '[[B#Sec]]'\nraw: [[C]]\n# note: [[commented]]\nsame: x # [[trailing comment]]\nnested:\n  deep: \"![[D]]\"\ntext: |\n  block [[E]] # not a comment\n---\n[[Body]]\n";
    let page = parse(text);
    type Found<'a> = (String, &'a str, Option<&'a str>, Option<&'a str>, u32);
    let got: Vec<Found> = page
        .links
        .iter()
        .map(|l| {
            let key = match &l.place {
                LinkPlace::Frontmatter { key } => key.clone(),
                other => format!("{other:?}"),
            };
            (
                key,
                &text[l.target_span.clone()],
                l.fragment.as_deref(),
                l.alias.as_deref(),
                l.line,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("up".to_owned(), "Projects", None, None, 2),
            ("related".to_owned(), "A", None, Some("alias"), 4),
            ("related".to_owned(), "B", Some("Sec"), None, 5),
            ("raw".to_owned(), "C", None, None, 6),
            ("nested".to_owned(), "D", None, None, 10),
            ("text".to_owned(), "E", None, None, 12),
            ("Body".to_owned(), "Body", None, None, 14),
        ]
    );
    assert_eq!(page.links.last().unwrap().place, LinkPlace::Body);
    assert!(page.links[4].embed);
}

#[test]
fn frontmatter_tags_in_every_form_with_spans() {
    // text, expected (name, located)
    let cases: &[(&str, &[&str])] = &[
        ("---\ntags: [a, \"b/c\", '#d']\n---\n", &["a", "b/c", "d"]),
        (
            "---\ntags:\n  - one\n  - \"two\"\n  - '#three'\n---\n",
            &["one", "two", "three"],
        ),
        ("---\ntags:\n- x\n- y # comment\n---\n", &["x", "y"]),
        ("---\ntags: solo\n---\n", &["solo"]),
        ("---\ntags: a, b ,c\n---\n", &["a", "b", "c"]),
        ("---\ntags: \"q1, q2\"\n---\n", &["q1", "q2"]),
    ];
    for (text, names) in cases {
        let page = parse(text);
        let got: Vec<&str> = page.tags.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(got, *names, "{text:?}");
        for tag in &page.tags {
            assert!(tag.in_frontmatter);
            let span = tag
                .span
                .clone()
                .unwrap_or_else(|| panic!("{text:?}: {tag:?} not located"));
            assert_eq!(&text[span], tag.name, "{text:?}");
        }
    }
}

/// Found by the `frontmatter` fuzz target: a blank quoted tag (`' '`) made the tag locator
/// slice the line inside out, and `parse` panicked.
#[test]
fn blank_quoted_frontmatter_tags_are_skipped_without_panicking() {
    for text in [
        "---\ntags: [a, \"b c\", ' ']\n---\n",
        "---\ntags: ' '\n---\n",
        "---\ntags:\n  - a\n  - \" \"\n---\n",
        "---\ntags: [\"\t\", '', a]\n---\n",
    ] {
        let page = parse(text);
        let names: Vec<&str> = page.tags.iter().map(|t| t.name.as_str()).collect();
        assert!(
            names.iter().all(|n| !n.trim().is_empty()),
            "{text:?}: {names:?}"
        );
        for tag in &page.tags {
            if let Some(span) = &tag.span {
                assert_eq!(&text[span.clone()], tag.name, "{text:?}");
            }
        }
    }
}

/// Found by the `frontmatter` fuzz target: a quote left open before a multi-byte character
/// and the list's `]` made the tag locator cut that character in two, and `parse` panicked.
#[test]
fn an_unclosed_quoted_tag_before_a_multibyte_character_does_not_panic() {
    for text in [
        "---\ntags: [a, 'd\u{fffd}]\n---\n",
        "---\ntags: [a, \"\u{e9}]\n---\n",
        "---\ntags: [\"\u{65e5}\u{672c}, b]\n---\n",
        "---\ntags: '\u{e9}\n---\n",
    ] {
        let page = parse(text);
        for tag in &page.tags {
            if let Some(span) = &tag.span {
                assert!(text.get(span.clone()).is_some(), "{text:?}: {span:?}");
            }
        }
    }
}

#[test]
fn frontmatter_tags_without_exact_spelling_have_no_span() {
    let text = "---\ntags: [\"esc\\u0061ped\"]\n---\n";
    let page = parse(text);
    assert_eq!(page.tags.len(), 1);
    assert_eq!(page.tags[0].name, "escaped");
    assert_eq!(page.tags[0].span, None);
    assert_eq!(page.tags[0].line, 2);
}

#[test]
fn atx_and_setext_headings() {
    let text = "# One\n\n## Two ##\n   ### Three #not-closing\nSetext A\n========\n\nSetext\nB\n---\n\n#tag not heading\n####### seven\n#\n> ## Quoted\n- # In list\n";
    let page = parse(text);
    let got: Vec<(u8, &str, u32, &str)> = page
        .headings
        .iter()
        .map(|h| (h.level, h.text.as_str(), h.line, &text[h.span.clone()]))
        .collect();
    assert_eq!(
        got,
        [
            (1, "One", 1, "# One"),
            (2, "Two", 3, "## Two ##"),
            (3, "Three #not-closing", 4, "   ### Three #not-closing"),
            (1, "Setext A", 5, "Setext A\n========"),
            (2, "Setext B", 8, "Setext\nB\n---"),
            (1, "", 14, "#"),
            (2, "Quoted", 15, "> ## Quoted"),
            (1, "In list", 16, "- # In list"),
        ]
    );
}

#[test]
fn dashes_are_thematic_breaks_after_frontmatter_blank_lines_and_list_items() {
    let cases = [
        "---\na: 1\n---\n---\ntext",
        "text\n\n---\n",
        "---\n",
        "- item\n---\n",
        "***\n___\n- - -\n",
        "```\ntext\n---\n```",
    ];
    for text in cases {
        assert_eq!(parse(text).headings, vec![], "{text:?}");
    }
}

#[test]
fn heading_slugs() {
    let page = parse("## Hello, World!\n# Ünïcode Title\n");
    let slugs: Vec<&str> = page.headings.iter().map(|h| h.slug.as_str()).collect();
    assert_eq!(slugs, ["hello-world", "ünïcode-title"]);
}

#[test]
fn inline_tags() {
    let cases: &[(&str, &[&str])] = &[
        ("#tag at start", &["tag"]),
        (
            "text #one and #two/nested and #with-dash_under",
            &["one", "two/nested", "with-dash_under"],
        ),
        ("(#paren) and #über", &["paren", "über"]),
        ("#123 is a number but #y2024 is not", &["y2024"]),
        ("no#tag here, nor ##double", &[]),
        ("# heading is not a tag", &[]),
        ("## heading with #tag", &["tag"]),
        ("`#code` <!-- #comment --> $#math$", &[]),
        (
            "[[note#heading]] and [x](y.md#frag) and https://x.org/#anchor",
            &[],
        ),
        ("```\n#fenced\n```\n#after", &["after"]),
        ("- #listed\n> #quoted", &["listed", "quoted"]),
        ("escaped \\#not", &[]),
    ];
    for (text, names) in cases {
        let page = parse(text);
        let got: Vec<&str> = page.tags.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(got, *names, "{text:?}");
        for tag in &page.tags {
            let span = tag.span.clone().unwrap();
            assert_eq!(&text[span], format!("#{}", tag.name), "{text:?}");
            assert!(!tag.in_frontmatter);
        }
    }
}

#[test]
fn block_ids_at_line_ends() {
    let text = "A paragraph ^para-1\n\n- item ^item2  \n\n^standalone\n\nnot^inside\n`code ^x`\n```\nfenced ^no\n```\n";
    let page = parse(text);
    let got: Vec<(&str, u32)> = page
        .block_ids
        .iter()
        .map(|b| (b.id.as_str(), b.line))
        .collect();
    assert_eq!(got, [("para-1", 1), ("item2", 3), ("standalone", 5)]);
}

#[test]
fn byte_spans_survive_multibyte_text_and_crlf() {
    let text = "Über [[Ünïcode]] und [ä](ö%20ü.md)\r\n#täg\r\n";
    let page = parse(text);
    assert_eq!(written_targets(text), ["Ünïcode", "ö%20ü.md"]);
    assert_eq!(page.links[1].target, "ö ü.md");
    assert_eq!(page.tags[0].name, "täg");
    assert_eq!(page.tags[0].line, 2);
}

/// Inputs that make naive scanners quadratic (each opener searching to the line end).
/// Parsing them must simply finish; a regression shows up as a hanging test.
#[test]
fn adversarial_inputs_parse_in_one_pass() {
    let n = 100_000;
    let cases = [
        "[".repeat(n),
        "[[".repeat(n / 2),
        format!("{}]]", "[[".repeat(n / 2)),
        "![".repeat(n / 2),
        "[a](".repeat(n / 4),
        format!("{})", "[a](".repeat(n / 4)),
        "[a](b \"".repeat(n / 7),
        (1..2000).map(|k| "`".repeat(k % 40 + 1) + " ").collect(),
        "$a ".repeat(n / 3),
        "$$ ".repeat(n / 3),
        "<!--".repeat(n / 4),
        "> ".repeat(n / 2),
        "1. ".repeat(n / 3),
        format!("---\na: {}]]\n---\n", "[[".repeat(n / 2)),
        format!("---\na: {}\n---\n", "[".repeat(n)),
        format!("---\na: {}\n---\n", "\"'".repeat(n / 2)),
    ];
    for text in &cases {
        let page = parse(text);
        assert!(page.links.is_empty(), "{}", &text[..40.min(text.len())]);
    }
}

#[test]
fn deeply_nested_frontmatter_is_a_diagnostic() {
    let text = format!("---\na: {}\n---\n[[body]]", "[".repeat(10_000));
    let page = parse(&text);
    assert_eq!(page.frontmatter.unwrap().value, serde_json::Value::Null);
    assert_eq!(page.diagnostics.len(), 1);
    assert_eq!(page.links.len(), 1);
}

/// Brackets inside comments and quoted scalars are text, not nesting: such frontmatter is
/// read, while real flow nesting past the limit stays a diagnostic.
#[test]
fn brackets_in_comments_and_quotes_are_not_nesting() {
    let deep = "[".repeat(200);
    for text in [
        format!("---\n# {deep}\nnote: \"a\\nb\"\n---\n"),
        format!("---\nnote: \"a\\nb\" # {deep}\n---\n"),
        format!("---\nnote: \"a\\n{deep}\"\n---\n"),
        format!("---\nnote: '{deep}''\\n'\n---\n"),
        format!("---\nlist: [\"{deep}\", '{deep}']\n---\n"),
        // Found by the `frontmatter_edit` fuzz target: a plain value with brackets in it.
        format!("---\nt: tr{deep}\nnote: \"a\\nb\"\n---\n"),
        format!("---\nt: a{deep} b{deep}\nnote: \"a\\nb\"\n---\n"),
        format!("---\nt: tr{deep}- {deep}\nnote: \"a\\nb\"\n---\n"),
        // Found by `frontmatter_edit`'s long run: a plain value goes on over a line more
        // indented than its key, brackets and all.
        format!("---\nt: tr{deep}-\r\n {deep}\n---\n"),
        format!("---\nt: tr\n\n   {deep}\n  {deep}\nnote: \"a\\nb\"\n---\n"),
        format!("---\nk:\n  - j: tr\n     {deep}\n---\n"),
        // The plain value after an anchor written against it (`&a:b`).
        format!("---\nbase: &bwner:t{deep}\nnote: \"a\\nb\"\n---\n"),
        format!("---\nbase: &x tr{deep}\nnote: \"a\\nb\"\n---\n"),
        // A quote after ` - ` inside a flow list is text of a plain item.
        format!("---\naliases: [One - \"---]\nt: tr{deep}\n---\n"),
        // A plain value on the lines under its key.
        format!("---\naliases:\n  r{deep}-^\n {deep}\n---\n"),
        format!("---\naliases: # c\n  r{deep}\n {deep}\n---\n"),
        // The lines of a block scalar.
        format!("---\nsummary: |\n {deep}\n  {deep}\n\n {deep}\nnote: \"a\\nb\"\n---\n"),
        format!("---\nk:\n  - >- # c\n    {deep}\nnote: \"a\\nb\"\n---\n"),
        // A quote inside a plain word is text, also before a continuation line.
        format!("---\nt: tr[[\"{deep}-\n {deep}\n---\n"),
        // A plain value may start with `-`, `?` or `:` when no space follows.
        format!("---\nt: -0tr{deep}- {deep}\nnote: \"a\\nb\"\n---\n"),
        format!("---\nt: --{deep}!!str {deep}\nnote: \"a\\nb\"\n---\n"),
        format!("---\nt: ?x{deep}\nu: :y{deep}\nnote: \"a\\nb\"\n---\n"),
    ] {
        let page = parse(&text);
        assert!(
            page.diagnostics.is_empty(),
            "{text:?}: {:?}",
            page.diagnostics
        );
        assert!(page.frontmatter.unwrap().value.is_object(), "{text:?}");
    }
    // A quote or comment does not hide nesting on later lines.
    for text in [
        format!("---\na: |\n  \"\nb: {}\n---\n", "[".repeat(10_000)),
        format!("---\na: \"x #\nb: {}\n---\n", "[".repeat(10_000)),
        format!("---\na: &x {}\n---\n", "[".repeat(10_000)),
        format!("---\n- {}\n---\n", "[".repeat(10_000)),
        format!("---\nplain key: {}\n---\n", "[".repeat(10_000)),
        // Lines that do not go on with a plain value: not indented past its owner, after a
        // comment, after a key with no value.
        format!("---\nt: tr\n{}\n---\n", "[".repeat(10_000)),
        format!("---\nk:\n  - j: tr\n    {}\n---\n", "[".repeat(10_000)),
        format!("---\nt: tr # c\n  {}\n---\n", "[".repeat(10_000)),
        format!("---\nt:\n  {}\n---\n", "[".repeat(10_000)),
        format!("---\nt:\n  r\n{}\n---\n", "[".repeat(10_000)),
        format!("---\nt: |\n    r\n  {}\n---\n", "[".repeat(10_000)),
        format!("---\nt: |2\n  {}\n---\n", "[".repeat(10_000)),
        format!("---\nt: \"x\n  r\n {}\n---\n", "[".repeat(10_000)),
    ] {
        let page = parse(&text);
        assert_eq!(page.frontmatter.unwrap().value, serde_json::Value::Null);
        assert_eq!(page.diagnostics.len(), 1, "{:?}", page.diagnostics);
        assert!(
            page.diagnostics[0].message.contains("nests more than"),
            "{text:?}: {:?}",
            page.diagnostics
        );
    }
}

/// Found by the `syntax_parse` fuzz target: a file named `a:b.md` printed into a markdown
/// link as `a:b.md` reads as a URL with the scheme `a:`, so the rewritten link was lost.
#[test]
fn reprinted_markdown_targets_with_a_colon_stay_links() {
    for text in [
        "[t](a%3Ab.md)",
        "[t](<C%3Ax.md>)",
        "[r]: note%3Adraft.md\n",
        "[t](10:30.md)",
    ] {
        let link = only_link(text);
        let printed = quire_syntax::print_target(link.kind, link.angle, &link.target);
        let rewritten = quire_syntax::replace_spans(text, &[(link.target_span.clone(), printed)]);
        assert_eq!(
            only_link(&rewritten).target,
            link.target,
            "{text:?} → {rewritten:?}"
        );
    }
}

/// Found by the `frontmatter` fuzz target (a run killed at 23 GB): keys nested in keys
/// (`? ? ? … a`) were written as JSON text level by level, each escaping the one inside, so
/// their length doubled a level: 28 levels took seconds, 40 would take hours. A key longer
/// than 1024 characters as text makes the frontmatter a diagnostic at once.
#[test]
fn keys_nested_in_keys_are_refused_at_once() {
    let started = std::time::Instant::now();
    for depth in [20, 40, 200] {
        let text = format!("---\ntitle: x\n{}a\n---\nBody [[b]]\n", "? ".repeat(depth));
        let page = parse(&text);
        assert_eq!(page.links.len(), 1);
        if let Some(fm) = page.frontmatter {
            assert!(fm.value.is_null() || fm.value.is_object());
        }
    }
    assert!(
        started.elapsed() < std::time::Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    let text = "---\n? [a, b]\n: c\n? {k: v}\n: d\n---\n";
    assert_eq!(
        parse(text).frontmatter.unwrap().value,
        serde_json::json!({"[\"a\",\"b\"]": "c", "{\"k\":\"v\"}": "d"})
    );
}

/// Found by the `syntax_parse` fuzz target: a `)` in a link's fragment that the old target's
/// `(` balanced (`[t](a(b.md#c))`). The printer encodes the new target's parentheses, so the
/// `)` alone ended the destination, and the rewritten link lost its fragment or was no link.
/// The edit escapes the fragment's unbalanced parentheses, and the link reads the same.
#[test]
fn a_rewritten_target_keeps_the_fragment_its_parentheses_balanced() {
    for (text, new_target) in [
        ("[t](a(b.md#c)) after", "x.md"),
        ("[t](a(b.md#c)d) after", "n (1).md"),
        (
            "[ref]: no\\](../notes/big.md#first).\n",
            "no](../notes/big.md",
        ),
        ("[t](a(b.md#(c))) after", "x.md"),
        ("[t](a(b(c.md#d))) after", "y.md"),
    ] {
        let page = parse(text);
        let link = page
            .links
            .first()
            .unwrap_or_else(|| panic!("{text:?} has no link"));
        let edit = quire_syntax::target_edit(
            text,
            link,
            quire_syntax::print_target(link.kind, link.angle, new_target),
        );
        let printed = quire_syntax::replace_spans(text, &[edit]);
        let again = parse(&printed);
        assert_eq!(again.links.len(), 1, "{text:?} → {printed:?}");
        assert_eq!(again.links[0].target, new_target, "{printed:?}");
        assert_eq!(again.links[0].fragment, link.fragment, "{printed:?}");
        assert!(printed.ends_with(&text[link.span.end..]), "{printed:?}");
    }
}

/// Found by `syntax_parse`'s long run: printing `x<.png` as `x%3C.png` took away the `<` that
/// kept `<\") ![i](x<.png) [t](aa b.md>` from being one angle destination, so the rewrite made
/// a new link of the text around. The checked rewrite refuses it; a plain one passes.
#[test]
fn a_rewrite_that_would_turn_the_text_around_a_link_into_links_is_refused() {
    let text = "[t](<\") ![i](x<.png) [t](aa b.md>) [t](a.md \"title\")";
    let page = parse(text);
    assert_eq!(page.links.len(), 2, "{:?}", page.links);
    let edits: Vec<_> = page
        .links
        .iter()
        .map(|l| {
            let printed = quire_syntax::print_target(l.kind, l.angle, &l.target);
            quire_syntax::target_edit(text, l, printed)
        })
        .collect();
    let refused = quire_syntax::relink_checked(text, &edits).unwrap_err();
    assert!(refused.contains("would"), "{refused}");

    let text = "[t](a.md) and [[b]] and [u](<c d.md>)";
    let page = parse(text);
    let edits: Vec<_> = page
        .links
        .iter()
        .map(|l| quire_syntax::target_edit(text, l, format!("new-{}", l.target.replace(' ', "-"))))
        .collect();
    let out = quire_syntax::relink_checked(text, &edits).unwrap();
    assert_eq!(out, "[t](new-a.md) and [[new-b]] and [u](<new-c-d.md>)");
}
