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
    /// A bulk write completed.
    Bulk {
        paths: Vec<String>,
        actor: String,
        timestamp: String,
    },
}

impl Event {
    /// The event's name on the stream: `write`, `delete` or `bulk`.
    pub fn name(&self) -> &'static str {
        match self {
            Event::Write { .. } => "write",
            Event::Delete { .. } => "delete",
            Event::Bulk { .. } => "bulk",
        }
    }
}
