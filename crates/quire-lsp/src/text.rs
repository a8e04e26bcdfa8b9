//! Positions and URIs: byte offsets of a text ↔ LSP positions (0-based lines, UTF-16
//! columns), and `file://` URIs ↔ root-relative page paths.

use std::ops::Range;
use std::path::{Path, PathBuf};

use quire_api::workspace_edit::encode_uri_path;
use quire_vault::PagePath;
use serde_json::{json, Value};

/// The line starts of one text.
pub struct Lines<'t> {
    text: &'t str,
    starts: Vec<usize>,
}

impl<'t> Lines<'t> {
    pub fn new(text: &'t str) -> Lines<'t> {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines { text, starts }
    }

    /// The LSP position of a byte offset (clamped to the text, moved back to a character
    /// boundary).
    pub fn position(&self, offset: usize) -> (u32, u32) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let column = self.text[self.starts[line]..offset].encode_utf16().count();
        (line as u32, column as u32)
    }

    /// The byte offset of an LSP position; a column past the line's end is its end, a line
    /// past the text's end is the text's end.
    pub fn offset(&self, line: u32, character: u32) -> usize {
        let Some(&start) = self.starts.get(line as usize) else {
            return self.text.len();
        };
        let mut units = 0u32;
        for (i, c) in self.text[start..].char_indices() {
            if c == '\n' || units >= character {
                return start + i;
            }
            units += c.len_utf16() as u32;
        }
        self.text.len()
    }

    /// The byte range of a 0-based line, without its line break.
    pub fn line_range(&self, line: usize) -> Range<usize> {
        let start = self.starts.get(line).copied().unwrap_or(self.text.len());
        let end = self
            .starts
            .get(line + 1)
            .map_or(self.text.len(), |&next| next - 1);
        let end = if end > start && self.text.as_bytes()[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        start..end.max(start)
    }

    /// The LSP range of a byte range, as JSON.
    pub fn range(&self, bytes: &Range<usize>) -> Value {
        range_json(self.position(bytes.start), self.position(bytes.end))
    }
}

pub fn range_json(start: (u32, u32), end: (u32, u32)) -> Value {
    json!({
        "start": {"line": start.0, "character": start.1},
        "end": {"line": end.0, "character": end.1},
    })
}

/// The root as the editor names it and as it is on disk.
pub struct RootUris {
    /// The root folder, canonical.
    pub dir: PathBuf,
    /// The `file://` URI prefix (no trailing `/`) edits name files with: the editor's own
    /// spelling of the root when it names the same folder.
    pub uri: String,
}

impl RootUris {
    /// `dir` is the space's (canonical) root; `client` the root URI the editor sent, if any.
    pub fn new(dir: &Path, client: Option<&str>) -> RootUris {
        let own = quire_api::workspace_edit::file_uri(&dir.to_string_lossy());
        let uri = client
            .filter(|c| {
                local_path(c)
                    .and_then(|p| p.canonicalize().ok())
                    .is_some_and(|p| p == dir)
            })
            .map(|c| c.trim_end_matches('/').to_string())
            .unwrap_or(own);
        RootUris {
            dir: dir.to_path_buf(),
            uri,
        }
    }

    /// The URI of a root-relative path.
    pub fn uri_of(&self, path: &str) -> String {
        format!("{}/{}", self.uri, encode_uri_path(path))
    }

    /// The page path a `file://` URI names, when it is below the root (the folder itself is
    /// no page path).
    pub fn path_of(&self, uri: &str) -> Option<PagePath> {
        if let Some(rest) = uri.strip_prefix(&self.uri) {
            if let Some(rel) = rest.strip_prefix('/') {
                return PagePath::new(&quire_syntax::percent_decode(rel)).ok();
            }
        }
        let path = local_path(uri)?;
        let rel = match path.strip_prefix(&self.dir) {
            Ok(rel) => rel.to_path_buf(),
            // Another spelling of the root (a symbolic link on the way): the canonical
            // folder of the file, or of its parent when the file does not exist (yet).
            Err(_) => {
                let canonical = path.canonicalize().ok().or_else(|| {
                    let parent = path.parent()?.canonicalize().ok()?;
                    Some(parent.join(path.file_name()?))
                })?;
                canonical.strip_prefix(&self.dir).ok()?.to_path_buf()
            }
        };
        PagePath::new(rel.to_str()?).ok()
    }
}

/// The local path of a `file://` URI.
pub fn local_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // `file://localhost/…` and `file:///…`.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    Some(PathBuf::from(quire_syntax::percent_decode(rest)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units() {
        let text = "a\nüé𝄞x\n\nend";
        let lines = Lines::new(text);
        let x = text.find('x').unwrap();
        assert_eq!(lines.position(x), (1, 4));
        assert_eq!(lines.offset(1, 4), x);
        assert_eq!(lines.offset(1, 99), text.find("\n\n").unwrap());
        assert_eq!(lines.offset(9, 0), text.len());
        assert_eq!(lines.position(text.len()), (3, 3));
        assert_eq!(lines.line_range(2), 12..12);
    }

    #[test]
    fn uris_map_to_page_paths_and_back() {
        let dir = std::env::temp_dir().canonicalize().unwrap();
        let roots = RootUris::new(&dir, None);
        let uri = roots.uri_of("a b/ü.md");
        assert!(uri.ends_with("/a%20b/%C3%BC.md"), "{uri}");
        assert_eq!(roots.path_of(&uri).unwrap().as_str(), "a b/ü.md");
        assert!(roots.path_of("file:///elsewhere/x.md").is_none());
        assert!(roots.path_of("untitled:1").is_none());
    }
}
