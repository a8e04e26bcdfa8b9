//! Events broadcast after a change has passed the whole pipeline (file, commit, index).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// One event of `GET /events`; the SSE event name is [`Event::name`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(untagged)]
pub enum Event {
    /// A file was created or updated.
    Write {
        path: String,
        actor: String,
        /// RFC 3339.
        timestamp: String,
    },
    /// A file was deleted.
    Delete {
        path: String,
        actor: String,
        timestamp: String,
    },
    /// An import finished: one commit of `paths` (placed before `Bulk`, whose fields it
    /// has too, so that an untagged read tells them apart).
    Import {
        /// Pages created or changed.
        imported: usize,
        /// The `_source` of the pages.
        source: String,
        actor: String,
        /// Every page the import wrote (archived ones too).
        paths: Vec<String>,
        timestamp: String,
    },
    /// A bulk write completed.
    Bulk {
        paths: Vec<String>,
        actor: String,
        timestamp: String,
    },
}

impl Event {
    /// The event's name on the stream: `write`, `delete`, `bulk` or `import`.
    pub fn name(&self) -> &'static str {
        match self {
            Event::Write { .. } => "write",
            Event::Delete { .. } => "delete",
            Event::Bulk { .. } => "bulk",
            Event::Import { .. } => "import",
        }
    }
}
