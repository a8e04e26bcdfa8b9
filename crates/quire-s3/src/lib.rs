//! The S3-compatible API over a quire service, with `s3s`: each space is a bucket (path-style
//! URLs, `http://host:port/<space>/<key>`), each key a file path. Every write is a call of the
//! service's file-system layer ([`quire_service::FileSystem`]), so one pass of the pipeline:
//! one commit by the signing key's actor, the index, events and webhooks.
//!
//! * **ETag** = the file's git blob id, quoted, the same in PUT, HEAD, GET, CopyObject,
//!   listings and the CompleteMultipartUpload answer (a multipart ETag is the whole file's,
//!   not S3's `md5-of-parts-N`).
//! * **Folders**: S3 has none. A key ending in `/` with an empty body creates the folder (and
//!   its parents); folders show as common prefixes, empty ones are no keys.
//! * **Multipart** parts live in memory, bounded ([`multipart::MULTIPART_LIMIT`]).
//! * **Moves**: a CopyObject then a DeleteObject of its source within 30 s is recorded as a
//!   raw move (`via: s3`) by the file-system layer.
//! * **Auth**: SigV4 with the configured keys, each a principal: its writes are commits by its
//!   actor, a read-scoped key gets AccessDenied on every write, a key limited to one space
//!   sees that bucket only. Rate limit and audit are the gate's, in front of [`router`]
//!   (`quire_http::gate::check_s3`). Versioning, ACLs, tagging, bucket creation and the rest
//!   answer NotImplemented.

mod listing;
mod multipart;
mod service;

use std::convert::Infallible;
use std::fmt;
use std::sync::Arc;

use quire_service::Service;

pub use multipart::{MULTIPART_LIMIT, UPLOAD_TTL};

/// The largest object a PutObject or a completed multipart upload may write.
pub const MAX_OBJECT_BYTES: usize = 1 << 30;

/// One S3 key: a principal of its own.
#[derive(Clone)]
pub struct Key {
    /// The access key id clients sign with.
    pub access_key: String,
    /// Its secret (never printed: `Debug` hides it).
    pub secret_key: String,
    /// The author of every commit a write signed with this key makes.
    pub actor: String,
    /// Reads only: every write answers AccessDenied.
    pub read_only: bool,
    /// The only bucket (space) the key sees; `None`: every space.
    pub space: Option<String>,
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Key")
            .field("access_key", &self.access_key)
            .field("secret_key", &"***")
            .field("actor", &self.actor)
            .field("read_only", &self.read_only)
            .field("space", &self.space)
            .finish()
    }
}

/// How the S3 API is reached and who its writes are by.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The keys clients sign with, each access key id once.
    pub keys: Vec<Key>,
    /// The region requests must be signed for.
    pub region: String,
}

/// The S3 service at `/` of its own listener.
pub fn router(service: Arc<Service>, settings: Settings) -> axum::Router {
    let s3 = service::build(service, settings);
    axum::Router::new().fallback_service(tower::service_fn(
        move |request: axum::extract::Request| {
            let mut s3 = s3.clone();
            async move {
                let what = format!("{} {}", request.method(), request.uri().path());
                let answer = tower::Service::<axum::extract::Request>::call(&mut s3, request).await;
                Ok::<_, Infallible>(match answer {
                    Ok(response) => {
                        let status = response.status();
                        if status.is_server_error()
                            && status != axum::http::StatusCode::NOT_IMPLEMENTED
                        {
                            tracing::warn!("s3: {what}: {status}");
                        } else {
                            tracing::debug!("s3: {what}: {status}");
                        }
                        response.map(axum::body::Body::new)
                    }
                    Err(e) => {
                        tracing::warn!("s3: {e:?}");
                        axum::response::IntoResponse::into_response(
                            axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                        )
                    }
                })
            }
        },
    ))
}
