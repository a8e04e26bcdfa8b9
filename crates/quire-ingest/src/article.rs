//! The article of a web page, readability-style, by quire's own heuristic: navigation,
//! headers without a heading, footers, asides, scripts and styles are dropped, together with
//! elements whose class or id says they are menus, sidebars, comments, sharing or ads. Each
//! paragraph-like element of 25 or more characters scores its parent (and half its
//! grandparent) by its length and commas; a candidate's score is weighed by its tag and its
//! class and id, then lowered by its link density. The best candidate — widened to an
//! enclosing `<article>` or `<main>` — is converted to markdown.

use std::collections::HashMap;

use crate::dom::{Dom, Kind, NodeId};
use crate::html::{Converter, Links};
use crate::markdown::Block;

/// Characters of an excerpt at most.
pub const EXCERPT_CHARS: usize = 200;

const NEGATIVE: &[&str] = &[
    "comment",
    "footer",
    "masthead",
    "menu",
    "nav",
    "sidebar",
    "sponsor",
    "share",
    "social",
    "related",
    "widget",
    "banner",
    "advert",
    "promo",
    "cookie",
    "breadcrumb",
    "subscribe",
    "newsletter",
    "popup",
    "modal",
    "skip",
    "toolbar",
    "pagination",
];
const POSITIVE: &[&str] = &[
    "article", "body", "content", "entry", "main", "page", "post", "text", "blog", "story",
];

/// A clipped article.
#[derive(Debug, Clone)]
pub struct Article {
    pub title: String,
    pub excerpt: String,
    pub blocks: Vec<Block>,
}

fn class_weight(dom: &Dom, n: NodeId) -> i32 {
    let names = format!(
        "{} {}",
        dom.attr(n, "class").unwrap_or(""),
        dom.attr(n, "id").unwrap_or("")
    )
    .to_lowercase();
    let mut weight = 0;
    if NEGATIVE.iter().any(|w| names.contains(w)) {
        weight -= 25;
    }
    if POSITIVE.iter().any(|w| names.contains(w)) {
        weight += 25;
    }
    weight
}

/// Whether an element is page furniture rather than article.
pub fn is_noise(dom: &Dom, n: NodeId) -> bool {
    let name = dom.name(n);
    if matches!(name, "footer" | "aside" | "nav") {
        return true;
    }
    if name == "header" {
        return ["h1", "h2"].iter().all(|h| dom.find(n, h).is_none());
    }
    if matches!(
        dom.attr(n, "role"),
        Some("navigation" | "banner" | "contentinfo" | "complementary" | "search")
    ) {
        return true;
    }
    if matches!(name, "html" | "body" | "main" | "article") {
        return false;
    }
    class_weight(dom, n) < 0
}

fn excluded(dom: &Dom, n: NodeId) -> bool {
    matches!(
        dom.name(n),
        "script" | "style" | "noscript" | "template" | "head" | "svg" | "iframe" | "form"
    ) || is_noise(dom, n)
}

/// Text length at or below `n` (noise left out), and how much of it is link text.
fn lengths(dom: &Dom, n: NodeId, in_link: bool) -> (usize, usize) {
    match &dom.nodes[n].kind {
        Kind::Text(t) => {
            let len = t
                .split_whitespace()
                .map(|w| w.chars().count() + 1)
                .sum::<usize>();
            (len, if in_link { len } else { 0 })
        }
        Kind::Element { .. } if excluded(dom, n) => (0, 0),
        _ => {
            let link = in_link || dom.is(n, "a");
            dom.children(n).iter().fold((0, 0), |(a, b), &c| {
                let (x, y) = lengths(dom, c, link);
                (a + x, b + y)
            })
        }
    }
}

fn tag_weight(name: &str) -> f32 {
    match name {
        "article" => 10.0,
        "div" | "section" | "main" => 5.0,
        "pre" | "td" | "blockquote" => 3.0,
        "address" | "ol" | "ul" | "dl" | "dd" | "dt" | "li" | "form" => -3.0,
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "th" => -5.0,
        _ => 0.0,
    }
}

/// The element holding the article.
pub fn best_candidate(dom: &Dom, body: NodeId) -> NodeId {
    let mut scores: HashMap<NodeId, f32> = HashMap::new();
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        for &c in dom.children(n) {
            if matches!(dom.nodes[c].kind, Kind::Element { .. }) && !excluded(dom, c) {
                stack.push(c);
            }
        }
        if !matches!(dom.name(n), "p" | "pre" | "td" | "blockquote") {
            continue;
        }
        let text = dom.text(n);
        let len = text.trim().chars().count();
        if len < 25 {
            continue;
        }
        let score = 1.0 + text.matches(',').count() as f32 + (len as f32 / 100.0).min(3.0);
        let parent = dom.nodes[n].parent;
        let grandparent = parent.and_then(|p| dom.nodes[p].parent);
        for (node, share) in [(parent, 1.0), (grandparent, 0.5)] {
            let Some(node) = node.filter(|&x| x != Dom::ROOT) else {
                continue;
            };
            let entry = scores
                .entry(node)
                .or_insert_with(|| tag_weight(dom.name(node)) + class_weight(dom, node) as f32);
            *entry += score * share;
        }
    }
    let best = scores
        .into_iter()
        .map(|(n, s)| {
            let (len, link) = lengths(dom, n, false);
            let density = if len == 0 {
                1.0
            } else {
                link as f32 / len as f32
            };
            (n, s * (1.0 - density))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|(n, _)| n)
        .unwrap_or(body);
    // Widen to the article or main element around it (its title heading is often outside
    // the paragraphs' parent).
    let mut up = best;
    for _ in 0..4 {
        if matches!(dom.name(up), "article" | "main") {
            return up;
        }
        match dom.nodes[up].parent {
            Some(p) if p != Dom::ROOT && !dom.is(p, "body") => up = p,
            _ => break,
        }
    }
    best
}

fn meta(dom: &Dom, keys: &[&str]) -> Option<String> {
    for key in keys {
        for m in dom.find_all(Dom::ROOT, "meta") {
            let name = dom.attr(m, "property").or_else(|| dom.attr(m, "name"));
            if name.is_some_and(|n| n.eq_ignore_ascii_case(key)) {
                if let Some(c) = dom
                    .attr(m, "content")
                    .map(str::trim)
                    .filter(|c| !c.is_empty())
                {
                    return Some(c.to_string());
                }
            }
        }
    }
    None
}

/// `text` cut to at most `max` characters at a word's end, with `…` when cut.
pub fn shorten(text: &str, max: usize) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() <= max {
        return text;
    }
    let cut: String = text.chars().take(max).collect();
    let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(a, _)| a);
    format!("{}…", cut.trim_end_matches([',', ';', ':', '.']))
}

/// The article of the page at `url`.
pub fn extract(html: &str, url: &url::Url) -> Article {
    let dom = crate::html::parse(html);
    let body = dom.find(Dom::ROOT, "body").unwrap_or(Dom::ROOT);
    let root = best_candidate(&dom, body);
    let skip = |dom: &Dom, n: NodeId| is_noise(dom, n);
    let blocks = Converter::new(&dom, Links::Web(url.clone()), &skip).run(root);
    let title = meta(&dom, &["og:title", "twitter:title"])
        .or_else(|| crate::html::title(&dom))
        .or_else(|| {
            blocks.iter().find_map(|b| match b {
                Block::Heading { .. } => Some(b.plain()),
                _ => None,
            })
        })
        .unwrap_or_else(|| url.host_str().unwrap_or("clip").to_string());
    let excerpt = meta(
        &dom,
        &["description", "og:description", "twitter:description"],
    )
    .or_else(|| {
        blocks.iter().find_map(|b| match b {
            Block::Paragraph(_) => Some(b.plain()).filter(|t| t.chars().count() >= 25),
            _ => None,
        })
    })
    .map(|t| shorten(&t, EXCERPT_CHARS))
    .unwrap_or_default();
    Article {
        title,
        excerpt,
        blocks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::to_markdown;

    #[test]
    fn the_article_stays_and_the_furniture_goes() {
        let html = r#"<html><head><title>Owls at night | Bird News</title></head><body>
          <header class="site-header"><a href="/">Bird News</a> <a href="/login">Log in</a></header>
          <nav><ul><li><a href="/a">Home</a></li><li><a href="/b">Archive</a></li></ul></nav>
          <div class="layout">
            <div class="sidebar"><p>Subscribe to our newsletter, friends, for more owls, today.</p></div>
            <article><h1>Owls at night</h1>
              <p>Owls hunt at night, using hearing more than sight, and they fly silently.</p>
              <p>Their feathers have soft edges, which break up the turbulence of the air.</p>
              <p>Read <a href="/more">more about feathers</a> in our guide, which is long.</p>
            </article>
            <div class="comments"><p>Great article, loved it, thanks so much for this!</p></div>
          </div>
          <footer><p>Copyright Bird News, all rights reserved, since forever.</p></footer>
        </body></html>"#;
        let url = url::Url::parse("http://127.0.0.1:9/news/owls.html").unwrap();
        let article = extract(html, &url);
        let md = to_markdown(&article.blocks);
        assert!(md.starts_with("# Owls at night\n"), "{md}");
        assert!(md.contains("soft edges"));
        assert!(md.contains("[more about feathers](http://127.0.0.1:9/more)"));
        for noise in [
            "Log in",
            "Archive",
            "newsletter",
            "Great article",
            "Copyright",
        ] {
            assert!(!md.contains(noise), "{noise} in {md}");
        }
        assert_eq!(article.title, "Owls at night | Bird News");
        assert!(article.excerpt.starts_with("Owls hunt at night"));
    }
}
