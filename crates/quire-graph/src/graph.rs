//! The `LinkGraph` itself: sorted page paths, links out and links in as CSR adjacency, and
//! the per-page lookups (degree, multiplicity) everything else builds on.

use std::collections::HashMap;

use petgraph::csr::Csr;

/// Adjacency of one direction: row `i` lists the neighbours of node `i` in ascending node
/// order; the edge weight is the link multiplicity (how many times the link occurs).
pub(crate) type Adjacency = Csr<(), u32>;

/// The directed wiki-link graph of one snapshot of a root.
///
/// Nodes are pages, sorted by path so results never depend on input order. An edge
/// `a -> b` means page `a` holds at least one link that resolves to page `b`; repeated links
/// collapse into one edge whose multiplicity is kept. Every algorithm sees the collapsed,
/// unweighted edge except where a method says otherwise.
#[derive(Debug, Clone)]
pub struct LinkGraph {
    paths: Vec<String>,
    index: HashMap<String, u32>,
    /// Links out of each page.
    pub(crate) out: Adjacency,
    /// Links into each page (the transpose of `out`).
    pub(crate) inc: Adjacency,
    links: u64,
    skipped: Skipped,
}

/// Input edges `LinkGraph::new` dropped, so a caller can report them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Skipped {
    /// Links from a page to itself.
    pub self_links: u64,
    /// Links whose source or target is not among the nodes.
    pub unknown_endpoints: u64,
}

impl LinkGraph {
    /// Builds the graph from page paths and `(source, target)` pairs of resolved links.
    ///
    /// Duplicate paths collapse; duplicate links collapse into one edge with a
    /// multiplicity; self-links and links with an endpoint outside `nodes` are dropped and
    /// counted in [`LinkGraph::skipped`]. Unresolved links are the caller's business: pass
    /// only links that resolved to a page.
    pub fn new<P, E, A, B>(nodes: impl IntoIterator<Item = P>, edges: E) -> Self
    where
        P: Into<String>,
        E: IntoIterator<Item = (A, B)>,
        A: AsRef<str>,
        B: AsRef<str>,
    {
        let mut paths: Vec<String> = nodes.into_iter().map(Into::into).collect();
        paths.sort_unstable();
        paths.dedup();
        assert!(
            u32::try_from(paths.len()).is_ok(),
            "a link graph holds at most u32::MAX pages"
        );
        let index: HashMap<String, u32> = paths
            .iter()
            .enumerate()
            .map(|(i, p)| (p.clone(), i as u32))
            .collect();

        let mut skipped = Skipped::default();
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for (source, target) in edges {
            let (Some(&s), Some(&t)) = (index.get(source.as_ref()), index.get(target.as_ref()))
            else {
                skipped.unknown_endpoints += 1;
                continue;
            };
            if s == t {
                skipped.self_links += 1;
                continue;
            }
            pairs.push((s, t));
        }
        let links = pairs.len() as u64;
        pairs.sort_unstable();

        let mut forward: Vec<(u32, u32, u32)> = Vec::with_capacity(pairs.len());
        for (s, t) in pairs {
            match forward.last_mut() {
                Some(last) if last.0 == s && last.1 == t => last.2 += 1,
                _ => forward.push((s, t, 1)),
            }
        }
        let mut backward: Vec<(u32, u32, u32)> =
            forward.iter().map(|&(s, t, w)| (t, s, w)).collect();
        backward.sort_unstable();

        let n = paths.len();
        LinkGraph {
            out: adjacency(n, &forward),
            inc: adjacency(n, &backward),
            paths,
            index,
            links,
            skipped,
        }
    }

    /// Number of pages.
    pub fn node_count(&self) -> usize {
        self.paths.len()
    }

    /// Number of distinct directed edges (a page linking another three times counts once).
    pub fn edge_count(&self) -> usize {
        self.out.edge_count()
    }

    /// Number of links kept, counting repeats (the sum of all multiplicities).
    pub fn link_count(&self) -> u64 {
        self.links
    }

    /// What `new` dropped.
    pub fn skipped(&self) -> Skipped {
        self.skipped
    }

    /// All page paths, sorted; the position of a path is its node number in index-aligned
    /// results such as [`LinkGraph::pagerank`].
    pub fn paths(&self) -> &[String] {
        &self.paths
    }

    /// Whether `path` is a page of the graph.
    pub fn contains(&self, path: &str) -> bool {
        self.index.contains_key(path)
    }

    /// Number of distinct pages linking to `path`; `None` for an unknown page.
    pub fn in_degree(&self, path: &str) -> Option<usize> {
        self.node(path).map(|i| self.inc.out_degree(i))
    }

    /// Number of distinct pages `path` links to; `None` for an unknown page.
    pub fn out_degree(&self, path: &str) -> Option<usize> {
        self.node(path).map(|i| self.out.out_degree(i))
    }

    /// How many links from `from` resolve to `to` (0 when there is no edge or either page is
    /// unknown).
    pub fn multiplicity(&self, from: &str, to: &str) -> u32 {
        let (Some(s), Some(t)) = (self.node(from), self.node(to)) else {
            return 0;
        };
        let targets = self.out.neighbors_slice(s);
        match targets.binary_search(&t) {
            Ok(k) => self.out.edges_slice(s)[k],
            Err(_) => 0,
        }
    }

    pub(crate) fn node(&self, path: &str) -> Option<u32> {
        self.index.get(path).copied()
    }

    pub(crate) fn path(&self, node: u32) -> &str {
        &self.paths[node as usize]
    }

    pub(crate) fn out_slice(&self, node: u32) -> &[u32] {
        self.out.neighbors_slice(node)
    }

    pub(crate) fn in_slice(&self, node: u32) -> &[u32] {
        self.inc.neighbors_slice(node)
    }

    /// Distinct neighbours over links in either direction, ascending. `scratch` is a
    /// caller-owned buffer so hot loops do not allocate.
    pub(crate) fn either_way<'a>(&self, node: u32, scratch: &'a mut Vec<u32>) -> &'a [u32] {
        scratch.clear();
        let (mut a, mut b) = (self.out_slice(node), self.in_slice(node));
        // Both rows are sorted: merge them, dropping the mutual links' duplicates.
        while let (Some(&x), Some(&y)) = (a.first(), b.first()) {
            if x <= y {
                scratch.push(x);
                a = &a[1..];
                if x == y {
                    b = &b[1..];
                }
            } else {
                scratch.push(y);
                b = &b[1..];
            }
        }
        scratch.extend_from_slice(a);
        scratch.extend_from_slice(b);
        scratch
    }
}

/// Builds one direction's CSR from edges sorted by `(row, column)`.
fn adjacency(n: usize, sorted: &[(u32, u32, u32)]) -> Adjacency {
    let mut csr = Adjacency::from_sorted_edges(sorted)
        .expect("edges are sorted and deduplicated before building the CSR");
    // `from_sorted_edges` only creates rows up to the largest node an edge mentions.
    while csr.node_count() < n {
        csr.add_node(());
    }
    csr
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_links_collapse_and_keep_their_multiplicity() {
        let g = LinkGraph::new(["a", "b"], [("a", "b"), ("a", "b"), ("a", "b")]);
        assert_eq!(g.edge_count(), 1);
        assert_eq!(g.link_count(), 3);
        assert_eq!(g.multiplicity("a", "b"), 3);
        assert_eq!(g.multiplicity("b", "a"), 0);
    }

    #[test]
    fn self_links_and_unknown_endpoints_are_dropped_and_counted() {
        let g = LinkGraph::new(
            ["a", "b"],
            [("a", "a"), ("a", "zzz"), ("nope", "b"), ("b", "a")],
        );
        assert_eq!(g.edge_count(), 1);
        assert_eq!(
            g.skipped(),
            Skipped {
                self_links: 1,
                unknown_endpoints: 2
            }
        );
    }

    #[test]
    fn nodes_are_sorted_and_deduplicated() {
        let g = LinkGraph::new(["c", "a", "b", "a"], Vec::<(&str, &str)>::new());
        assert_eq!(g.paths(), ["a", "b", "c"]);
        assert_eq!(g.edge_count(), 0);
        assert_eq!(g.in_degree("c"), Some(0));
        assert_eq!(g.in_degree("d"), None);
    }

    #[test]
    fn degrees_count_distinct_pages() {
        let g = LinkGraph::new(
            ["a", "b", "c"],
            [("a", "b"), ("a", "b"), ("a", "c"), ("c", "b")],
        );
        assert_eq!(g.out_degree("a"), Some(2));
        assert_eq!(g.in_degree("b"), Some(2));
        assert_eq!(g.in_degree("a"), Some(0));
    }

    #[test]
    fn either_way_merges_mutual_links_once() {
        let g = LinkGraph::new(
            ["a", "b", "c", "d"],
            [("b", "a"), ("a", "b"), ("c", "b"), ("b", "d")],
        );
        let mut scratch = Vec::new();
        let b = g.node("b").unwrap();
        assert_eq!(g.either_way(b, &mut scratch), [0, 2, 3]);
    }

    #[test]
    fn empty_graph_is_fine() {
        let g = LinkGraph::new(Vec::<String>::new(), Vec::<(String, String)>::new());
        assert_eq!(g.node_count(), 0);
        assert_eq!(g.edge_count(), 0);
    }
}
