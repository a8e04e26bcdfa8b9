//! Search semantics on one fixture, for both tiers.

use proptest::prelude::*;
use serde_json::json;

use super::*;
use crate::{HeadingRecord, PageRecord};

struct Fixture {
    _dir: tempfile::TempDir,
    index: Index,
    pages: Vec<PageRecord>,
}

fn page(
    path: &str,
    title: &str,
    body: &str,
    tags: &[&str],
    frontmatter: serde_json::Value,
) -> PageRecord {
    let headings = body
        .lines()
        .filter_map(|l| l.strip_prefix("## "))
        .map(|text| HeadingRecord {
            level: 2,
            text: text.to_string(),
            slug: text.to_lowercase().replace(' ', "-"),
            line: 1,
        })
        .collect();
    PageRecord {
        path: path.to_string(),
        title: title.to_string(),
        body: body.to_string(),
        headings,
        tags: tags.iter().map(|t| t.to_string()).collect(),
        frontmatter,
        size: body.len() as u64,
        word_count: body.split_whitespace().count() as u32,
        ..PageRecord::default()
    }
}

fn fixture() -> Fixture {
    let pages = vec![
        page(
            "guides/coffee.md",
            "Coffee brewing",
            "## Pour over\nA café guide: grind beans, brew with hot water. The old plan was tea.",
            &["drinks", "project/alpha"],
            json!({"source-of-truth": true}),
        ),
        page(
            "notes/tea.md",
            "Tea notes",
            "Green tea and black tea. Some people prefer coffee in the morning.",
            &["drinks"],
            json!({}),
        ),
        page(
            "notes/plans.md",
            "Planning",
            "The old plan: plant trees. Planning ahead matters.",
            &["Project/Beta"],
            json!({"status": "verified"}),
        ),
        page(
            "journal/tokyo.md",
            "Trip",
            "東京都に住んでいます。 We visited Tokyo.",
            &[],
            json!({}),
        ),
        page(
            "notes/markup.md",
            "Markup",
            "Use <b>bold</b> & coffee",
            &[],
            json!({"status": "draft"}),
        ),
        page(
            "notes/sprint-review.md",
            "Velocity",
            "Velocity went up.",
            &["sprint", "zz98765"],
            json!({
                "tags": ["sprint", "zz98765"],
                "aliases": ["Retro"],
                "derived-from": "run:test-abc12345",
            }),
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let index = Index::open(dir.path()).unwrap();
    index.replace_pages(&pages).unwrap();
    Fixture {
        _dir: dir,
        index,
        pages,
    }
}

impl Fixture {
    fn run(&self, request: &SearchRequest) -> SearchResults {
        self.index
            .search(request)
            .unwrap_or_else(|e| panic!("{request:?}: {e}"))
    }

    fn paths(&self, query: &str) -> Vec<String> {
        self.paths_of(&SearchRequest::new(query))
    }

    fn paths_of(&self, request: &SearchRequest) -> Vec<String> {
        self.run(request).hits.into_iter().map(|h| h.path).collect()
    }

    fn grep(&self, request: &SearchRequest) -> SearchResults {
        let query = Query::parse(&request.query).unwrap();
        let pages = self.pages.iter().map(|p| {
            let text = file_text(p);
            grep::GrepPage {
                path: p.path.clone(),
                title: p.title.clone(),
                body_start: text.len() - p.body.len(),
                text,
                tags: p.tags.clone(),
            }
        });
        grep::search(&query, pages, request)
    }
}

/// The file a record stands for, as the grep tier reads it: its frontmatter, then its body.
fn file_text(page: &PageRecord) -> String {
    let serde_json::Value::Object(map) = &page.frontmatter else {
        return page.body.clone();
    };
    if map.is_empty() {
        return page.body.clone();
    }
    let scalar = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let mut text = String::from("---\n");
    for (key, value) in map {
        let value = match value {
            serde_json::Value::Array(items) => {
                let items: Vec<String> = items.iter().map(scalar).collect();
                format!("[{}]", items.join(", "))
            }
            other => scalar(other),
        };
        text.push_str(&format!("{key}: {value}\n"));
    }
    text.push_str("---\n");
    text.push_str(&page.body);
    text
}

fn sorted(mut paths: Vec<String>) -> Vec<String> {
    paths.sort();
    paths
}

/// Query → the set of pages it finds (sorted), shared by both tiers.
const SEMANTICS: &[(&str, &[&str])] = &[
    (
        "coffee",
        &["guides/coffee.md", "notes/markup.md", "notes/tea.md"],
    ),
    ("coffee tea", &["guides/coffee.md", "notes/tea.md"]),
    ("coffee AND tea", &["guides/coffee.md", "notes/tea.md"]),
    (
        "coffee OR plant",
        &[
            "guides/coffee.md",
            "notes/markup.md",
            "notes/plans.md",
            "notes/tea.md",
        ],
    ),
    ("coffee -tea", &["notes/markup.md"]),
    ("coffee NOT tea", &["notes/markup.md"]),
    ("coffee NOT (tea OR bold)", &[]),
    ("\"old plan\"", &["guides/coffee.md", "notes/plans.md"]),
    ("\"plan old\"", &[]),
    ("plan", &["guides/coffee.md", "notes/plans.md"]),
    ("plan*", &["guides/coffee.md", "notes/plans.md"]),
    ("pla* trees", &["notes/plans.md"]),
    ("\"old pl\"*", &["guides/coffee.md", "notes/plans.md"]),
    (
        "(tea OR trees) coffee",
        &["guides/coffee.md", "notes/tea.md"],
    ),
    ("tea OR trees coffee", &["guides/coffee.md", "notes/tea.md"]),
    ("cafe", &["guides/coffee.md"]),
    ("CAFÉ", &["guides/coffee.md"]),
    ("pour", &["guides/coffee.md"]),
    ("東京", &["journal/tokyo.md"]),
    ("京都", &["journal/tokyo.md"]),
    ("住んで tokyo", &["journal/tokyo.md"]),
    ("大阪", &[]),
    ("and", &["notes/tea.md"]),
    ("b", &["notes/markup.md"]),
    // Tags, aliases and property values.
    ("zz98765", &["notes/sprint-review.md"]),
    ("abc12345", &["notes/sprint-review.md"]),
    ("\"test abc12345\"", &["notes/sprint-review.md"]),
    ("retro", &["notes/sprint-review.md"]),
    ("sprint velocity", &["notes/sprint-review.md"]),
    // Folder and file names.
    ("guides", &["guides/coffee.md"]),
    ("journal", &["journal/tokyo.md"]),
    ("review", &["notes/sprint-review.md"]),
    (
        "notes",
        &[
            "notes/markup.md",
            "notes/plans.md",
            "notes/sprint-review.md",
            "notes/tea.md",
        ],
    ),
    // tag:
    ("tag:sprint", &["notes/sprint-review.md"]),
    ("tag:#Sprint", &["notes/sprint-review.md"]),
    ("tag:project", &["guides/coffee.md", "notes/plans.md"]),
    ("tag:project/beta", &["notes/plans.md"]),
    ("tag:proj", &[]),
    ("tag:proj*", &["guides/coffee.md", "notes/plans.md"]),
    ("tag:alpha", &[]),
    ("tag:drinks -tag:project", &["notes/tea.md"]),
    ("tag:drinks coffee", &["guides/coffee.md", "notes/tea.md"]),
    (
        "tag:drinks OR tag:sprint",
        &["guides/coffee.md", "notes/sprint-review.md", "notes/tea.md"],
    ),
    // path: and file:
    (
        "path:notes",
        &[
            "notes/markup.md",
            "notes/plans.md",
            "notes/sprint-review.md",
            "notes/tea.md",
        ],
    ),
    ("path:notes/tea", &["notes/tea.md"]),
    ("path:notes/tea.md", &["notes/tea.md"]),
    ("path:\"notes tea\"", &["notes/tea.md"]),
    ("path:guides/coffee", &["guides/coffee.md"]),
    ("path:note", &[]),
    ("path:jour*", &["journal/tokyo.md"]),
    ("file:tea", &["notes/tea.md"]),
    ("FILE:Sprint", &["notes/sprint-review.md"]),
    ("file:notes", &[]),
    ("path:notes coffee", &["notes/markup.md", "notes/tea.md"]),
    ("coffee -path:notes", &["guides/coffee.md"]),
    (
        "coffee OR path:journal",
        &[
            "guides/coffee.md",
            "journal/tokyo.md",
            "notes/markup.md",
            "notes/tea.md",
        ],
    ),
    ("(tag:drinks OR file:markup) -tea", &["notes/markup.md"]),
];

#[test]
fn fts_finds_what_the_query_means() {
    let f = fixture();
    for &(query, expected) in SEMANTICS {
        assert_eq!(sorted(f.paths(query)), expected, "{query:?}");
    }
}

#[test]
fn grep_finds_the_same_pages_as_fts() {
    let f = fixture();
    for &(query, expected) in SEMANTICS {
        let mut request = SearchRequest::new(query);
        request.limit = 100;
        let grep: Vec<String> = f.grep(&request).hits.into_iter().map(|h| h.path).collect();
        assert_eq!(sorted(grep), expected, "{query:?}");
    }
}

#[test]
fn a_title_match_outranks_a_body_match() {
    let f = fixture();
    assert_eq!(f.paths("coffee")[0], "guides/coffee.md");
    assert_eq!(f.paths("tea"), ["notes/tea.md", "guides/coffee.md"]);
    let scores: Vec<f64> = f
        .run(&SearchRequest::new("tea"))
        .hits
        .iter()
        .map(|h| h.score)
        .collect();
    assert!(scores[0] > scores[1] && scores[1] > 0.0, "{scores:?}");
}

#[test]
fn trust_boost_puts_verified_and_source_of_truth_pages_first() {
    let f = fixture();
    let mut request = SearchRequest::new("tea OR plan OR coffee");
    let plain = f.paths_of(&request);
    request.trust_boost = true;
    let boosted = f.paths_of(&request);
    assert_eq!(sorted(plain.clone()), sorted(boosted.clone()));
    assert_eq!(
        sorted(boosted[..2].to_vec()),
        ["guides/coffee.md", "notes/plans.md"],
        "trusted first: {boosted:?}"
    );
    let mut tea = SearchRequest::new("tea");
    tea.trust_boost = true;
    assert_eq!(f.paths_of(&tea), ["guides/coffee.md", "notes/tea.md"]);
}

#[test]
fn snippets_mark_matches_in_escaped_body_text() {
    let f = fixture();
    let hit = |q: &str| f.run(&SearchRequest::new(q)).hits.remove(0).snippet;
    assert!(hit("cafe").contains("<mark>café</mark>"), "{}", hit("cafe"));
    assert_eq!(
        hit("bold"),
        "Use &lt;b&gt;<mark>bold</mark>&lt;/b&gt; &amp; coffee"
    );
    assert!(
        hit("東京").starts_with("<mark>東京</mark>都に"),
        "{}",
        hit("東京")
    );
    // A title-only match shows the start of the body.
    assert!(
        hit("planning").contains("The old plan"),
        "{}",
        hit("planning")
    );
    // Long bodies are cut with ellipses.
    let long = format!("{} needle {}", "word ".repeat(100), "tail ".repeat(100));
    f.index
        .replace_pages(&[page("long.md", "Long", &long, &[], json!({}))])
        .unwrap();
    let s = hit("needle");
    assert!(
        s.starts_with('…') && s.ends_with('…') && s.contains("<mark>needle</mark>"),
        "{s}"
    );
}

#[test]
fn grep_snippets_look_like_fts_snippets() {
    let f = fixture();
    let snippet = |q: &str| f.grep(&SearchRequest::new(q)).hits.remove(0).snippet;
    assert_eq!(
        snippet("bold"),
        "Use &lt;b&gt;<mark>bold</mark>&lt;/b&gt; &amp; coffee"
    );
    assert!(
        snippet("東京").starts_with("<mark>東京</mark>都に"),
        "{}",
        snippet("東京")
    );
    assert!(snippet("cafe").contains("<mark>café</mark>"));
}

#[test]
fn grep_orders_by_match_count_then_path() {
    let f = fixture();
    let hits = f.grep(&SearchRequest::new("tea OR coffee")).hits;
    let got: Vec<(&str, f64)> = hits.iter().map(|h| (h.path.as_str(), h.score)).collect();
    // Path words count too: `notes/tea` and `guides/coffee`.
    assert_eq!(
        got,
        [
            ("notes/tea.md", 5.0),
            ("guides/coffee.md", 3.0),
            ("notes/markup.md", 1.0)
        ]
    );
}

#[test]
fn filters_narrow_by_folder_and_nested_tag() {
    let f = fixture();
    let mut request = SearchRequest::new("coffee");
    request.path_prefix = Some("notes".into());
    assert_eq!(
        sorted(f.paths_of(&request)),
        ["notes/markup.md", "notes/tea.md"]
    );
    request.path_prefix = Some("notes/".into());
    assert_eq!(f.paths_of(&request).len(), 2);
    request.path_prefix = Some("note".into());
    assert!(
        f.paths_of(&request).is_empty(),
        "a folder, not a string prefix"
    );
    assert_eq!(f.grep(&request).total, 0);

    let mut request = SearchRequest::new("plan*");
    request.tag = Some("project".into());
    assert_eq!(
        sorted(f.paths_of(&request)),
        ["guides/coffee.md", "notes/plans.md"]
    );
    request.tag = Some("#project/beta".into());
    assert_eq!(f.paths_of(&request), ["notes/plans.md"]);
    request.tag = Some("proj".into());
    assert!(f.paths_of(&request).is_empty());
}

#[test]
fn limit_and_offset_page_through_a_total() {
    let f = fixture();
    let all = f.paths("coffee");
    let mut request = SearchRequest::new("coffee");
    request.limit = 1;
    request.offset = 1;
    let page = f.run(&request);
    assert_eq!(page.total, 3);
    assert_eq!(page.hits.len(), 1);
    assert_eq!(page.hits[0].path, all[1]);
    request.offset = 5;
    assert_eq!(
        f.run(&request),
        SearchResults {
            total: 3,
            hits: vec![]
        }
    );
    let grep = f.grep(&SearchRequest {
        offset: 1,
        limit: 1,
        ..SearchRequest::new("coffee")
    });
    assert_eq!((grep.total, grep.hits.len()), (3, 1));
}

#[test]
fn syntax_errors_come_back_with_their_position() {
    let f = fixture();
    match f.index.search(&SearchRequest::new("tea AND")) {
        Err(SearchError::Syntax(e)) => assert_eq!(e.position, 4),
        other => panic!("{other:?}"),
    }
}

#[test]
fn searching_works_on_a_read_only_index() {
    let dir = tempfile::tempdir().unwrap();
    {
        let index = Index::open(dir.path()).unwrap();
        index.replace_pages(&fixture().pages).unwrap();
    }
    let index = Index::open_read_only(dir.path())
        .unwrap()
        .expect("an index");
    let results = index.search(&SearchRequest::new("東京")).unwrap();
    assert_eq!(results.total, 1);
    assert_eq!(index.page_count().unwrap(), 6);
}

/// The index's own tables, in memory, with one page.
fn fts_table() -> rusqlite::Connection {
    let c = rusqlite::Connection::open_in_memory().unwrap();
    c.execute_batch(crate::pages::CONTENT_SCHEMA).unwrap();
    c.execute(
        "INSERT INTO fts VALUES ('a', 'Café', 'x', 'east 東\u{200B}京 NEAR and OR not', 'b',
                                 'c', 'a', 'a', ?1)",
        [crate::search::text::tag_token("a/b")],
    )
    .unwrap();
    c
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn a_parsed_query_never_makes_fts5_fail(
        input in prop_oneof![
            any::<String>(),
            "[a-cA-C \"()*:^+\\-\\\\'{}\\[\\]]{0,24}",
            proptest::collection::vec(
                prop_oneof![
                    Just("AND"), Just("OR"), Just("NOT"), Just("NEAR"), Just("-"), Just("("),
                    Just(")"), Just("\""), Just("*"), Just("a"), Just("é"), Just("東京"),
                    Just("x:y"), Just("^"), Just("\u{0}"), Just("\u{301}"), Just("\u{200B}"),
                    Just(" "), Just("-b"), Just("tag:"), Just("path:"), Just("file:"),
                    Just("TAG:a/"), Just("#"), Just("/"), Just(".md"),
                ],
                0..12,
            ).prop_map(|parts| parts.concat()),
        ]
    ) {
        let c = fts_table();
        if let Ok(query) = Query::parse(&input) {
            let matching = query.to_fts5();
            let result: rusqlite::Result<i64> = c.query_row(
                "SELECT count(*) FROM fts WHERE fts MATCH ?1",
                [&matching],
                |row| row.get(0),
            );
            prop_assert!(result.is_ok(), "{input:?} -> {matching:?}: {result:?}");
        }
    }
}

#[test]
fn a_search_answers_while_a_write_transaction_is_open() {
    let f = fixture();
    let writer = f.index.connection();
    writer
        .execute_batch("BEGIN IMMEDIATE; DELETE FROM fts WHERE rowid < 0;")
        .unwrap();
    let started = std::time::Instant::now();
    let found = std::thread::scope(|scope| scope.spawn(|| f.paths("coffee")).join().unwrap());
    assert!(found.contains(&"guides/coffee.md".to_string()), "{found:?}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(1),
        "the search waited for the writer: {:?}",
        started.elapsed()
    );
    writer.execute_batch("ROLLBACK").unwrap();
}

#[test]
fn searches_beside_a_writer_replacing_the_pages_they_find_always_answer() {
    let f = fixture();
    // Two texts of the same pages: each replacement gives every page a new row id.
    let version = |body: &str| -> Vec<PageRecord> {
        (0..300)
            .map(|i| {
                page(
                    &format!("brews/{i}.md"),
                    &format!("Brew {i}"),
                    body,
                    &[],
                    json!({}),
                )
            })
            .collect()
    };
    let (one, two) = (
        version("coffee and more coffee"),
        version("coffee, then coffee again"),
    );
    f.index.replace_pages(&one).unwrap();
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                f.index.replace_pages(&two).unwrap();
                f.index.replace_pages(&one).unwrap();
            }
        });
        let answers: Vec<Result<SearchResults, String>> = (0..400)
            .map(|_| {
                f.index
                    .search(&SearchRequest::new("coffee"))
                    .map_err(|e| e.to_string())
            })
            .collect();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for answer in answers {
            let found = answer.expect("every search answers");
            assert!(found.hits.len() >= 10, "{:?}", found.hits);
        }
    });
}
