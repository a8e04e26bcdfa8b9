//! Copy-on-write history without git: per-file snapshots and a global change log under
//! `.quire/versions/`.
//!
//! Layout: `files/<key>/log.json` holds a file's versions (oldest first) and
//! `files/<key>/<content id>` one snapshot per distinct content, where `<key>` is the git blob
//! id of the page path (a flat, collision-free folder name for any path) and the content id is
//! the file's ETag. `changes.jsonl` is the append-only change feed with increasing numbers.

use std::fs;
use std::io::Write;
use std::sync::{Mutex, MutexGuard};

use serde::{Deserialize, Serialize};

use super::VersionEntry;
use super::{
    check_id, unified_diff, Change, ChangeAction, ChangesPage, FileChange, HistoryOptions, Recorded,
};
use crate::error::StoreError;
use crate::root::{Root, Spelling};

const VERSIONS_DIR: &str = ".quire/versions";
const CHANGES_FILE: &str = ".quire/versions/changes.jsonl";

/// The versions of one file, oldest first.
#[derive(Debug, Default, Serialize, Deserialize)]
struct FileLog {
    path: String,
    versions: Vec<VersionEntry>,
}

struct State {
    /// The newest change number written to the change log.
    last_seq: Option<u64>,
}

pub(crate) struct CowHistory {
    root: Root,
    max_versions: usize,
    state: Mutex<State>,
}

impl CowHistory {
    pub(crate) fn open(root: &Root, opts: &HistoryOptions) -> Result<CowHistory, StoreError> {
        let history = CowHistory {
            root: root.clone(),
            max_versions: opts.max_versions,
            state: Mutex::new(State { last_seq: None }),
        };
        history.end_torn_line()?;
        history.load_last_seq()?;
        Ok(history)
    }

    /// For reading only: a torn last line of the change log is skipped, not ended.
    pub(crate) fn open_read_only(
        root: &Root,
        opts: &HistoryOptions,
    ) -> Result<CowHistory, StoreError> {
        let history = CowHistory {
            root: root.clone(),
            max_versions: opts.max_versions,
            state: Mutex::new(State { last_seq: None }),
        };
        history.load_last_seq()?;
        Ok(history)
    }

    fn load_last_seq(&self) -> Result<(), StoreError> {
        let last_seq = self
            .read_changes()?
            .iter()
            .filter_map(|c| c.seq.parse::<u64>().ok())
            .max();
        self.lock().last_seq = last_seq;
        Ok(())
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn record(
        &self,
        changes: &[FileChange],
        actor: &str,
        message: &str,
    ) -> Result<Recorded, StoreError> {
        let mut state = self.lock();
        let timestamp = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        for change in changes {
            // Snapshots are kept per path; the file is read under its name on disk.
            let path = change.path.as_str();
            if path.starts_with(".quire/state/") || path.starts_with(".quire/versions/") {
                continue;
            }
            // What is on disk decides, as with git: the caller has already made the change.
            let action = match self.root.read_on_disk(&change.disk) {
                Ok(bytes) => {
                    let entry = VersionEntry {
                        hash: crate::etag(&bytes),
                        author: actor.to_owned(),
                        message: message.to_owned(),
                        timestamp: timestamp.clone(),
                    };
                    if !self.snapshot(path, &bytes, entry)? {
                        continue;
                    }
                    ChangeAction::Write
                }
                Err(StoreError::NotFound { .. }) => ChangeAction::Delete,
                Err(e) => return Err(e),
            };
            let seq = state.last_seq.map_or(1, |s| s + 1);
            self.append_change(&Change {
                seq: seq.to_string(),
                path: path.to_owned(),
                action,
                actor: actor.to_owned(),
                timestamp: timestamp.clone(),
            })?;
            state.last_seq = Some(seq);
        }
        Ok(Recorded::Snapshot)
    }

    pub(crate) fn head(&self) -> Option<String> {
        self.lock().last_seq.map(|s| s.to_string())
    }

    pub(crate) fn versions(&self, path: &str) -> Result<Vec<VersionEntry>, StoreError> {
        let _state = self.lock();
        let mut versions = self.load(path)?.versions;
        versions.reverse();
        Ok(versions)
    }

    pub(crate) fn version(&self, path: &str, id: &str) -> Result<Vec<u8>, StoreError> {
        let _state = self.lock();
        self.snapshot_bytes(path, id)
    }

    pub(crate) fn diff(&self, path: &str, from: &str, to: &str) -> Result<String, StoreError> {
        let _state = self.lock();
        let old = self.snapshot_bytes(path, from)?;
        let new = self.snapshot_bytes(path, to)?;
        Ok(unified_diff(path, &old, &new))
    }

    pub(crate) fn changes(
        &self,
        since: Option<&str>,
        limit: usize,
    ) -> Result<ChangesPage, StoreError> {
        let state = self.lock();
        let newest = state.last_seq.map(|s| s.to_string());
        let all = self.read_changes()?;
        let changes: Vec<Change> = match since {
            Some(since) => {
                let after: u64 = since.parse().map_err(|_| {
                    StoreError::version_not_found("changes", since, "not a change number")
                })?;
                all.into_iter()
                    .filter(|c| c.seq.parse::<u64>().is_ok_and(|s| s > after))
                    .take(limit)
                    .collect()
            }
            None => {
                let skip = all.len().saturating_sub(limit);
                all.into_iter().skip(skip).collect()
            }
        };
        let last_seq = changes.last().map(|c| c.seq.clone()).or(newest);
        Ok(ChangesPage { changes, last_seq })
    }

    fn key_dir(path: &str) -> String {
        format!("{VERSIONS_DIR}/files/{}", crate::etag(path.as_bytes()))
    }

    fn load(&self, path: &str) -> Result<FileLog, StoreError> {
        let log_path = format!("{}/log.json", Self::key_dir(path));
        match self.root.read_rel(&log_path, Spelling::Exact) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|source| StoreError::Corrupt {
                path: log_path,
                source,
            }),
            Err(StoreError::NotFound { .. }) => Ok(FileLog {
                path: path.to_owned(),
                versions: Vec::new(),
            }),
            Err(e) => Err(e),
        }
    }

    /// Stores a snapshot and its log entry, pruning beyond `max_versions`. `false` when the
    /// content equals the newest version (nothing to record).
    fn snapshot(&self, path: &str, bytes: &[u8], entry: VersionEntry) -> Result<bool, StoreError> {
        let dir = Self::key_dir(path);
        let mut log = self.load(path)?;
        if log.versions.last().is_some_and(|v| v.hash == entry.hash) {
            return Ok(false);
        }
        let snapshot = format!("{dir}/{}", entry.hash);
        if !log.versions.iter().any(|v| v.hash == entry.hash) {
            self.root.write_rel(&snapshot, bytes, Spelling::Exact)?;
        }
        log.versions.push(entry);
        if self.max_versions > 0 && log.versions.len() > self.max_versions {
            let excess = log.versions.len() - self.max_versions;
            let dropped: Vec<VersionEntry> = log.versions.drain(..excess).collect();
            for old in dropped {
                if !log.versions.iter().any(|v| v.hash == old.hash) {
                    match self
                        .root
                        .remove_rel(&format!("{dir}/{}", old.hash), Spelling::Exact)
                    {
                        Ok(()) | Err(StoreError::NotFound { .. }) => {}
                        Err(e) => return Err(e),
                    }
                }
            }
        }
        let json = serde_json::to_vec_pretty(&log).map_err(|source| StoreError::Corrupt {
            path: format!("{dir}/log.json"),
            source,
        })?;
        self.root
            .write_rel(&format!("{dir}/log.json"), &json, Spelling::Exact)?;
        Ok(true)
    }

    fn snapshot_bytes(&self, path: &str, id: &str) -> Result<Vec<u8>, StoreError> {
        check_id(path, id)?;
        let id_lower = id.to_ascii_lowercase();
        let log = self.load(path)?;
        let mut hashes: Vec<&str> = log
            .versions
            .iter()
            .map(|v| v.hash.as_str())
            .filter(|h| h.starts_with(&id_lower))
            .collect();
        hashes.sort_unstable();
        hashes.dedup();
        match hashes.as_slice() {
            [hash] => self
                .root
                .read_rel(&format!("{}/{hash}", Self::key_dir(path)), Spelling::Exact)
                .map_err(|e| match e {
                    StoreError::NotFound { .. } => {
                        StoreError::version_not_found(path, id, "the snapshot file is missing")
                    }
                    other => other,
                }),
            [] => Err(StoreError::version_not_found(
                path,
                id,
                "no kept version of this file has this id",
            )),
            _ => Err(StoreError::version_not_found(
                path,
                id,
                "the abbreviated id matches several versions",
            )),
        }
    }

    fn append_change(&self, change: &Change) -> Result<(), StoreError> {
        let path = self.root.dir().join(CHANGES_FILE);
        let mut line = serde_json::to_vec(change).map_err(|source| StoreError::Corrupt {
            path: CHANGES_FILE.into(),
            source,
        })?;
        line.push(b'\n');
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| StoreError::io(VERSIONS_DIR, e))?;
        }
        // One write of a whole line in append mode: a crash leaves at most a torn last line,
        // which reading skips.
        fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(&line))
            .map_err(|e| StoreError::io(CHANGES_FILE, e))
    }

    /// A crash in the middle of an append leaves a last line without its newline; ending it
    /// keeps the next entry on a line of its own (the torn one is skipped when reading).
    fn end_torn_line(&self) -> Result<(), StoreError> {
        let path = self.root.dir().join(CHANGES_FILE);
        match fs::read(&path) {
            Ok(bytes) if !bytes.is_empty() && !bytes.ends_with(b"\n") => fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .and_then(|mut f| f.write_all(b"\n"))
                .map_err(|e| StoreError::io(CHANGES_FILE, e)),
            Ok(_) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(StoreError::io(CHANGES_FILE, e)),
        }
    }

    fn read_changes(&self) -> Result<Vec<Change>, StoreError> {
        let text = match fs::read_to_string(self.root.dir().join(CHANGES_FILE)) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(StoreError::io(CHANGES_FILE, e)),
        };
        let mut out = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Change>(line) {
                Ok(change) => out.push(change),
                Err(e) => {
                    tracing::warn!(line = i + 1, error = %e, "skipping a torn change-log line")
                }
            }
        }
        Ok(out)
    }
}
