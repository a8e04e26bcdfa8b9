//! Markdown → HTML for pages shown to readers without an account: published pages (`/p/…`)
//! and shared links (`/public/:token`).
//!
//! Pure: no I/O. The caller hands over the page text and a [`Resolver`] that says where each
//! link points (or that it points nowhere a reader may go) and what an embed holds; the
//! renderer never decides which pages are visible. What comes out is safe to serve:
//!
//! * every text and attribute is HTML-escaped;
//! * raw HTML in the markdown is shown as text, never passed through (no `<script>`, no
//!   event handlers, no `<iframe>`);
//! * only `http`, `https` and `mailto` links leave the site; other schemes (`javascript:`,
//!   `data:` …) are dropped and their text kept;
//! * the page template ([`page`]) has inline CSS and no script.

mod highlight;
mod markdown;
mod media;
mod obsidian;
mod template;

pub use markdown::{render, Embed, LinkKind, LinkRef, Resolver, MAX_EMBED_DEPTH};
pub use template::{page, PageMeta};

/// Changes whenever the HTML this crate writes for the same input changes (template, CSS,
/// rules of rendering), so a cached page is not served after an upgrade: part of the ETag of
/// a rendered page.
pub const TEMPLATE_VERSION: &str = "quire-render-2";

/// Escapes text for HTML element content and quoted attribute values.
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
