//! Ingestion and clipping: office documents, e-books, HTML and PDF converted to pages (one
//! commit), and web articles clipped to a page.

use quire_api::{ClipRequest, ClipResult, IngestRequest, IngestResult};
use quire_service::{Result, Space};

use crate::{Caller, Meta, Operation, Rest, Tool, Visit};

const AREA: &str = "import";

pub(crate) fn visit(v: &mut impl Visit) {
    v.op::<Ingest>();
    v.op::<Clip>();
}

/// `POST /ingest`, `quire_ingest`.
pub struct Ingest;

impl Operation for Ingest {
    type Input = IngestRequest;
    type Output = IngestResult;
    const META: Meta = Meta::write(
        "ingest",
        AREA,
        "Convert a document (docx, odt, pptx, epub, html, pdf) to pages, in one commit",
    )
    .rest(Rest::post("/ingest"))
    .tool(Tool::named("quire_ingest"))
    .describe(
        "Convert a document to markdown pages, all in one commit (author: your actor, else \
`ingest`). `file`: a path in the knowledge root or an upload's path, ending in .docx, .odt, \
.pptx, .epub, .html or .pdf (PDF gives text only). `split_mode`: `single` (default, one page) \
or `heading` (an index page plus one page per top-level heading); `prefix` the folder; \
`extract_keywords` (default true) writes up to `max_keywords` (default 5) frequent words as \
frontmatter `keywords`; `convert_crossrefs` (default true) turns the document's internal links \
into wiki links between the pages. Headings, nested lists, emphasis, links, tables and code \
are kept.",
    );

    fn run(space: &Space, input: IngestRequest, caller: &Caller) -> Result<IngestResult> {
        let opts = caller.write_options_by(input.actor.clone(), input.message.clone(), None);
        space.ingest().run(&input, &opts)
    }

    fn text(output: &IngestResult) -> String {
        let mut text = format!(
            "{} ({}): {} page(s)",
            output.title,
            output.format,
            output.pages.len()
        );
        for p in &output.pages {
            text.push_str(&format!("\n{p}"));
        }
        text
    }
}

/// `POST /clip`, `quire_clip`.
pub struct Clip;

impl Operation for Clip {
    type Input = ClipRequest;
    type Output = ClipResult;
    const META: Meta = Meta::write(
        "clip",
        AREA,
        "Fetch a web article and write it as a page (title, source, clipped_at, excerpt)",
    )
    .rest(Rest::post("/clip"))
    .tool(Tool::named("quire_clip"))
    .describe(
        "Fetch the web page at `url` (http or https), keep its article (navigation, headers, \
footers, sidebars and comments dropped) and write it as a markdown page with frontmatter \
`title`, `source`, `clipped_at` and `excerpt` (author: your actor, else `clipper`). The page is \
`path` when given, else `<prefix>/<slug of the title>.md` (`prefix` default `clips`); clipping \
the same URL again rewrites its page. Answers `{path, title, excerpt, source}`.",
    );

    fn run(space: &Space, input: ClipRequest, caller: &Caller) -> Result<ClipResult> {
        let opts = caller.write_options(input.message.clone(), None);
        space.ingest().clip(&input, &opts)
    }

    fn text(output: &ClipResult) -> String {
        format!("{}: {}\n{}", output.path, output.title, output.excerpt)
    }
}
