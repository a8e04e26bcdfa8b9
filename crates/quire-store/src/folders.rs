//! The folders around knowledge roots, before a [`crate::Root`] is opened: making a root's
//! folder, telling whether two roots are one folder, reading the server's own files that
//! live beside the knowledge (the spaces registry), writing a root's first configuration.
//! The service reaches the disk only through this crate; these are the few steps it needs
//! where there is no root yet.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

/// Creates `dir` and its missing parents.
pub fn create_folder(dir: &Path) -> io::Result<()> {
    fs::create_dir_all(dir)
}

/// Whether `dir` is a folder with nothing in it.
pub fn is_empty_folder(dir: &Path) -> bool {
    fs::read_dir(dir)
        .map(|mut entries| entries.next().is_none())
        .unwrap_or(false)
}

/// `dir` made absolute (against the working folder), with symbolic links resolved as far as
/// the folder exists and the rest appended as written: what decides whether two roots are
/// one folder, including a root that does not exist yet.
pub fn resolved_folder(dir: &Path) -> PathBuf {
    let absolute = if dir.is_absolute() {
        dir.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|cwd| cwd.join(dir))
            .unwrap_or_else(|_| dir.to_path_buf())
    };
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(canonical) = fs::canonicalize(existing) {
            return rest
                .iter()
                .rev()
                .fold(canonical, |path: PathBuf, part| path.join(part));
        }
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => {
                return absolute
                    .components()
                    .filter(|c| *c != Component::CurDir)
                    .collect()
            }
        }
    }
}

/// The text of a file, `None` when there is none.
pub fn read_text_if_any(path: &Path) -> io::Result<Option<String>> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Writes `bytes` to `path` only when no file is there (never replacing one, even written
/// meanwhile by another process); `true` when it wrote. The file appears whole or not at
/// all: it is written beside `path` first and linked into place.
pub fn write_if_absent(path: &Path, bytes: &[u8]) -> io::Result<bool> {
    if path.exists() {
        return Ok(false);
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = (|| {
        let mut file = fs::File::create(&tmp)?;
        io::Write::write_all(&mut file, bytes)?;
        file.sync_all()?;
        match fs::hard_link(&tmp, path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            // A file system without hard links: moved into place instead, still whole.
            Err(_) if !path.exists() => fs::rename(&tmp, path).map(|()| true),
            Err(e) => Err(e),
        }
    })();
    let _ = fs::remove_file(&tmp);
    written
}
