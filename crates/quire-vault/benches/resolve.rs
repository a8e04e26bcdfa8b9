//! Times resolving 100,000 links against a 10,000-file vault (warm, best of 5).
//!
//! Run with `cargo bench -p quire-vault --bench resolve`. Std only: a fixed pseudo-random
//! sequence builds nested folders with many duplicate names and a mix of link forms.

use std::hint::black_box;
use std::time::{Duration, Instant};

use quire_vault::{PagePath, Vault};

const FILES: usize = 10_000;
const LINKS: usize = 100_000;
const ROUNDS: usize = 5;

/// A small deterministic generator (xorshift), so every run measures the same vault.
struct Sequence(u64);

impl Sequence {
    fn next(&mut self) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as usize
    }

    fn below(&mut self, n: usize) -> usize {
        self.next() % n
    }
}

/// Which resolver a generated link goes to.
enum Family {
    Wiki,
    Markdown,
}

fn build_paths(seq: &mut Sequence) -> Vec<PagePath> {
    let areas = [
        "Projects",
        "areas",
        "resources",
        "archive",
        "daily",
        "people",
    ];
    let mut paths = Vec::with_capacity(FILES);
    while paths.len() < FILES {
        let depth = 1 + seq.below(4);
        let mut folder = String::from(areas[seq.below(areas.len())]);
        for _ in 1..depth {
            folder.push_str(&format!("/sub {}", seq.below(8)));
        }
        // 2,500 distinct stems over 10,000 files: most names exist in several folders.
        let stem = format!("Note-{} topic", seq.below(2_500));
        let name = match seq.below(10) {
            0 => format!("{stem}.png"),
            1 => format!("{stem}.pdf"),
            _ => format!("{stem}.md"),
        };
        if let Ok(path) = PagePath::new(&format!("{folder}/{name}")) {
            paths.push(path);
        }
    }
    paths.sort();
    paths.dedup();
    paths
}

fn build_links(seq: &mut Sequence, paths: &[PagePath]) -> Vec<(PagePath, Family, String)> {
    let mut links = Vec::with_capacity(LINKS);
    for i in 0..LINKS {
        let from = paths[seq.below(paths.len())].clone();
        let to = &paths[seq.below(paths.len())];
        let (family, target) = match i % 10 {
            // Bare name, the most common form.
            0..=2 => (Family::Wiki, to.stem().to_owned()),
            3 => (Family::Wiki, to.name().to_owned()),
            4 => (Family::Wiki, format!("/{}", to.as_str())),
            5 => {
                let parts: Vec<&str> = to.segments().collect();
                let keep = parts.len().min(2);
                (Family::Wiki, parts[parts.len() - keep..].join("/"))
            }
            // Fuzzy forms and misses.
            6 => (Family::Wiki, to.stem().to_lowercase().replace('-', " ")),
            7 => (Family::Wiki, format!("missing page {i}")),
            8 => (Family::Markdown, format!("/{}", to.as_str())),
            _ => (Family::Markdown, format!("../{}", to.name())),
        };
        links.push((from, family, target));
    }
    links
}

fn resolve_all(vault: &Vault, links: &[(PagePath, Family, String)]) -> (usize, usize) {
    let mut resolved = 0;
    let mut ambiguous = 0;
    for (from, family, target) in links {
        let resolution = match family {
            Family::Wiki => vault.resolve_wiki(from, target),
            Family::Markdown => vault.resolve_markdown(from, target),
        };
        resolved += usize::from(resolution.is_resolved());
        ambiguous += usize::from(resolution.is_ambiguous());
        black_box(&resolution);
    }
    (resolved, ambiguous)
}

fn main() {
    let mut seq = Sequence(0x9e37_79b9_7f4a_7c15);
    let paths = build_paths(&mut seq);
    let links = build_links(&mut seq, &paths);

    let started = Instant::now();
    let vault: Vault = paths.iter().cloned().collect();
    let build = started.elapsed();

    let mut counts = resolve_all(&vault, &links);
    let mut best = Duration::MAX;
    for _ in 0..ROUNDS {
        let started = Instant::now();
        counts = resolve_all(&vault, &links);
        best = best.min(started.elapsed());
    }
    println!(
        "vault: {} files built in {:.1} ms; {} links: {} resolved, {} ambiguous",
        vault.len(),
        build.as_secs_f64() * 1e3,
        links.len(),
        counts.0,
        counts.1
    );
    println!(
        "resolve all links: {:.2} ms (best of {ROUNDS}, warm), {:.0} ns per link",
        best.as_secs_f64() * 1e3,
        best.as_nanos() as f64 / links.len() as f64
    );
}
