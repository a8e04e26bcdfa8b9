//! Staging without git's filters, when no filter can apply.
//!
//! `git_index_add_bypath` looks up the attributes of every path it stages (walking up the
//! folders for `.gitattributes` files) to load its filter list; in a commit of thousands of
//! files that lookup costs more than reading and hashing the files. When the repository has no
//! attribute source at all and no automatic line-ending conversion, every filter list is
//! empty, so the blob is the file's bytes and can be written directly.

use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

use git2::{FileMode, Index, IndexEntry, IndexTime, Oid, Repository};

/// Whether no filter can apply to the files `staged` of `repo`: no `.gitattributes` in any
/// of their folders or above (tracked in `index`, staged now, or on disk), none in `info/`,
/// no global or system attributes file, and no `core.autocrlf`. An attributes file applies
/// only to the files of its folder and below, so only those folders are looked at: a few
/// lookups, where scanning the whole index cost a commit of a 20,000-file root more.
pub(super) fn no_filters(repo: &Repository, index: &Index, staged: &[&str]) -> bool {
    let attributes = |p: &str| p == ".gitattributes" || p.ends_with("/.gitattributes");
    if staged.iter().any(|p| attributes(p)) {
        return false;
    }
    if repo.path().join("info").join("attributes").exists() {
        return false;
    }
    let Ok(config) = repo.config() else {
        return false;
    };
    if config.get_string("core.attributesfile").is_ok() {
        return false;
    }
    match config.get_string("core.autocrlf") {
        Ok(value)
            if !matches!(
                value.to_ascii_lowercase().as_str(),
                "false" | "no" | "off" | "0" | ""
            ) =>
        {
            return false
        }
        _ => {}
    }
    // The default places of the global and system attributes files, beside their configs.
    let beside = |config: Result<std::path::PathBuf, git2::Error>| {
        config
            .ok()
            .and_then(|c| c.parent().map(|d| d.join("attributes")))
            .is_some_and(|a| a.exists())
    };
    if beside(git2::Config::find_xdg()) || Path::new("/etc/gitattributes").exists() {
        return false;
    }
    let Some(workdir) = repo.workdir() else {
        return false;
    };
    let mut folders = BTreeSet::new();
    for path in staged {
        let mut folder = Path::new(path).parent();
        while let Some(dir) = folder {
            if !folders.insert(dir) {
                break;
            }
            folder = dir.parent();
        }
    }
    folders.iter().all(|folder| {
        let file = folder.join(".gitattributes");
        index.get_path(&file, 0).is_none() && fs::symlink_metadata(workdir.join(&file)).is_err()
    })
}

/// Stages the regular file `rel` (whose stat data, taken before this call, is `meta`) by
/// writing its bytes as a blob. The stat data is taken before the read: if the file is
/// replaced in between, the entry's stat data is older than the content, and git hashes the
/// file again instead of trusting it.
pub(super) fn stage_file(
    repo: &Repository,
    index: &mut Index,
    workdir: &Path,
    rel: &str,
    meta: &fs::Metadata,
    filemode: bool,
) -> Result<(Oid, FileMode), git2::Error> {
    let bytes = fs::read(workdir.join(rel)).map_err(|e| git2::Error::from_str(&e.to_string()))?;
    stage_bytes(repo, index, rel, &bytes, meta, filemode)
}

/// Stages `bytes`, read from the regular file `rel` after its stat data `meta` was taken, as
/// the file's blob (see [`stage_file`]).
pub(super) fn stage_bytes(
    repo: &Repository,
    index: &mut Index,
    rel: &str,
    bytes: &[u8],
    meta: &fs::Metadata,
    filemode: bool,
) -> Result<(Oid, FileMode), git2::Error> {
    let id = repo.blob(bytes)?;
    let executable = if filemode {
        meta.permissions().mode() & 0o100 != 0
    } else {
        // Without `core.filemode` the mode already recorded stays.
        index
            .get_path(Path::new(rel), 0)
            .is_some_and(|e| e.mode == 0o100755)
    };
    let mode = if executable { 0o100755 } else { 0o100644 };
    let time = |secs: i64, nanos: i64| IndexTime::new(secs as i32, nanos as u32);
    let entry = IndexEntry {
        ctime: time(meta.ctime(), meta.ctime_nsec()),
        mtime: time(meta.mtime(), meta.mtime_nsec()),
        dev: meta.dev() as u32,
        ino: meta.ino() as u32,
        mode,
        uid: meta.uid(),
        gid: meta.gid(),
        // The size of the bytes hashed: if the file changed after the stat, sizes differ and
        // git hashes it again.
        file_size: meta.len() as u32,
        id,
        flags: (rel.len().min(0xfff)) as u16,
        flags_extended: 0,
        path: rel.as_bytes().to_vec(),
    };
    index.add(&entry)?;
    let mode = if executable {
        FileMode::BlobExecutable
    } else {
        FileMode::Blob
    };
    Ok((id, mode))
}
