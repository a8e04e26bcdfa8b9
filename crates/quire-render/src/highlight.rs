//! Code blocks with syntax highlighting: syntect's bundled syntaxes, emitting `<span>`s with
//! `hl-` class names that the page template colours. Unknown languages, and blocks too long to
//! highlight cheaply, are escaped plain text.

use std::sync::OnceLock;

use syntect::html::{ClassStyle, ClassedHTMLGenerator};
use syntect::parsing::SyntaxSet;
use syntect::util::LinesWithEndings;

use crate::escape_html;

/// Longer blocks are shown without colours: highlighting costs time per byte.
const MAX_HIGHLIGHTED_BYTES: usize = 64 * 1024;

fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

/// A fenced code block as HTML: `<pre><code class="language-…">` with highlighted spans when
/// the language is known.
pub(crate) fn code_block(lang: &str, code: &str) -> String {
    let lang = lang.split_whitespace().next().unwrap_or("");
    let class = if lang.is_empty() {
        String::new()
    } else {
        format!(" class=\"language-{}\"", escape_html(lang))
    };
    let inner = highlighted(lang, code).unwrap_or_else(|| escape_html(code));
    format!("<pre class=\"code\"><code{class}>{inner}</code></pre>\n")
}

fn highlighted(lang: &str, code: &str) -> Option<String> {
    if lang.is_empty() || code.len() > MAX_HIGHLIGHTED_BYTES {
        return None;
    }
    let set = syntaxes();
    let syntax = set.find_syntax_by_token(lang)?;
    let mut generator = ClassedHTMLGenerator::new_with_class_style(
        syntax,
        set,
        ClassStyle::SpacedPrefixed { prefix: "hl-" },
    );
    for line in LinesWithEndings::from(code) {
        generator
            .parse_html_for_line_which_includes_newline(line)
            .ok()?;
    }
    Some(generator.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_languages_get_class_spans_and_unknown_ones_plain_escaped_text() {
        let rust = code_block("rust", "fn main() { let x = \"<b>\"; }\n");
        assert!(rust.contains("class=\"language-rust\""), "{rust}");
        assert!(rust.contains("<span class=\"hl-"), "{rust}");
        assert!(rust.contains("&lt;b&gt;"), "{rust}");
        assert!(!rust.contains("<b>"), "{rust}");
        let plain = code_block("no-such-language", "<script>x</script>\n");
        assert_eq!(
            plain,
            "<pre class=\"code\"><code class=\"language-no-such-language\">&lt;script&gt;x&lt;/script&gt;\n</code></pre>\n"
        );
    }

    #[test]
    fn a_language_name_cannot_break_out_of_its_attribute() {
        let html = code_block("x\"onload=\"alert(1)", "a\n");
        assert!(!html.contains("\"onload"), "{html}");
    }
}
