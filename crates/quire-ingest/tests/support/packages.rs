// Zip packages the tests build from known XML: an OpenDocument text and an EPUB e-book.
// Included by quire-ingest's format tests and quire-http's ingest tests.

use std::io::Write;

/// A zip package of `(name, text)` parts, `mimetype` first and stored.
pub fn package(parts: &[(&str, &str)]) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    let mut zip = zip::ZipWriter::new(&mut out);
    for (name, text) in parts {
        let method = if *name == "mimetype" {
            zip::CompressionMethod::Stored
        } else {
            zip::CompressionMethod::Deflated
        };
        let options = zip::write::SimpleFileOptions::default().compression_method(method);
        zip.start_file(*name, options).unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    }
    zip.finish().unwrap();
    out.into_inner()
}

pub const ODT_CONTENT: &str = r##"<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" office:version="1.3">
<office:automatic-styles>
<style:style style:name="T1" style:family="text"><style:text-properties fo:font-weight="bold"/></style:style>
<style:style style:name="T2" style:family="text"><style:text-properties fo:font-style="italic"/></style:style>
<text:list-style style:name="L1"><text:list-level-style-bullet text:level="1"/><text:list-level-style-bullet text:level="2"/></text:list-style>
<text:list-style style:name="L2"><text:list-level-style-number text:level="1"/></text:list-style>
</office:automatic-styles>
<office:body><office:text>
<text:p text:style-name="Title">Meeting Notes</text:p>
<text:h text:outline-level="1">Decisions</text:h>
<text:p>We chose <text:span text:style-name="T1">quire</text:span> for <text:span text:style-name="T2">notes</text:span>; see <text:a xlink:href="https://example.org/q">the site</text:a> and <text:a xlink:href="#Budget">the budget</text:a>.</text:p>
<text:list text:style-name="L1"><text:list-item><text:p>Use git</text:p><text:list><text:list-item><text:p>one commit per change</text:p></text:list-item></text:list></text:list-item><text:list-item><text:p>Write markdown</text:p></text:list-item></text:list>
<text:h text:outline-level="1"><text:bookmark text:name="Budget"/>Budget</text:h>
<text:list text:style-name="L2"><text:list-item><text:p>Servers</text:p></text:list-item><text:list-item><text:p>People</text:p></text:list-item></text:list>
<table:table><table:table-row><table:table-cell><text:p>Item</text:p></table:table-cell><table:table-cell><text:p>Cost</text:p></table:table-cell></table:table-row><table:table-row><table:table-cell><text:p>Disk</text:p></table:table-cell><table:table-cell><text:p>10</text:p></table:table-cell></table:table-row></table:table>
</office:text></office:body></office:document-content>"##;

pub const ODT_STYLES: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<office:document-styles xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"><office:styles>
<style:style style:name="Title" style:display-name="Title" style:family="paragraph"/>
</office:styles></office:document-styles>"#;

pub const EPUB_CONTAINER: &str = r#"<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>"#;

pub const EPUB_OPF: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Rivers</dc:title><dc:identifier id="id">x</dc:identifier></metadata>
<manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/><item id="c1" href="text/one.xhtml" media-type="application/xhtml+xml"/><item id="c2" href="text/two.xhtml" media-type="application/xhtml+xml"/></manifest>
<spine><itemref idref="nav" linear="no"/><itemref idref="c1"/><itemref idref="c2"/></spine></package>"#;

pub const EPUB_ONE: &str = r##"<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>One</title></head><body><h1>Sources</h1><p>Every river starts small. Read about <a href="two.xhtml#mouth">the mouth</a>.</p><ul><li>springs<ul><li>glaciers</li></ul></li></ul></body></html>"##;

pub const EPUB_TWO: &str = r##"<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>Two</title></head><body><h1>Deltas</h1><p>Rivers end at sea.</p><h2 id="mouth">The mouth</h2><p>Silt settles <em>here</em>. Back to <a href="one.xhtml">sources</a>.</p></body></html>"##;

/// An e-book of two chapters (and a navigation document left out of the reading order).
pub fn epub() -> Vec<u8> {
    package(&[
        ("mimetype", "application/epub+zip"),
        ("META-INF/container.xml", EPUB_CONTAINER),
        ("OEBPS/content.opf", EPUB_OPF),
        (
            "OEBPS/nav.xhtml",
            "<html><body><nav>toc</nav></body></html>",
        ),
        ("OEBPS/text/one.xhtml", EPUB_ONE),
        ("OEBPS/text/two.xhtml", EPUB_TWO),
    ])
}

/// A text document: title, headings, emphasis, a link and a bookmark link, nested and
/// numbered lists, a table.
pub fn odt() -> Vec<u8> {
    package(&[
        ("mimetype", "application/vnd.oasis.opendocument.text"),
        ("content.xml", ODT_CONTENT),
        ("styles.xml", ODT_STYLES),
    ])
}
