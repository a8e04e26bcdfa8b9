//! Moving around one page: the shortest chain of links between two pages (`/graph/path`)
//! and a page's immediate surroundings (`/graph/walk`).

use std::collections::VecDeque;

use crate::view::parent_of;
use crate::LinkGraph;

/// Which links a path may follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkDirection {
    /// Only from the linking page to the linked one, as a reader clicks (the default).
    #[default]
    Forward,
    /// Either way: a backlink is as good as a link.
    Either,
}

/// Whether a walk lists the pages sharing the page's folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Neighbors {
    /// Leave `neighbors` empty (the default).
    #[default]
    Omit,
    /// Fill `neighbors` with the other pages directly in the same folder.
    SameDirectory,
}

/// A page's surroundings for `GET /graph/walk`; every list is sorted by path.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Walk {
    pub path: String,
    /// Pages this page links to.
    pub outbound: Vec<String>,
    /// Pages linking to this page.
    pub backlinks: Vec<String>,
    /// Other pages directly in the same folder (not in subfolders), when asked for.
    pub neighbors: Vec<String>,
}

impl LinkGraph {
    /// The shortest chain of pages from `from` to `to`, both included, by breadth-first
    /// search; `None` when either page is unknown or no chain exists. `from == to` is the
    /// one-page chain. Among equally short chains the one through the smallest paths at
    /// each step is returned, so the answer is stable.
    pub fn shortest_path(
        &self,
        from: &str,
        to: &str,
        direction: LinkDirection,
    ) -> Option<Vec<String>> {
        let (s, t) = (self.node(from)?, self.node(to)?);
        let mut parent = vec![u32::MAX; self.node_count()];
        parent[s as usize] = s;
        let mut queue = VecDeque::from([s]);
        let mut scratch = Vec::new();
        'search: while let Some(v) = queue.pop_front() {
            let next = match direction {
                LinkDirection::Forward => self.out_slice(v),
                LinkDirection::Either => self.either_way(v, &mut scratch),
            };
            for &w in next {
                if parent[w as usize] == u32::MAX {
                    parent[w as usize] = v;
                    if w == t {
                        break 'search;
                    }
                    queue.push_back(w);
                }
            }
        }
        if parent[t as usize] == u32::MAX {
            return None;
        }
        let mut chain = vec![t];
        let mut v = t;
        while v != s {
            v = parent[v as usize];
            chain.push(v);
        }
        Some(
            chain
                .into_iter()
                .rev()
                .map(|v| self.path(v).to_owned())
                .collect(),
        )
    }

    /// Links out of and into `path`, and optionally its folder mates; `None` for an unknown
    /// page.
    pub fn walk(&self, path: &str, neighbors: Neighbors) -> Option<Walk> {
        let v = self.node(path)?;
        let names = |nodes: &[u32]| -> Vec<String> {
            nodes.iter().map(|&w| self.path(w).to_owned()).collect()
        };
        let neighbors = match neighbors {
            Neighbors::Omit => Vec::new(),
            Neighbors::SameDirectory => self.folder_mates(path),
        };
        Some(Walk {
            path: path.to_owned(),
            outbound: names(self.out_slice(v)),
            backlinks: names(self.in_slice(v)),
            neighbors,
        })
    }

    /// Pages directly in the folder of `path`, except `path` itself.
    fn folder_mates(&self, path: &str) -> Vec<String> {
        let paths = self.paths();
        let folder = parent_of(path);
        // Paths are sorted, so everything under `folder/` is one contiguous run.
        let (lo, hi) = match folder {
            None => (0, paths.len()),
            Some(folder) => {
                let prefix = format!("{folder}/");
                let lo = paths.partition_point(|p| p.as_str() < prefix.as_str());
                let hi = lo + paths[lo..].partition_point(|p| p.starts_with(&prefix));
                (lo, hi)
            }
        };
        paths[lo..hi]
            .iter()
            .filter(|p| p.as_str() != path && parent_of(p) == folder)
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(g: &LinkGraph, from: &str, to: &str, d: LinkDirection) -> Option<Vec<String>> {
        g.shortest_path(from, to, d)
    }

    fn strings(paths: &[&str]) -> Option<Vec<String>> {
        Some(paths.iter().map(|p| p.to_string()).collect())
    }

    fn sample() -> LinkGraph {
        LinkGraph::new(
            ["a", "b", "c", "d", "e", "lone"],
            [("a", "b"), ("b", "c"), ("a", "d"), ("d", "c"), ("c", "e")],
        )
    }

    #[test]
    fn shortest_path_follows_links_and_prefers_smaller_paths_on_ties() {
        let g = sample();
        let p = chain(&g, "a", "e", LinkDirection::Forward);
        assert_eq!(p, strings(&["a", "b", "c", "e"]));
    }

    #[test]
    fn shortest_path_is_none_against_link_direction_or_when_disconnected() {
        let g = sample();
        assert_eq!(chain(&g, "e", "a", LinkDirection::Forward), None);
        assert_eq!(chain(&g, "a", "lone", LinkDirection::Either), None);
        assert_eq!(chain(&g, "a", "missing", LinkDirection::Forward), None);
    }

    #[test]
    fn shortest_path_either_way_uses_backlinks() {
        let g = sample();
        let p = chain(&g, "e", "a", LinkDirection::Either);
        assert_eq!(p, strings(&["e", "c", "b", "a"]));
    }

    #[test]
    fn shortest_path_to_itself_is_one_page() {
        let g = sample();
        assert_eq!(chain(&g, "c", "c", LinkDirection::Forward), strings(&["c"]));
    }

    #[test]
    fn walk_lists_outbound_backlinks_and_folder_mates() {
        let g = LinkGraph::new(
            [
                "notes/a.md",
                "notes/b.md",
                "notes/c.md",
                "notes/deep/d.md",
                "notesx.md",
                "other/e.md",
                "root.md",
            ],
            [
                ("notes/a.md", "other/e.md"),
                ("notes/a.md", "notes/b.md"),
                ("root.md", "notes/a.md"),
            ],
        );
        let w = g.walk("notes/a.md", Neighbors::SameDirectory).unwrap();
        assert_eq!(w.outbound, ["notes/b.md", "other/e.md"]);
        assert_eq!(w.backlinks, ["root.md"]);
        assert_eq!(w.neighbors, ["notes/b.md", "notes/c.md"]);

        let w = g.walk("root.md", Neighbors::SameDirectory).unwrap();
        assert_eq!(w.neighbors, ["notesx.md"]);

        let w = g.walk("notes/a.md", Neighbors::Omit).unwrap();
        assert!(w.neighbors.is_empty());
        assert!(g.walk("nope.md", Neighbors::Omit).is_none());
    }
}
