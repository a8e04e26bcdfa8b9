//! What `quire serve` checks before it opens a root: every setting of the configuration is
//! either carried out by this build or, set to anything but its default, stops the start with
//! a message naming the key and what will build it. Nothing is silently accepted and ignored.
//! Authentication and CORS are checked by `quire_http::HttpSettings`.

use std::path::Path;

use quire_config::Config;
use quire_service::Error;

/// A setting this build does not carry out.
struct Unbuilt {
    /// The dotted key (`search.vector.enabled`).
    key: &'static str,
    what: &'static str,
    /// What will build it.
    by: &'static str,
}

const VECTOR: &str = "vector search";
const ISSUE_28: &str = "issue 28";
const PROTOCOLS: &str = "issue 26";

/// The settings this build does not act on. Set to their default they change nothing and
/// pass; set to anything else they stop the start.
const UNBUILT: &[Unbuilt] = &[
    Unbuilt {
        key: "search.vector.enabled",
        what: VECTOR,
        by: ISSUE_28,
    },
    Unbuilt {
        key: "search.vector.worker_count",
        what: VECTOR,
        by: ISSUE_28,
    },
    Unbuilt {
        key: "search.vector.chunking.size",
        what: VECTOR,
        by: ISSUE_28,
    },
    Unbuilt {
        key: "search.vector.chunking.overlap",
        what: VECTOR,
        by: ISSUE_28,
    },
    Unbuilt {
        key: "search.vector.embedder.provider",
        what: VECTOR,
        by: ISSUE_28,
    },
    Unbuilt {
        key: "search.vector.embedder.model",
        what: VECTOR,
        by: ISSUE_28,
    },
    Unbuilt {
        key: "search.vector.embedder.api_key",
        what: VECTOR,
        by: ISSUE_28,
    },
    Unbuilt {
        key: "search.vector.embedder.url",
        what: VECTOR,
        by: ISSUE_28,
    },
    Unbuilt {
        key: "search.vector.embedder.dimensions",
        what: VECTOR,
        by: ISSUE_28,
    },
    Unbuilt {
        key: "search.vector.embedder.timeout",
        what: VECTOR,
        by: ISSUE_28,
    },
    Unbuilt {
        key: "search.vector.store.provider",
        what: VECTOR,
        by: ISSUE_28,
    },
    Unbuilt {
        key: "search.vector.store.url",
        what: VECTOR,
        by: ISSUE_28,
    },
    Unbuilt {
        key: "search.vector.store.api_key",
        what: VECTOR,
        by: ISSUE_28,
    },
    Unbuilt {
        key: "search.vector.store.collection",
        what: VECTOR,
        by: ISSUE_28,
    },
    Unbuilt {
        key: "janitor.interval",
        what: "a scheduled janitor scan (GET /janitor answers on request)",
        by: "issue 23, item 17",
    },
    Unbuilt {
        key: "janitor.startup_scan",
        what: "a janitor scan at start (GET /janitor answers on request)",
        by: "issue 23, item 17",
    },
    Unbuilt {
        key: "analytics.track_views",
        what: "page-view analytics",
        by: "issue 23, item 17",
    },
    Unbuilt {
        key: "dataview.max_auto_indexes",
        what:
            "automatic indexes for DQL (queries run over the in-memory catalog, which needs none)",
        by: "nothing planned",
    },
    Unbuilt {
        key: "dataview.custom_fields",
        what: "declared kinds of DQL fields (values are typed from what they look like)",
        by: "nothing planned",
    },
    Unbuilt {
        key: "protocols.nfs.enabled",
        what: "the NFS server",
        by: PROTOCOLS,
    },
    Unbuilt {
        key: "protocols.nfs.port",
        what: "the NFS server",
        by: PROTOCOLS,
    },
    Unbuilt {
        key: "protocols.s3.enabled",
        what: "the S3 server",
        by: PROTOCOLS,
    },
    Unbuilt {
        key: "protocols.s3.port",
        what: "the S3 server",
        by: PROTOCOLS,
    },
    Unbuilt {
        key: "protocols.webdav.enabled",
        what: "the WebDAV server",
        by: PROTOCOLS,
    },
    Unbuilt {
        key: "protocols.webdav.port",
        what: "the WebDAV server",
        by: PROTOCOLS,
    },
];

/// The value at a dotted key of a configuration written as JSON (`Null` where none is).
fn at<'v>(value: &'v serde_json::Value, key: &str) -> &'v serde_json::Value {
    key.split('.').fold(value, |v, part| &v[part])
}

/// The unbuilt settings `config` sets, with what the message says of each.
fn unbuilt_set(config: &Config) -> Vec<String> {
    let written = serde_json::to_value(config).expect("a configuration serializes");
    let default = serde_json::to_value(Config::default()).expect("a configuration serializes");
    UNBUILT
        .iter()
        .filter(|u| at(&written, u.key) != at(&default, u.key))
        .map(|u| {
            let by = match u.by {
                "nothing planned" => "and no plan builds it".to_string(),
                by => format!("({by} builds it)"),
            };
            format!(
                "{}: {} is not built yet {by}; remove the setting",
                u.key, u.what
            )
        })
        .collect()
}

/// Refuses a configuration this build cannot honour, naming every setting at fault. `root`
/// is the main knowledge root (a relative backup remote is relative to it).
pub fn check(root: &Path, config: &Config) -> Result<(), Error> {
    let mut lines = unbuilt_set(config);
    if config.backup.remote.is_some() {
        if let Err(e) = quire_service::BackupSettings::from_config(root, config) {
            lines.push(e);
        }
        if config.versioning.strategy != quire_config::VersioningStrategy::Git {
            lines.push(format!(
                "backup.remote: backups push the git history, and versioning.strategy is {}; \
                 use git or remove the remote",
                config.versioning.strategy
            ));
        }
    }
    if lines.is_empty() {
        return Ok(());
    }
    Err(Error::bad_request(format!(
        "refusing to start: {}",
        lines.join("; ")
    )))
}

#[cfg(test)]
mod tests;
