//! Pure markdown model of quire: page text in, plain data with exact byte spans out.
//!
//! No I/O and no failure on user content: [`parse`] accepts any `&str` and reports problems
//! as [`Diagnostic`]s. Besides reading, this crate owns the two ways quire writes page text:
//! the one link printer ([`print_target`], [`replace_spans`]) and the line-preserving
//! [`FrontmatterEditor`].

mod body;
mod canvas;
mod editor;
mod escape;
mod frontmatter;
mod inline;
mod model;
mod printer;
mod section;
mod simple_yaml;
mod slug;
mod yaml_json;

pub use canvas::parse_canvas;
pub use editor::FrontmatterEditor;
/// The guard in front of every YAML reader: brackets nesting past the reader's recursion
/// limit are refused before the reader sees them (its flow parser slows down with the square
/// of the depth: 100,000 levels took minutes).
pub use frontmatter::{
    nests_deeper_than as yaml_nests_deeper_than, MAX_FLOW_DEPTH as YAML_MAX_FLOW_DEPTH,
};
pub use model::*;
pub use printer::{
    percent_decode, percent_decode_strict, print_target, relink_checked, replace_spans,
    target_edit, try_replace_spans, PercentError, SpanError,
};
pub use section::{block, heading_section, section_at, Part};
pub use slug::slug;

/// Inner readers the fuzz targets of `fuzz/` compare with each other; not an API.
#[doc(hidden)]
pub mod fuzzing {
    use serde_json::{Map, Value};

    /// The YAML fast path: the mapping, or `None` outside the subset it reads.
    pub fn fast_yaml(yaml: &str) -> Option<Map<String, Value>> {
        crate::simple_yaml::read(yaml)
    }

    /// `serde_yaml_ng`, which the fast path must agree with wherever it accepts (without the
    /// nesting guard the page parser puts before it: it refuses some valid YAML, such as a
    /// comment of 200 `[`, that the fast path reads).
    pub fn full_yaml(yaml: &str) -> Result<Value, crate::Diagnostic> {
        crate::frontmatter::full_parse(yaml)
    }

    /// The page parser's full path: the nesting guard, then `serde_yaml_ng`.
    pub fn guarded_yaml(yaml: &str) -> Result<Value, crate::Diagnostic> {
        crate::frontmatter::parse_yaml(yaml)
    }
}

/// Only the frontmatter of a page, cheaper than [`parse`] when the body is not needed.
pub fn parse_frontmatter(text: &str) -> Option<Frontmatter> {
    let block = frontmatter::locate(text)?;
    let mut page = ParsedPage::default();
    frontmatter::read(text, &block, &mut page);
    page.frontmatter
}

/// Where a page's body starts: the byte after its frontmatter block, 0 without one. Only
/// finds the block's fences, so it is cheaper still than [`parse_frontmatter`].
pub fn body_start(text: &str) -> usize {
    frontmatter::locate(text).map_or(0, |block| block.span.end)
}

/// Parses a page: frontmatter, headings, links, tags and block ids, in one pass.
///
/// Links, headings, tags and block ids come in the order they appear in the text
/// (frontmatter first).
pub fn parse(text: &str) -> ParsedPage {
    let mut page = ParsedPage::default();
    // Realistic pages hold a link every hundred bytes or so: one allocation instead of
    // several regrowths, capped so a long link-free text does not reserve much.
    page.links.reserve((text.len() / 128).min(32));
    let mut first_line = 1;
    if let Some(block) = frontmatter::locate(text) {
        frontmatter::read(text, &block, &mut page);
        page.body_start = block.span.end;
        first_line += text.as_bytes()[..block.span.end]
            .iter()
            .filter(|&&c| c == b'\n')
            .count() as u32;
    }
    body::scan(text, page.body_start, first_line, &mut page);
    // Links inside a markdown link's text (`[![img](a.png)](b.md)`) are found before the
    // link around them.
    if page
        .links
        .windows(2)
        .any(|w| w[0].span.start > w[1].span.start)
    {
        page.links.sort_by_key(|link| link.span.start);
    }
    page
}
