//! Graph layout for canvases, pure (no I/O, deterministic): nodes are rectangles of known
//! size, edges are pairs of node indexes; a layout answers the top-left corner of every node.
//!
//! * [`Algorithm::Layered`] (`dot`, `hierarchical`): Sugiyama — cycles broken by reversing the
//!   back edges of a depth-first search, longest-path layers, barycentre ordering sweeps,
//!   rows placed by the nodes' real sizes.
//! * [`Algorithm::Stress`] (`neato`): stress majorization (SMACOF) over shortest-path
//!   distances.
//! * [`Algorithm::Force`] (`fdp`, `force`): Fruchterman–Reingold from a seeded start.
//! * [`Algorithm::Circular`] (`circo`, `circular`): one circle, its radius from the sizes.
//! * [`Algorithm::Radial`] (`radial`): rings of breadth-first distance from the most linked
//!   node.
//!
//! Every layout ends with [`remove_overlaps`], so no two rectangles overlap or come closer
//! than [`GAP`].

use std::collections::VecDeque;
use std::f64::consts::PI;

/// The least space between two nodes after a layout.
pub const GAP: i64 = 40;

/// Width and height of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    pub width: i64,
    pub height: i64,
}

/// Top-left corner of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Point {
    pub x: i64,
    pub y: i64,
}

/// The layouts there are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    Layered,
    Stress,
    Force,
    Circular,
    Radial,
}

impl Algorithm {
    /// The algorithm of a Graphviz engine name (`dot`, `neato`, `fdp`, `circo`) or a canvas
    /// generation name (`hierarchical`, `radial`, `force`, `circular`).
    pub fn from_name(name: &str) -> Option<Algorithm> {
        Some(match name.trim().to_ascii_lowercase().as_str() {
            "dot" | "hierarchical" => Algorithm::Layered,
            "neato" => Algorithm::Stress,
            "fdp" | "force" => Algorithm::Force,
            "circo" | "circular" => Algorithm::Circular,
            "radial" => Algorithm::Radial,
            _ => return None,
        })
    }
}

/// Lays out `sizes.len()` nodes joined by `edges` (indexes out of range and self loops are
/// ignored). Deterministic: the same input gives the same output.
pub fn layout(algorithm: Algorithm, sizes: &[Size], edges: &[(usize, usize)]) -> Vec<Point> {
    let n = sizes.len();
    let sizes: Vec<Size> = sizes
        .iter()
        .map(|s| Size {
            width: s.width.max(1),
            height: s.height.max(1),
        })
        .collect();
    let edges: Vec<(usize, usize)> = edges
        .iter()
        .copied()
        .filter(|&(a, b)| a < n && b < n && a != b)
        .collect();
    if n == 0 {
        return Vec::new();
    }
    let centres = match algorithm {
        Algorithm::Layered => return layered(&sizes, &edges),
        Algorithm::Stress => stress(&sizes, &edges),
        Algorithm::Force => force(&sizes, &edges),
        Algorithm::Circular => circular(&sizes, &edges),
        Algorithm::Radial => radial(&sizes, &edges),
    };
    let mut corners: Vec<Point> = centres
        .iter()
        .zip(&sizes)
        .map(|(&(cx, cy), s)| Point {
            x: (cx - s.width as f64 / 2.0).round() as i64,
            y: (cy - s.height as f64 / 2.0).round() as i64,
        })
        .collect();
    remove_overlaps(&sizes, &mut corners);
    corners
}

/// Whether two placed rectangles come closer than `gap` (touching at exactly `gap` is fine).
pub fn too_close(a: Point, sa: Size, b: Point, sb: Size, gap: i64) -> bool {
    a.x < b.x + sb.width + gap
        && b.x < a.x + sa.width + gap
        && a.y < b.y + sb.height + gap
        && b.y < a.y + sa.height + gap
}

/// Moves nodes apart until no two are closer than [`GAP`]: first rounds of pushing each
/// overlapping pair apart along the axis where they overlap least (which keeps the shape),
/// then a sweep that is sure to finish: in order of x, each node moves right past every node
/// already placed that it is too close to.
pub fn remove_overlaps(sizes: &[Size], pos: &mut [Point]) {
    let n = pos.len();
    for _ in 0..50 {
        let mut moved = false;
        for i in 0..n {
            for j in (i + 1)..n {
                if !too_close(pos[i], sizes[i], pos[j], sizes[j], GAP) {
                    continue;
                }
                moved = true;
                let (ci, cj) = (centre(pos[i], sizes[i]), centre(pos[j], sizes[j]));
                let need_x = (sizes[i].width + sizes[j].width) as f64 / 2.0 + GAP as f64;
                let need_y = (sizes[i].height + sizes[j].height) as f64 / 2.0 + GAP as f64;
                let (dx, dy) = (cj.0 - ci.0, cj.1 - ci.1);
                let over_x = need_x - dx.abs();
                let over_y = need_y - dy.abs();
                // Ties (same centre) go by index so the result is deterministic.
                if over_x <= over_y {
                    let push = (over_x / 2.0).ceil() as i64;
                    let sign = if dx > 0.0 || (dx == 0.0 && i < j) {
                        1
                    } else {
                        -1
                    };
                    pos[i].x -= sign * push;
                    pos[j].x += sign * push;
                } else {
                    let push = (over_y / 2.0).ceil() as i64;
                    let sign = if dy > 0.0 || (dy == 0.0 && i < j) {
                        1
                    } else {
                        -1
                    };
                    pos[i].y -= sign * push;
                    pos[j].y += sign * push;
                }
            }
        }
        if !moved {
            return;
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| (pos[i].x, pos[i].y, i));
    let mut placed: Vec<usize> = Vec::with_capacity(n);
    for &i in &order {
        loop {
            let blocker = placed
                .iter()
                .filter(|&&j| too_close(pos[i], sizes[i], pos[j], sizes[j], GAP))
                .map(|&j| pos[j].x + sizes[j].width + GAP)
                .max();
            match blocker {
                Some(x) => pos[i].x = x,
                None => break,
            }
        }
        placed.push(i);
    }
}

fn centre(p: Point, s: Size) -> (f64, f64) {
    (
        p.x as f64 + s.width as f64 / 2.0,
        p.y as f64 + s.height as f64 / 2.0,
    )
}

fn undirected(n: usize, edges: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let mut adj = vec![Vec::new(); n];
    for &(a, b) in edges {
        adj[a].push(b);
        adj[b].push(a);
    }
    for list in &mut adj {
        list.sort_unstable();
        list.dedup();
    }
    adj
}

/// Half the diagonal of a node: the radius of the circle around it.
fn radius_of(s: Size) -> f64 {
    ((s.width * s.width + s.height * s.height) as f64).sqrt() / 2.0
}

// --- layered ---------------------------------------------------------------------------------

fn layered(sizes: &[Size], edges: &[(usize, usize)]) -> Vec<Point> {
    let n = sizes.len();
    let mut out = vec![Vec::new(); n];
    for &(a, b) in edges {
        out[a].push(b);
    }
    for list in &mut out {
        list.sort_unstable();
        list.dedup();
    }
    // Break cycles: edges to a node still on the depth-first stack are reversed.
    let mut state = vec![0u8; n]; // 0 new, 1 on stack, 2 done
    let mut dag: Vec<(usize, usize)> = Vec::new();
    for start in 0..n {
        if state[start] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        state[start] = 1;
        while let Some(&mut (v, ref mut k)) = stack.last_mut() {
            if *k < out[v].len() {
                let w = out[v][*k];
                *k += 1;
                match state[w] {
                    0 => {
                        dag.push((v, w));
                        state[w] = 1;
                        stack.push((w, 0));
                    }
                    1 => dag.push((w, v)),
                    _ => dag.push((v, w)),
                }
            } else {
                state[v] = 2;
                stack.pop();
            }
        }
    }
    dag.sort_unstable();
    dag.dedup();
    // Longest-path layering in topological order.
    let mut indeg = vec![0usize; n];
    let mut succ = vec![Vec::new(); n];
    let mut pred = vec![Vec::new(); n];
    for &(a, b) in &dag {
        indeg[b] += 1;
        succ[a].push(b);
        pred[b].push(a);
    }
    let mut layer = vec![0usize; n];
    let mut queue: VecDeque<usize> = (0..n).filter(|&v| indeg[v] == 0).collect();
    while let Some(v) = queue.pop_front() {
        for &w in &succ[v] {
            layer[w] = layer[w].max(layer[v] + 1);
            indeg[w] -= 1;
            if indeg[w] == 0 {
                queue.push_back(w);
            }
        }
    }
    let depth = layer.iter().max().map_or(1, |m| m + 1);
    let mut rows: Vec<Vec<usize>> = vec![Vec::new(); depth];
    for v in 0..n {
        rows[layer[v]].push(v);
    }
    // Barycentre sweeps, down then up.
    let mut rank = vec![0f64; n];
    let set_ranks = |rows: &Vec<Vec<usize>>, rank: &mut Vec<f64>| {
        for row in rows {
            for (i, &v) in row.iter().enumerate() {
                rank[v] = i as f64;
            }
        }
    };
    set_ranks(&rows, &mut rank);
    for sweep in 0..8 {
        let down = sweep % 2 == 0;
        let order: Vec<usize> = if down {
            (1..depth).collect()
        } else {
            (0..depth.saturating_sub(1)).rev().collect()
        };
        for l in order {
            let neighbours = |v: usize| if down { &pred[v] } else { &succ[v] };
            let mut keyed: Vec<(f64, usize)> = rows[l]
                .iter()
                .map(|&v| {
                    let ns = neighbours(v);
                    let key = if ns.is_empty() {
                        rank[v]
                    } else {
                        ns.iter().map(|&u| rank[u]).sum::<f64>() / ns.len() as f64
                    };
                    (key, v)
                })
                .collect();
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            rows[l] = keyed.into_iter().map(|(_, v)| v).collect();
            for (i, &v) in rows[l].iter().enumerate() {
                rank[v] = i as f64;
            }
        }
    }
    // Coordinates: rows top to bottom, each centred on the widest.
    let width_of = |row: &Vec<usize>| -> i64 {
        row.iter().map(|&v| sizes[v].width).sum::<i64>() + GAP * (row.len() as i64 - 1).max(0)
    };
    let widest = rows.iter().map(width_of).max().unwrap_or(0);
    let mut pos = vec![Point { x: 0, y: 0 }; n];
    let mut y = 0;
    for row in &rows {
        let mut x = (widest - width_of(row)) / 2;
        let tallest = row.iter().map(|&v| sizes[v].height).max().unwrap_or(0);
        for &v in row {
            pos[v] = Point {
                x,
                y: y + (tallest - sizes[v].height) / 2,
            };
            x += sizes[v].width + GAP;
        }
        y += tallest + 2 * GAP;
    }
    pos
}

// --- stress and force ------------------------------------------------------------------------

/// A seeded, deterministic start: a spiral, so no two nodes share a point.
fn start(sizes: &[Size]) -> Vec<(f64, f64)> {
    let unit = sizes.iter().map(|&s| radius_of(s)).fold(1.0, f64::max);
    (0..sizes.len())
        .map(|i| {
            let a = i as f64 * 2.399_963; // golden angle
            let r = unit * (i as f64).sqrt() * 1.5;
            (r * a.cos(), r * a.sin())
        })
        .collect()
}

fn bfs(adj: &[Vec<usize>], from: usize) -> Vec<Option<usize>> {
    let mut dist = vec![None; adj.len()];
    dist[from] = Some(0);
    let mut queue = VecDeque::from([from]);
    while let Some(v) = queue.pop_front() {
        let d = dist[v].unwrap_or(0);
        for &w in &adj[v] {
            if dist[w].is_none() {
                dist[w] = Some(d + 1);
                queue.push_back(w);
            }
        }
    }
    dist
}

fn stress(sizes: &[Size], edges: &[(usize, usize)]) -> Vec<(f64, f64)> {
    let n = sizes.len();
    let adj = undirected(n, edges);
    let unit = sizes
        .iter()
        .map(|&s| 2.0 * radius_of(s))
        .fold(1.0, f64::max)
        + GAP as f64;
    // Graph distances; pages in other components count as one step beyond the longest path.
    let hops: Vec<Vec<Option<usize>>> = (0..n).map(|v| bfs(&adj, v)).collect();
    let far = hops.iter().flatten().flatten().copied().max().unwrap_or(0) + 1;
    let d = |i: usize, j: usize| hops[i][j].unwrap_or(far) as f64 * unit;
    let mut pos = start(sizes);
    for _ in 0..100 {
        let mut next = vec![(0.0, 0.0); n];
        for i in 0..n {
            let (mut sx, mut sy, mut wsum) = (0.0, 0.0, 0.0);
            for j in 0..n {
                if i == j {
                    continue;
                }
                let dij = d(i, j);
                let w = 1.0 / (dij * dij);
                let (dx, dy) = (pos[i].0 - pos[j].0, pos[i].1 - pos[j].1);
                let len = (dx * dx + dy * dy).sqrt().max(1e-9);
                sx += w * (pos[j].0 + dij * dx / len);
                sy += w * (pos[j].1 + dij * dy / len);
                wsum += w;
            }
            next[i] = if wsum > 0.0 {
                (sx / wsum, sy / wsum)
            } else {
                pos[i]
            };
        }
        pos = next;
    }
    pos
}

fn force(sizes: &[Size], edges: &[(usize, usize)]) -> Vec<(f64, f64)> {
    let n = sizes.len();
    let adj = undirected(n, edges);
    let k = sizes
        .iter()
        .map(|&s| 2.0 * radius_of(s))
        .fold(1.0, f64::max)
        + GAP as f64;
    let mut pos = start(sizes);
    let mut temperature = k * (n as f64).sqrt();
    let iterations = 200;
    let cool = temperature / iterations as f64;
    for _ in 0..iterations {
        let mut disp = vec![(0.0f64, 0.0f64); n];
        for i in 0..n {
            for j in (i + 1)..n {
                let (dx, dy) = (pos[i].0 - pos[j].0, pos[i].1 - pos[j].1);
                let dist = (dx * dx + dy * dy).sqrt().max(0.01);
                let f = k * k / dist;
                let (ux, uy) = (dx / dist, dy / dist);
                disp[i].0 += ux * f;
                disp[i].1 += uy * f;
                disp[j].0 -= ux * f;
                disp[j].1 -= uy * f;
            }
        }
        for (i, list) in adj.iter().enumerate() {
            for &j in list.iter().filter(|&&j| j > i) {
                let (dx, dy) = (pos[i].0 - pos[j].0, pos[i].1 - pos[j].1);
                let dist = (dx * dx + dy * dy).sqrt().max(0.01);
                let f = dist * dist / k;
                let (ux, uy) = (dx / dist, dy / dist);
                disp[i].0 -= ux * f;
                disp[i].1 -= uy * f;
                disp[j].0 += ux * f;
                disp[j].1 += uy * f;
            }
        }
        for i in 0..n {
            let (dx, dy) = disp[i];
            let len = (dx * dx + dy * dy).sqrt();
            if len > 0.0 {
                let step = len.min(temperature);
                pos[i].0 += dx / len * step;
                pos[i].1 += dy / len * step;
            }
        }
        temperature = (temperature - cool).max(1.0);
    }
    pos
}

// --- circular and radial ---------------------------------------------------------------------

/// Nodes in depth-first order of the undirected graph, so linked nodes sit side by side.
fn dfs_order(adj: &[Vec<usize>]) -> Vec<usize> {
    let n = adj.len();
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    for s in 0..n {
        if seen[s] {
            continue;
        }
        let mut stack = vec![s];
        while let Some(v) = stack.pop() {
            if seen[v] {
                continue;
            }
            seen[v] = true;
            order.push(v);
            for &w in adj[v].iter().rev() {
                if !seen[w] {
                    stack.push(w);
                }
            }
        }
    }
    order
}

/// Places `ring` on a circle of at least `min_radius` whose arcs leave every node room for its
/// circumscribed circle plus [`GAP`]; answers the radius used.
fn place_ring(
    ring: &[usize],
    sizes: &[Size],
    min_radius: f64,
    pos: &mut [(f64, f64)],
    phase: f64,
) -> f64 {
    if ring.len() == 1 && min_radius == 0.0 {
        pos[ring[0]] = (0.0, 0.0);
        return 0.0;
    }
    let spans: Vec<f64> = ring
        .iter()
        .map(|&v| 2.0 * radius_of(sizes[v]) + GAP as f64)
        .collect();
    let total: f64 = spans.iter().sum();
    // A chord is at least 2/π of its arc (arcs up to π), so arcs of π/2 × the span suffice.
    let radius = (total * PI / 2.0 / (2.0 * PI)).max(min_radius);
    let mut angle = phase;
    for (&v, span) in ring.iter().zip(&spans) {
        let share = span / total * 2.0 * PI;
        let a = angle + share / 2.0;
        pos[v] = (radius * a.cos(), radius * a.sin());
        angle += share;
    }
    radius
}

fn circular(sizes: &[Size], edges: &[(usize, usize)]) -> Vec<(f64, f64)> {
    let adj = undirected(sizes.len(), edges);
    let order = dfs_order(&adj);
    let mut pos = vec![(0.0, 0.0); sizes.len()];
    let min = if order.len() > 1 { 1.0 } else { 0.0 };
    place_ring(&order, sizes, min, &mut pos, 0.0);
    pos
}

fn radial(sizes: &[Size], edges: &[(usize, usize)]) -> Vec<(f64, f64)> {
    let n = sizes.len();
    let adj = undirected(n, edges);
    let centre = (0..n)
        .max_by(|&a, &b| adj[a].len().cmp(&adj[b].len()).then(b.cmp(&a)))
        .unwrap_or(0);
    let dist = bfs(&adj, centre);
    let deepest = dist.iter().flatten().copied().max().unwrap_or(0);
    let mut rings: Vec<Vec<usize>> = vec![Vec::new(); deepest + 2];
    for (v, d) in dist.iter().enumerate() {
        match *d {
            Some(d) => rings[d].push(v),
            None => rings[deepest + 1].push(v),
        }
    }
    let mut pos = vec![(0.0, 0.0); n];
    let mut angle_of = vec![0.0f64; n];
    let mut radius = 0.0;
    let mut previous_half = 0.0f64;
    for (depth, ring) in rings.iter_mut().enumerate() {
        if ring.is_empty() {
            continue;
        }
        // Order by the mean angle of the neighbours one ring in, so subtrees stay together.
        if depth > 0 {
            let keys: Vec<(f64, usize)> = ring
                .iter()
                .map(|&v| {
                    let inner: Vec<f64> = adj[v]
                        .iter()
                        .filter(|&&u| dist[u].is_some_and(|d| d + 1 == depth))
                        .map(|&u| angle_of[u])
                        .collect();
                    let key = if inner.is_empty() {
                        f64::MAX
                    } else {
                        inner.iter().sum::<f64>() / inner.len() as f64
                    };
                    (key, v)
                })
                .collect();
            let mut keys = keys;
            keys.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            *ring = keys.into_iter().map(|(_, v)| v).collect();
        }
        let half = ring
            .iter()
            .map(|&v| radius_of(sizes[v]))
            .fold(0.0, f64::max);
        let min = if depth == 0 && ring.len() == 1 {
            0.0
        } else {
            radius + previous_half + half + GAP as f64
        };
        radius = place_ring(ring, sizes, min, &mut pos, 0.0);
        previous_half = half;
        for &v in ring.iter() {
            angle_of[v] = pos[v].1.atan2(pos[v].0).rem_euclid(2.0 * PI);
        }
    }
    pos
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(n: usize) -> Vec<Size> {
        (0..n)
            .map(|i| Size {
                width: 200 + (i as i64 * 37) % 180,
                height: 60 + (i as i64 * 53) % 140,
            })
            .collect()
    }

    /// A small pseudo-random graph (xorshift), with a cycle, a hub and a lone node.
    fn graph(n: usize, m: usize, seed: u64) -> Vec<(usize, usize)> {
        let mut s = seed | 1;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let mut edges: Vec<(usize, usize)> = (0..m)
            .map(|_| ((next() % n as u64) as usize, (next() % n as u64) as usize))
            .collect();
        edges.extend([(0, 1), (1, 2), (2, 0)]);
        edges.extend((3..n.min(12)).map(|v| (3, v)));
        edges
    }

    fn assert_apart(sizes: &[Size], pos: &[Point], what: &str) {
        assert_eq!(sizes.len(), pos.len());
        for i in 0..pos.len() {
            for j in (i + 1)..pos.len() {
                assert!(
                    !too_close(pos[i], sizes[i], pos[j], sizes[j], GAP),
                    "{what}: nodes {i} {:?} and {j} {:?} overlap",
                    pos[i],
                    pos[j]
                );
            }
        }
    }

    const ALL: [Algorithm; 5] = [
        Algorithm::Layered,
        Algorithm::Stress,
        Algorithm::Force,
        Algorithm::Circular,
        Algorithm::Radial,
    ];

    #[test]
    fn no_two_nodes_overlap_after_any_layout() {
        for (n, m, seed) in [(1, 0, 1), (2, 1, 2), (7, 9, 3), (30, 45, 4), (60, 30, 5)] {
            let s = sizes(n);
            let e = if n > 12 { graph(n, m, seed) } else { vec![] };
            for algorithm in ALL {
                let pos = layout(algorithm, &s, &e);
                assert_apart(&s, &pos, &format!("{algorithm:?} n={n}"));
            }
        }
    }

    #[test]
    fn identical_nodes_at_one_point_are_pulled_apart() {
        let s = vec![
            Size {
                width: 250,
                height: 60
            };
            20
        ];
        let mut pos = vec![Point { x: 0, y: 0 }; 20];
        remove_overlaps(&s, &mut pos);
        assert_apart(&s, &pos, "remove_overlaps");
    }

    #[test]
    fn layouts_are_deterministic() {
        let s = sizes(25);
        let e = graph(25, 30, 9);
        for algorithm in ALL {
            assert_eq!(layout(algorithm, &s, &e), layout(algorithm, &s, &e));
        }
    }

    #[test]
    fn layered_puts_a_chain_in_successive_rows() {
        let s = sizes(3);
        let pos = layout(Algorithm::Layered, &s, &[(0, 1), (1, 2)]);
        assert!(pos[0].y < pos[1].y && pos[1].y < pos[2].y, "{pos:?}");
    }

    #[test]
    fn radial_centres_the_most_linked_node() {
        let s = vec![
            Size {
                width: 100,
                height: 100
            };
            6
        ];
        let edges: Vec<(usize, usize)> = (0..6).filter(|&v| v != 4).map(|v| (4, v)).collect();
        let pos = layout(Algorithm::Radial, &s, &edges);
        assert_eq!(pos[4], Point { x: -50, y: -50 });
    }

    #[test]
    fn engine_names_map_to_algorithms() {
        assert_eq!(Algorithm::from_name("dot"), Some(Algorithm::Layered));
        assert_eq!(
            Algorithm::from_name("hierarchical"),
            Some(Algorithm::Layered)
        );
        assert_eq!(Algorithm::from_name("neato"), Some(Algorithm::Stress));
        assert_eq!(Algorithm::from_name("FDP"), Some(Algorithm::Force));
        assert_eq!(Algorithm::from_name("circo"), Some(Algorithm::Circular));
        assert_eq!(Algorithm::from_name("radial"), Some(Algorithm::Radial));
        assert_eq!(Algorithm::from_name("grid"), None);
    }
}
