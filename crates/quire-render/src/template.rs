//! The page around a rendered body: a readable single column, inline CSS (light and dark by
//! the reader's preference), no script.

use crate::escape_html;

/// What the template shows besides the body.
#[derive(Debug, Clone, Default)]
pub struct PageMeta<'a> {
    pub title: &'a str,
    /// When the page was published (RFC 3339); shown as its date.
    pub published_at: Option<&'a str>,
}

const CSS: &str = r#"
:root{color-scheme:light dark;--fg:#1f2328;--muted:#59636e;--bg:#fff;--line:#d1d9e0;--code:#f6f8fa;--link:#0969da}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;--line:#3d444d;--code:#151b23;--link:#4493f8}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:17px/1.65 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:46rem;margin:0 auto;padding:2.5rem 1.25rem 4rem}
header.page{border-bottom:1px solid var(--line);margin-bottom:1.5rem;padding-bottom:.75rem}
header.page .title{font-size:.95rem;color:var(--muted);margin:0}
footer.page{border-top:1px solid var(--line);margin-top:3rem;padding-top:.75rem;font-size:.85rem;color:var(--muted)}
h1,h2,h3,h4,h5,h6{line-height:1.25;margin:1.8em 0 .6em}
h1{font-size:2rem}h2{font-size:1.5rem;border-bottom:1px solid var(--line);padding-bottom:.2em}h3{font-size:1.25rem}
a{color:var(--link);text-decoration:none}a:hover{text-decoration:underline}
img{max-width:100%;height:auto}
blockquote{margin:1em 0;padding:0 1em;color:var(--muted);border-left:.25em solid var(--line)}
table{border-collapse:collapse;display:block;overflow:auto}th,td{border:1px solid var(--line);padding:.35em .75em}
code{font:.9em ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--code);padding:.15em .35em;border-radius:4px}
pre{background:var(--code);padding:1em;border-radius:6px;overflow:auto;line-height:1.45}
pre code{padding:0;background:none}
pre.raw{white-space:pre-wrap}
.embed{border-left:3px solid var(--line);padding:.1em 1em;margin:1em 0}
hr{border:0;border-top:1px solid var(--line)}
li.task{list-style:none}
li.task>input,.task-box{margin:0 .35em 0 -1.3em}
.task-box{display:inline-flex;align-items:center;justify-content:center;width:1.05em;height:1.05em;border:1px solid var(--muted);border-radius:3px;font-size:.85em;line-height:1;vertical-align:-.1em}
li.task[data-task="x"],li.task[data-task="-"]{color:var(--muted)}li.task[data-task="-"]{text-decoration:line-through}
mark{background:#fff3a3;color:inherit;padding:0 .1em;border-radius:2px}
.callout{--c:9,105,218;border:1px solid rgba(var(--c),.4);border-left:4px solid rgb(var(--c));background:rgba(var(--c),.07);border-radius:6px;margin:1em 0;padding:.2em 1em}
.callout-title{font-weight:650;margin:.4em 0}details.callout>summary{cursor:pointer}
.callout-content>:first-child{margin-top:.2em}.callout-content>:last-child{margin-bottom:.5em}
.callout[data-callout=tip],.callout[data-callout=hint],.callout[data-callout=important],.callout[data-callout=abstract],.callout[data-callout=summary],.callout[data-callout=tldr]{--c:8,127,140}
.callout[data-callout=success],.callout[data-callout=check],.callout[data-callout=done]{--c:26,127,55}
.callout[data-callout=question],.callout[data-callout=help],.callout[data-callout=faq],.callout[data-callout=warning],.callout[data-callout=caution],.callout[data-callout=attention]{--c:176,90,0}
.callout[data-callout=failure],.callout[data-callout=fail],.callout[data-callout=missing],.callout[data-callout=danger],.callout[data-callout=error],.callout[data-callout=bug]{--c:207,34,46}
.callout[data-callout=example]{--c:130,80,223}.callout[data-callout=quote],.callout[data-callout=cite]{--c:110,119,129}
.footnotes{border-top:1px solid var(--line);margin-top:2em;font-size:.9em}.footnotes li>p{display:inline}
.math-display{display:block;overflow-x:auto;text-align:center}.math{font-family:ui-monospace,monospace}
pre.mermaid{white-space:pre-wrap}
.embed-pdf{width:100%;height:70vh;border:1px solid var(--line)}.embed-video{max-width:100%}.embed-audio{width:100%}
@media (prefers-color-scheme:dark){mark{background:#5c4d00}}
.hl-comment{color:#6e7781;font-style:italic}
.hl-string{color:#0a3069}
.hl-constant{color:#0550ae}
.hl-keyword,.hl-storage{color:#cf222e}
.hl-entity{color:#8250df}
.hl-support{color:#953800}
.hl-variable.hl-parameter{color:#953800}
@media (prefers-color-scheme:dark){.hl-comment{color:#9198a1}.hl-string{color:#a5d6ff}.hl-constant{color:#79c0ff}.hl-keyword,.hl-storage{color:#ff7b72}.hl-entity{color:#d2a8ff}.hl-support,.hl-variable.hl-parameter{color:#ffa657}}
"#;

/// A whole HTML document around `body` (HTML from [`crate::render`]).
pub fn page(meta: &PageMeta<'_>, body: &str) -> String {
    let title = escape_html(meta.title);
    let published = meta
        .published_at
        .map(|at| at.get(..10).unwrap_or(at))
        .map(|day| format!("Published {}", escape_html(day)))
        .unwrap_or_default();
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
<meta name=\"generator\" content=\"quire\">\n<title>{title}</title>\n<style>{CSS}</style>\n</head>\n\
<body>\n<main>\n<header class=\"page\"><p class=\"title\">{title}</p></header>\n<article>\n{body}</article>\n\
<footer class=\"page\">{published}</footer>\n</main>\n</body>\n</html>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_title_is_escaped_and_the_page_has_no_script() {
        let html = page(
            &PageMeta {
                title: "</title><script>x</script>",
                published_at: Some("2024-05-01T10:00:00Z"),
            },
            "<p>body</p>",
        );
        assert!(!html.contains("<script"), "{html}");
        assert!(html.contains("Published 2024-05-01"), "{html}");
        assert!(html.contains("<p>body</p>"), "{html}");
    }
}
