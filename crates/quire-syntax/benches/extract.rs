//! Link-extraction throughput of `parse`: on ~20 MB of synthetic pages, and on the
//! testkit vault that `quire-bench extract` measures (the figure the requirement is about).
//!
//! Run with `cargo bench -p quire-syntax`; prints MB/s per core.

use std::hint::black_box;
use std::time::Instant;

const TARGET_BYTES: usize = 20 * 1024 * 1024;
const ROUNDS: usize = 5;

/// A small deterministic generator, so every run measures the same text.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
}

const WORDS: &[&str] = &[
    "the",
    "project",
    "notes",
    "about",
    "meeting",
    "with",
    "design",
    "review",
    "and",
    "roadmap",
    "quarterly",
    "goals",
    "for",
    "team",
    "we",
    "should",
    "consider",
    "latency",
    "budget",
    "über",
    "naïve",
    "résumé",
    "index",
    "storage",
    "query",
    "plan",
    "a",
    "is",
    "to",
    "of",
    "in",
    "on",
];
const NAMES: &[&str] = &[
    "Projects",
    "Daily Notes",
    "people/Alice",
    "Meeting 2024-01-05",
    "Roadmap",
    "archive/Old Idea",
    "Zettel 42",
    "Café Reading List",
];

fn sentence(rng: &mut Rng, out: &mut String) {
    let n = 8 + rng.below(12);
    for i in 0..n {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(rng.pick(WORDS));
    }
}

fn link(rng: &mut Rng, out: &mut String) {
    let name = rng.pick(NAMES);
    match rng.below(8) {
        0 => out.push_str(&format!("[[{name}]]")),
        1 => out.push_str(&format!("[[{name}|alias text]]")),
        2 => out.push_str(&format!("[[{name}#Heading Two]]")),
        3 => out.push_str(&format!("![[{name}.png]]")),
        4 => out.push_str(&format!("[see this]({}.md)", name.replace(' ', "%20"))),
        5 => out.push_str(&format!("[label](<{name}.md> \"Title\")")),
        6 => out.push_str("[site](https://example.com/path?q=1#frag)"),
        _ => out.push_str(&format!("![image](assets/{}.png)", name.replace(' ', "-"))),
    }
}

fn page(rng: &mut Rng, out: &mut String) {
    out.push_str(
        "---\ntitle: A page about things\ntags: [project, notes/daily]\nup: \"[[Projects]]\"\n",
    );
    out.push_str("created: 2024-01-05\nstatus: draft # not final\n---\n\n# Main heading\n\n");
    for section in 0..3 {
        for _ in 0..2 {
            for _ in 0..3 {
                sentence(rng, out);
                out.push_str(if rng.below(3) == 0 { ", " } else { ". " });
                if rng.below(2) == 0 {
                    link(rng, out);
                    out.push(' ');
                }
            }
            if rng.below(4) == 0 {
                out.push_str("with `inline [[code]]` and #tag/nested ");
            }
            out.push_str("\n\n");
        }
        out.push_str("- item one ");
        link(rng, out);
        out.push_str("\n- item two with $x^2$ math\n  - nested item ^block-1\n\n");
        if section == 1 {
            out.push_str("```rust\nlet x = [[not_a_link]];\nfn main() {}\n```\n\n");
        }
        out.push_str(&format!("## Heading {section}\n\n"));
    }
    out.push_str("[ref]: Projects.md \"Projects\"\n<!-- a comment [[hidden]] -->\n");
}

fn main() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut pages = Vec::new();
    let mut total = 0;
    while total < TARGET_BYTES {
        let mut text = String::new();
        page(&mut rng, &mut text);
        total += text.len();
        pages.push(text);
    }
    let links: usize = pages
        .iter()
        .map(|p| quire_syntax::parse(p).links.len())
        .sum();
    println!(
        "extract: {} pages, {:.1} MB, {} links ({:.1} per page)",
        pages.len(),
        total as f64 / 1e6,
        links,
        links as f64 / pages.len() as f64
    );
    let best = measure("whole pages", &pages);
    println!("best: {best:.1} MB/s");
    // The same pages without frontmatter: how much of the time YAML parsing takes.
    let bodies: Vec<String> = pages
        .iter()
        .map(|p| p[quire_syntax::parse(p).body_start..].to_owned())
        .collect();
    let best_bodies = measure("bodies only", &bodies);
    println!("best (bodies only): {best_bodies:.1} MB/s");

    // Exactly what `quire-bench extract` does: the seed-42 vault of 10,000 pages, each
    // page parsed on its own.
    let vault = quire_testkit::generate(&quire_testkit::VaultSpec::new(42, 10_000));
    let vault_pages: Vec<String> = vault
        .pages()
        .filter_map(|f| f.text())
        .map(str::to_owned)
        .collect();
    let vault_bytes: usize = vault_pages.iter().map(String::len).sum();
    println!(
        "testkit vault: {} pages, {:.1} MB",
        vault_pages.len(),
        vault_bytes as f64 / 1e6
    );
    let best_vault = measure("testkit vault", &vault_pages);
    println!("best (testkit vault): {best_vault:.1} MB/s");
    println!("summary: synthetic {best:.1} MB/s, testkit vault {best_vault:.1} MB/s");
}

/// Parses every text `ROUNDS` times; returns the best throughput in MB/s.
fn measure(what: &str, texts: &[String]) -> f64 {
    let total: usize = texts.iter().map(String::len).sum();
    let mut best = f64::MAX;
    for round in 0..ROUNDS {
        let start = Instant::now();
        for text in texts {
            black_box(quire_syntax::parse(black_box(text)));
        }
        let secs = start.elapsed().as_secs_f64();
        best = best.min(secs);
        println!(
            "{what}, round {}: {:.1} MB/s",
            round + 1,
            total as f64 / 1e6 / secs
        );
    }
    total as f64 / 1e6 / best
}
