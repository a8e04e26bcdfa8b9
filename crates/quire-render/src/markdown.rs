//! The page body: CommonMark (tables, footnotes, strikethrough, task lists, math) plus wiki
//! links, embeds and the Obsidian-flavoured constructs of `obsidian.rs`, rewritten event by
//! event before pulldown-cmark's HTML writer sees them. Math is left as TeX in
//! `<span class="math …">` (a page without script cannot typeset it; the web UI does), and
//! mermaid diagrams as their source in `<pre class="mermaid">`.

use pulldown_cmark::{
    CodeBlockKind, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd, TextMergeStream,
};

use crate::escape_html;
use crate::highlight::code_block;
use crate::media::media_html;
use crate::obsidian::{block_id, callouts, highlights, strip_comments, task_box, task_prefix};

/// How deep embedded pages may nest (`![[a]]` showing a page that embeds another …); deeper
/// embeds, and a page embedding itself through any chain, are shown as their name.
pub const MAX_EMBED_DEPTH: usize = 3;

/// The syntax a link was written in: the resolver resolves each by its own rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkKind {
    /// `[[target]]`, `![[target]]`.
    Wiki,
    /// `[text](dest)`, `![alt](dest)`, with `dest` percent-decoded.
    Markdown,
}

/// A link to resolve: its target without `#fragment` (never empty).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkRef<'a> {
    pub kind: LinkKind,
    pub target: &'a str,
}

/// What an embed shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Embed {
    /// An image (or other asset) at this URL.
    Image { src: String },
    /// A page the reader may see, rendered in place: its path (links inside it resolve from
    /// there) and its text.
    Page { path: String, text: String },
}

/// Where links go. Answers `None` for whatever the reader may not see: the link is then shown
/// as plain text and the embed as its name.
pub trait Resolver {
    /// The URL of a link's target, written in the page at `from`.
    fn href(&mut self, from: &str, link: LinkRef<'_>) -> Option<String>;
    /// What an embed written in the page at `from` shows.
    fn embed(&mut self, from: &str, link: LinkRef<'_>) -> Option<Embed>;
}

/// The HTML of a page's body (frontmatter left out), the page being at `path`.
pub fn render(path: &str, text: &str, resolver: &mut dyn Resolver) -> String {
    let mut stack = vec![path.to_string()];
    render_nested(text, resolver, &mut stack)
}

fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS
        | Options::ENABLE_WIKILINKS
        | Options::ENABLE_MATH
}

/// Renders `text`, the page on top of `stack` (the pages embedding it below).
fn render_nested(text: &str, resolver: &mut dyn Resolver, stack: &mut Vec<String>) -> String {
    let text = strip_comments(text);
    // Raw HTML is shown as text: nothing a page says runs in a reader's browser. Done first,
    // so that every `Event::Html` after this point is HTML this crate wrote.
    let mut events: Vec<Event<'_>> = TextMergeStream::new(Parser::new_ext(&text, options()))
        .map(|event| match event {
            Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
            Event::Start(Tag::HtmlBlock) => Event::Html("<pre class=\"raw\">".into()),
            Event::End(TagEnd::HtmlBlock) => Event::Html("</pre>\n".into()),
            other => other,
        })
        .collect();
    name_headings(&mut events);
    callouts(&mut events);
    let from = stack.last().cloned().unwrap_or_default();
    let mut w = Writer::default();
    let mut i = 0;
    while i < events.len() {
        let event = take(&mut events, i);
        i += 1;
        match event {
            Event::Start(Tag::MetadataBlock(_)) => i = end_of(&events, i),
            Event::Start(Tag::CodeBlock(kind)) => {
                let lang = match &kind {
                    CodeBlockKind::Fenced(info) => info.to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                let mut code = String::new();
                while i < events.len() {
                    let inner = take(&mut events, i);
                    i += 1;
                    match inner {
                        Event::End(TagEnd::CodeBlock) => break,
                        Event::Text(t) => code.push_str(&t),
                        _ => {}
                    }
                }
                let html = if lang.split_whitespace().next() == Some("mermaid") {
                    // Diagrams are drawn by the web UI; a page without script shows their source.
                    format!("<pre class=\"mermaid\">{}</pre>\n", escape_html(&code))
                } else {
                    code_block(&lang, &code)
                };
                w.push(Event::Html(html.into()));
            }
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => match link_href(link_type, &dest_url, &from, resolver) {
                Some(href) => {
                    w.links.push(true);
                    w.push(Event::Start(Tag::Link {
                        link_type,
                        dest_url: href,
                        title,
                        id,
                    }));
                }
                None => w.links.push(false),
            },
            Event::End(TagEnd::Link) => {
                if w.links.pop() == Some(true) {
                    w.push(Event::End(TagEnd::Link));
                }
            }
            Event::Start(Tag::Image {
                link_type,
                dest_url,
                ..
            }) => {
                let end = end_of(&events, i);
                let alias = plain_text(&events[i..end.saturating_sub(1)]);
                i = end;
                let html = image(link_type, &dest_url, &alias, resolver, stack);
                w.push(Event::Html(html.into()));
            }
            Event::Start(Tag::Paragraph) => {
                // A paragraph of only an embed showing a block (a page, a PDF, a player) is
                // that block alone: no `<p>` around it.
                if let Some(Event::Start(Tag::Image {
                    link_type,
                    dest_url,
                    ..
                })) = events.get(i)
                {
                    let end = end_of(&events, i + 1);
                    if matches!(events.get(end), Some(Event::End(TagEnd::Paragraph))) {
                        let alias = plain_text(&events[i + 1..end - 1]);
                        let html = image(*link_type, &dest_url.clone(), &alias, resolver, stack);
                        if !html.starts_with("<img")
                            && html.starts_with('<')
                            && !html.starts_with("<a ")
                        {
                            w.push(Event::Html(format!("{html}\n").into()));
                            i = end + 1;
                            continue;
                        }
                    }
                }
                // A paragraph of only `^id` marks the block above: an anchor in its place.
                if let (Some(Event::Text(t)), Some(Event::End(TagEnd::Paragraph))) =
                    (events.get(i), events.get(i + 1))
                {
                    if let Some(("", id)) = block_id(t) {
                        let anchor = format!(
                            "<div class=\"block-anchor\" id=\"^{}\"></div>\n",
                            escape_html(id)
                        );
                        w.push(Event::Html(anchor.into()));
                        i += 2;
                        continue;
                    }
                }
                w.open_block(Event::Start(Tag::Paragraph));
            }
            Event::Start(Tag::Item) => w.open_block(Event::Start(Tag::Item)),
            Event::End(TagEnd::Paragraph) => {
                w.close_mark();
                w.close_block(Event::End(TagEnd::Paragraph));
            }
            Event::End(TagEnd::Item) => {
                w.close_mark();
                w.close_block(Event::End(TagEnd::Item));
            }
            Event::End(end @ (TagEnd::Heading(_) | TagEnd::TableCell)) => {
                w.close_mark();
                w.push(Event::End(end));
            }
            Event::TaskListMarker(done) => {
                let state = if done { 'x' } else { ' ' };
                w.set_task(state);
                w.push(Event::Html(task_box(state).into()));
            }
            Event::Text(mut t) => {
                // `[/] text`: a task of another state, first in its item.
                if w.at_item_start() {
                    if let Some((state, rest)) = task_prefix(&t) {
                        w.set_task(state);
                        w.push(Event::Html(task_box(state).into()));
                        t = rest.to_string().into();
                    }
                }
                // `text ^id` ending a paragraph or item: the id goes on the block.
                let ends_block = matches!(
                    events.get(i),
                    None | Some(Event::End(TagEnd::Paragraph))
                        | Some(Event::End(TagEnd::Item))
                        | Some(Event::Start(Tag::List(_)))
                );
                if ends_block {
                    if let Some((before, id)) = block_id(&t) {
                        let before = before.to_string();
                        if w.set_block_id(id) {
                            t = before.into();
                        }
                    }
                }
                // A `==` left open here may close in a later text of the same block.
                let later = events[i..]
                    .iter()
                    .take_while(|e| {
                        !matches!(
                            e,
                            Event::End(
                                TagEnd::Paragraph
                                    | TagEnd::Item
                                    | TagEnd::Heading(_)
                                    | TagEnd::TableCell
                            )
                        )
                    })
                    .any(|e| matches!(e, Event::Text(t) if t.contains("==")));
                for e in highlights(t, &mut w.mark_open, later) {
                    w.push(e);
                }
            }
            Event::FootnoteReference(name) => {
                let html = w.footnotes.reference(&name);
                w.push(Event::Html(html.into()));
            }
            Event::Start(Tag::FootnoteDefinition(name)) => w.start_footnote(name.to_string()),
            Event::End(TagEnd::FootnoteDefinition) => w.end_footnote(),
            other => w.push(other),
        }
    }
    let footer = w.footnotes.html();
    let mut html = String::with_capacity(text.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, w.out.into_iter());
    html.push_str(&footer);
    html
}

/// Takes the event at `i`, leaving an empty one (every event is read once).
fn take<'a>(events: &mut [Event<'a>], i: usize) -> Event<'a> {
    std::mem::replace(&mut events[i], Event::Html(CowStr::Borrowed("")))
}

/// The index just past the end of the element whose start precedes `i`.
fn end_of(events: &[Event<'_>], mut i: usize) -> usize {
    let mut depth = 1usize;
    while i < events.len() {
        match &events[i] {
            Event::Start(_) => depth += 1,
            Event::End(_) => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// The text of some events (an image's alt text, an embed's alias).
fn plain_text(events: &[Event<'_>]) -> String {
    let mut out = String::new();
    for e in events {
        if let Event::Text(t) | Event::Code(t) = e {
            out.push_str(t);
        }
    }
    out
}

/// A paragraph or list item whose start tag may still gain attributes (a block id, a task
/// state) until it ends.
struct OpenBlock {
    at: usize,
    item: bool,
    id: Option<String>,
    task: Option<char>,
}

/// The events written so far, the blocks open, and the footnotes met.
#[derive(Default)]
struct Writer<'a> {
    out: Vec<Event<'a>>,
    blocks: Vec<OpenBlock>,
    /// Per open link: whether its Start was kept (its End must be too).
    links: Vec<bool>,
    footnotes: Footnotes,
    /// The events written before the footnote definition being read, and its name.
    outside: Option<(String, Vec<Event<'a>>)>,
    /// Whether a `==highlight==` is open.
    mark_open: bool,
}

impl<'a> Writer<'a> {
    fn push(&mut self, e: Event<'a>) {
        self.out.push(e);
    }

    /// Closes a highlight still open at the end of its block.
    fn close_mark(&mut self) {
        if std::mem::take(&mut self.mark_open) {
            self.out.push(Event::Html("</mark>".into()));
        }
    }

    fn open_block(&mut self, e: Event<'a>) {
        let item = matches!(e, Event::Start(Tag::Item));
        self.blocks.push(OpenBlock {
            at: self.out.len(),
            item,
            id: None,
            task: None,
        });
        self.out.push(e);
    }

    fn close_block(&mut self, e: Event<'a>) {
        if let Some(block) = self.blocks.pop() {
            if block.id.is_some() || block.task.is_some() {
                let mut attrs = String::new();
                if let Some(id) = &block.id {
                    attrs.push_str(&format!(" id=\"^{}\"", escape_html(id)));
                }
                if let Some(state) = block.task {
                    attrs.push_str(&format!(
                        " class=\"task\" data-task=\"{}\"",
                        escape_html(&state.to_string())
                    ));
                }
                let tag = if block.item { "li" } else { "p" };
                if block.at < self.out.len() {
                    self.out[block.at] = Event::Html(format!("<{tag}{attrs}>").into());
                }
            }
        }
        self.out.push(e);
    }

    /// Whether nothing but the innermost item's start (and its paragraph's) is written yet.
    fn at_item_start(&self) -> bool {
        let n = self.blocks.len();
        match self.blocks.last() {
            Some(b) if b.item => b.at + 1 == self.out.len(),
            Some(b) if n >= 2 && self.blocks[n - 2].item => {
                b.at + 1 == self.out.len() && self.blocks[n - 2].at + 1 == b.at
            }
            _ => false,
        }
    }

    fn set_task(&mut self, state: char) {
        if let Some(item) = self.blocks.iter_mut().rev().find(|b| b.item) {
            item.task = Some(state);
        }
    }

    /// Gives the innermost open block the id; false when there is none.
    fn set_block_id(&mut self, id: &str) -> bool {
        match self.blocks.last_mut() {
            Some(b) if b.id.is_none() => {
                b.id = Some(id.to_string());
                true
            }
            _ => false,
        }
    }

    fn start_footnote(&mut self, name: String) {
        let before = std::mem::take(&mut self.out);
        self.outside = Some((name, before));
    }

    fn end_footnote(&mut self) {
        if let Some((name, before)) = self.outside.take() {
            let body = std::mem::replace(&mut self.out, before);
            let mut html = String::new();
            pulldown_cmark::html::push_html(&mut html, body.into_iter());
            self.footnotes.define(name, html);
        }
    }
}

/// Footnotes: numbered in the order of their first reference, listed at the end of the page
/// with a link back to it.
#[derive(Default)]
struct Footnotes {
    /// Names by number (from 1), and how often each was referenced.
    order: Vec<(String, usize)>,
    bodies: Vec<(String, String)>,
}

impl Footnotes {
    fn number(&mut self, name: &str) -> usize {
        match self.order.iter().position(|(n, _)| n == name) {
            Some(i) => i + 1,
            None => {
                self.order.push((name.to_string(), 0));
                self.order.len()
            }
        }
    }

    fn reference(&mut self, name: &str) -> String {
        let n = self.number(name);
        let refs = &mut self.order[n - 1].1;
        *refs += 1;
        let slug = escape_html(&quire_syntax::slug(name));
        let id = if *refs == 1 {
            format!("fnref-{slug}")
        } else {
            format!("fnref-{slug}-{refs}")
        };
        format!("<sup class=\"footnote-ref\"><a href=\"#fn-{slug}\" id=\"{id}\">{n}</a></sup>")
    }

    fn define(&mut self, name: String, html: String) {
        self.bodies.push((name, html));
    }

    /// The list of footnotes ending the page (nothing when it has none).
    fn html(&mut self) -> String {
        if self.bodies.is_empty() {
            return String::new();
        }
        let names: Vec<String> = self.bodies.iter().map(|(n, _)| n.clone()).collect();
        for name in &names {
            self.number(name);
        }
        let mut out =
            String::from("<section class=\"footnotes\" aria-label=\"Footnotes\">\n<ol>\n");
        for (name, refs) in &self.order {
            let Some((_, body)) = self.bodies.iter().find(|(n, _)| n == name) else {
                continue;
            };
            let slug = escape_html(&quire_syntax::slug(name));
            let back = if *refs > 0 {
                format!(" <a class=\"footnote-back\" href=\"#fnref-{slug}\" aria-label=\"Back to the text\">↩</a>")
            } else {
                String::new()
            };
            out.push_str(&format!(
                "<li id=\"fn-{slug}\">\n{}{back}</li>\n",
                body.trim_end()
            ));
        }
        out.push_str("</ol>\n</section>\n");
        out
    }
}

/// Gives every heading the `id` that `[[page#Heading]]` links point at (the slug of its text),
/// replacing any written in the markdown.
fn name_headings(events: &mut [Event<'_>]) {
    let mut i = 0;
    while i < events.len() {
        if let Event::Start(Tag::Heading { .. }) = &events[i] {
            let mut text = String::new();
            let mut j = i + 1;
            while j < events.len() {
                match &events[j] {
                    Event::End(TagEnd::Heading(_)) => break,
                    Event::Text(t) | Event::Code(t) => text.push_str(t),
                    _ => {}
                }
                j += 1;
            }
            if let Event::Start(Tag::Heading {
                id, classes, attrs, ..
            }) = &mut events[i]
            {
                let slug = quire_syntax::slug(&text);
                *id = (!slug.is_empty()).then(|| slug.into());
                classes.clear();
                attrs.clear();
            }
            i = j;
        }
        i += 1;
    }
}

/// `scheme:` at the start of a destination, lowercased.
fn scheme(dest: &str) -> Option<String> {
    let (head, _) = dest.split_once(':')?;
    let mut chars = head.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then(|| head.to_ascii_lowercase())
}

/// Links leave the site only for the web and e-mail.
fn safe_external(dest: &str) -> bool {
    matches!(
        scheme(dest).as_deref(),
        Some("http") | Some("https") | Some("mailto")
    )
}

/// `#Heading` → `#heading`; a block reference `#^id` → `#^id`, the id its block carries.
fn anchor(fragment: Option<&str>) -> String {
    match fragment.map(str::trim) {
        Some(f) if f.starts_with('^') => format!("#{f}"),
        Some(f) if !f.is_empty() => format!("#{}", quire_syntax::slug(f)),
        _ => String::new(),
    }
}

/// The href a link gets, or `None` to show its text only.
fn link_href<'a>(
    link_type: LinkType,
    dest: &str,
    from: &str,
    resolver: &mut dyn Resolver,
) -> Option<CowStr<'a>> {
    match link_type {
        LinkType::Email => Some(dest.to_string().into()),
        LinkType::WikiLink { .. } => {
            let (target, fragment) = split_fragment(dest);
            let target = target.trim();
            if target.is_empty() {
                return Some(anchor(fragment).into()).filter(|a: &CowStr| !a.is_empty());
            }
            let href = resolver.href(
                from,
                LinkRef {
                    kind: LinkKind::Wiki,
                    target,
                },
            )?;
            Some(format!("{href}{}", anchor(fragment)).into())
        }
        _ => {
            let dest = dest.trim();
            if dest.is_empty() {
                return None;
            }
            if let Some(fragment) = dest.strip_prefix('#') {
                return Some(format!("#{}", quire_syntax::slug(fragment)).into());
            }
            if scheme(dest).is_some() || dest.starts_with("//") {
                return (safe_external(dest) || dest.starts_with("//"))
                    .then(|| dest.to_string().into());
            }
            let (target, fragment) = split_fragment(dest);
            let decoded = quire_syntax::percent_decode(target);
            if decoded.is_empty() {
                return None;
            }
            let href = resolver.href(
                from,
                LinkRef {
                    kind: LinkKind::Markdown,
                    target: &decoded,
                },
            )?;
            Some(format!("{href}{}", anchor(fragment)).into())
        }
    }
}

fn split_fragment(dest: &str) -> (&str, Option<&str>) {
    match dest.split_once('#') {
        Some((target, fragment)) => (target, Some(fragment)),
        None => (dest, None),
    }
}

/// The HTML of an image or embed (`alias`: its alt text, or the alias after `|`).
fn image(
    link_type: LinkType,
    dest: &str,
    alias: &str,
    resolver: &mut dyn Resolver,
    stack: &mut Vec<String>,
) -> String {
    let from = stack.last().cloned().unwrap_or_default();
    let dest = dest.trim();
    let (kind, target, fragment) = match link_type {
        LinkType::WikiLink { .. } => {
            let (target, fragment) = split_fragment(dest);
            (LinkKind::Wiki, target.trim().to_string(), fragment)
        }
        _ => {
            if scheme(dest).is_some() || dest.starts_with("//") {
                let web = matches!(scheme(dest).as_deref(), Some("http") | Some("https"))
                    || dest.starts_with("//");
                return if web {
                    media_html(dest, dest, alias)
                } else {
                    escape_html(alias)
                };
            }
            let (target, fragment) = split_fragment(dest);
            (
                LinkKind::Markdown,
                quire_syntax::percent_decode(target),
                fragment,
            )
        }
    };
    // Without a page or file: its alias, else its name, as text.
    let name = || {
        let shown = if alias.is_empty() || alias == dest {
            &target
        } else {
            alias
        };
        escape_html(shown)
    };
    if target.is_empty() {
        return name();
    }
    let link = LinkRef {
        kind,
        target: &target,
    };
    match resolver.embed(&from, link) {
        Some(Embed::Image { src }) => {
            let alias = if alias == dest { "" } else { alias };
            media_html(&src, &target, alias)
        }
        Some(Embed::Page { path, text }) => {
            if stack.len() > MAX_EMBED_DEPTH || stack.contains(&path) {
                // Too deep, or a cycle: a link to the page instead of its text.
                return match resolver.href(&from, link) {
                    Some(href) => format!(
                        "<a href=\"{}{}\">{}</a>",
                        escape_html(&href),
                        escape_html(&anchor(fragment)),
                        escape_html(&target)
                    ),
                    None => name(),
                };
            }
            // `page#Heading` shows that section, `page#^id` that block.
            let parsed = quire_syntax::parse(&text);
            let part = match fragment.map(str::trim).filter(|f| !f.is_empty()) {
                None => Some(text[parsed.body_start.min(text.len())..].to_string()),
                Some(f) if f.starts_with('^') => {
                    quire_syntax::block(&text, &parsed, f).map(|p| p.content)
                }
                Some(f) => quire_syntax::heading_section(&text, &parsed, f).map(|p| p.content),
            };
            let Some(part) = part else {
                return name();
            };
            stack.push(path);
            let inner = render_nested(&part, resolver, stack);
            stack.pop();
            format!("<div class=\"embed\">{inner}</div>")
        }
        None => name(),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// Pages by name: `Some(text)` published, `None` private; `img.png` is an asset.
    struct Site(BTreeMap<&'static str, Option<&'static str>>);

    impl Resolver for Site {
        fn href(&mut self, _from: &str, link: LinkRef<'_>) -> Option<String> {
            let name = link.target.trim_end_matches(".md");
            match self.0.get(name) {
                Some(Some(_)) => Some(format!("/p/{name}")),
                _ => None,
            }
        }

        fn embed(&mut self, _from: &str, link: LinkRef<'_>) -> Option<Embed> {
            if link.target == "img.png" {
                return Some(Embed::Image {
                    src: "/p/img.png".into(),
                });
            }
            let name = link.target.trim_end_matches(".md");
            let text = (*self.0.get(name)?)?;
            Some(Embed::Page {
                path: format!("{name}.md"),
                text: text.to_string(),
            })
        }
    }

    fn site() -> Site {
        Site(BTreeMap::from([
            ("public", Some("# Public\n\nshown")),
            ("private", None),
            ("loop", Some("before ![[loop]] after")),
            ("a", Some("A ![[b]]")),
            ("b", Some("B ![[c]]")),
            ("c", Some("C ![[d]]")),
            ("d", Some("D ![[public]]")),
        ]))
    }

    fn html(text: &str) -> String {
        render("page.md", text, &mut site())
    }

    #[test]
    fn wiki_links_to_visible_pages_link_and_others_are_plain_text() {
        let out = html("See [[public]], [[private|the secret]] and [[public#Some Heading|here]].");
        assert!(out.contains("<a href=\"/p/public\">public</a>"), "{out}");
        assert!(out.contains("the secret"), "{out}");
        assert!(!out.contains("private"), "{out}");
        assert!(
            out.contains("<a href=\"/p/public#some-heading\">here</a>"),
            "{out}"
        );
    }

    #[test]
    fn raw_html_and_script_are_shown_as_text() {
        let out = html(
            "<script>alert(1)</script>\n\nInline <img src=x onerror=alert(1)> and <b>bold</b>.\n",
        );
        assert!(!out.contains("<script"), "{out}");
        assert!(!out.contains("<img"), "{out}");
        assert!(!out.contains("<b>"), "{out}");
        assert!(out.contains("&lt;script&gt;"), "{out}");
    }

    #[test]
    fn only_web_and_mail_links_leave_the_site() {
        let out = html(
            "[a](javascript:alert(1)) [b](https://example.com/x?y=1&z=2) [c](mailto:a@b.c) \
             [d](data:text/html,<script>x</script>) ![e](javascript:x) [f](JaVaScRiPt:x)",
        );
        assert!(!out.to_ascii_lowercase().contains("javascript"), "{out}");
        assert!(!out.contains("data:"), "{out}");
        assert!(
            out.contains("href=\"https://example.com/x?y=1&amp;z=2\""),
            "{out}"
        );
        assert!(out.contains("href=\"mailto:a@b.c\""), "{out}");
    }

    #[test]
    fn markdown_links_resolve_through_the_resolver() {
        let out = html("[pub](public.md#Intro) [priv](private.md) [top](#Top Part)");
        assert!(out.contains("<a href=\"/p/public#intro\">pub</a>"), "{out}");
        assert!(!out.contains("private.md"), "{out}");
        assert!(out.contains("priv"), "{out}");
    }

    #[test]
    fn embeds_show_images_and_visible_pages_and_stop_at_cycles_and_depth() {
        let out = html("![[img.png]]\n\n![[public]]\n\n![[private]]\n\n![[loop]]\n\n![[a]]");
        assert!(out.contains("<img src=\"/p/img.png\""), "{out}");
        assert!(
            out.contains("<div class=\"embed\"><h1 id=\"public\">Public</h1>"),
            "{out}"
        );
        assert!(out.contains("private"), "shown as its name: {out}");
        // The loop embeds itself once, then links.
        assert_eq!(out.matches("before").count(), 1, "{out}");
        assert!(out.contains("<a href=\"/p/loop\">loop</a>"), "{out}");
        // a → b → c → d: d is beyond the depth, shown as a link.
        assert!(out.contains("C "), "{out}");
        assert!(!out.contains("D "), "{out}");
        assert!(out.contains("<a href=\"/p/d\">d</a>"), "{out}");
    }

    #[test]
    fn headings_get_slug_ids_and_frontmatter_is_left_out() {
        let out = html("---\ntitle: x\nsecret: y\n---\n# Hello World {#evil .cls}\n\ntext\n");
        assert!(!out.contains("secret"), "{out}");
        assert!(out.contains("<h1 id=\"hello-world"), "{out}");
    }

    #[test]
    fn fenced_code_is_highlighted_and_escaped() {
        let out = html("```rust\nlet s = \"<script>\";\n```\n");
        assert!(out.contains("language-rust"), "{out}");
        assert!(!out.contains("<script>"), "{out}");
    }
}
