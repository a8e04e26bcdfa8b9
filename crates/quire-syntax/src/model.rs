//! The parsed-page data model: plain data with byte spans into the page text.

use std::ops::Range;

use serde::Serialize;

/// Which family of link syntax an occurrence was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkKind {
    /// `[[target]]`, `[[target|alias]]`, `[[target#frag]]`, `![[embed]]`, also inside frontmatter.
    Wiki,
    /// Inline markdown link or image: `[text](dest)`, `![alt](dest "title")`, `[t](<dest>)`.
    Markdown,
    /// Reference definition: `[label]: dest "title"`.
    MarkdownReference,
    /// A file reference in a `*.canvas.json` node (`file` or `data.file`).
    Canvas,
}

/// Where in the file the link occurrence stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "in")]
pub enum LinkPlace {
    Body,
    /// A string value (or list item) of the frontmatter; `key` is the top-level key.
    Frontmatter {
        key: String,
    },
    Canvas,
}

/// One link occurrence in a page.
///
/// `target_span` covers exactly the bytes of the target path as written (no `#fragment`,
/// no `|alias`, no `<` `>` brackets), so a rewrite replaces those bytes and nothing else.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Link {
    pub kind: LinkKind,
    pub place: LinkPlace,
    /// `![[…]]` or `![…](…)`.
    pub embed: bool,
    /// Bytes of the whole occurrence, e.g. `[[a/b|c]]` or `[t](x.md "y")`.
    pub span: Range<usize>,
    /// Bytes of the target path as written.
    pub target_span: Range<usize>,
    /// The target path: as written for wiki links, percent-decoded for markdown links.
    /// Empty for a same-page link such as `[[#Heading]]`.
    pub target: String,
    /// Text after `#` (heading or `^block`), without the `#`.
    pub fragment: Option<String>,
    /// Wiki alias after `|`, or the markdown link text.
    pub alias: Option<String>,
    /// Markdown link title (`"title"`).
    pub title: Option<String>,
    /// Markdown destination written in angle brackets `<…>`.
    pub angle: bool,
    /// 1-based line number of the start of the occurrence.
    pub line: u32,
}

/// An ATX (`## x`) or setext heading.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Heading {
    pub level: u8,
    pub text: String,
    pub slug: String,
    /// 1-based line number.
    pub line: u32,
    /// Bytes of the whole heading line(s), without the final newline.
    pub span: Range<usize>,
}

/// A tag: inline `#tag` in the body, or an entry of the frontmatter `tags` key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Tag {
    /// The tag without `#`.
    pub name: String,
    /// Bytes of the tag text (inline: including `#`), `None` when it came from
    /// a frontmatter form the parser could not locate byte-exactly.
    pub span: Option<Range<usize>>,
    pub line: u32,
    pub in_frontmatter: bool,
}

/// A block id `^id` at the end of a line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlockId {
    pub id: String,
    pub line: u32,
}

/// The frontmatter block of a page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Frontmatter {
    /// Bytes from the opening `---` through the closing fence line (including its newline).
    pub span: Range<usize>,
    /// Bytes of the YAML between the fences.
    pub yaml_span: Range<usize>,
    /// The parsed mapping, or `Null` when the YAML is not a mapping or does not parse
    /// (then `diagnostics` says why).
    pub value: serde_json::Value,
}

/// A problem the parser noticed; parsing itself never fails.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub line: u32,
    pub message: String,
}

/// Everything quire knows about one page's text.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct ParsedPage {
    pub frontmatter: Option<Frontmatter>,
    /// Byte offset where the body starts (after the frontmatter block, or 0).
    pub body_start: usize,
    pub headings: Vec<Heading>,
    pub links: Vec<Link>,
    pub tags: Vec<Tag>,
    pub block_ids: Vec<BlockId>,
    /// Byte ranges of code in the body: fenced blocks (fences included), indented code
    /// lines and inline code spans (backticks included), in text order. Text edits that
    /// must leave code alone (`replace`, tag renames) skip them.
    pub code: Vec<Range<usize>>,
    pub diagnostics: Vec<Diagnostic>,
}
