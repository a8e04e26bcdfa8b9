//! The node/edge view `GET /graph` returns for drawing: every page with its title and
//! top-level folder, every distinct link once.

use crate::LinkGraph;

/// `{nodes: [{id, title, group}], edges: [{source, target}]}`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GraphView {
    pub nodes: Vec<GraphNode>,
    pub edges: Vec<GraphEdge>,
}

/// One page of the view.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GraphNode {
    /// The page path.
    pub id: String,
    /// The page title, when the caller knows one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The top-level folder, see [`group_of`].
    pub group: String,
}

/// One distinct link of the view.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GraphEdge {
    pub source: String,
    pub target: String,
}

/// The top-level folder of a page path: `"notes"` for `notes/2024/a.md`, and `""` for a
/// page at the root.
pub fn group_of(path: &str) -> &str {
    path.split_once('/').map_or("", |(top, _)| top)
}

/// The folder holding `path`, `None` at the root.
pub(crate) fn parent_of(path: &str) -> Option<&str> {
    path.rsplit_once('/').map(|(folder, _)| folder)
}

impl LinkGraph {
    /// The drawable view, nodes and edges sorted by path. Titles are the caller's: the
    /// graph knows paths only, so `title` is asked once per page (return `None` to omit).
    pub fn view(&self, mut title: impl FnMut(&str) -> Option<String>) -> GraphView {
        let nodes = self
            .paths()
            .iter()
            .map(|p| GraphNode {
                id: p.clone(),
                title: title(p),
                group: group_of(p).to_owned(),
            })
            .collect();
        let mut edges = Vec::with_capacity(self.edge_count());
        for v in 0..self.node_count() as u32 {
            for &w in self.out_slice(v) {
                edges.push(GraphEdge {
                    source: self.path(v).to_owned(),
                    target: self.path(w).to_owned(),
                });
            }
        }
        GraphView { nodes, edges }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn group_is_the_top_level_folder() {
        assert_eq!(group_of("notes/2024/a.md"), "notes");
        assert_eq!(group_of("a.md"), "");
        assert_eq!(parent_of("notes/2024/a.md"), Some("notes/2024"));
        assert_eq!(parent_of("a.md"), None);
    }

    #[test]
    fn view_has_titles_groups_and_each_link_once() {
        let g = LinkGraph::new(
            ["notes/a.md", "b.md"],
            [("notes/a.md", "b.md"), ("notes/a.md", "b.md")],
        );
        let titles = HashMap::from([("notes/a.md".to_string(), "Alpha".to_string())]);
        let v = g.view(|p| titles.get(p).cloned());
        let json = serde_json::to_value(&v).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "nodes": [
                    {"id": "b.md", "group": ""},
                    {"id": "notes/a.md", "title": "Alpha", "group": "notes"},
                ],
                "edges": [{"source": "notes/a.md", "target": "b.md"}],
            })
        );
    }
}
