//! Betweenness centrality by Brandes' algorithm over the directed, unweighted link graph,
//! optionally estimated from a seeded sample of source pages.
//!
//! Directed because a wiki link is navigated one way: a page is "between" when readers
//! following links pass through it. Values are raw (not normalised): for exact runs, the
//! sum over ordered pairs `(s, t)`, `s != v != t`, of the share of shortest `s -> t` paths
//! through `v`. A sampled run sums dependencies over `k` sources and scales by `n / k`, an
//! unbiased estimate of the exact value.

use crate::rng::SplitMix64;
use crate::{LinkGraph, PageRank};

/// One row of `GET /graph/centrality`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CentralPage {
    pub path: String,
    pub pagerank: f64,
    pub betweenness: f64,
}

impl LinkGraph {
    /// The `limit` pages with the highest betweenness (descending, ties by path), each with
    /// its PageRank (`PageRank::default()`).
    ///
    /// `sample` source pages are drawn with `seed`; the same seed gives the same answer.
    /// When `sample >= node_count()` every page is a source and the values are exact.
    /// Cost: `O(sample · (nodes + edges))`.
    pub fn centrality(&self, sample: usize, seed: u64, limit: usize) -> Vec<CentralPage> {
        let betweenness = self.betweenness(sample, seed);
        let ranks = self.pagerank(PageRank::default());
        self.ranked(&betweenness, limit)
            .into_iter()
            .map(|v| CentralPage {
                path: self.path(v).to_owned(),
                pagerank: ranks[v as usize],
                betweenness: betweenness[v as usize],
            })
            .collect()
    }

    /// Betweenness of every page, aligned with [`LinkGraph::paths`]; see
    /// [`LinkGraph::centrality`] for `sample` and `seed`.
    pub fn betweenness(&self, sample: usize, seed: u64) -> Vec<f64> {
        let n = self.node_count();
        let mut sources: Vec<u32> = (0..n as u32).collect();
        let k = sample.min(n);
        if k < n {
            SplitMix64::new(seed).partial_shuffle(&mut sources, k);
            sources.truncate(k);
        }

        let mut score = vec![0.0; n];
        let mut brandes = Brandes::new(n);
        for &s in &sources {
            brandes.accumulate(self, s, &mut score);
        }
        if k > 0 && k < n {
            let scale = n as f64 / k as f64;
            score.iter_mut().for_each(|b| *b *= scale);
        }
        score
    }
}

/// Per-source working arrays, reused across sources; only the entries a source reached are
/// reset, so a sparse graph does not pay `O(n)` per source.
struct Brandes {
    /// BFS distance from the source, `u32::MAX` when unreached.
    dist: Vec<u32>,
    /// Number of shortest paths from the source.
    paths: Vec<f64>,
    /// Dependency of the source on each node.
    delta: Vec<f64>,
    /// Reached nodes in BFS order (non-decreasing distance); also the BFS queue.
    order: Vec<u32>,
}

impl Brandes {
    fn new(n: usize) -> Self {
        Brandes {
            dist: vec![u32::MAX; n],
            paths: vec![0.0; n],
            delta: vec![0.0; n],
            order: Vec::with_capacity(n),
        }
    }

    fn accumulate(&mut self, g: &LinkGraph, s: u32, score: &mut [f64]) {
        let Brandes {
            dist,
            paths,
            delta,
            order,
        } = self;
        order.clear();
        dist[s as usize] = 0;
        paths[s as usize] = 1.0;
        order.push(s);
        let mut head = 0;
        while head < order.len() {
            let v = order[head];
            head += 1;
            let next = dist[v as usize] + 1;
            for &w in g.out_slice(v) {
                let w = w as usize;
                if dist[w] == u32::MAX {
                    dist[w] = next;
                    order.push(w as u32);
                }
                if dist[w] == next {
                    paths[w] += paths[v as usize];
                }
            }
        }
        // Reverse BFS order: every successor one level down is final before its
        // predecessor pulls from it, so no predecessor lists are needed.
        for &v in order.iter().rev() {
            let v = v as usize;
            let below = dist[v] + 1;
            let mut dv = 0.0;
            for &w in g.out_slice(v as u32) {
                let w = w as usize;
                if dist[w] == below {
                    dv += paths[v] / paths[w] * (1.0 + delta[w]);
                }
            }
            delta[v] = dv;
            if v != s as usize {
                score[v] += dv;
            }
        }
        for &v in order.iter() {
            let v = v as usize;
            dist[v] = u32::MAX;
            paths[v] = 0.0;
            delta[v] = 0.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact(g: &LinkGraph) -> Vec<f64> {
        g.betweenness(usize::MAX, 0)
    }

    #[test]
    fn directed_path_counts_the_pairs_through_each_page() {
        // a -> b -> c -> d: b carries (a,c), (a,d); c carries (a,d), (b,d).
        let g = LinkGraph::new(["a", "b", "c", "d"], [("a", "b"), ("b", "c"), ("c", "d")]);
        assert_eq!(exact(&g), [0.0, 2.0, 2.0, 0.0]);
    }

    #[test]
    fn mutual_star_center_carries_every_leaf_pair() {
        // Leaves link to and from the hub: every ordered leaf pair (4 * 3) passes it.
        let leaves = ["l1", "l2", "l3", "l4"];
        let mut edges = Vec::new();
        for l in leaves {
            edges.push(("hub", l));
            edges.push((l, "hub"));
        }
        let mut nodes = vec!["hub"];
        nodes.extend(leaves);
        let g = LinkGraph::new(nodes, edges);
        let b = exact(&g);
        assert_eq!(b[0], 12.0); // "hub" sorts first
        assert!(b[1..].iter().all(|&x| x == 0.0));
    }

    #[test]
    fn split_shortest_paths_share_the_credit() {
        // a -> b -> d and a -> c -> d: b and c each carry half of (a, d).
        let g = LinkGraph::new(
            ["a", "b", "c", "d"],
            [("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")],
        );
        assert_eq!(exact(&g), [0.0, 0.5, 0.5, 0.0]);
    }

    #[test]
    fn sampling_is_deterministic_and_scaled() {
        let names: Vec<String> = (0..40).map(|i| format!("p{i:02}")).collect();
        let edges: Vec<(String, String)> = (0..40)
            .flat_map(|i| {
                [
                    (names[i].clone(), names[(i + 1) % 40].clone()),
                    (names[i].clone(), names[(i * 7 + 3) % 40].clone()),
                ]
            })
            .collect();
        let g = LinkGraph::new(names, edges);
        let a = g.betweenness(10, 42);
        assert_eq!(a, g.betweenness(10, 42));
        // Scaled estimates land in the same ballpark as the exact total.
        let exact_total: f64 = exact(&g).iter().sum();
        let sampled_total: f64 = a.iter().sum();
        assert!(sampled_total > 0.5 * exact_total && sampled_total < 1.5 * exact_total);
    }

    #[test]
    fn centrality_lists_top_pages_with_pagerank() {
        let g = LinkGraph::new(["a", "b", "c"], [("a", "b"), ("b", "c")]);
        let top = g.centrality(50, 7, 2);
        assert_eq!(top.len(), 2);
        assert_eq!(top[0].path, "b");
        assert_eq!(top[0].betweenness, 1.0);
        assert!(top[0].pagerank > 0.0);
        // Tie at zero between a and c breaks by path.
        assert_eq!(top[1].path, "a");
    }
}
