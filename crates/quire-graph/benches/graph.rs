//! Times building a `LinkGraph` and each analysis on random link graphs shaped like a
//! knowledge root: pages in 50 folders, most links within the folder, some to a few popular
//! pages. Run with `cargo bench -p quire-graph --bench graph`.

use std::time::{Duration, Instant};

use quire_graph::{LinkGraph, PageRank};

/// xorshift64*: enough randomness for a synthetic graph, and reproducible.
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

    fn below(&mut self, n: usize) -> usize {
        (self.unit() * n as f64) as usize
    }
}

const FOLDERS: usize = 50;

fn synthetic(nodes: usize, edges: usize, seed: u64) -> (Vec<String>, Vec<(usize, usize)>) {
    let mut rng = Rng(seed);
    let paths: Vec<String> = (0..nodes)
        .map(|i| format!("f{:02}/page-{i:06}.md", i % FOLDERS))
        .collect();
    let links = (0..edges)
        .map(|_| {
            let s = rng.below(nodes);
            let roll = rng.unit();
            let t = if roll < 0.7 {
                // Same folder: pages i ≡ s (mod FOLDERS).
                let per_folder = nodes / FOLDERS;
                (rng.below(per_folder) * FOLDERS + s % FOLDERS).min(nodes - 1)
            } else if roll < 0.85 {
                // Popular pages: cubing skews towards low indices.
                (rng.unit().powi(3) * nodes as f64) as usize
            } else {
                rng.below(nodes)
            };
            (s, t)
        })
        .collect();
    (paths, links)
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut out = None;
    for _ in 0..runs {
        let start = Instant::now();
        let v = f();
        best = best.min(start.elapsed());
        out = Some(v);
    }
    (best, out.expect("at least one run"))
}

fn report(what: &str, d: Duration, note: String) {
    println!("  {what:<24} {:>10.2} ms  {note}", d.as_secs_f64() * 1e3);
}

fn bench(nodes: usize, edges: usize, runs: usize) {
    let (paths, links) = synthetic(nodes, edges, 0x5EED ^ nodes as u64);
    println!("{nodes} pages, {edges} links (best of {runs}):");

    let (d, g) = time(runs, || {
        LinkGraph::new(
            paths.iter().cloned(),
            links
                .iter()
                .map(|&(s, t)| (paths[s].as_str(), paths[t].as_str())),
        )
    });
    report(
        "build",
        d,
        format!(
            "{} distinct edges, {} self-links dropped",
            g.edge_count(),
            g.skipped().self_links
        ),
    );

    let (d, ranks) = time(runs, || g.pagerank(PageRank::default()));
    report(
        "pagerank",
        d,
        format!("sum {:.6}", ranks.iter().sum::<f64>()),
    );

    let (d, a) = time(runs, || g.analytics(20));
    report(
        "analytics (incl. rank)",
        d,
        format!(
            "{} components, largest {}, {} orphans",
            a.components, a.largest_component_size, a.orphans
        ),
    );

    let (d, c) = time(runs, || g.centrality(50, 7, 20));
    report(
        "centrality (sample 50)",
        d,
        format!("top {} ({:.0})", c[0].path, c[0].betweenness),
    );

    let (d, c) = time(runs, || g.communities(1));
    report(
        "communities (Louvain)",
        d,
        format!(
            "{} communities, modularity {:.4}",
            c.communities.len(),
            c.modularity
        ),
    );

    let (d, v) = time(runs, || g.view(|_| None));
    report("view", d, format!("{} nodes", v.nodes.len()));
}

fn main() {
    bench(10_000, 50_000, 3);
    bench(100_000, 500_000, 1);
}
