//! HTML slides: one file, one slide per section of each page. A page holding `---` lines
//! (outside code) is cut there; any other page before each heading of level 1 or 2. A few
//! lines of script show one slide at a time (→, space, Page Down: next; ←, Page Up: back;
//! Home, End; a link to another page of the deck goes to its first slide); without script,
//! or printed, the slides follow one another.

use quire_render::PageMeta;

use crate::html::{scope_anchors, with_css, DocResolver, InFile};
use crate::{body_of, Source};

const CSS: &str = "<style>\
.deck header.page,.deck footer.page{display:none}\
section.slide{min-height:85vh;padding:1rem 0;font-size:1.2em;border-bottom:1px solid var(--line)}\
.deck section.slide{display:none;border:0}.deck section.slide.current{display:block}\
#slide-count{position:fixed;right:1rem;bottom:.6rem;color:var(--muted);font-size:.85rem}\
@media print{.deck section.slide{display:block;break-after:page}#slide-count{display:none}}\
</style>\n";

const SCRIPT: &str = "<script>\n(function(){\
var s=[].slice.call(document.querySelectorAll('section.slide')),i=0,c=document.getElementById('slide-count');\
if(!s.length)return;document.documentElement.classList.add('deck');\
function show(n){i=Math.max(0,Math.min(s.length-1,n));\
s.forEach(function(e,k){e.classList.toggle('current',k===i)});c.textContent=(i+1)+' / '+s.length;}\
function fromHash(){var id=decodeURIComponent(location.hash.slice(1)),e=id&&document.getElementById(id);\
var slide=e&&e.closest('section.slide');if(slide)show(s.indexOf(slide));}\
document.addEventListener('keydown',function(e){var k=e.key;\
if(k==='ArrowRight'||k==='PageDown'||k===' '){show(i+1);e.preventDefault();}\
else if(k==='ArrowLeft'||k==='PageUp'){show(i-1);e.preventDefault();}\
else if(k==='Home'){show(0);}else if(k==='End'){show(s.length-1);}});\
window.addEventListener('hashchange',fromHash);show(0);fromHash();})();\n</script>\n";

/// The sections of a page's body, each a slide's markdown.
pub(crate) fn sections(body: &str) -> Vec<String> {
    let lines: Vec<&str> = body.split_inclusive('\n').collect();
    let mut fence: Option<String> = None;
    let mut code = vec![false; lines.len()];
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let mark: String = trimmed
            .chars()
            .take_while(|c| *c == '`' || *c == '~')
            .collect();
        match &fence {
            Some(open) => {
                code[i] = true;
                if trimmed.trim_end().starts_with(open.as_str()) && mark.len() >= open.len() {
                    fence = None;
                }
            }
            None if mark.len() >= 3 => {
                code[i] = true;
                fence = Some(mark);
            }
            None => {}
        }
    }
    let rule = |i: usize| {
        let t = lines[i].trim();
        !code[i] && t.len() >= 3 && t.chars().all(|c| c == '-')
    };
    let heading = |i: usize| {
        let t = lines[i];
        !code[i] && (t.starts_with("# ") || t.starts_with("## "))
    };
    let by_rules = (0..lines.len()).any(rule);
    let mut slides = Vec::new();
    let mut current = String::new();
    for (i, line) in lines.iter().enumerate() {
        let cut = if by_rules { rule(i) } else { heading(i) };
        if cut {
            if !current.trim().is_empty() {
                slides.push(std::mem::take(&mut current));
            }
            current.clear();
            if by_rules {
                continue;
            }
        }
        current.push_str(line);
    }
    if !current.trim().is_empty() {
        slides.push(current);
    }
    slides
}

/// The slides of every page, in order.
pub(crate) fn document(source: &Source<'_>) -> String {
    let mut body = String::new();
    let mut number = 0;
    for (index, page) in source.pages.iter().enumerate() {
        let mut sections = sections(body_of(&page.text));
        if sections.is_empty() {
            sections.push(format!("# {}\n", page.title));
        }
        for (k, section) in sections.iter().enumerate() {
            number += 1;
            let mut resolver = DocResolver {
                source,
                place: InFile,
            };
            let html = quire_render::render(&page.path, section, &mut resolver);
            let anchor = if k == 0 {
                format!("<span id=\"p{index}\"></span>")
            } else {
                String::new()
            };
            body.push_str(&format!(
                "<section class=\"slide\" id=\"slide-{number}\">{anchor}\n{}</section>\n",
                scope_anchors(&html, index)
            ));
        }
    }
    body.push_str("<div id=\"slide-count\"></div>\n");
    let document = quire_render::page(
        &PageMeta {
            title: &source.title,
            published_at: None,
        },
        &body,
    );
    let document = with_css(&document, CSS);
    match document.rfind("</body>") {
        Some(at) => format!("{}{SCRIPT}{}", &document[..at], &document[at..]),
        None => document,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_cut_a_page_into_slides_but_not_inside_code() {
        let body = "# One\ntext\n---\n## Two\n```\n---\n```\n---\nThree\n";
        assert_eq!(
            sections(body),
            vec!["# One\ntext\n", "## Two\n```\n---\n```\n", "Three\n"]
        );
    }

    #[test]
    fn without_rules_each_top_heading_starts_a_slide() {
        let body = "intro\n# One\na\n### deep\nb\n## Two\nc\n";
        assert_eq!(
            sections(body),
            vec!["intro\n", "# One\na\n### deep\nb\n", "## Two\nc\n"]
        );
    }
}
