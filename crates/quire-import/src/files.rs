//! Where a source is on this server: a path the caller names, kept inside the knowledge root
//! (never `.git/` or `.quire/`, whose config may hold secrets, except uploads), and uploads —
//! files sent for a later import, kept under `.quire/state/uploads/` for a day.

use std::path::{Component, Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::{ImportError, Limits};

/// Where uploads are kept, relative to the root.
pub const UPLOADS_DIR: &str = ".quire/state/uploads";

/// How long an upload is kept.
pub const UPLOAD_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// What the uploads of a root may hold in all, so that uploads never fill the disk: 1 GiB.
pub const UPLOADS_LIMIT: u64 = 1 << 30;

/// The file or folder a caller names for a source: relative to `root` (a leading `/` too,
/// as everywhere in the API), or an absolute path inside it. It must exist, stay inside the
/// root once symbolic links are followed, and not be under `.git/` or `.quire/` (an upload
/// under `.quire/state/uploads/` is fine).
pub fn locate(root: &Path, given: &str) -> Result<PathBuf, ImportError> {
    let given = given.trim();
    if given.is_empty() {
        return Err(ImportError::BadRequest(
            "`connection.file` (or `connection.path`) names no file".to_string(),
        ));
    }
    let root = root
        .canonicalize()
        .map_err(|e| ImportError::Io(format!("the root cannot be read: {e}")))?;
    let path = Path::new(given);
    let joined = if path.is_absolute() && path.starts_with(&root) {
        path.to_path_buf()
    } else {
        let relative = given.trim_start_matches('/');
        if Path::new(relative)
            .components()
            .any(|c| matches!(c, Component::ParentDir | Component::Prefix(_)))
        {
            return Err(ImportError::BadRequest(format!(
                "{given:?} leaves the knowledge root"
            )));
        }
        root.join(relative)
    };
    let real = joined.canonicalize().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => ImportError::NotFound(format!(
            "no file {given:?} in the knowledge root (send it to POST /import/upload first)"
        )),
        // A name too long, a file used as a folder, a NUL byte: the caller's input.
        _ => ImportError::BadRequest(format!("{given:?} cannot be read: {e}")),
    })?;
    let inside = real.strip_prefix(&root).map_err(|_| {
        ImportError::BadRequest(format!(
            "{given:?} is outside the knowledge root: upload it (POST /import/upload) or copy it into the root"
        ))
    })?;
    let first = inside.components().next();
    let hidden = matches!(first, Some(Component::Normal(n)) if n == ".git" || n == ".quire");
    if hidden && !inside.starts_with(UPLOADS_DIR) {
        return Err(ImportError::BadRequest(format!(
            "{given:?} is under .git/ or .quire/, which imports do not read"
        )));
    }
    Ok(real)
}

/// Uploads of one root.
#[derive(Debug, Clone)]
pub struct Uploads {
    root: PathBuf,
    ttl: Duration,
    /// What they may hold in all ([`UPLOADS_LIMIT`]).
    limit: u64,
}

impl Uploads {
    pub fn new(root: &Path) -> Uploads {
        Uploads {
            root: root.to_path_buf(),
            ttl: UPLOAD_TTL,
            limit: UPLOADS_LIMIT,
        }
    }

    /// The same, keeping uploads for `ttl` (tests).
    pub fn with_ttl(root: &Path, ttl: Duration) -> Uploads {
        Uploads {
            root: root.to_path_buf(),
            ttl,
            limit: UPLOADS_LIMIT,
        }
    }

    /// The same, holding at most `limit` bytes in all (tests).
    pub fn with_limit(self, limit: u64) -> Uploads {
        Uploads { limit, ..self }
    }

    /// Keeps `bytes` sent as `name` and answers the root-relative path to give as
    /// `connection.file`: `.quire/state/uploads/<random>/<name>` (the name without folders,
    /// its characters kept to letters, digits, `.`, `-` and `_`). Expired uploads go first.
    pub fn store(&self, name: &str, bytes: &[u8]) -> Result<String, ImportError> {
        self.sweep();
        let held = self.held();
        if held + bytes.len() as u64 > self.limit {
            return Err(ImportError::TooLarge(format!(
                "uploads may hold {} MiB in all and hold {} MiB: import or wait for older \
                 uploads to expire ({} h after they were sent)",
                self.limit >> 20,
                held >> 20,
                self.ttl.as_secs() / 3600
            )));
        }
        let mut random = [0u8; 12];
        getrandom::fill(&mut random)
            .map_err(|e| ImportError::Io(format!("no randomness from the system: {e}")))?;
        let id: String = random.iter().map(|b| format!("{b:02x}")).collect();
        let name = file_name(name);
        let relative = format!("{UPLOADS_DIR}/{id}/{name}");
        let dir = self.root.join(UPLOADS_DIR).join(&id);
        std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(dir.join(&name), bytes))
            .map_err(|e| ImportError::Io(format!("keeping the upload failed: {e}")))?;
        Ok(relative)
    }

    /// The bytes the uploads hold now.
    fn held(&self) -> u64 {
        let Ok(entries) = std::fs::read_dir(self.root.join(UPLOADS_DIR)) else {
            return 0;
        };
        entries
            .flatten()
            .filter_map(|upload| std::fs::read_dir(upload.path()).ok())
            .flat_map(|files| files.flatten())
            .filter_map(|file| file.metadata().ok())
            .map(|m| m.len())
            .sum()
    }

    /// Removes uploads older than the TTL; answers how many went.
    pub fn sweep(&self) -> usize {
        let Ok(entries) = std::fs::read_dir(self.root.join(UPLOADS_DIR)) else {
            return 0;
        };
        let now = SystemTime::now();
        let mut removed = 0;
        for entry in entries.flatten() {
            let age = entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| now.duration_since(t).ok());
            if age.is_some_and(|age| age >= self.ttl)
                && std::fs::remove_dir_all(entry.path()).is_ok()
            {
                removed += 1;
            }
        }
        removed
    }
}

/// An uploaded file's name, safe as one path segment.
fn file_name(name: &str) -> String {
    let last = name.rsplit(['/', '\\']).next().unwrap_or("");
    let kept: String = last
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let kept = kept.trim_start_matches('.');
    if kept.is_empty() {
        "upload".to_string()
    } else {
        kept.chars().take(120).collect()
    }
}

/// The bytes of a file source, refused when larger than the limit.
pub(crate) fn read_file(path: &Path, limits: &Limits) -> Result<Vec<u8>, ImportError> {
    let meta = std::fs::metadata(path).map_err(|e| missing(path, &e))?;
    if !meta.is_file() {
        return Err(ImportError::BadRequest(format!(
            "{} is not a file",
            path.display()
        )));
    }
    if meta.len() > limits.max_bytes {
        return Err(too_big(meta.len(), limits));
    }
    std::fs::read(path).map_err(|e| missing(path, &e))
}

/// A source past the byte limit.
pub(crate) fn too_big(len: u64, limits: &Limits) -> ImportError {
    ImportError::TooLarge(format!(
        "the source is {len} bytes, more than the {} bytes one import reads",
        limits.max_bytes
    ))
}

/// A file or folder that cannot be read, by why.
pub(crate) fn missing(path: &Path, e: &std::io::Error) -> ImportError {
    match e.kind() {
        std::io::ErrorKind::NotFound => {
            ImportError::NotFound(format!("no file or folder {}", path.display()))
        }
        std::io::ErrorKind::PermissionDenied => {
            ImportError::Io(format!("reading {} failed: {e}", path.display()))
        }
        _ => ImportError::BadRequest(format!("{} cannot be read: {e}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_found_inside_the_root_only() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir_all(root.join("data")).unwrap();
        std::fs::create_dir_all(root.join(".quire")).unwrap();
        std::fs::write(root.join("data/a.csv"), "a\n").unwrap();
        std::fs::write(root.join(".quire/config.toml"), "secret").unwrap();
        std::fs::write(dir.path().join("outside.csv"), "a\n").unwrap();
        assert!(locate(&root, "data/a.csv").unwrap().ends_with("data/a.csv"));
        assert!(locate(&root, "/data/a.csv").is_ok());
        let absolute = root.canonicalize().unwrap().join("data/a.csv");
        assert!(locate(&root, absolute.to_str().unwrap()).is_ok());
        for (given, bad) in [
            ("../outside.csv", true),
            // A leading `/` means the root: an absolute path elsewhere is looked up there.
            (dir.path().join("outside.csv").to_str().unwrap(), false),
            (".quire/config.toml", true),
            ("", true),
            ("data/none.csv", false),
        ] {
            let err = locate(&root, given).unwrap_err();
            assert_eq!(
                matches!(err, ImportError::BadRequest(_)),
                bad,
                "{given}: {err:?}"
            );
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path().join("outside.csv"), root.join("data/link.csv"))
                .unwrap();
            assert!(matches!(
                locate(&root, "data/link.csv"),
                Err(ImportError::BadRequest(_))
            ));
        }
    }

    #[test]
    fn uploads_are_kept_under_state_and_swept_after_the_ttl() {
        let dir = tempfile::tempdir().unwrap();
        let uploads = Uploads::new(dir.path());
        let path = uploads.store("../../evil name.csv", b"a\n1\n").unwrap();
        assert!(path.starts_with(".quire/state/uploads/"), "{path}");
        assert!(path.ends_with("/evil_name.csv"), "{path}");
        assert_eq!(std::fs::read(dir.path().join(&path)).unwrap(), b"a\n1\n");
        assert!(locate(dir.path(), &path).is_ok());
        assert_eq!(uploads.sweep(), 0);
        assert_eq!(Uploads::with_ttl(dir.path(), Duration::ZERO).sweep(), 1);
        assert!(!dir.path().join(&path).exists());
    }

    #[test]
    fn uploads_stop_at_their_limit_and_store_nothing_past_it() {
        let dir = tempfile::tempdir().unwrap();
        let uploads = Uploads::new(dir.path()).with_limit(10);
        uploads.store("a.csv", b"123456").unwrap();
        let err = uploads.store("b.csv", b"12345").unwrap_err();
        assert!(matches!(err, ImportError::TooLarge(_)), "{err}");
        let kept = std::fs::read_dir(dir.path().join(UPLOADS_DIR))
            .unwrap()
            .count();
        assert_eq!(kept, 1);
        uploads.store("c.csv", b"1234").unwrap();
    }
}
