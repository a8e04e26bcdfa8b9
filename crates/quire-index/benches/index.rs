//! Index benchmark: full rebuild, one-page replace, two-word search and a frontmatter key set
//! on every page on synthetic vaults of 10,000 and 100,000 pages of about 300 words (a
//! Zipf-like vocabulary of 20,000 words).
//!
//! `cargo bench -p quire-index --bench index`; `QUIRE_BENCH_LARGE=0` skips the 100,000 pages.
//! Targets: rebuild 10k < 3 s, replace p50/p99 < 2 ms, search p50 < 2 ms and p99 < 10 ms
//! (10k), search p50 < 10 ms (100k).

use std::time::{Duration, Instant};

use quire_index::{HeadingRecord, Index, LinkRecord, PageRecord, SearchRequest};
use serde_json::json;

const VOCABULARY: usize = 20_000;
const WORDS_PER_PAGE: usize = 300;

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A word index, skewed towards the frequent words like natural text.
    fn word(&mut self) -> usize {
        ((self.unit().powf(3.0)) * VOCABULARY as f64) as usize
    }
}

fn vocabulary() -> Vec<String> {
    const SYLLABLES: &[&str] = &[
        "ka", "lo", "mi", "ter", "on", "ra", "ve", "sun", "dal", "pri", "es", "ti", "mor", "gan",
        "ul", "be", "sa", "qu", "ne", "fo", "rix", "al", "zen", "ho",
    ];
    let n = SYLLABLES.len();
    (0..VOCABULARY)
        .map(|i| {
            let mut word = String::new();
            let mut k = i + n;
            while k > 0 {
                word.push_str(SYLLABLES[k % n]);
                k /= n;
            }
            word
        })
        .collect()
}

fn page(i: usize, words: &[String], rng: &mut Rng) -> PageRecord {
    let mut body = String::with_capacity(WORDS_PER_PAGE * 8);
    let mut headings = Vec::new();
    for w in 0..WORDS_PER_PAGE {
        if w % 60 == 0 {
            let text = format!("{} {}", words[rng.word()], words[rng.word()]);
            body.push_str("\n## ");
            body.push_str(&text);
            body.push('\n');
            headings.push(HeadingRecord {
                level: 2,
                slug: text.replace(' ', "-"),
                text,
                line: (w / 12) as u32,
            });
        }
        body.push_str(&words[rng.word()]);
        body.push(if w % 12 == 11 { '\n' } else { ' ' });
    }
    let links = (0..5)
        .map(|l| LinkRecord {
            target_text: format!("page-{}", rng.next() % 10_000),
            resolved: Some(format!("folder-{}/page-{}.md", l % 20, rng.next() % 10_000)),
            kind: "wiki".into(),
            line: l as u32 + 1,
        })
        .collect();
    PageRecord {
        path: format!("folder-{}/page-{i}.md", i % 20),
        title: format!("{} {}", words[rng.word()], words[rng.word()]),
        size: body.len() as u64,
        body,
        headings,
        tags: vec![format!("topic/{}", i % 30), format!("kind-{}", i % 5)],
        frontmatter: json!({"status": if i.is_multiple_of(50) { "verified" } else { "draft" },
                            "created": "2024-05-01", "priority": i % 7}),
        links,
        mtime_ms: 1_700_000_000_000 + i as i64,
        word_count: WORDS_PER_PAGE as u32,
        body_line: 0,
    }
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort_unstable();
    let at = ((samples.len() - 1) as f64 * p).round() as usize;
    samples[at]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

fn run(pages: usize, words: &[String], detailed: bool) {
    let dir = tempfile::tempdir().expect("tempdir");
    let index = Index::open(dir.path()).expect("index");
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let records: Vec<PageRecord> = (0..pages).map(|i| page(i, words, &mut rng)).collect();

    let start = Instant::now();
    index
        .rebuild(records.iter().cloned(), |_| {})
        .expect("rebuild");
    let rebuild = start.elapsed();
    println!("{pages} pages: rebuild {:.2} s", rebuild.as_secs_f64());
    let size = std::fs::metadata(index.path()).map_or(0, |m| m.len());
    println!("  database {:.1} MB", size as f64 / 1e6);

    if detailed {
        let mut samples = Vec::new();
        for i in 0..300usize {
            if i.is_multiple_of(20) {
                // What the service does when writes settle; not part of a write.
                index.checkpoint().expect("checkpoint");
            }
            let mut record = page(i * 31 % pages, words, &mut rng);
            record.path = records[i * 31 % pages].path.clone();
            let start = Instant::now();
            index.replace_pages(&[record]).expect("replace");
            samples.push(start.elapsed());
        }
        let slow: Vec<usize> = (0..samples.len())
            .filter(|&i| samples[i] > Duration::from_millis(5))
            .collect();
        println!("  replace_pages slow (>5 ms) at {slow:?}");
        println!(
            "  replace_pages(1): p50 {}  p99 {}",
            ms(percentile(&mut samples, 0.5)),
            ms(percentile(&mut samples, 0.99))
        );
    }

    let mut samples = Vec::new();
    let mut total_hits = 0;
    for _ in 0..500 {
        let query = format!("{} {}", words[rng.word()], words[rng.word()]);
        let start = Instant::now();
        let results = index.search(&SearchRequest::new(query)).expect("search");
        samples.push(start.elapsed());
        total_hits += results.total;
    }
    println!(
        "  search (two words, limit 20): p50 {}  p99 {}  (mean total {} pages)",
        ms(percentile(&mut samples, 0.5)),
        ms(percentile(&mut samples, 0.99)),
        total_hits / 500
    );

    if detailed {
        // A bulk edit that sets one frontmatter key on every page (the text unchanged), as
        // the index thread receives it after such an apply: one transaction.
        let edited: Vec<PageRecord> = records
            .iter()
            .map(|record| {
                let mut record = record.clone();
                record.frontmatter["reviewed"] = json!("2025-01-01");
                record.body_line += 1;
                record
            })
            .collect();
        index.checkpoint().expect("checkpoint");
        let start = Instant::now();
        index.replace_pages(&edited).expect("bulk frontmatter edit");
        println!(
            "  one key set on all {pages} pages, one transaction: {:.2} s",
            start.elapsed().as_secs_f64()
        );
    }
}

fn main() {
    let words = vocabulary();
    run(10_000, &words, true);
    if std::env::var("QUIRE_BENCH_LARGE").as_deref() != Ok("0") {
        run(100_000, &words, false);
    }
}
