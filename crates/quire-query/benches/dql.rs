//! Times a typical DQL query over generated catalogs of 10,000 and 100,000 pages and prints
//! p50/p90 over 50 runs: `cargo bench -p quire-query --bench dql`.

use std::time::{Duration, Instant};

use chrono::DateTime;
use quire_query::dql::{execute, parse_query, Catalog, ExecLimits, PageData};
use quire_query::EvalContext;
use serde_json::json;

const QUERY: &str = r#"TABLE title, priority FROM "notes" WHERE status = "open" AND priority > 2 SORT priority DESC, file.mtime DESC LIMIT 50"#;
const RUNS: usize = 50;

struct Pages(Vec<PageData>);

impl Catalog for Pages {
    fn pages(&self) -> &[PageData] {
        &self.0
    }
    fn resolve_link(&self, _text: &str) -> Option<String> {
        None
    }
}

/// xorshift64: deterministic data without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn generate(count: usize) -> Pages {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let base = DateTime::parse_from_rfc3339("2024-01-01T00:00:00Z").unwrap();
    const STATUS: [&str; 4] = ["open", "done", "waiting", "open"];
    const FOLDERS: [&str; 4] = ["notes", "notes/sub", "journal", "archive"];
    const TAGS: [&str; 5] = ["project", "project/web", "draft", "idea", "meeting"];
    let pages = (0..count)
        .map(|i| {
            let folder = FOLDERS[rng.below(4) as usize];
            let due = base + chrono::Duration::days(rng.below(365) as i64);
            let tags: Vec<String> = (0..rng.below(3))
                .map(|_| TAGS[rng.below(5) as usize].to_owned())
                .collect();
            PageData {
                path: format!("{folder}/page-{i}.md"),
                title: format!("Page {i}"),
                tags: tags.clone(),
                frontmatter: json!({
                    "title": format!("Page {i}"),
                    "status": STATUS[rng.below(4) as usize],
                    "priority": rng.below(5) + 1,
                    "due": due.format("%Y-%m-%d").to_string(),
                    "tags": tags,
                }),
                outlinks: Vec::new(),
                inlinks: Vec::new(),
                size: 1000 + rng.below(5000),
                ctime: Some(base),
                mtime: Some(base + chrono::Duration::minutes(rng.below(500_000) as i64)),
                word_count: rng.below(2000) as u32,
            }
        })
        .collect();
    Pages(pages)
}

fn main() {
    let query = parse_query(QUERY).expect("bench query parses");
    let ctx = EvalContext::at(DateTime::parse_from_rfc3339("2024-06-01T00:00:00Z").unwrap());
    let limits = ExecLimits {
        max_scan_rows: usize::MAX,
        timeout: Duration::from_secs(60),
    };
    println!("query: {QUERY}");
    for count in [10_000, 100_000] {
        let catalog = generate(count);
        let mut times = Vec::with_capacity(RUNS);
        let mut rows = 0;
        for _ in 0..RUNS {
            let start = Instant::now();
            let result = execute(&query, &catalog, &limits, &ctx).expect("bench query runs");
            times.push(start.elapsed());
            rows = result.rows.len();
        }
        times.sort();
        let parse_start = Instant::now();
        for _ in 0..1000 {
            std::hint::black_box(parse_query(QUERY).unwrap());
        }
        let parse = parse_start.elapsed() / 1000;
        println!(
            "{count:>7} pages: p50 {:>8.2} ms  p90 {:>8.2} ms  min {:>8.2} ms  ({rows} rows; parse {:.1} µs)",
            ms(times[RUNS / 2]),
            ms(times[RUNS * 9 / 10]),
            ms(times[0]),
            parse.as_secs_f64() * 1e6,
        );
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
