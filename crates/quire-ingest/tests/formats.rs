//! Each format converted from a real file: docx and pptx written by python-docx and
//! python-pptx, the PDF printed by Chromium (`tests/fixtures/make.py`); odt and epub packed
//! here from known XML.

mod support {
    pub mod packages;
}

use quire_ingest::{convert, Format, Limits};
use support::packages::{epub, odt, package};

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn md(format: Format, bytes: &[u8]) -> (Option<String>, String) {
    let doc = convert(format, bytes, &Limits::default()).unwrap();
    (doc.title(), doc.markdown())
}

#[test]
fn docx_keeps_headings_lists_emphasis_links_and_tables() {
    let (title, md) = md(Format::Docx, &fixture("guide.docx"));
    println!("{md}");
    assert_eq!(title.as_deref(), Some("Field Guide"));
    assert!(md.contains("# Owls\n"));
    assert!(md.contains("## Feathers\n"));
    assert!(md.contains("Owls hunt at **night** and fly *silently*."));
    assert!(md.contains("[the owl site](https://example.org/owls)"));
    assert!(md.contains("- Barn owl\n  - White face\n- Snowy owl\n"));
    assert!(md.contains("1. Plant an acorn\n2. Wait a century\n"));
    assert!(md.contains("| Tree | Height |\n| --- | --- |\n| Oak | 40 m |"));
}

#[test]
fn pptx_makes_a_heading_per_slide_with_bullets_and_tables() {
    let (title, md) = md(Format::Pptx, &fixture("deck.pptx"));
    println!("{md}");
    assert_eq!(title.as_deref(), Some("Plan deck"));
    assert!(md.contains(
        "# Quarterly Plan\n\n- Ship the clipper\n  - Fetch pages\n- **Hire two people**\n"
    ));
    assert!(md.contains("# Risks\n"));
    assert!(md.contains("| Risk | Owner |"));
}

#[test]
fn pdf_text_keeps_its_headings_by_size() {
    let (title, md) = md(Format::Pdf, &fixture("report.pdf"));
    println!("{md}");
    assert_eq!(title.as_deref(), Some("Annual Report"));
    assert!(md.contains("# Annual Report\n"), "{md}");
    assert!(md.contains("## Findings\n"));
    assert!(md.contains(
        "Floods came twice, in spring and in autumn, and both times the river rose fast."
    ));
}

#[test]
fn odt_keeps_headings_nested_lists_emphasis_links_and_tables() {
    let (title, md) = md(Format::Odt, &odt());
    println!("{md}");
    assert_eq!(title.as_deref(), Some("Meeting Notes"));
    assert!(md.contains("# Decisions\n"));
    assert!(md.contains("We chose **quire** for *notes*; see [the site](https://example.org/q)"));
    assert!(md.contains("- Use git\n  - one commit per change\n- Write markdown\n"));
    assert!(md.contains("1. Servers\n2. People\n"));
    assert!(md.contains("| Item | Cost |"));
}

#[test]
fn epub_reads_chapters_in_spine_order() {
    let (title, md) = md(Format::Epub, &epub());
    println!("{md}");
    assert_eq!(title.as_deref(), Some("Rivers"));
    assert!(md.starts_with("# Sources\n"));
    assert!(md.contains("- springs\n  - glaciers\n"));
    assert!(md.contains("# Deltas\n"));
    assert!(md.contains("## The mouth\n"));
    assert!(!md.contains("toc"));
}

#[test]
fn a_zip_bomb_stops_at_the_cap() {
    let big = "a".repeat(3 << 20);
    let bytes = package(&[("content.xml", &big)]);
    assert!(bytes.len() < 100_000, "{} bytes packed", bytes.len());
    let limits = Limits {
        max_part: 1 << 20,
        ..Limits::default()
    };
    let err = convert(Format::Odt, &bytes, &limits).unwrap_err();
    assert!(
        matches!(err, quire_ingest::IngestError::TooLarge(_)),
        "{err}"
    );
}

#[test]
fn corrupt_files_are_refused() {
    for format in [
        Format::Docx,
        Format::Odt,
        Format::Pptx,
        Format::Epub,
        Format::Pdf,
    ] {
        let err = convert(format, b"this is not a document", &Limits::default()).unwrap_err();
        assert!(
            matches!(err, quire_ingest::IngestError::Corrupt(_)),
            "{format:?}: {err}"
        );
    }
}
