//! Looking at pages without reading them whole: peek, lint, one section.

use quire_api::mcp::{PathInput, SectionInput};
use quire_api::LintRequest;
use quire_service::{SectionOf, Space};

use super::{input, no_handler, ok, parse, Answer, Area, Def};
use crate::Caller;

pub(super) const AREA: Area = Area {
    tools: &[
        Def {
            name: "quire_peek",
            description: "A short look at a page: title, a ~200 character snippet, frontmatter, \
links out and in, headings and word count. Cheaper than reading it whole.",
            schema: input::<PathInput>,
            read_only: true,
        },
        Def {
            name: "quire_section",
            description: "One section of a page: a heading (by its text or slug in `heading`, or \
its position from 0 in `index`; exactly one of them) and its text up to the next heading of \
the same or a higher level, with its line numbers. Reads one file; cheaper in tokens than \
quire_read on long pages (see the headings with quire_read metadata_only or quire_peek).",
            schema: input::<SectionInput>,
            read_only: true,
        },
        Def {
            name: "quire_lint",
            description: "Check a page (`path`) or text (`content`, as if stored at `path`) for \
broken links and anchors, heading problems and frontmatter errors. Run it before writing.",
            schema: input::<LintRequest>,
            read_only: true,
        },
    ],
    call,
};

fn call(space: &Space, name: &str, args: serde_json::Value, _caller: &Caller) -> Answer {
    match name {
        "quire_peek" => {
            let input: PathInput = parse(name, args)?;
            let peek = space.pages().peek(&input.path)?;
            Ok(ok(&peek, format!("{}: {}", peek.path, peek.title)))
        }
        "quire_section" => {
            let input: SectionInput = parse(name, args)?;
            let which = SectionOf::from_parts(input.heading, input.index)?;
            let section = space.pages().section(&input.path, &which)?;
            // The text carries the section itself, for clients that show only text.
            let text = format!(
                "{} § {} (lines {}-{})\n\n{}",
                section.path,
                section.heading,
                section.line_start,
                section.line_end,
                section.content
            );
            Ok(ok(&section, text))
        }
        "quire_lint" => {
            let input: LintRequest = parse(name, args)?;
            let report = space.pages().lint(&input)?;
            let text = format!("{} issues", report.issues.len());
            Ok(ok(&report, text))
        }
        other => Err(no_handler(other)),
    }
}
