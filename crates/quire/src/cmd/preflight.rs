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
    /// What will build it; `None` when nothing is planned.
    by: Option<&'static str>,
}

const fn unbuilt(key: &'static str, what: &'static str, by: Option<&'static str>) -> Unbuilt {
    Unbuilt { key, what, by }
}

/// The settings this build does not act on. Set to their default they change nothing and
/// pass; set to anything else they stop the start.
#[rustfmt::skip]
const UNBUILT: &[Unbuilt] = &[
    unbuilt(
        "dataview.max_auto_indexes",
        "automatic indexes for DQL (queries run over the in-memory catalog, which needs none)",
        None,
    ),
    unbuilt(
        "dataview.custom_fields",
        "declared kinds of DQL fields (values are typed from what they look like)",
        None,
    ),
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
                Some(by) => format!("({by} builds it)"),
                None => "and no plan builds it".to_string(),
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
    let s3 = &config.protocols.s3;
    if s3.enabled && s3.keys.is_empty() && (s3.access_key.is_none() || s3.secret_key.is_none()) {
        lines.push(
            "protocols.s3.enabled: the S3 API needs protocols.s3.access_key and \
             protocols.s3.secret_key, or [[protocols.s3.keys]] entries (write a secret as \
             \"${QUIRE_S3_SECRET}\" to read it from the environment); set a key or turn it off"
                .to_string(),
        );
    }
    if let Some(line) = nfs_exposed(config) {
        lines.push(line);
    }
    lines.extend(vector_unbuilt(config));
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

/// The stores not built (pinecone, weaviate, milvus), when vector search is on.
fn vector_unbuilt(config: &Config) -> Vec<String> {
    use quire_config::VectorStoreProvider;
    let vector = &config.search.vector;
    if !vector.enabled {
        return Vec::new();
    }
    let mut lines = Vec::new();
    if matches!(
        vector.store.provider,
        VectorStoreProvider::Pinecone | VectorStoreProvider::Weaviate | VectorStoreProvider::Milvus
    ) {
        lines.push(format!(
            "search.vector.store.provider: the {} store is not built yet; use sqlite-vec, \
             pgvector or qdrant",
            vector.store.provider
        ));
    }
    lines
}

/// NFS has no credential quire can check: on a host others can reach it must be asked for.
fn nfs_exposed(config: &Config) -> Option<String> {
    let nfs = &config.protocols.nfs;
    let loopback = config
        .server
        .host
        .parse::<std::net::IpAddr>()
        .is_ok_and(|ip| ip.is_loopback());
    (nfs.enabled && !nfs.allow_remote && !loopback).then(|| {
        format!(
            "protocols.nfs.enabled: NFS checks no credentials and [server] host {:?} is not \
             loopback, so anyone who reaches it could read and write the knowledge base; set \
             protocols.nfs.allow_remote = true to serve it anyway, or listen on 127.0.0.1",
            config.server.host
        )
    })
}

#[cfg(test)]
mod tests;
