//! Looking at pages without reading them whole: peek, one section, lint.

use quire_api::mcp::{PathInput, SectionInput};
use quire_api::{LintReport, LintRequest, Peek, Section};
use quire_service::{Result, SectionOf, Space};

use crate::{Caller, Meta, Operation, Rest, Tool, Visit};

const AREA: &str = "pages";

pub(crate) fn visit(v: &mut impl Visit) {
    v.op::<PeekOp>();
    v.op::<SectionOp>();
    v.op::<Lint>();
}

/// `GET /peek`, `quire_peek`.
pub struct PeekOp;

impl Operation for PeekOp {
    type Input = PathInput;
    type Output = Peek;
    const META: Meta = Meta::read(
        "peek",
        AREA,
        "A short look at a page: title, snippet, frontmatter, links both ways, headings, words",
    )
    .rest(Rest::get("/peek"))
    .tool(Tool::named("quire_peek"))
    .describe(
        "A short look at a page: title, a ~200 character snippet, frontmatter, \
links out and in, headings and word count. Cheaper than reading it whole.",
    );

    fn run(space: &Space, input: PathInput, _: &Caller) -> Result<Peek> {
        space.pages().peek(&input.path)
    }
}

/// `GET /section`, `quire_section`.
pub struct SectionOp;

impl Operation for SectionOp {
    type Input = SectionInput;
    type Output = Section;
    const META: Meta = Meta::read(
        "section",
        AREA,
        "One section of a page, chosen by `heading` or `index`",
    )
    .rest(Rest::get("/section"))
    .tool(Tool::named("quire_section"))
    .describe(
        "One section of a page: a heading (by its text or slug in `heading`, or \
its position from 0 in `index`; exactly one of them) and its text up to the next heading of \
the same or a higher level, with its line numbers. Reads one file; cheaper in tokens than \
quire_read on long pages (see the headings with quire_read metadata_only or quire_peek).",
    );

    fn run(space: &Space, input: SectionInput, _: &Caller) -> Result<Section> {
        let which = SectionOf::from_parts(input.heading, input.index)?;
        space.pages().section(&input.path, &which)
    }

    /// The section itself, for hosts that give the model only the text.
    fn text(output: &Section) -> String {
        format!(
            "{} § {} (lines {}-{})\n\n{}",
            output.path, output.heading, output.line_start, output.line_end, output.content
        )
    }
}

/// `POST /lint`, `quire_lint`: writes nothing, so a read scope may call it.
pub struct Lint;

impl Operation for Lint {
    type Input = LintRequest;
    type Output = LintReport;
    const META: Meta = Meta::read(
        "lint",
        AREA,
        "Lints a page (`path`) or text (`content`, linted as if stored at `path` when both are \
given)",
    )
    .rest(Rest::post("/lint"))
    .tool(Tool::named("quire_lint"))
    .describe(
        "Check a page (`path`) or text (`content`, as if stored at `path`) for \
broken links and anchors, heading problems and frontmatter errors. Run it before writing.",
    );

    fn run(space: &Space, input: LintRequest, _: &Caller) -> Result<LintReport> {
        space.pages().lint(&input)
    }
}
