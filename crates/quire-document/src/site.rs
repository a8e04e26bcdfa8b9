//! A static site as a zip: one `.html` per page at the page's path (`notes/a.md` →
//! `notes/a.html`), `index.html` listing them, and the assets the pages use at their own
//! paths. Every link it writes is relative and lands on a file of the zip.

use std::io::Write as _;

use quire_render::{escape_html, PageMeta};
use zip::write::SimpleFileOptions;

use crate::html::{DocResolver, Place};
use crate::{DocumentError, Source};

/// The listing of the site's pages.
const INDEX: &str = "index.html";

/// Where page `path` is written.
pub(crate) fn html_path(path: &str) -> String {
    let stem = path.strip_suffix(".md").unwrap_or(path);
    let html = format!("{stem}.html");
    // The listing keeps its name; a page of the same name steps aside.
    if html == INDEX {
        format!("{stem}.page.html")
    } else {
        html
    }
}

/// `to` as a URL relative to the file `from` (both paths in the zip), each segment
/// percent-encoded.
pub(crate) fn relative(from: &str, to: &str) -> String {
    let from_dir: Vec<&str> = match from.rsplit_once('/') {
        Some((dir, _)) => dir.split('/').collect(),
        None => Vec::new(),
    };
    let to: Vec<&str> = to.split('/').collect();
    let common = from_dir
        .iter()
        .zip(&to)
        .take_while(|(a, b)| a == b)
        .count()
        .min(to.len() - 1);
    let mut parts: Vec<String> = vec!["..".to_string(); from_dir.len() - common];
    parts.extend(to[common..].iter().map(|s| encode(s)));
    parts.join("/")
}

/// Percent-encodes a path segment (unreserved characters stay).
fn encode(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for byte in segment.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(byte as char)
            }
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    out
}

/// Pages and assets as files of the site, seen from the file being written.
struct InSite<'s> {
    file: String,
    pages: &'s [String],
}

impl Place for InSite<'_> {
    fn page(&self, index: usize) -> String {
        relative(&self.file, &self.pages[index])
    }

    fn asset(&self, path: &str, _: &[u8]) -> Option<String> {
        Some(relative(&self.file, path))
    }
}

fn wrap(title: &str, body: &str) -> String {
    quire_render::page(
        &PageMeta {
            title,
            published_at: None,
        },
        body,
    )
}

/// The zip of the site.
pub(crate) fn zip(source: &Source<'_>) -> Result<Vec<u8>, DocumentError> {
    let files: Vec<String> = source.pages.iter().map(|p| html_path(&p.path)).collect();
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    let failed = |e: &dyn std::fmt::Display| DocumentError::Zip(e.to_string());
    let add = |zip: &mut zip::ZipWriter<_>, name: &str, bytes: &[u8]| {
        zip.start_file(name, options).map_err(|e| failed(&e))?;
        zip.write_all(bytes).map_err(|e| failed(&e))
    };
    let mut listing = String::from("<ul class=\"site-index\">\n");
    for (page, file) in source.pages.iter().zip(&files) {
        listing.push_str(&format!(
            "<li><a href=\"{}\">{}</a></li>\n",
            escape_html(&relative(INDEX, file)),
            escape_html(&page.title)
        ));
    }
    listing.push_str("</ul>\n");
    add(
        &mut zip,
        INDEX,
        wrap(
            &source.title,
            &format!("<h1>{}</h1>\n{listing}", escape_html(&source.title)),
        )
        .as_bytes(),
    )?;
    for (page, file) in source.pages.iter().zip(&files) {
        let mut resolver = DocResolver {
            source,
            place: InSite {
                file: file.clone(),
                pages: &files,
            },
        };
        let body = quire_render::render(&page.path, &page.text, &mut resolver);
        let nav = format!(
            "<p class=\"site-nav\"><a href=\"{}\">Index</a></p>\n",
            escape_html(&relative(file, INDEX))
        );
        add(
            &mut zip,
            file,
            wrap(&page.title, &format!("{nav}{body}")).as_bytes(),
        )?;
    }
    for (path, bytes) in &source.assets {
        if !files.contains(path) && path != INDEX {
            add(&mut zip, path, bytes)?;
        }
    }
    let cursor = zip.finish().map_err(|e| failed(&e))?;
    Ok(cursor.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_urls_climb_out_of_the_folder_and_encode_segments() {
        assert_eq!(relative("a/b/c.html", "a/d/e f.html"), "../d/e%20f.html");
        assert_eq!(relative("index.html", "notes/a.html"), "notes/a.html");
        assert_eq!(relative("notes/a.html", "index.html"), "../index.html");
        assert_eq!(relative("notes/a.html", "notes/b.html"), "b.html");
        assert_eq!(relative("a/a.html", "a.png"), "../a.png");
    }

    #[test]
    fn a_root_index_page_steps_aside_for_the_listing() {
        assert_eq!(html_path("index.md"), "index.page.html");
        assert_eq!(html_path("notes/index.md"), "notes/index.html");
    }
}
