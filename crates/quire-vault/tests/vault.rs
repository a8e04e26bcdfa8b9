//! The `Vault` snapshot: summaries, titles, dispatch by link kind, backlinks, updates.

use quire_syntax::{BlockId, Frontmatter, Heading, Link, LinkKind, LinkPlace, ParsedPage};
use quire_vault::{PagePath, Resolution, Step, Vault};
use serde_json::json;

fn path(text: &str) -> PagePath {
    PagePath::new(text).unwrap()
}

fn link(kind: LinkKind, place: LinkPlace, target: &str) -> Link {
    Link {
        kind,
        place,
        embed: false,
        span: 0..0,
        target_span: 0..0,
        target: target.to_owned(),
        fragment: None,
        alias: None,
        title: None,
        angle: false,
        line: 1,
    }
}

fn wiki(target: &str) -> Link {
    link(LinkKind::Wiki, LinkPlace::Body, target)
}

fn heading(level: u8, text: &str) -> Heading {
    Heading {
        level,
        text: text.to_owned(),
        slug: text.to_lowercase().replace(' ', "-"),
        line: 1,
        span: 0..0,
    }
}

fn parsed(
    title: Option<serde_json::Value>,
    headings: Vec<Heading>,
    links: Vec<Link>,
) -> ParsedPage {
    ParsedPage {
        frontmatter: title.map(|title| Frontmatter {
            span: 0..0,
            yaml_span: 0..0,
            value: json!({ "title": title }),
        }),
        headings,
        links,
        ..ParsedPage::default()
    }
}

#[test]
fn title_prefers_frontmatter_then_first_h1_then_stem() {
    let cases = [
        (
            "frontmatter wins",
            "a.md",
            Some(json!("From FM")),
            vec![heading(1, "H1")],
            "From FM",
        ),
        (
            "numeric frontmatter title",
            "a.md",
            Some(json!(2024)),
            vec![],
            "2024",
        ),
        (
            "blank frontmatter title falls back",
            "a.md",
            Some(json!("  ")),
            vec![heading(1, "H1")],
            "H1",
        ),
        (
            "non-text frontmatter title falls back",
            "a.md",
            Some(json!(["x"])),
            vec![],
            "a",
        ),
        (
            "first h1, not the first heading",
            "a.md",
            None,
            vec![heading(2, "Sub"), heading(1, "Main"), heading(1, "Later")],
            "Main",
        ),
        (
            "stem when nothing else",
            "x/my note.md",
            None,
            vec![heading(2, "Sub")],
            "my note",
        ),
    ];
    for (what, file, title, headings, expected) in cases {
        let mut vault = Vault::new();
        let file = path(file);
        vault.upsert_parsed(file.clone(), parsed(title, headings, vec![]));
        assert_eq!(vault.title(&file), Some(expected), "{what}");
    }
}

#[test]
fn title_of_a_file_without_summary_is_its_stem() {
    let vault: Vault = [
        path("img/photo.png"),
        path("notes/later.md"),
        path("b/x.canvas.json"),
    ]
    .into_iter()
    .collect();
    assert_eq!(vault.title(&path("img/photo.png")), Some("photo"));
    assert_eq!(vault.title(&path("notes/later.md")), Some("later"));
    assert_eq!(vault.title(&path("b/x.canvas.json")), Some("x"));
    assert_eq!(vault.title(&path("missing.md")), None);
}

#[test]
fn resolve_dispatches_by_link_kind() {
    let vault: Vault = [path("Projects.md"), path("x/b.md"), path("x/my-plan.md")]
        .into_iter()
        .collect();
    let from = path("x/a.md");
    let frontmatter = LinkPlace::Frontmatter { key: "up".into() };
    let cases = [
        (
            link(LinkKind::Wiki, frontmatter.clone(), "projects"),
            Some(("Projects.md", Step::CaseInsensitive)),
        ),
        (
            link(LinkKind::Wiki, LinkPlace::Body, "My Plan"),
            Some(("x/my-plan.md", Step::Separators)),
        ),
        (
            link(LinkKind::Markdown, LinkPlace::Body, "b"),
            Some(("x/b.md", Step::ImpliedMd)),
        ),
        (
            link(
                LinkKind::MarkdownReference,
                LinkPlace::Body,
                "../Projects.md",
            ),
            Some(("Projects.md", Step::Relative)),
        ),
        (
            link(LinkKind::Markdown, LinkPlace::Body, "projects.md"),
            None,
        ),
        (
            link(LinkKind::Canvas, LinkPlace::Canvas, "x/b.md"),
            Some(("x/b.md", Step::ExactPath)),
        ),
        (link(LinkKind::Canvas, LinkPlace::Canvas, "b.md"), None),
        (
            link(LinkKind::Wiki, LinkPlace::Body, ""),
            Some(("x/a.md", Step::SamePage)),
        ),
    ];
    for (link, expected) in cases {
        let got = vault.resolve(&from, &link);
        let got = got.path().map(|p| (p.as_str(), got.step().unwrap()));
        assert_eq!(got, expected, "{:?} {:?}", link.kind, link.target);
    }
}

#[test]
fn backlinks_collect_resolving_links_of_every_kind_in_path_order() {
    let mut vault = Vault::new();
    vault.insert_file(path("img.png"));
    vault.upsert_parsed(
        path("b.md"),
        parsed(None, vec![], vec![wiki("b"), wiki("")]),
    );
    vault.upsert_parsed(
        path("x/c.md"),
        parsed(
            None,
            vec![],
            vec![
                link(LinkKind::Markdown, LinkPlace::Body, "../b.md"),
                link(
                    LinkKind::Wiki,
                    LinkPlace::Frontmatter { key: "up".into() },
                    "B",
                ),
                link(LinkKind::Markdown, LinkPlace::Body, "b.md"),
            ],
        ),
    );
    vault.upsert_parsed(
        path("a.md"),
        parsed(
            None,
            vec![],
            vec![wiki("b"), wiki("missing"), wiki("img.png")],
        ),
    );
    vault.upsert_parsed(
        path("board.canvas.json"),
        parsed(
            None,
            vec![],
            vec![link(LinkKind::Canvas, LinkPlace::Canvas, "b.md")],
        ),
    );

    let found: Vec<(String, String)> = vault
        .backlinks(&path("b.md"))
        .into_iter()
        .map(|(source, link)| (source.to_string(), link.target))
        .collect();
    let expected = [
        ("a.md", "b"),
        ("b.md", "b"),
        ("board.canvas.json", "b.md"),
        ("x/c.md", "../b.md"),
        ("x/c.md", "B"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(s, t)| (s.to_string(), t.to_string()))
        .collect();
    assert_eq!(found, expected);
    assert_eq!(vault.backlinks(&path("img.png")).len(), 1);
}

#[test]
fn updates_change_answers_immediately() {
    let mut vault = Vault::new();
    let a = path("a.md");
    let b = path("b.md");
    vault.upsert_parsed(a.clone(), parsed(None, vec![], vec![wiki("b")]));
    assert_eq!(vault.resolve_wiki(&a, "b"), Resolution::Unresolved);

    assert!(vault.insert_file(b.clone()));
    assert!(!vault.insert_file(b.clone()), "second insert is not new");
    assert_eq!(vault.backlinks(&b).len(), 1);

    // A file of the same name in the linking page's folder captures the link.
    let sub = path("sub/b.md");
    vault.insert_file(sub.clone());
    let from_sub = path("sub/x.md");
    assert_eq!(vault.resolve_wiki(&from_sub, "b").path(), Some(&sub));
    assert!(vault.resolve_wiki(&a, "b").is_ambiguous());

    // Replacing a page's text replaces its links; insert_file keeps the summary.
    vault.upsert_parsed(a.clone(), parsed(Some(json!("A")), vec![], vec![]));
    assert!(!vault.insert_file(a.clone()));
    assert_eq!(vault.title(&a), Some("A"));
    assert!(vault.backlinks(&b).is_empty());

    assert!(vault.remove(&b));
    assert!(!vault.remove(&b));
    assert!(!vault.contains(&b));
    assert_eq!(vault.resolve_wiki(&a, "b").path(), Some(&sub));
    assert_eq!(vault.len(), 2);
    let files: Vec<&str> = vault.files().map(PagePath::as_str).collect();
    assert_eq!(files, ["a.md", "sub/b.md"]);
    assert_eq!(vault.pages().count(), 1);
}

#[test]
fn anchors_name_headings_by_text_or_slug_and_blocks_by_caret() {
    let mut page = parsed(None, vec![heading(2, "Next Steps")], vec![]);
    page.block_ids.push(BlockId {
        id: "abc".into(),
        line: 3,
    });
    let mut vault = Vault::new();
    let p = path("p.md");
    vault.upsert_parsed(p.clone(), page);
    let summary = vault.page(&p).unwrap();
    let cases = [
        ("Next Steps", true),
        ("next-steps", true),
        ("Other", false),
        ("^abc", true),
        ("^abd", false),
        ("abc", false),
    ];
    for (fragment, expected) in cases {
        assert_eq!(summary.has_anchor(fragment), expected, "{fragment}");
    }
}

#[test]
fn resolved_links_expose_broken_links_in_one_pass() {
    let mut vault = Vault::new();
    vault.upsert_parsed(
        path("a.md"),
        parsed(None, vec![], vec![wiki("b"), wiki("gone")]),
    );
    vault.upsert_parsed(
        path("b.md"),
        parsed(None, vec![], vec![wiki("nowhere"), wiki("a")]),
    );
    let broken: Vec<(&str, &str)> = vault
        .resolved_links()
        .filter(|(_, _, resolution)| !resolution.is_resolved())
        .map(|(source, link, _)| (source.as_str(), link.target.as_str()))
        .collect();
    assert_eq!(broken, [("a.md", "gone"), ("b.md", "nowhere")]);
}

#[test]
fn upsert_page_parses_text_into_title_links_and_anchors() {
    let mut vault = Vault::new();
    for file in ["Projects.md", "notes/Plan B.md", "img/pic.png"] {
        vault.insert_file(path(file));
    }
    let page = path("notes/today.md");
    let text = "---\nup: \"[[Projects]]\"\n---\n# Today's notes\n\n\
                See [[Plan B#Goals|the plan]] and [the image](../img/pic.png).\n\n\
                ## Open questions\n\nBack to [[#Open questions]]. `[[not a link]]`\n";
    vault.upsert_page(page.clone(), text);

    assert_eq!(vault.title(&page), Some("Today's notes"));
    let summary = vault.page(&page).unwrap();
    assert!(summary.has_anchor("Open questions"));
    assert!(summary.has_anchor("open-questions"));
    let resolved: Vec<(String, Option<String>)> = summary
        .links
        .iter()
        .map(|link| {
            let to = vault.resolve(&page, link).path().map(|p| p.to_string());
            (link.target.clone(), to)
        })
        .collect();
    let some = |s: &str| Some(s.to_owned());
    assert_eq!(
        resolved,
        [
            ("Projects".to_owned(), some("Projects.md")),
            ("Plan B".to_owned(), some("notes/Plan B.md")),
            ("../img/pic.png".to_owned(), some("img/pic.png")),
            (String::new(), some("notes/today.md")),
        ]
    );
    assert_eq!(vault.backlinks(&path("Projects.md")).len(), 1);
    assert_eq!(
        vault.backlinks(&page).len(),
        0,
        "same-page links are no backlinks"
    );
}

#[test]
fn upsert_canvas_keeps_file_references_as_links() {
    let mut vault = Vault::new();
    vault.insert_file(path("a/b.md"));
    let board = path("boards/plan.canvas.json");
    let text = r#"{"nodes":[{"id":"1","type":"file","file":"a/b.md"},
                  {"id":"2","type":"file","file":"missing.md"}],"edges":[]}"#;
    vault.upsert_canvas(board.clone(), text);
    assert_eq!(vault.title(&board), Some("plan"));
    let backlinks = vault.backlinks(&path("a/b.md"));
    assert_eq!(backlinks.len(), 1);
    assert_eq!(backlinks[0].0, board);
    let broken = vault
        .resolved_links()
        .filter(|(_, _, r)| !r.is_resolved())
        .count();
    assert_eq!(broken, 1);
}

/// Backlinks resolve only the links whose last segment can name the target; the answer must be
/// exactly what resolving every link of the vault gives.
#[test]
fn backlinks_equal_the_links_resolving_to_each_page_whatever_their_spelling() {
    let mut vault = Vault::new();
    let targets = [
        "My Note.md",
        "notes/my-note.md",
        "Ärger.md",
        "deep/a/b/Plan.md",
        "img.png",
    ];
    for t in targets {
        vault.insert_file(path(t));
    }
    let spellings = [
        "my note",
        "MY_NOTE",
        "My Note.md",
        "notes/my-note",
        "A\u{308}rger",
        "ärger",
        "b/plan",
        "deep/a/b/Plan.md",
        "Plan",
        "img.png",
        "nothing",
    ];
    vault.upsert_parsed(
        path("src/one.md"),
        parsed(None, vec![], spellings.iter().map(|s| wiki(s)).collect()),
    );
    vault.upsert_parsed(
        path("deep/a/two.md"),
        parsed(
            None,
            vec![],
            vec![
                link(LinkKind::Markdown, LinkPlace::Body, "b/Plan.md"),
                link(LinkKind::Markdown, LinkPlace::Body, "../../My Note.md"),
                link(LinkKind::Markdown, LinkPlace::Body, "/img.png"),
            ],
        ),
    );
    let mut total = 0;
    for t in targets {
        let target = path(t);
        let expected: Vec<(String, String)> = vault
            .resolved_links()
            .filter(|(_, _, r)| r.path() == Some(&target) && r.step() != Some(Step::SamePage))
            .map(|(s, l, _)| (s.to_string(), l.target.clone()))
            .collect();
        let got: Vec<(String, String)> = vault
            .backlinks(&target)
            .into_iter()
            .map(|(s, l)| (s.to_string(), l.target))
            .collect();
        assert_eq!(got, expected, "backlinks of {t}");
        total += got.len();
    }
    assert!(
        total >= 10,
        "the fixture links its targets ({total} backlinks)"
    );
}
