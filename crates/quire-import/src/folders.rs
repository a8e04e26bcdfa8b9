//! A folder source, or a zip of one: the files `markdown` and `obsidian` read. A folder is
//! walked (hidden files and folders skipped, symbolic links not followed); a zip is read
//! entry by entry, each counted as it inflates (`excel::inflate`, the workbook check), its
//! names checked so that no entry can name a place outside the folder.
//!
//! Paths are `/`-separated and relative to the folder (or to the zip's one top folder, when
//! every entry sits under the same one: a zip made by "compress folder" holds `vault/…`).

use std::io::Cursor;
use std::path::Path;

use crate::excel::{inflate, PackageLimits};
use crate::{ImportError, Limits};

/// One file read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Relative to the folder, `/`-separated.
    pub path: String,
    pub bytes: Vec<u8>,
}

/// The files of a folder or zip.
#[derive(Debug, Clone, Default)]
pub struct Tree {
    /// The `.md` files, in path order.
    pub notes: Vec<Entry>,
    /// The other files, in path order (only when asked for).
    pub attachments: Vec<Entry>,
    /// Zip entries refused for their name (`..`, absolute, a backslash, a drive letter, a
    /// control character, a symbolic link): the name as the archive gives it, and why.
    pub refused: Vec<(String, String)>,
}

/// What to read.
#[derive(Debug, Clone, Copy, Default)]
pub struct Want {
    /// Read the files that are not markdown too.
    pub attachments: bool,
    /// Read only the first notes (a preview).
    pub first: Option<usize>,
}

/// The files below `path`, a folder or a zip of one. Past `limits.max_rows` notes (or files
/// in all) or `limits.max_bytes` read (inflated, for a zip) is [`ImportError::TooLarge`].
pub fn read_tree(path: &Path, want: Want, limits: &Limits) -> Result<Tree, ImportError> {
    let meta = std::fs::metadata(path).map_err(|e| crate::files::missing(path, &e))?;
    if meta.is_dir() {
        read_folder(path, want, limits)
    } else {
        read_zip(path, want, limits)
    }
}

fn read_folder(folder: &Path, want: Want, limits: &Limits) -> Result<Tree, ImportError> {
    let mut files = Vec::new();
    walk(folder, "", &mut files, limits.max_rows, want.attachments)?;
    files.sort();
    let mut tree = Tree::default();
    let mut total: u64 = 0;
    for relative in files {
        let note = relative.ends_with(".md");
        if !note && !want.attachments {
            continue;
        }
        if note && want.first.is_some_and(|n| tree.notes.len() >= n) {
            continue;
        }
        let path = folder.join(&relative);
        let len = std::fs::metadata(&path)
            .map_err(|e| crate::files::missing(&path, &e))?
            .len();
        if total + len > limits.max_bytes {
            return Err(crate::files::too_big(total + len, limits));
        }
        let bytes = std::fs::read(&path).map_err(|e| crate::files::missing(&path, &e))?;
        total += bytes.len() as u64;
        if total > limits.max_bytes {
            return Err(crate::files::too_big(total, limits));
        }
        let entry = Entry {
            path: relative,
            bytes,
        };
        if note {
            tree.notes.push(entry);
        } else {
            tree.attachments.push(entry);
        }
    }
    Ok(tree)
}

/// Every file below `dir` (only `.md` ones without `all`), at most `max`.
fn walk(
    dir: &Path,
    prefix: &str,
    out: &mut Vec<String>,
    max: usize,
    all: bool,
) -> Result<(), ImportError> {
    let entries = std::fs::read_dir(dir).map_err(|e| crate::files::missing(dir, &e))?;
    for entry in entries {
        let entry = entry.map_err(|e| crate::files::missing(dir, &e))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with('.') {
            continue;
        }
        let kind = entry
            .file_type()
            .map_err(|e| crate::files::missing(dir, &e))?;
        let relative = if prefix.is_empty() {
            name.to_string()
        } else {
            format!("{prefix}/{name}")
        };
        if kind.is_dir() {
            walk(&entry.path(), &relative, out, max, all)?;
        } else if kind.is_file() && (all || name.ends_with(".md")) {
            out.push(relative);
            if out.len() > max {
                return Err(ImportError::TooLarge(format!(
                    "the folder holds more than {max} files, the most one import takes"
                )));
            }
        }
    }
    Ok(())
}

fn read_zip(path: &Path, want: Want, limits: &Limits) -> Result<Tree, ImportError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let bytes = crate::files::read_file(path, limits)?;
    if !bytes.starts_with(b"PK") {
        return Err(ImportError::BadRequest(format!(
            "{name} is neither a folder nor a zip of one"
        )));
    }
    let mut archive = zip::ZipArchive::new(Cursor::new(&bytes[..]))
        .map_err(|e| ImportError::BadRequest(format!("{name} is no readable zip: {e}")))?;
    let package = PackageLimits {
        entry_bytes: limits.max_bytes,
        total_bytes: limits.max_bytes,
        entries: limits.max_rows,
    };
    if archive.len() > package.entries {
        return Err(ImportError::TooLarge(format!(
            "{name} holds {} entries, more than the {} one import takes",
            archive.len(),
            package.entries
        )));
    }
    let mut tree = Tree::default();
    // The entries kept: index in the archive, path.
    let mut kept: Vec<(usize, String)> = Vec::new();
    for i in 0..archive.len() {
        let entry = archive.by_index_raw(i).map_err(|e| {
            ImportError::BadRequest(format!("{name}: entry {i} cannot be read: {e}"))
        })?;
        if entry.is_dir() {
            continue;
        }
        let raw = String::from_utf8_lossy(entry.name_raw()).into_owned();
        if entry.is_symlink() {
            tree.refused.push((
                raw,
                "is a symbolic link, which imports do not follow".into(),
            ));
            continue;
        }
        match entry_path(&raw) {
            Ok(Some(path)) => kept.push((i, path)),
            Ok(None) => {}
            Err(why) => tree.refused.push((raw, why)),
        }
    }
    strip_top_folder(&mut kept);
    kept.sort_by(|a, b| a.1.cmp(&b.1));
    let notes = kept.iter().filter(|(_, p)| p.ends_with(".md")).count();
    if notes > limits.max_rows {
        return Err(ImportError::TooLarge(format!(
            "{name} holds more than {} pages, the most one import takes",
            limits.max_rows
        )));
    }
    let mut total = 0u64;
    let mut buffer = vec![0u8; 64 * 1024];
    for (i, relative) in kept {
        let note = relative.ends_with(".md");
        if !note && !want.attachments {
            continue;
        }
        if note && want.first.is_some_and(|n| tree.notes.len() >= n) {
            continue;
        }
        let mut entry = archive.by_index(i).map_err(|e| {
            ImportError::BadRequest(format!("{name}: entry {i} cannot be read: {e}"))
        })?;
        let mut bytes = Vec::new();
        inflate(
            &mut entry,
            &name,
            i,
            &package,
            &mut total,
            &mut buffer,
            Some(&mut bytes),
        )?;
        let entry = Entry {
            path: relative,
            bytes,
        };
        if note {
            tree.notes.push(entry);
        } else {
            tree.attachments.push(entry);
        }
    }
    Ok(tree)
}

/// When every path has a folder and all share the first one, that folder goes.
fn strip_top_folder(kept: &mut [(usize, String)]) {
    let Some(top) = kept
        .first()
        .and_then(|(_, p)| p.split_once('/'))
        .map(|(top, _)| format!("{top}/"))
    else {
        return;
    };
    if kept.iter().all(|(_, p)| p.starts_with(&top)) {
        for (_, p) in kept.iter_mut() {
            *p = p[top.len()..].to_string();
        }
    }
}

/// A zip entry's name as a relative path: `Ok(None)` for a hidden one (a segment starting
/// with `.`: `.obsidian/`, `.trash/`, macOS's `._*`), an error for a name that could leave the
/// folder or does not travel: `..`, a leading `/`, a backslash, a drive letter, a control
/// character.
pub fn entry_path(raw: &str) -> Result<Option<String>, String> {
    if raw.contains('\\') {
        return Err("holds a backslash; zip entries use `/`".into());
    }
    if raw.starts_with('/') {
        return Err("is an absolute path".into());
    }
    if raw.chars().any(char::is_control) {
        return Err("holds a control character".into());
    }
    let mut segments = Vec::new();
    let mut hidden = false;
    for segment in raw.split('/') {
        match segment {
            "" | "." => continue,
            ".." => return Err("leaves the folder (`..`)".into()),
            s if segments.is_empty() && s.len() >= 2 && s.as_bytes()[1] == b':' => {
                return Err("names a drive".into())
            }
            s => {
                hidden |= s.starts_with('.');
                segments.push(s);
            }
        }
    }
    if hidden || segments.is_empty() {
        return Ok(None);
    }
    Ok(Some(segments.join("/")))
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = Cursor::new(Vec::new());
        {
            let mut zip = zip::ZipWriter::new(&mut out);
            let options = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated);
            for (name, bytes) in entries {
                zip.start_file(*name, options).unwrap();
                zip.write_all(bytes).unwrap();
            }
            zip.finish().unwrap();
        }
        out.into_inner()
    }

    fn write_zip(dir: &Path, entries: &[(&str, &[u8])]) -> std::path::PathBuf {
        let path = dir.join("vault.zip");
        std::fs::write(&path, zip_of(entries)).unwrap();
        path
    }

    fn paths(entries: &[Entry]) -> Vec<&str> {
        entries.iter().map(|e| e.path.as_str()).collect()
    }

    #[test]
    fn entry_names_that_leave_the_folder_are_refused_and_hidden_ones_skipped() {
        assert_eq!(entry_path("a/b.md"), Ok(Some("a/b.md".into())));
        assert_eq!(entry_path("./a//b.md"), Ok(Some("a/b.md".into())));
        assert_eq!(entry_path(".obsidian/app.json"), Ok(None));
        assert_eq!(entry_path("v/.trash/x.md"), Ok(None));
        assert_eq!(entry_path("__MACOSX/v/._a.md"), Ok(None));
        for bad in [
            "../evil.md",
            "a/../../evil.md",
            "/etc/passwd",
            "a\\..\\evil.md",
            "C:/evil.md",
            "c:evil.md",
            "a/\u{1}b.md",
        ] {
            assert!(entry_path(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_zip_reads_like_its_folder_without_the_top_folder() {
        let dir = tempfile::tempdir().unwrap();
        let zip = write_zip(
            dir.path(),
            &[
                ("vault/a.md", b"A"),
                ("vault/sub/b.md", b"B"),
                ("vault/img/p.png", b"\x89PNG"),
                ("vault/.obsidian/app.json", b"{}"),
            ],
        );
        let want = Want {
            attachments: true,
            first: None,
        };
        let tree = read_tree(&zip, want, &Limits::default()).unwrap();
        assert_eq!(paths(&tree.notes), ["a.md", "sub/b.md"]);
        assert_eq!(paths(&tree.attachments), ["img/p.png"]);
        assert_eq!(tree.notes[1].bytes, b"B");
        assert!(tree.refused.is_empty());
        // Two top folders: both kept.
        let zip = write_zip(dir.path(), &[("x/a.md", b"A"), ("y/b.md", b"B")]);
        let tree = read_tree(&zip, Want::default(), &Limits::default()).unwrap();
        assert_eq!(paths(&tree.notes), ["x/a.md", "y/b.md"]);
        assert!(tree.attachments.is_empty(), "not asked for");
        // A preview reads the first notes only.
        let want = Want {
            attachments: false,
            first: Some(1),
        };
        let tree = read_tree(&zip, want, &Limits::default()).unwrap();
        assert_eq!(paths(&tree.notes), ["x/a.md"]);
    }

    #[test]
    fn hostile_entries_are_refused_and_the_rest_read() {
        let dir = tempfile::tempdir().unwrap();
        let zip = write_zip(
            dir.path(),
            &[
                ("ok.md", b"fine"),
                ("../evil.md", b"evil"),
                ("/abs.md", b"evil"),
                ("c:\\win.md", b"evil"),
            ],
        );
        let tree = read_tree(&zip, Want::default(), &Limits::default()).unwrap();
        assert_eq!(paths(&tree.notes), ["ok.md"]);
        let refused: Vec<&str> = tree.refused.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(refused, ["../evil.md", "/abs.md", "c:\\win.md"]);
    }

    #[test]
    fn a_zip_bomb_is_too_large_counted_as_it_inflates() {
        let dir = tempfile::tempdir().unwrap();
        let big = vec![b'a'; 4 << 20];
        let zip = write_zip(dir.path(), &[("bomb.md", &big)]);
        assert!(std::fs::metadata(&zip).unwrap().len() < 64 * 1024);
        let limits = Limits {
            max_bytes: 1 << 20,
            max_rows: 10,
        };
        let err = read_tree(&zip, Want::default(), &limits).unwrap_err();
        assert!(matches!(err, ImportError::TooLarge(_)), "{err:?}");
        // Too many pages.
        let names: Vec<String> = (0..11).map(|i| format!("n{i}.md")).collect();
        let entries: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b"x"[..])).collect();
        let zip = write_zip(dir.path(), &entries);
        let err = read_tree(&zip, Want::default(), &limits).unwrap_err();
        assert!(matches!(err, ImportError::TooLarge(_)), "{err:?}");
        // Not a zip.
        std::fs::write(dir.path().join("x.txt"), "hello").unwrap();
        let err = read_tree(&dir.path().join("x.txt"), Want::default(), &limits).unwrap_err();
        assert!(matches!(err, ImportError::BadRequest(_)), "{err:?}");
    }

    #[test]
    fn a_folder_reads_notes_and_attachments_skipping_hidden_ones() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".obsidian")).unwrap();
        std::fs::create_dir_all(root.join("attachments")).unwrap();
        std::fs::write(root.join(".obsidian/app.json"), "{}").unwrap();
        std::fs::write(root.join("attachments/p.png"), "png").unwrap();
        std::fs::write(root.join("a.md"), "A").unwrap();
        let want = Want {
            attachments: true,
            first: None,
        };
        let tree = read_tree(root, want, &Limits::default()).unwrap();
        assert_eq!(paths(&tree.notes), ["a.md"]);
        assert_eq!(paths(&tree.attachments), ["attachments/p.png"]);
        let small = Limits {
            max_bytes: 3,
            max_rows: 10,
        };
        assert!(matches!(
            read_tree(root, want, &small),
            Err(ImportError::TooLarge(_))
        ));
    }
}
