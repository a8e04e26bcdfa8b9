//! The text of one page: frontmatter, headings, paragraphs, lists, tables and links, plus
//! link-like text inside code and HTML comments that must not count as links.

use crate::calendar;
use crate::layout::{title_case, Layout, PagePlan, TitleHeading};
use crate::links::{Aim, Linker, Piece};
use crate::paths::{percent_encode, Encoding};
use crate::rng::Rng;
use crate::words::{ACTORS, GLUE, TAGS, WORDS};
use crate::{LinkCounts, LinkStyle, VaultSpec};

/// Renders page `index` of the layout, drawing every choice from `rng`.
pub(crate) fn render(
    layout: &Layout,
    spec: &VaultSpec,
    index: usize,
    rng: &mut Rng,
    counts: &mut LinkCounts,
) -> String {
    let plan = &layout.pages[index];
    let average = spec.links_per_page;
    let mut budget = rng.between(average - average / 2, average + average / 2);
    let hub_link = layout.hub_links[index].zip(layout.hub);
    let mut linker = Linker::new(layout, index, counts);
    let mut out = String::with_capacity(512 + 90 * average);

    let hub_up = match hub_link {
        Some((LinkStyle::Frontmatter, hub)) => Some(hub),
        _ => None,
    };
    if hub_up.is_some() || rng.percent(85) {
        frontmatter(&mut out, plan, &mut linker, rng, &mut budget, hub_up);
    }

    let mut pieces: Vec<Piece> = (0..budget)
        .map(|_| linker.body_link(rng, u32::from(spec.broken_link_percent)))
        .collect();
    if let Some((style, hub)) = hub_link.filter(|(style, _)| *style != LinkStyle::Frontmatter) {
        let piece = linker.link(rng, style, Aim::Fixed(hub));
        pieces.insert(rng.below(pieces.len() + 1), piece);
    }

    let decoys = Decoys {
        fenced: rng.percent(30).then(|| rng.below(plan.sections.len())),
        comment: rng.percent(15).then(|| rng.below(plan.sections.len())),
        indented: rng.percent(5).then(|| rng.below(plan.sections.len())),
        inline_code: rng.percent(20),
    };
    // Decoys never name the hub, so text mentioning it is exactly its backlinks.
    let decoy_stem = match layout.pools.targets.as_slice() {
        [] => "Example",
        targets => layout.pages[*rng.pick(targets)].stem(),
    };

    match plan.title_heading {
        TitleHeading::Atx => {
            out.push_str("# ");
            out.push_str(&plan.title);
            out.push_str("\n\n");
        }
        TitleHeading::Setext => underlined(&mut out, &plan.title, '='),
        TitleHeading::Absent => {}
    }

    let slots = plan.sections.len() + 1;
    let chunk =
        |slot: usize| &pieces[slot * pieces.len() / slots..(slot + 1) * pieces.len() / slots];

    paragraph(&mut out, rng, chunk(0));
    if decoys.inline_code {
        out.push_str(&format!(" Typing `[[{decoy_stem}]]` makes a link."));
    }
    out.push_str("\n\n");

    for (k, heading) in plan.sections.iter().enumerate() {
        let level = if k > 0 && rng.percent(30) { 3 } else { 2 };
        if level == 2 && rng.percent(10) {
            underlined(&mut out, heading, '-');
        } else {
            out.push_str(&"#".repeat(level));
            out.push(' ');
            out.push_str(heading);
            out.push_str("\n\n");
        }
        let pieces = chunk(k + 1);
        let (first, rest) = pieces.split_at(pieces.len().div_ceil(2));
        paragraph(&mut out, rng, first);
        if let Some(id) = plan.blocks.get(k) {
            out.push_str(" ^");
            out.push_str(id);
        }
        out.push_str("\n\n");
        if decoys.indented == Some(k) {
            out.push_str(&format!(
                "    [[{decoy_stem}]] stays literal in indented code\n\n"
            ));
        }
        if !rest.is_empty() {
            match rng.weighted(&[50, 20, 30]) {
                0 => list(&mut out, rng, rest),
                1 => table(&mut out, rng, rest),
                _ => {
                    paragraph(&mut out, rng, rest);
                    out.push_str("\n\n");
                }
            }
        }
        if decoys.fenced == Some(k) {
            fenced_decoy(&mut out, rng, decoy_stem);
        }
        if decoys.comment == Some(k) {
            comment_decoy(&mut out, rng, decoy_stem);
        }
    }

    for definition in pieces
        .iter()
        .filter_map(|piece| piece.definition.as_deref())
    {
        out.push_str(definition);
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// Where link-like text that is not a link goes: a section index for block decoys.
struct Decoys {
    fenced: Option<usize>,
    comment: Option<usize>,
    indented: Option<usize>,
    inline_code: bool,
}

/// A YAML value: on the key's line, or a block list below it.
enum Value {
    Inline(String),
    Block(Vec<String>),
}

fn quoted(value: &str) -> String {
    format!("\"{value}\"")
}

/// A YAML list of strings, flow (`[a, b]`) or block style.
fn list_value(rng: &mut Rng, items: Vec<String>) -> Value {
    if rng.percent(50) {
        Value::Inline(format!("[{}]", items.join(", ")))
    } else {
        Value::Block(items)
    }
}

fn frontmatter(
    out: &mut String,
    plan: &PagePlan,
    linker: &mut Linker<'_>,
    rng: &mut Rng,
    budget: &mut usize,
    hub_up: Option<usize>,
) {
    let mut fields: Vec<(&str, Value)> = Vec::with_capacity(8);
    if rng.percent(80) {
        // Titles that YAML would read as a date or number are quoted, as people learn to.
        let title = if rng.percent(20) || plan.title.starts_with(|c: char| c.is_ascii_digit()) {
            quoted(&plan.title)
        } else {
            plan.title.clone()
        };
        fields.push(("title", Value::Inline(title)));
    }
    if rng.percent(75) {
        let count = rng.between(1, 3);
        let tags = rng
            .sample(TAGS.len(), count)
            .into_iter()
            .map(|i| TAGS[i].to_owned())
            .collect();
        let tags = list_value(rng, tags);
        fields.push(("tags", tags));
    }
    if rng.percent(70) {
        fields.push(("date", Value::Inline(calendar::date(rng.below(730)))));
    }
    if rng.percent(40) {
        let status = *rng.pick(&["draft", "active", "done", "active  # until the review"]);
        fields.push(("status", Value::Inline(status.to_owned())));
    }
    let up = match hub_up {
        Some(hub) => linker.frontmatter_link(rng, Aim::Fixed(hub)),
        None if *budget > 0 && rng.percent(50) => {
            let link = linker.frontmatter_link(rng, Aim::Chosen);
            *budget -= usize::from(link.is_some());
            link
        }
        None => None,
    };
    if let Some(up) = up {
        fields.push(("up", Value::Inline(quoted(&up))));
    }
    if *budget > 0 && rng.percent(30) {
        let count = rng.between(1, (*budget).min(3));
        let related: Vec<String> = (0..count)
            .filter_map(|_| linker.frontmatter_link(rng, Aim::Chosen))
            .map(|link| quoted(&link))
            .collect();
        *budget -= related.len();
        if !related.is_empty() {
            let related = list_value(rng, related);
            fields.push(("related", related));
        }
    }
    if rng.percent(10) {
        fields.push((
            "review-by",
            Value::Inline(calendar::date(300 + rng.below(400))),
        ));
    }
    if rng.percent(15) {
        fields.push(("author", Value::Inline((rng.word(ACTORS)).to_owned())));
    }

    out.push_str("---\n");
    if rng.percent(20) {
        out.push_str("# metadata; edit with care\n");
    }
    let aligned = rng.percent(30);
    let width = fields.iter().map(|(key, _)| key.len()).max().unwrap_or(0);
    let block_indent = if rng.percent(50) { "  " } else { "" };
    for (key, value) in &fields {
        out.push_str(key);
        out.push(':');
        match value {
            Value::Inline(text) => {
                if aligned {
                    out.push_str(&" ".repeat(width - key.len()));
                }
                out.push(' ');
                out.push_str(text);
                out.push('\n');
            }
            Value::Block(items) => {
                out.push('\n');
                for item in items {
                    out.push_str(block_indent);
                    out.push_str("- ");
                    out.push_str(item);
                    out.push('\n');
                }
            }
        }
    }
    out.push_str("---\n\n");
}

/// A setext heading: the text, then a line of `=` (level 1) or `-` (level 2).
fn underlined(out: &mut String, text: &str, underline: char) {
    out.push_str(text);
    out.push('\n');
    let width = text.chars().count().max(3);
    for _ in 0..width {
        out.push(underline);
    }
    out.push_str("\n\n");
}

fn filler_word(rng: &mut Rng) -> &'static str {
    if rng.percent(35) {
        rng.word(GLUE)
    } else {
        rng.word(WORDS)
    }
}

/// One sentence with `pieces` spread among its words.
fn sentence(out: &mut String, rng: &mut Rng, pieces: &[Piece]) {
    let words = rng.between(4, 9);
    let mut next = 0;
    for w in 0..words {
        if w > 0 {
            out.push(' ');
        }
        let word = filler_word(rng);
        if w == 0 {
            out.push_str(&title_case(word));
        } else if rng.percent(4) {
            out.push_str("**");
            out.push_str(word);
            out.push_str("**");
        } else {
            out.push_str(word);
        }
        while next < pieces.len() && (next + 1) * words / (pieces.len() + 1) <= w {
            out.push(' ');
            out.push_str(&pieces[next].text);
            next += 1;
        }
    }
    out.push('.');
}

/// A paragraph of sentences carrying about two links each, without the closing newline so
/// a block id can follow on the same line.
fn paragraph(out: &mut String, rng: &mut Rng, pieces: &[Piece]) {
    let sentences = pieces.len().div_ceil(2).max(1) + usize::from(rng.percent(30));
    for s in 0..sentences {
        if s > 0 {
            out.push(' ');
        }
        let from = (s * pieces.len() / sentences).min(pieces.len());
        let to = ((s + 1) * pieces.len() / sentences).min(pieces.len());
        sentence(out, rng, &pieces[from..to]);
    }
    if rng.percent(25) {
        out.push_str(" #");
        out.push_str(rng.word(TAGS));
    }
}

#[derive(Clone, Copy)]
enum ListKind {
    Dash,
    Star,
    Ordered,
    Tasks,
}

fn list(out: &mut String, rng: &mut Rng, pieces: &[Piece]) {
    let kind = *rng.pick(&[
        ListKind::Dash,
        ListKind::Star,
        ListKind::Ordered,
        ListKind::Tasks,
    ]);
    for (i, piece) in pieces.iter().enumerate() {
        match kind {
            ListKind::Dash => out.push_str("- "),
            ListKind::Star => out.push_str("* "),
            ListKind::Ordered => out.push_str(&format!("{}. ", i + 1)),
            ListKind::Tasks if rng.percent(40) => out.push_str("- [x] "),
            ListKind::Tasks => out.push_str("- [ ] "),
        }
        let (before, after) = (filler_word(rng), filler_word(rng));
        if rng.percent(50) {
            out.push_str(&format!("{} {before} {after}\n", piece.text));
        } else {
            out.push_str(&format!("{} {before} {}\n", title_case(after), piece.text));
        }
        if !matches!(kind, ListKind::Ordered) && rng.percent(15) {
            out.push_str(&format!("  - {} {}\n", filler_word(rng), filler_word(rng)));
        }
    }
    out.push('\n');
}

fn table(out: &mut String, rng: &mut Rng, pieces: &[Piece]) {
    out.push_str("| Topic | Owner | Link |\n| :--- | --- | ---: |\n");
    for piece in pieces {
        // A `|` inside a cell must be escaped, as in `[[page\|alias]]`.
        let cell = piece.text.replace('|', "\\|");
        let topic = title_case(rng.word(WORDS));
        out.push_str(&format!("| {topic} | {} | {cell} |\n", rng.word(ACTORS)));
    }
    out.push('\n');
}

fn fenced_decoy(out: &mut String, rng: &mut Rng, stem: &str) {
    let fence = if rng.percent(30) { "~~~" } else { "```" };
    let info = *rng.pick(&["", "markdown", "text", "rust"]);
    let dest = percent_encode(stem, Encoding::Minimal);
    out.push_str(&format!(
        "{fence}{info}\nSee [[{stem}]] and [the draft]({dest}.md).\n![[{stem}]]\n{fence}\n\n"
    ));
}

fn comment_decoy(out: &mut String, rng: &mut Rng, stem: &str) {
    if rng.percent(50) {
        out.push_str(&format!("<!-- moved from [[{stem}]] -->\n\n"));
    } else {
        let dest = percent_encode(stem, Encoding::Minimal);
        out.push_str(&format!(
            "<!--\nTODO: merge [[{stem}]]\nand [old]({dest}.md)\n-->\n\n"
        ));
    }
}
