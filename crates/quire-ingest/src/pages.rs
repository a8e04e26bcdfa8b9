//! A converted document as pages: one (`single`) or one per top-level heading section
//! (`heading`) with an index page before them; keywords per page; the document's internal
//! links (and the split pages' up/previous/next lines) as wiki links between the pages.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::markdown::{anchor_id, plain, to_markdown, Block, ANCHOR_SCHEME};
use crate::{slug, Document, IngestError};

/// How a document becomes pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SplitMode {
    /// One page holding the whole document.
    #[default]
    Single,
    /// An index page (the title, the text before the first top-level heading, a list of the
    /// sections) and one page per top-level heading section.
    Heading,
}

impl SplitMode {
    pub fn parse(text: &str) -> Result<SplitMode, IngestError> {
        match text.trim() {
            "" | "single" => Ok(SplitMode::Single),
            "heading" | "headings" => Ok(SplitMode::Heading),
            other => Err(IngestError::BadRequest(format!(
                "`split_mode` is `single` or `heading`, not {other:?}"
            ))),
        }
    }
}

#[derive(Debug, Clone)]
pub struct PageOptions {
    pub split: SplitMode,
    /// The folder of the pages (`""` for the root), without a trailing `/`.
    pub prefix: String,
    /// The name the document's page takes (the file's stem), before slugging.
    pub stem: String,
    /// Keywords per page: at most this many (none when 0).
    pub keywords: usize,
    /// Internal links become wiki links, and split pages link up, back and on.
    pub crossrefs: bool,
    pub max_pages: usize,
}

/// One page to write.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// Root-relative, ending in `.md`.
    pub path: String,
    pub title: String,
    /// The markdown body (no frontmatter).
    pub body: String,
    pub keywords: Vec<String>,
}

/// A page before its links are written: its path, title and blocks.
struct Draft {
    path: String,
    title: String,
    blocks: Vec<Block>,
}

/// Cuts `doc` into pages.
pub fn paginate(doc: &Document, opts: &PageOptions) -> Result<Vec<Page>, IngestError> {
    let stem = match slug(&opts.stem) {
        s if s.is_empty() => "document".to_string(),
        s => s,
    };
    let folder = if opts.prefix.is_empty() {
        String::new()
    } else {
        format!("{}/", opts.prefix.trim_matches('/'))
    };
    let title = doc.title().unwrap_or_else(|| opts.stem.clone());
    let top = doc
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Heading { level, .. } => Some(*level),
            _ => None,
        })
        .min();
    let mut drafts = Vec::new();
    match (opts.split, top) {
        (SplitMode::Heading, Some(top)) => {
            let first = doc
                .blocks
                .iter()
                .position(|b| matches!(b, Block::Heading { level, .. } if *level == top))
                .unwrap_or(doc.blocks.len());
            let mut index = vec![Block::Heading {
                level: 1,
                text: crate::markdown::escape(&title),
            }];
            index.extend(doc.blocks[..first].iter().cloned());
            drafts.push(Draft {
                path: format!("{folder}{stem}.md"),
                title: title.clone(),
                blocks: index,
            });
            let mut used = HashSet::new();
            let mut rest = &doc.blocks[first..];
            while let Some(head) = rest.first() {
                let end = rest[1..]
                    .iter()
                    .position(|b| matches!(b, Block::Heading { level, .. } if *level == top))
                    .map_or(rest.len(), |p| p + 1);
                let heading = head.plain();
                let mut name = match slug(&heading) {
                    s if s.is_empty() => format!("section-{}", drafts.len()),
                    s => s,
                };
                if !used.insert(name.clone()) {
                    let mut n = 2;
                    while !used.insert(format!("{name}-{n}")) {
                        n += 1;
                    }
                    name = format!("{name}-{n}");
                }
                let blocks = rest[..end]
                    .iter()
                    .map(|b| match b {
                        Block::Heading { level, text } => Block::Heading {
                            level: level - top + 1,
                            text: text.clone(),
                        },
                        b => b.clone(),
                    })
                    .collect();
                drafts.push(Draft {
                    path: format!("{folder}{stem}/{name}.md"),
                    title: if heading.is_empty() {
                        format!("{title} ({})", drafts.len())
                    } else {
                        heading
                    },
                    blocks,
                });
                rest = &rest[end..];
            }
        }
        _ => drafts.push(Draft {
            path: format!("{folder}{stem}.md"),
            title: title.clone(),
            blocks: doc.blocks.clone(),
        }),
    }
    if drafts.len() > opts.max_pages {
        return Err(IngestError::TooLarge(format!(
            "the document makes {} pages, more than {} (split it less)",
            drafts.len(),
            opts.max_pages
        )));
    }
    let targets = anchor_targets(&drafts);
    let split = drafts.len() > 1;
    let mut pages = Vec::new();
    for (i, draft) in drafts.iter().enumerate() {
        let mut body = to_markdown(&draft.blocks);
        body = rewrite_anchor_links(&body, i, &drafts, &targets, opts.crossrefs);
        if split && i == 0 {
            body.push_str("\n## Contents\n\n");
            for d in &drafts[1..] {
                body.push_str(&format!("- {}\n", wiki(&d.path, None, &d.title)));
            }
        } else if split && opts.crossrefs {
            let mut nav = vec![format!(
                "Up: {}",
                wiki(&drafts[0].path, None, &drafts[0].title)
            )];
            if i > 1 {
                let p = &drafts[i - 1];
                nav.push(format!("Previous: {}", wiki(&p.path, None, &p.title)));
            }
            if let Some(n) = drafts.get(i + 1) {
                nav.push(format!("Next: {}", wiki(&n.path, None, &n.title)));
            }
            body.push_str(&format!("\n---\n\n{}\n", nav.join(" · ")));
        }
        let keywords = if opts.keywords == 0 {
            Vec::new()
        } else {
            let text: Vec<String> = draft.blocks.iter().map(Block::plain).collect();
            keywords(&text.join("\n"), opts.keywords)
        };
        pages.push(Page {
            path: draft.path.clone(),
            title: draft.title.clone(),
            body,
            keywords,
        });
    }
    Ok(pages)
}

/// Each anchor's page and the heading it falls under there (`None`: the page's top).
fn anchor_targets(drafts: &[Draft]) -> HashMap<String, (usize, Option<String>)> {
    let mut out = HashMap::new();
    for (i, d) in drafts.iter().enumerate() {
        let mut heading: Option<String> = None;
        for (n, b) in d.blocks.iter().enumerate() {
            match b {
                Block::Heading { .. } if n > 0 || i == 0 => heading = Some(b.plain()),
                Block::Anchor(name) => {
                    out.entry(name.clone()).or_insert((i, heading.clone()));
                }
                _ => {}
            }
        }
    }
    out
}

/// A wiki link to `path` (its `.md` dropped), with a heading and an alias.
fn wiki(path: &str, heading: Option<&str>, alias: &str) -> String {
    let target = path.strip_suffix(".md").unwrap_or(path);
    let clean = |t: &str| {
        t.replace(['[', ']', '|', '#', '\n'], " ")
            .trim()
            .to_string()
    };
    let mut out = format!("[[{target}");
    if let Some(h) = heading {
        out.push('#');
        out.push_str(&clean(h));
    }
    let alias = clean(alias);
    if !alias.is_empty() {
        out.push('|');
        out.push_str(&alias);
    }
    out.push_str("]]");
    out
}

/// Rewrites `[text](quire-anchor:NAME)` links: a wiki link to the page (and heading) holding
/// the anchor, or the text alone when the target is unknown or cross-references are off.
fn rewrite_anchor_links(
    body: &str,
    page: usize,
    drafts: &[Draft],
    targets: &HashMap<String, (usize, Option<String>)>,
    crossrefs: bool,
) -> String {
    let marker = format!("]({ANCHOR_SCHEME}");
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(at) = rest.find(&marker) {
        let Some(open) = opening_bracket(&rest[..at]) else {
            out.push_str(&rest[..at + marker.len()]);
            rest = &rest[at + marker.len()..];
            continue;
        };
        let after = &rest[at + marker.len()..];
        let close = after.find(')').unwrap_or(after.len());
        let name = &after[..close];
        let text = &rest[open + 1..at];
        out.push_str(&rest[..open]);
        let target = targets.get(name).or_else(|| {
            name.split_once("%23")
                .and_then(|(file, _)| targets.get(file))
        });
        match target {
            Some((p, heading)) if crossrefs => {
                let alias = plain(text);
                if *p == page {
                    match heading {
                        Some(h) => out.push_str(&format!(
                            "[[#{}|{}]]",
                            h.replace(['[', ']', '|', '#'], " ").trim(),
                            alias.replace(['[', ']', '|'], " ").trim()
                        )),
                        None => out.push_str(text),
                    }
                } else {
                    out.push_str(&wiki(&drafts[*p].path, heading.as_deref(), &alias));
                }
            }
            _ => out.push_str(text),
        }
        rest = &after[(close + 1).min(after.len())..];
    }
    out.push_str(rest);
    out
}

/// The `[` opening the link text that ends at the end of `before` (escaped brackets skipped).
fn opening_bracket(before: &str) -> Option<usize> {
    let bytes = before.as_bytes();
    let mut depth = 0usize;
    let mut i = bytes.len();
    while i > 0 {
        i -= 1;
        let escaped = i > 0 && bytes[i - 1] == b'\\';
        match bytes[i] {
            b']' if !escaped => depth += 1,
            b'[' if !escaped => {
                if depth == 0 {
                    return Some(i);
                }
                depth -= 1;
            }
            b'\n' => return None,
            _ => {}
        }
    }
    None
}

/// Words too common to say what a text is about (English; the others pass the length rule).
const STOP_WORDS: &[&str] = &[
    "about",
    "above",
    "after",
    "again",
    "against",
    "also",
    "although",
    "among",
    "another",
    "anyone",
    "anything",
    "around",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "cannot",
    "could",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "either",
    "else",
    "enough",
    "even",
    "ever",
    "every",
    "from",
    "further",
    "good",
    "have",
    "having",
    "here",
    "hers",
    "herself",
    "himself",
    "however",
    "into",
    "itself",
    "just",
    "least",
    "less",
    "like",
    "made",
    "make",
    "makes",
    "many",
    "more",
    "most",
    "much",
    "must",
    "myself",
    "need",
    "never",
    "next",
    "none",
    "only",
    "other",
    "others",
    "ours",
    "ourselves",
    "over",
    "same",
    "shall",
    "should",
    "since",
    "some",
    "still",
    "such",
    "than",
    "that",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "though",
    "through",
    "thus",
    "under",
    "until",
    "upon",
    "very",
    "want",
    "well",
    "were",
    "what",
    "whatever",
    "when",
    "where",
    "whether",
    "which",
    "while",
    "whom",
    "whose",
    "will",
    "with",
    "within",
    "without",
    "would",
    "your",
    "yours",
    "yourself",
    "yourselves",
    "first",
    "second",
    "page",
    "pages",
    "part",
    "section",
    "chapter",
    "slide",
    "used",
    "using",
    "uses",
    "use",
    "may",
    "might",
    "can",
    "one",
    "two",
    "three",
    "new",
    "way",
    "ways",
    "thing",
    "things",
    "http",
    "https",
    "www",
    "com",
];

/// The `max` most frequent meaningful words of `text`: lowercased words of four or more
/// letters (digits and words holding digits are left out), not stop words, found at least
/// twice; ties in alphabetical order.
pub fn keywords(text: &str, max: usize) -> Vec<String> {
    let stop: HashSet<&str> = STOP_WORDS.iter().copied().collect();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for word in text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’')) {
        let word = word.trim_matches(|c| c == '\'' || c == '’');
        let word = word
            .strip_suffix("'s")
            .or_else(|| word.strip_suffix("’s"))
            .unwrap_or(word);
        if word.chars().count() < 4 || !word.chars().all(char::is_alphabetic) {
            continue;
        }
        let lower = word.to_lowercase();
        if stop.contains(lower.as_str()) {
            continue;
        }
        *counts.entry(lower).or_default() += 1;
    }
    let mut ranked: Vec<(String, usize)> = counts.into_iter().filter(|(_, n)| *n >= 2).collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    ranked.into_iter().take(max).map(|(w, _)| w).collect()
}

/// An anchor name as the converters write it (re-exported for tests of the converters).
pub fn anchor(raw: &str) -> String {
    anchor_id(raw)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::anchor_link;

    fn h(level: u8, text: &str) -> Block {
        Block::Heading {
            level,
            text: text.into(),
        }
    }

    fn p(text: &str) -> Block {
        Block::Paragraph(text.into())
    }

    fn opts(split: SplitMode) -> PageOptions {
        PageOptions {
            split,
            prefix: "docs/in".into(),
            stem: "Field Guide".into(),
            keywords: 3,
            crossrefs: true,
            max_pages: 100,
        }
    }

    #[test]
    fn heading_split_makes_an_index_and_linked_sections() {
        let doc = Document {
            title: Some("The Guide".into()),
            blocks: vec![
                p("Intro text."),
                h(2, "Birds"),
                p(&format!("See [the trees]({}).", anchor_link("trees"))),
                h(3, "Owls"),
                h(2, "Trees"),
                Block::Anchor(anchor_id("trees")),
                p("Oaks and oaks."),
            ],
        };
        let pages = paginate(&doc, &opts(SplitMode::Heading)).unwrap();
        let paths: Vec<&str> = pages.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "docs/in/field-guide.md",
                "docs/in/field-guide/birds.md",
                "docs/in/field-guide/trees.md"
            ]
        );
        assert!(pages[0].body.starts_with("# The Guide\n\nIntro text.\n"));
        assert!(pages[0].body.contains(
            "- [[docs/in/field-guide/birds|Birds]]\n- [[docs/in/field-guide/trees|Trees]]"
        ));
        assert!(pages[1].body.starts_with("# Birds\n"), "{}", pages[1].body);
        assert!(pages[1].body.contains("## Owls"));
        assert!(pages[1]
            .body
            .contains("See [[docs/in/field-guide/trees|the trees]]."));
        assert!(pages[1].body.contains(
            "Up: [[docs/in/field-guide|The Guide]] · Next: [[docs/in/field-guide/trees|Trees]]"
        ));
        assert_eq!(pages[2].keywords, ["oaks"]);
    }

    #[test]
    fn without_headings_a_split_is_one_page() {
        let doc = Document {
            title: None,
            blocks: vec![p("Only text.")],
        };
        let pages = paginate(&doc, &opts(SplitMode::Heading)).unwrap();
        assert_eq!(pages.len(), 1);
        assert_eq!(pages[0].title, "Field Guide");
    }

    #[test]
    fn keywords_are_frequent_meaningful_words() {
        let text = "The river floods. The river rises; rivers and the river's banks. \
                    Banks hold. Which which which 2024 2024.";
        assert_eq!(keywords(text, 5), ["river", "banks"]);
    }
}
