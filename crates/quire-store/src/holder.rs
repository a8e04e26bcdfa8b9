//! Who holds a root's writer lock, as its lock file records it (named by the error that
//! refuses a second writer, so below both).

use std::fmt;

use serde::{Deserialize, Serialize};

/// Who holds the writer lock of a root, as its lock file records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockHolder {
    /// Process id; 0 when the record could not be read.
    pub pid: u32,
    /// `serve`, or the name of the command holding the lock (`apply`, `init`, …); `unknown`
    /// when the record could not be read (a platform whose locks also bar reading, or a holder
    /// that has not written it yet).
    pub kind: String,
    /// When the lock was taken, RFC 3339; empty when unknown.
    pub started: String,
    /// The base address of a server's REST API, once its listener is bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<String>,
}

impl LockHolder {
    pub(crate) fn unknown() -> LockHolder {
        LockHolder {
            pid: 0,
            kind: "unknown".into(),
            started: String::new(),
            api: None,
        }
    }
}

impl fmt::Display for LockHolder {
    /// `quire serve (pid 4242, since 2026-05-01T10:00:00Z, API at http://127.0.0.1:3333)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pid == 0 {
            return f.write_str("another process (its lock record cannot be read)");
        }
        write!(f, "quire {} (pid {}", self.kind, self.pid)?;
        if !self.started.is_empty() {
            write!(f, ", since {}", self.started)?;
        }
        if let Some(api) = &self.api {
            write!(f, ", API at {api}")?;
        }
        f.write_str(")")
    }
}
