//! Behaviour of `FrontmatterEditor`: only the touched keys' lines change.

use quire_syntax::{parse, FrontmatterEditor};
use serde_json::{json, Value};

enum Op {
    Set(&'static str, Value),
    Unset(&'static str),
}

fn edit(text: &str, ops: Vec<Op>) -> String {
    let mut editor = FrontmatterEditor::new(text);
    for op in ops {
        match op {
            Op::Set(key, value) => editor.set(key, &value),
            Op::Unset(key) => editor.unset(key),
        }
    }
    editor.finish()
}

#[test]
fn editor_cases() {
    use Op::{Set, Unset};
    let cases: Vec<(&str, &str, Vec<Op>, &str)> = vec![
        (
            "set_existing_keeps_alignment_comment_and_other_lines",
            "---\n# leading comment\ntitle:    Old title   # why\nstatus: 'draft'\n\n# trailing\n---\nBody [[x]]\n",
            vec![Set("title", json!("New"))],
            "---\n# leading comment\ntitle:    New   # why\nstatus: 'draft'\n\n# trailing\n---\nBody [[x]]\n",
        ),
        (
            "set_new_key_appends_at_block_end",
            "---\nb: 1\na: 2\n---\nbody",
            vec![Set("c", json!(true)), Set("d", json!("x y"))],
            "---\nb: 1\na: 2\nc: true\nd: x y\n---\nbody",
        ),
        (
            "unset_removes_nested_and_list_lines",
            "---\nkeep: 1\nnested:\n  a: 1\n  # inner comment\n  b:\n    - x\nlist:\n- a\n- b\nafter: 2\n---\n",
            vec![Unset("nested"), Unset("list")],
            "---\nkeep: 1\nafter: 2\n---\n",
        ),
        (
            "block_list_stays_block_list_with_its_indent",
            "---\ntags:\n  - a\n  - b\nx: 1\n---\n",
            vec![Set("tags", json!(["a", "c d", "#e"]))],
            "---\ntags:\n  - a\n  - c d\n  - \"#e\"\nx: 1\n---\n",
        ),
        (
            "flow_list_stays_flow",
            "---\ntags: [a, b]\n---\n",
            vec![Set("tags", json!(["a", "b, c"]))],
            "---\ntags: [a, \"b, c\"]\n---\n",
        ),
        (
            "equal_value_leaves_quoting_untouched",
            "---\ntitle: 'Quoted'\nn:   7\n---\n",
            vec![Set("title", json!("Quoted")), Set("n", json!(7))],
            "---\ntitle: 'Quoted'\nn:   7\n---\n",
        ),
        (
            "crlf_line_endings_are_kept",
            "---\r\na: 1\r\nb: [x]\r\n---\r\nbody\r\n",
            vec![Set("a", json!(2)), Set("c", json!({"k": "v"}))],
            "---\r\na: 2\r\nb: [x]\r\nc:\r\n  k: v\r\n---\r\nbody\r\n",
        ),
        (
            "page_without_frontmatter_gets_a_block",
            "# Title\n\ntext\n",
            vec![Set("up", json!("[[Projects]]"))],
            "---\nup: \"[[Projects]]\"\n---\n# Title\n\ntext\n",
        ),
        (
            "page_without_frontmatter_and_crlf",
            "text\r\nmore\r\n",
            vec![Set("a", json!("b"))],
            "---\r\na: b\r\n---\r\ntext\r\nmore\r\n",
        ),
        (
            "unset_on_page_without_frontmatter_changes_nothing",
            "just text\n",
            vec![Unset("a")],
            "just text\n",
        ),
        (
            "scalar_replaced_by_mapping_and_back",
            "---\nm: 1 # c\nz: 0\n---\n",
            vec![Set("m", json!({"a": {"b": [1, 2]}, "c": null}))],
            "---\nm:\n  a:\n    b: [1, 2]\n  c: null\nz: 0\n---\n",
        ),
        (
            "quoted_key_is_found_and_kept",
            "---\n\"odd key\": 1\n---\n",
            vec![Set("odd key", json!(2)), Set("new: key", json!([]))],
            "---\n\"odd key\": 2\n\"new: key\": []\n---\n",
        ),
        (
            "empty_block_gets_keys",
            "---\n---\nbody",
            vec![Set("a", json!(1))],
            "---\na: 1\n---\nbody",
        ),
        (
            "dots_closing_fence_is_kept",
            "---\na: 1\n...\nbody",
            vec![Unset("a"), Set("b", json!("2024-01-05"))],
            "---\nb: 2024-01-05\n...\nbody",
        ),
    ];
    for (name, text, ops, want) in cases {
        assert_eq!(edit(text, ops), want, "{name}");
    }
}

#[test]
fn edited_frontmatter_parses_to_the_set_values() {
    let text = "---\n# c\ntitle: x\ntags:\n  - a\nobj: {a: 1}\n---\nbody\n";
    let values = [
        ("title", json!("needs: quotes #here")),
        ("tags", json!(["one", "two words", "3"])),
        ("obj", json!({"k": [true, null, 1.5], "s": "yes"})),
        ("fresh", json!({"deep": {"er": "v"}})),
        ("empty", json!("")),
        ("list", json!([])),
    ];
    let mut editor = FrontmatterEditor::new(text);
    for (key, value) in &values {
        editor.set(key, value);
    }
    let out = editor.finish();
    let page = parse(&out);
    assert!(page.diagnostics.is_empty(), "{out}\n{:?}", page.diagnostics);
    let fm = page.frontmatter.unwrap().value;
    for (key, value) in &values {
        assert_eq!(&fm[key], value, "{key} in\n{out}");
    }
    assert!(out.starts_with("---\n# c\n"));
    assert!(out.ends_with("---\nbody\n"));
}

/// Found by the `frontmatter_edit` fuzz target: a value holding a Unicode line or paragraph
/// separator was written plain, and YAML 1.1 reads those as line breaks, so the page's
/// frontmatter no longer parsed; a byte order mark inside a value was written raw, which
/// libyaml refuses.
#[test]
fn values_with_line_separators_or_a_byte_order_mark_read_back_unchanged() {
    for value in [
        "a\u{2028}b",
        "a\u{2029}b",
        "\u{feff}bom",
        "mid\u{feff}dle",
        "non\u{fffe}char\u{ffff}",
    ] {
        for text in ["---\ntitle: old\n---\nbody\n", "body\n"] {
            let mut editor = FrontmatterEditor::new(text);
            editor.set("title", &json!(value));
            let out = editor.finish();
            let page = parse(&out);
            assert!(
                page.diagnostics.is_empty(),
                "{out:?}: {:?}",
                page.diagnostics
            );
            assert_eq!(
                page.frontmatter.map(|fm| fm.value),
                Some(json!({"title": value})),
                "{out:?}"
            );
        }
    }
}

/// Found by the `frontmatter_edit` fuzz target: setting a key whose value carries an anchor
/// dropped the anchor, and the aliases naming it left the frontmatter unreadable.
#[test]
fn a_set_key_keeps_its_anchor_for_the_aliases_naming_it() {
    let text = "---\nbase: &base\n  owner: alice\nstatus: draft\nderived:\n  <<: *base\n  team: docs\n---\n# Page\n";
    for value in [
        json!({"owner": "bob"}),
        json!({}),
        json!("plain"),
        json!([1, 2]),
    ] {
        let mut editor = FrontmatterEditor::new(text);
        editor.set("base", &value);
        let out = editor.finish();
        let page = parse(&out);
        assert!(page.diagnostics.is_empty(), "{out}\n{:?}", page.diagnostics);
        let fm = page.frontmatter.unwrap().value;
        assert_eq!(fm["base"], value, "{out}");
        assert_eq!(
            fm["derived"]["<<"], value,
            "the alias follows its anchor:\n{out}"
        );
        assert_eq!(fm["status"], "draft");
        assert!(out.contains("status: draft\nderived:\n  <<: *base\n  team: docs\n---\n# Page\n"));
    }
}

/// Found by the `frontmatter_edit` fuzz target: a flow mapping (`{title: x}`) has no line per
/// key, so a changed key was appended after it and the frontmatter no longer parsed. Such a
/// block is written again one key a line when an edit changes it, and left as it is otherwise.
#[test]
fn flow_mapping_frontmatter_is_written_again_when_an_edit_changes_it() {
    let text = "---\n{title: Flow style, status: draft}\n---\nBody\n";
    let mut editor = FrontmatterEditor::new(text);
    editor.set("status", &json!("done"));
    editor.set("tags", &json!(["a", "b c"]));
    editor.unset("title");
    let out = editor.finish();
    let page = parse(&out);
    assert!(page.diagnostics.is_empty(), "{out}\n{:?}", page.diagnostics);
    assert_eq!(
        page.frontmatter.unwrap().value,
        json!({"status": "done", "tags": ["a", "b c"]}),
        "{out}"
    );
    assert!(
        out.starts_with("---\n") && out.ends_with("\n---\nBody\n"),
        "{out}"
    );
    assert!(out.contains("status: done\n"), "one key a line: {out}");

    let mut unchanged = FrontmatterEditor::new(text);
    unchanged.set("status", &json!("draft"));
    unchanged.unset("missing");
    assert_eq!(unchanged.finish(), text);
}

/// Found by the `frontmatter_edit` fuzz target: a comment of 200 `[` counted as 200 levels of
/// nesting, so once an edit took the frontmatter off the fast path (a value with a line
/// break) the page's frontmatter read as null. Brackets in comments and quoted scalars do
/// not nest.
#[test]
fn brackets_in_a_comment_do_not_make_an_edited_frontmatter_unreadable() {
    let text = format!("---\n# {}\n---\nBody\n", "[".repeat(200));
    let mut editor = FrontmatterEditor::new(&text);
    editor.set("note", &json!("line\nbreak"));
    editor.set("title", &json!("No"));
    let out = editor.finish();
    let page = parse(&out);
    assert!(page.diagnostics.is_empty(), "{out}\n{:?}", page.diagnostics);
    assert_eq!(
        page.frontmatter.unwrap().value,
        json!({"note": "line\nbreak", "title": "No"}),
        "{out}"
    );
}

/// Found by the `frontmatter_edit` fuzz target: a quoted value that goes on over lines which
/// look like keys (`status: 'draft` then `date: 2024-01ft'`) was edited as one line, leaving
/// its other lines behind as a second `date`, and the frontmatter no longer parsed. When the
/// lines that look like keys are not the mapping's keys, the block is written again.
#[test]
fn a_quoted_value_over_lines_that_look_like_keys_is_replaced_whole() {
    for text in [
        "---\nstatus: 'dra12\ndate: 2024-01ft'\nnumber: 0012\ndate: 2024-01-02\n---\nBody\n",
        "---\nstatus: \"a\nother: b\"\ntitle: T\n---\nBody\n",
    ] {
        let before = parse(text).frontmatter.unwrap().value;
        let mut editor = FrontmatterEditor::new(text);
        editor.set("status", &json!("0x1F"));
        let out = editor.finish();
        let page = parse(&out);
        assert!(page.diagnostics.is_empty(), "{out}\n{:?}", page.diagnostics);
        let mut want = before.clone();
        want["status"] = json!("0x1F");
        assert_eq!(page.frontmatter.unwrap().value, want, "{out}");
        assert!(out.ends_with("\n---\nBody\n"), "{out}");
    }
}

/// Found by the `frontmatter_edit` fuzz target: the spacing kept after a key's colon took a
/// no-break space that began the old value (`a:\t\u{a0}b`), so the new value read as a string
/// starting with it. Only spaces and tabs separate a value from its colon in YAML.
#[test]
fn a_new_value_replaces_an_old_one_that_starts_with_a_no_break_space() {
    let text = "---\na:\t\u{a0}b\n---\n";
    let mut editor = FrontmatterEditor::new(text);
    editor.set("a", &json!(7));
    let out = editor.finish();
    assert_eq!(out, "---\na:\t7\n---\n");
    assert_eq!(parse(&out).frontmatter.unwrap().value, json!({"a": 7}));
}

/// Found by the `frontmatter_edit` fuzz target: a new key of 2,000 characters was written as an
/// implicit key, which YAML limits to 1024, and the frontmatter no longer parsed. Such a key is
/// written as an explicit key (`? key` / `: value`).
#[test]
fn a_key_longer_than_yaml_allows_inline_is_written_as_an_explicit_key() {
    let long = "k".repeat(2000);
    let text = "---\ntitle: T\n---\nBody\n";
    let mut editor = FrontmatterEditor::new(text);
    editor.set(&long, &json!("v"));
    editor.set("nested", &json!({ long.clone(): [1, 2] }));
    let out = editor.finish();
    let page = parse(&out);
    assert!(page.diagnostics.is_empty(), "{:?}", page.diagnostics);
    assert_eq!(
        page.frontmatter.unwrap().value,
        json!({"title": "T", long.clone(): "v", "nested": { long: [1, 2] }})
    );
}

/// Found by the `frontmatter_edit` fuzz target: an integer beyond 64 bits (`k: [1234567890…901,
/// null]`) made the YAML reader fail, and with it the page's whole frontmatter. It reads as the
/// number its digits make (the nearest double here), and the other keys stay.
#[test]
fn integers_beyond_64_bits_read_back_as_numbers_and_keep_the_other_keys() {
    let text = "---\ntitle: T\nisbn: 123456789012345678901\n---\nBody\n";
    let page = parse(text);
    assert!(page.diagnostics.is_empty(), "{:?}", page.diagnostics);
    let value = page.frontmatter.unwrap().value;
    assert_eq!(value["title"], json!("T"));
    assert_eq!(value["isbn"].as_f64(), Some(123456789012345678901.0));

    let mut editor = FrontmatterEditor::new(text);
    let big: Value = serde_json::from_str("[-123456789012345678901, null]").unwrap();
    editor.set("k", &big);
    let out = editor.finish();
    let page = parse(&out);
    assert!(page.diagnostics.is_empty(), "{:?}", page.diagnostics);
    let value = page.frontmatter.unwrap().value;
    assert_eq!(value["k"], big, "{out}");
    assert_eq!(value["title"], json!("T"));
}

/// JSON's `-0` is written as `-0`, which YAML reads as the integer 0: the same number.
#[test]
fn negative_zero_reads_back_as_zero() {
    let mut editor = FrontmatterEditor::new("Body\n");
    editor.set("n", &serde_json::from_str::<Value>("-0").unwrap());
    let out = editor.finish();
    let value = parse(&out).frontmatter.unwrap().value;
    assert_eq!(value["n"].as_f64(), Some(0.0), "{out}");
}

/// Found by the `frontmatter_edit` fuzz target: `base: &a:b` is the anchor `a` before the
/// text `:b` to the YAML reader (an anchor's name is letters, digits, `-` and `_`); the
/// editor kept `&a:b` whole as the anchor, so the new value read as `:b plain`.
#[test]
fn an_anchor_is_kept_as_far_as_the_yaml_reader_reads_its_name() {
    let text = "---\nbase: &bwner:t'\nother: 1\n---\nBody\n";
    let mut editor = FrontmatterEditor::new(text);
    editor.set("base", &json!("plain"));
    let out = editor.finish();
    assert_eq!(out, "---\nbase: &bwner plain\nother: 1\n---\nBody\n");
    assert_eq!(
        parse(&out).frontmatter.unwrap().value,
        json!({"base": "plain", "other": 1})
    );
}

/// Found by the `frontmatter_edit` fuzz target: the YAML reader's 1024 for an implicit key are
/// bytes, not characters: a key of 400 three-byte characters was written inline and the
/// frontmatter no longer parsed.
#[test]
fn a_key_of_many_multibyte_characters_is_written_as_an_explicit_key_past_1024_bytes() {
    let long = "\u{fffd}".repeat(400);
    let mut editor = FrontmatterEditor::new("Body\n");
    editor.set(&long, &json!("done"));
    let out = editor.finish();
    let page = parse(&out);
    assert!(page.diagnostics.is_empty(), "{:?}", page.diagnostics);
    assert_eq!(page.frontmatter.unwrap().value, json!({ long: "done" }));
}

/// Found by the `frontmatter_edit` fuzz target: the YAML reader also breaks lines at a lone
/// `\r`, U+0085, U+2028 and U+2029, which the editor's lines did not, so a key hidden after
/// one (`number: 00\u{85}date: …`), or a document end `...` after a lone `\r`, was edited as
/// part of another line. Such frontmatter is written again whole when an edit changes it.
#[test]
fn keys_after_line_breaks_only_the_yaml_reader_sees_are_kept() {
    for text in [
        "---\ntitle: T\nnumber: 00\u{85}date: 2024-01-02\n---\n",
        "---\ntitle: T\nnumber: 00\u{2028}date: 2024-01-02\n---\n",
        "---\r\ntitle: T\r\nother: 'q'\r...\r\n\r\n---\r\nBody\r\n",
        "---\n\"title\": \"T\"\nstatus: 'dra12\ndate: 2024-01ft'\nnumber: 001\u{85}date: 2024-01-02\n---\n",
    ] {
        let before = parse(text).frontmatter.unwrap().value;
        let mut editor = FrontmatterEditor::new(text);
        editor.set("new-key", &json!("a #b"));
        editor.unset("status");
        let out = editor.finish();
        let page = parse(&out);
        assert!(page.diagnostics.is_empty(), "{out:?}: {:?}", page.diagnostics);
        let mut want = before.as_object().unwrap().clone();
        want.insert("new-key".into(), json!("a #b"));
        want.remove("status");
        assert_eq!(page.frontmatter.unwrap().value, Value::Object(want), "{out:?}");
    }
}

/// Found by `frontmatter_edit`'s long run: a key `... status` written plain at the start of a
/// line reads as the end of the document. Text starting with `...` is quoted.
#[test]
fn text_starting_with_three_dots_is_quoted() {
    let text = "---\n{title: Flow style, ...\nstatus draft}\n---\n";
    let before = parse(text).frontmatter.unwrap().value;
    assert_eq!(
        before,
        json!({"title": "Flow style", "... status draft": null})
    );
    let mut editor = FrontmatterEditor::new(text);
    editor.set("a:b", &Value::Null);
    editor.set("note", &json!("... more"));
    let out = editor.finish();
    assert_eq!(
        parse(&out).frontmatter.unwrap().value,
        json!({"title": "Flow style", "... status draft": null, "a:b": null, "note": "... more"}),
        "{out}"
    );
}

/// Found by `frontmatter_edit`'s long run: a list item `One - "Two:?x"` written plain inside a
/// flow list (`[One - "Two:?x"]`) does not read: in a flow collection the YAML reader refuses
/// a `:` inside a plain scalar. Such an item is quoted.
#[test]
fn a_list_item_with_a_colon_is_quoted_inside_a_flow_list() {
    let mut editor = FrontmatterEditor::new("Body\n");
    editor.set("aliases", &json!(["One - \"Two:?x\"", "a:b", "plain"]));
    let out = editor.finish();
    let page = parse(&out);
    assert!(page.diagnostics.is_empty(), "{out}: {:?}", page.diagnostics);
    assert_eq!(
        page.frontmatter.unwrap().value,
        json!({"aliases": ["One - \"Two:?x\"", "a:b", "plain"]}),
        "{out}"
    );
}
