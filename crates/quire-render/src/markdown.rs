//! The page body: CommonMark (tables, footnotes, strikethrough, task lists) plus wiki links and
//! embeds, rewritten event by event before pulldown-cmark's HTML writer sees them.

use pulldown_cmark::{CodeBlockKind, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

use crate::escape_html;
use crate::highlight::code_block;

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
}

/// Renders `text`, the page on top of `stack` (the pages embedding it below).
fn render_nested(text: &str, resolver: &mut dyn Resolver, stack: &mut Vec<String>) -> String {
    let mut events: Vec<Event<'_>> = Parser::new_ext(text, options()).collect();
    name_headings(&mut events);
    let from = stack.last().cloned().unwrap_or_default();
    let mut out: Vec<Event<'_>> = Vec::with_capacity(events.len());
    // Per open link / image: whether its Start was kept (its End must be too).
    let mut links: Vec<bool> = Vec::new();
    let mut images: Vec<bool> = Vec::new();
    let mut iter = events.into_iter();
    while let Some(event) = iter.next() {
        match event {
            Event::Start(Tag::MetadataBlock(_)) => skip_to_end(&mut iter),
            // Raw HTML is shown as text: nothing a page says runs in a reader's browser.
            Event::Html(raw) | Event::InlineHtml(raw) => out.push(Event::Text(raw)),
            Event::Start(Tag::HtmlBlock) => {
                out.push(Event::Html("<pre class=\"raw\">".into()));
            }
            Event::End(TagEnd::HtmlBlock) => out.push(Event::Html("</pre>\n".into())),
            Event::Start(Tag::CodeBlock(kind)) => {
                let lang = match &kind {
                    CodeBlockKind::Fenced(info) => info.to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                let mut code = String::new();
                for inner in iter.by_ref() {
                    match inner {
                        Event::End(TagEnd::CodeBlock) => break,
                        Event::Text(t) => code.push_str(&t),
                        _ => {}
                    }
                }
                out.push(Event::Html(code_block(&lang, &code).into()));
            }
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => match link_href(link_type, &dest_url, &from, resolver) {
                Some(href) => {
                    links.push(true);
                    out.push(Event::Start(Tag::Link {
                        link_type,
                        dest_url: href,
                        title,
                        id,
                    }));
                }
                None => links.push(false),
            },
            Event::End(TagEnd::Link) => {
                if links.pop() == Some(true) {
                    out.push(Event::End(TagEnd::Link));
                }
            }
            Event::Start(Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            }) => match image(link_type, &dest_url, resolver, stack) {
                Shown::Image(src) => {
                    images.push(true);
                    out.push(Event::Start(Tag::Image {
                        link_type,
                        dest_url: src.into(),
                        title,
                        id,
                    }));
                }
                Shown::Html(html) => {
                    skip_to_end(&mut iter);
                    out.push(Event::Html(html.into()));
                }
                Shown::Name => images.push(false),
            },
            Event::End(TagEnd::Image) => {
                if images.pop() == Some(true) {
                    out.push(Event::End(TagEnd::Image));
                }
            }
            other => out.push(other),
        }
    }
    let mut html = String::with_capacity(text.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, out.into_iter());
    html
}

/// Skips the events up to the end of the element just started (nested elements included).
fn skip_to_end<'a>(iter: &mut impl Iterator<Item = Event<'a>>) {
    let mut depth = 1usize;
    for event in iter {
        match event {
            Event::Start(_) => depth += 1,
            Event::End(_) => {
                depth -= 1;
                if depth == 0 {
                    return;
                }
            }
            _ => {}
        }
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

/// `#Heading` → `#heading`; block references (`#^id`) have no anchor in the HTML.
fn anchor(fragment: Option<&str>) -> String {
    match fragment.map(str::trim) {
        Some(f) if !f.is_empty() && !f.starts_with('^') => format!("#{}", quire_syntax::slug(f)),
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

/// What an image or embed becomes.
enum Shown {
    Image(String),
    /// An embedded page, rendered.
    Html(String),
    /// Neither: its alt text (or name) as text.
    Name,
}

fn image(
    link_type: LinkType,
    dest: &str,
    resolver: &mut dyn Resolver,
    stack: &mut Vec<String>,
) -> Shown {
    let from = stack.last().cloned().unwrap_or_default();
    let dest = dest.trim();
    let (kind, target) = match link_type {
        LinkType::WikiLink { .. } => (LinkKind::Wiki, split_fragment(dest).0.trim().to_string()),
        _ => {
            if scheme(dest).is_some() || dest.starts_with("//") {
                let web = matches!(scheme(dest).as_deref(), Some("http") | Some("https"))
                    || dest.starts_with("//");
                return if web {
                    Shown::Image(dest.to_string())
                } else {
                    Shown::Name
                };
            }
            (
                LinkKind::Markdown,
                quire_syntax::percent_decode(split_fragment(dest).0),
            )
        }
    };
    if target.is_empty() {
        return Shown::Name;
    }
    let link = LinkRef {
        kind,
        target: &target,
    };
    match resolver.embed(&from, link) {
        Some(Embed::Image { src }) => Shown::Image(src),
        Some(Embed::Page { path, text }) => {
            if stack.len() > MAX_EMBED_DEPTH || stack.contains(&path) {
                // Too deep, or a cycle: a link to the page instead of its text.
                return match resolver.href(&from, link) {
                    Some(href) => Shown::Html(format!(
                        "<a href=\"{}\">{}</a>",
                        escape_html(&href),
                        escape_html(&target)
                    )),
                    None => Shown::Name,
                };
            }
            stack.push(path);
            let inner = render_nested(&text, resolver, stack);
            stack.pop();
            Shown::Html(format!("<div class=\"embed\">{inner}</div>"))
        }
        None => Shown::Name,
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
