//! `PagePath`: the one validated, root-relative, NFC path type of the pure core.

use std::borrow::{Borrow, Cow};
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use thiserror::Error;
use unicode_normalization::{is_nfc, UnicodeNormalization};

/// Why a string is not a [`PagePath`]. The Display text is meant for a 400 response body.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PathError {
    #[error("path is empty")]
    Empty,
    #[error("path {0:?} contains a NUL character")]
    Nul(String),
    #[error("path {0:?} contains a backslash; use '/' to separate folders")]
    Backslash(String),
    #[error("path {0:?} ends with '/'; a path names a file, not a folder")]
    TrailingSlash(String),
    #[error("path {0:?} contains an empty component ('//')")]
    EmptyComponent(String),
    #[error("path {0:?} contains a '.' component")]
    CurrentDir(String),
    #[error("path {0:?} contains a '..' component; paths may not leave the root")]
    ParentDir(String),
}

/// A path relative to the knowledge root: `/`-separated, NFC, no leading `/`, no empty,
/// `.` or `..` components, no NUL, no `\`, no trailing `/`.
///
/// Cloning is cheap (shared string). Ordering is byte order of the path, which is also
/// the tie-break order of link resolution.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PagePath(Arc<str>);

impl PagePath {
    /// Validates and normalises `input`; one leading `/` is accepted and stripped.
    pub fn new(input: &str) -> Result<PagePath, PathError> {
        let rest = input.strip_prefix('/').unwrap_or(input);
        let text = nfc(rest);
        check(&text)?;
        Ok(PagePath(Arc::from(text.as_ref())))
    }

    /// `folder/name`, or just `name` when `folder` is empty (the root).
    pub fn join(folder: &str, name: &str) -> Result<PagePath, PathError> {
        let folder = folder.strip_prefix('/').unwrap_or(folder);
        if folder.is_empty() {
            return PagePath::new(name);
        }
        if name.is_empty() {
            return Err(PathError::TrailingSlash(format!("{folder}/")));
        }
        PagePath::new(&format!("{folder}/{name}"))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The last component, e.g. `note.md` for `a/b/note.md`.
    pub fn name(&self) -> &str {
        name_of(&self.0)
    }

    /// The name without `.md` for pages, without the last extension for other files
    /// (`x.canvas.json` → `x.canvas`); the whole name when it has no extension.
    pub fn stem(&self) -> &str {
        let name = self.name();
        match self.extension() {
            Some(ext) => &name[..name.len() - ext.len() - 1],
            None => name,
        }
    }

    /// The folder holding the file, `""` for a file at the root.
    pub fn folder(&self) -> &str {
        folder_of(&self.0)
    }

    /// The folder holding the file, `None` for a file at the root.
    pub fn parent(&self) -> Option<&str> {
        self.0.rfind('/').map(|i| &self.0[..i])
    }

    /// The last extension without its dot (`md`, `png`, `json`); a leading dot as in
    /// `.gitignore` does not start an extension.
    pub fn extension(&self) -> Option<&str> {
        let name = self.name();
        match name.rfind('.') {
            Some(0) | None => None,
            Some(i) => Some(&name[i + 1..]),
        }
    }

    /// A markdown page: the name ends in `.md` (this includes `*.excalidraw.md`).
    pub fn is_page(&self) -> bool {
        self.0.ends_with(".md")
    }

    /// A canvas: the name ends in `.canvas.json`.
    pub fn is_canvas(&self) -> bool {
        self.0.ends_with(".canvas.json")
    }

    /// The components from the root down to the name.
    pub fn segments(&self) -> std::str::Split<'_, char> {
        self.0.split('/')
    }

    /// Number of components (`a/b.md` has 2).
    pub fn depth(&self) -> usize {
        self.0.bytes().filter(|b| *b == b'/').count() + 1
    }
}

/// The text after the last `/` (all of it when there is none).
pub(crate) fn name_of(path: &str) -> &str {
    path.rfind('/').map_or(path, |i| &path[i + 1..])
}

/// The text before the last `/` (`""` when there is none).
pub(crate) fn folder_of(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

/// NFC form of `text`, borrowing when it already is NFC (always for ASCII).
pub(crate) fn nfc(text: &str) -> Cow<'_, str> {
    if text.is_ascii() || is_nfc(text) {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.nfc().collect())
    }
}

fn check(text: &str) -> Result<(), PathError> {
    if text.is_empty() {
        return Err(PathError::Empty);
    }
    if text.contains('\0') {
        return Err(PathError::Nul(text.replace('\0', "\u{fffd}")));
    }
    if text.contains('\\') {
        return Err(PathError::Backslash(text.to_owned()));
    }
    if text.ends_with('/') {
        return Err(PathError::TrailingSlash(text.to_owned()));
    }
    for segment in text.split('/') {
        match segment {
            "" => return Err(PathError::EmptyComponent(text.to_owned())),
            "." => return Err(PathError::CurrentDir(text.to_owned())),
            ".." => return Err(PathError::ParentDir(text.to_owned())),
            _ => {}
        }
    }
    Ok(())
}

impl fmt::Display for PagePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for PagePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl AsRef<str> for PagePath {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// Lets maps keyed by `PagePath` be queried with a `&str` (hash and order agree with `str`).
impl Borrow<str> for PagePath {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl TryFrom<&str> for PagePath {
    type Error = PathError;
    fn try_from(value: &str) -> Result<Self, Self::Error> {
        PagePath::new(value)
    }
}

impl std::str::FromStr for PagePath {
    type Err = PathError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PagePath::new(s)
    }
}

impl Serialize for PagePath {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for PagePath {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = Cow::<str>::deserialize(deserializer)?;
        PagePath::new(&text).map_err(serde::de::Error::custom)
    }
}
