//! The S3 operations over the spaces of a service. Every call of the service runs on a
//! blocking thread (a write is a pipeline pass).

// The s3s inputs and outputs have dozens of optional fields; each answer sets a few of them
// on a default, which reads better one assignment a line.
#![allow(clippy::field_reassign_with_default)]

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use bytes::Bytes;
use futures_util::StreamExt;
use quire_service::{
    etag, media_type_of, ErrorCode, Expect, FsEntry, FsKind, Protocol, Service, Space,
};
use s3s::access::{S3Access, S3AccessContext};
use s3s::auth::{Credentials, S3Auth, SecretKey};
use s3s::dto::*;
use s3s::path::S3Path;
use s3s::service::{S3Service, S3ServiceBuilder};
use s3s::validation::NameValidation;
use s3s::{s3_error, S3Error, S3ErrorCode, S3Request, S3Response, S3Result, S3};

use crate::listing::{self, Child, Item, Row};
use crate::multipart::{Part as HeldPart, UploadError, Uploads};
use crate::{Key, Settings, MAX_OBJECT_BYTES};

/// The operations a read-scoped key may call.
const READS: &[&str] = &[
    "ListBuckets",
    "HeadBucket",
    "GetBucketLocation",
    "HeadObject",
    "GetObject",
    "ListObjects",
    "ListObjectsV2",
    "ListParts",
    "ListMultipartUploads",
];

/// The most rows a listing answers, whatever `max-keys` asks.
const MAX_KEYS: usize = 1000;

/// How many listed files keep their ETag cached (their bytes are read again once forgotten).
const ETAG_CACHE: usize = 200_000;

pub(crate) fn build(service: Arc<Service>, settings: Settings) -> S3Service {
    let keys = Keys(Arc::new(
        settings
            .keys
            .into_iter()
            .map(|key| (key.access_key.clone(), Arc::new(key)))
            .collect(),
    ));
    let mut builder = S3ServiceBuilder::new(QuireS3 {
        service,
        keys: keys.clone(),
        region: settings.region,
        uploads: Arc::new(Uploads::default()),
        etags: Arc::new(Mutex::new(HashMap::new())),
    });
    builder.set_auth(keys.clone());
    builder.set_access(Access(keys));
    builder.set_validation(SpaceNames);
    builder.build()
}

/// The configured keys by access key id.
#[derive(Clone)]
struct Keys(Arc<HashMap<String, Arc<Key>>>);

impl Keys {
    /// The key a signed request's credentials name.
    fn of(&self, credentials: Option<&Credentials>) -> S3Result<&Arc<Key>> {
        credentials
            .and_then(|c| self.0.get(&c.access_key))
            .ok_or_else(|| s3_error!(AccessDenied, "a signed request is required"))
    }
}

#[async_trait::async_trait]
impl S3Auth for Keys {
    async fn get_secret_key(&self, access_key: &str) -> S3Result<SecretKey> {
        match self.0.get(access_key) {
            Some(key) => Ok(SecretKey::from(key.secret_key.as_str())),
            None => Err(s3_error!(
                InvalidAccessKeyId,
                "the access key id does not exist in this server's records"
            )),
        }
    }
}

/// Whether a key opens `bucket`: a key limited to one space sees no other.
fn opens(key: &Key, bucket: &str) -> S3Result<()> {
    match &key.space {
        Some(only) if only != bucket => Err(s3_error!(
            AccessDenied,
            "the S3 key {} opens the bucket {only} only",
            key.access_key
        )),
        _ => Ok(()),
    }
}

/// Signed requests only; a read-scoped key reads only; a key limited to one space reaches
/// that bucket only, a copy's source included.
struct Access(Keys);

impl Access {
    fn source<T>(&self, req: &S3Request<T>, source: &CopySource) -> S3Result<()> {
        let key = self.0.of(req.credentials.as_ref())?;
        match source {
            CopySource::Bucket { bucket, .. } => opens(key, bucket),
            // Answered NotImplemented by the operation.
            _ => Ok(()),
        }
    }
}

#[async_trait::async_trait]
impl S3Access for Access {
    async fn check(&self, cx: &mut S3AccessContext<'_>) -> S3Result<()> {
        let key = self.0.of(cx.credentials())?;
        let op = cx.s3_op().name();
        if key.read_only && !READS.contains(&op) {
            return Err(s3_error!(
                AccessDenied,
                "the S3 key {} is read-only (scope = \"read\"): {op} refused",
                key.access_key
            ));
        }
        match cx.s3_path() {
            S3Path::Root => Ok(()),
            S3Path::Bucket { bucket } | S3Path::Object { bucket, .. } => opens(key, bucket),
        }
    }

    async fn copy_object(&self, req: &mut S3Request<CopyObjectInput>) -> S3Result<()> {
        self.source(req, &req.input.copy_source)
    }

    async fn upload_part_copy(&self, req: &mut S3Request<UploadPartCopyInput>) -> S3Result<()> {
        self.source(req, &req.input.copy_source)
    }
}

/// A bucket is a space: any space name is a bucket name.
struct SpaceNames;

impl NameValidation for SpaceNames {
    fn validate_bucket_name(&self, name: &str) -> bool {
        !name.is_empty()
    }
}

/// The listed ETags: (space, key) → (modified, size, ETag).
type EtagCache = Mutex<HashMap<(String, String), (SystemTime, u64, String)>>;

struct QuireS3 {
    service: Arc<Service>,
    keys: Keys,
    /// The region requests must be signed for.
    region: String,
    uploads: Arc<Uploads>,
    etags: Arc<EtagCache>,
}

/// What an operation works with once the steps every operation shares have run
/// ([`QuireS3::answer`]).
struct Call<I> {
    input: I,
    /// The key the request is signed with.
    key: Arc<Key>,
    /// The trailers of an aws-chunked body (checksums sent after the bytes).
    trailers: Option<s3s::TrailingHeaders>,
}

// ---------------------------------------------------------------------------------------
// Helpers

/// Runs a blocking call of the service.
async fn blocking<T: Send + 'static>(
    call: impl FnOnce() -> S3Result<T> + Send + 'static,
) -> S3Result<T> {
    tokio::task::spawn_blocking(call)
        .await
        .map_err(S3Error::internal_error)?
}

/// The service's error as S3 names it.
fn s3_err(e: quire_service::Error) -> S3Error {
    let code = match e.code {
        ErrorCode::NotFound => S3ErrorCode::NoSuchKey,
        ErrorCode::Forbidden | ErrorCode::Unauthorized | ErrorCode::ApprovalRequired => {
            S3ErrorCode::AccessDenied
        }
        ErrorCode::BadRequest | ErrorCode::Unprocessable | ErrorCode::UnsupportedMediaType => {
            S3ErrorCode::InvalidArgument
        }
        ErrorCode::TooLarge => S3ErrorCode::EntityTooLarge,
        ErrorCode::Conflict => S3ErrorCode::OperationAborted,
        ErrorCode::NotImplemented => S3ErrorCode::NotImplemented,
        ErrorCode::TooManyRequests => S3ErrorCode::SlowDown,
        ErrorCode::Unavailable => S3ErrorCode::ServiceUnavailable,
        _ => {
            tracing::warn!("s3: {}", e.message);
            S3ErrorCode::InternalError
        }
    };
    S3Error::with_message(code, e.message)
}

fn upload_err(e: UploadError) -> S3Error {
    match e {
        UploadError::NoSuchUpload => s3_error!(
            NoSuchUpload,
            "no such upload: it was completed or aborted, or the server restarted (uploads in \
             progress are kept in memory)"
        ),
        UploadError::TooLarge => s3_error!(
            EntityTooLarge,
            "the parts of all multipart uploads in progress may hold {} MiB in all (kept in \
             memory until the upload completes)",
            crate::MULTIPART_LIMIT >> 20
        ),
        UploadError::BadPartNumber => {
            s3_error!(InvalidArgument, "part numbers are 1 to 10000")
        }
        UploadError::InvalidPart(n) => s3_error!(
            InvalidPart,
            "part {n} was not uploaded, or its ETag differs"
        ),
        UploadError::InvalidPartOrder => {
            s3_error!(
                InvalidPartOrder,
                "the parts must be listed in ascending order"
            )
        }
    }
}

fn quoted(tag: &str) -> ETag {
    ETag::Strong(tag.to_string())
}

/// A time to whole seconds, as HTTP dates carry it: rounded up, so that a file written just
/// after a client's local copy never looks older than it (`aws s3 sync` compares the two).
fn to_seconds(t: SystemTime) -> SystemTime {
    let since = t.duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs() + u64::from(since.subsec_nanos() > 0);
    SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
}

fn timestamp(t: SystemTime) -> Timestamp {
    Timestamp::from(to_seconds(t))
}

fn name_of(key: &str) -> &str {
    key.trim_end_matches('/').rsplit('/').next().unwrap_or(key)
}

/// Reads a request body whole, refusing one over `limit` bytes.
async fn read_body(body: Option<StreamingBlob>, limit: usize) -> S3Result<Bytes> {
    let Some(mut body) = body else {
        return Ok(Bytes::new());
    };
    let mut out = Vec::new();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| {
            S3Error::with_message(
                S3ErrorCode::IncompleteBody,
                format!("the request body could not be read: {e}"),
            )
        })?;
        if out.len() + chunk.len() > limit {
            return Err(s3_error!(
                EntityTooLarge,
                "an object may hold {} MiB at most",
                limit >> 20
            ));
        }
        out.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(out))
}

/// The checksums a client sent with a body (as headers or aws-chunked trailers) checked
/// against the bytes received: BadDigest when one differs. Returns the checksums computed.
fn check_digests(
    bytes: &[u8],
    sent: Checksum,
    content_md5: Option<&str>,
    trailers: Option<&s3s::TrailingHeaders>,
) -> S3Result<Checksum> {
    use s3s::crypto::Checksum as _;
    let mut sent = sent;
    if let Some(trailers) = trailers.and_then(s3s::TrailingHeaders::take) {
        let get = |name: &str| {
            trailers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        sent.checksum_crc32 = sent.checksum_crc32.or_else(|| get("x-amz-checksum-crc32"));
        sent.checksum_crc32c = sent
            .checksum_crc32c
            .or_else(|| get("x-amz-checksum-crc32c"));
        sent.checksum_crc64nvme = sent
            .checksum_crc64nvme
            .or_else(|| get("x-amz-checksum-crc64nvme"));
        sent.checksum_sha1 = sent.checksum_sha1.or_else(|| get("x-amz-checksum-sha1"));
        sent.checksum_sha256 = sent
            .checksum_sha256
            .or_else(|| get("x-amz-checksum-sha256"));
    }
    if let Some(md5) = content_md5 {
        let mut hasher = s3s::crypto::Md5::new();
        hasher.update(bytes);
        if STANDARD.encode(hasher.finalize()) != md5.trim() {
            return Err(s3_error!(
                BadDigest,
                "the Content-MD5 you specified did not match what we received"
            ));
        }
    }
    let mut hasher = s3s::checksum::ChecksumHasher {
        crc32: sent.checksum_crc32.is_some().then(Default::default),
        crc32c: sent.checksum_crc32c.is_some().then(Default::default),
        sha1: sent.checksum_sha1.is_some().then(Default::default),
        sha256: sent.checksum_sha256.is_some().then(Default::default),
        crc64nvme: sent.checksum_crc64nvme.is_some().then(Default::default),
    };
    hasher.update(bytes);
    let got = hasher.finalize();
    let pairs = [
        ("CRC32", &sent.checksum_crc32, &got.checksum_crc32),
        ("CRC32C", &sent.checksum_crc32c, &got.checksum_crc32c),
        (
            "CRC64NVME",
            &sent.checksum_crc64nvme,
            &got.checksum_crc64nvme,
        ),
        ("SHA1", &sent.checksum_sha1, &got.checksum_sha1),
        ("SHA256", &sent.checksum_sha256, &got.checksum_sha256),
    ];
    for (name, sent, got) in pairs {
        if let Some(sent) = sent {
            if Some(sent.trim()) != got.as_deref() {
                return Err(s3_error!(
                    BadDigest,
                    "the {name} checksum you specified did not match what we received"
                ));
            }
        }
    }
    Ok(got)
}

/// What a conditional request's headers decide.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    Go,
    NotModified,
    Failed,
}

#[derive(Default)]
struct Conditions {
    if_match: Option<ETagCondition>,
    if_none_match: Option<ETagCondition>,
    if_modified_since: Option<Timestamp>,
    if_unmodified_since: Option<Timestamp>,
}

fn matches(condition: &ETagCondition, tag: &str) -> bool {
    match condition {
        ETagCondition::Any => true,
        ETagCondition::ETag(e) => e.value() == tag,
    }
}

/// RFC 9110's order: If-Match, else If-Unmodified-Since; then If-None-Match, else
/// If-Modified-Since.
fn evaluate(c: &Conditions, tag: &str, modified: SystemTime) -> Verdict {
    let modified = timestamp(modified);
    if let Some(m) = &c.if_match {
        if !matches(m, tag) {
            return Verdict::Failed;
        }
    } else if let Some(since) = &c.if_unmodified_since {
        if &modified > since {
            return Verdict::Failed;
        }
    }
    if let Some(m) = &c.if_none_match {
        if matches(m, tag) {
            return Verdict::NotModified;
        }
    } else if let Some(since) = &c.if_modified_since {
        if &modified <= since {
            return Verdict::NotModified;
        }
    }
    Verdict::Go
}

fn precondition_failed() -> S3Error {
    s3_error!(
        PreconditionFailed,
        "at least one of the preconditions you specified did not hold"
    )
}

/// A file as GET and HEAD answer it.
struct Found {
    bytes: Bytes,
    tag: String,
    modified: SystemTime,
}

fn no_such_key(key: &str) -> S3Error {
    s3_error!(NoSuchKey, "the specified key does not exist: {key}")
}

/// Reads the object at `key`: a file, or (for a key ending in `/`) an existing folder as an
/// empty object.
fn find(space: &Space, key: &str) -> S3Result<Found> {
    let fs = space.file_system(Protocol::S3);
    let path = key.trim_end_matches('/');
    let entry = if path.is_empty() {
        None
    } else {
        fs.stat(path).map_err(s3_err)?
    };
    match entry {
        Some(FsEntry {
            kind: FsKind::File,
            modified,
            ..
        }) if !key.ends_with('/') => {
            let bytes = fs.read(path).map_err(s3_err)?;
            Ok(Found {
                tag: etag(&bytes),
                bytes: Bytes::from(bytes),
                modified,
            })
        }
        Some(FsEntry {
            kind: FsKind::Folder,
            modified,
            ..
        }) if key.ends_with('/') => Ok(Found {
            bytes: Bytes::new(),
            tag: etag(b""),
            modified,
        }),
        _ => Err(no_such_key(key)),
    }
}

fn children(space: &Space, folder: &str) -> Result<Vec<Child>, quire_service::Error> {
    match space.file_system(Protocol::S3).list(folder) {
        Ok(entries) => Ok(entries
            .into_iter()
            .map(|e| match e.kind {
                FsKind::File => Child::File(Item {
                    key: e.path,
                    size: e.size,
                    modified: e.modified,
                }),
                FsKind::Folder => Child::Folder(e.path),
            })
            .collect()),
        // A prefix naming no folder (or no valid path) lists nothing.
        Err(e) if matches!(e.code, ErrorCode::NotFound | ErrorCode::BadRequest) => Ok(Vec::new()),
        Err(e) => Err(e),
    }
}

/// One page of a bucket's listing, each object with its ETag.
struct Listed {
    objects: Vec<(Item, String)>,
    prefixes: Vec<String>,
    truncated: bool,
    /// The last row's name, when truncated.
    last: Option<String>,
}

impl QuireS3 {
    fn space(&self, bucket: &str) -> S3Result<Arc<Space>> {
        self.service
            .space(bucket)
            .ok_or_else(|| s3_error!(NoSuchBucket, "no space is named {bucket}"))
    }

    /// The steps every operation shares: the region checked, the signing key found, then
    /// `op` on the input; its output is the answer.
    async fn answer<I, O, F>(
        &self,
        req: S3Request<I>,
        op: impl FnOnce(Call<I>) -> F,
    ) -> S3Result<S3Response<O>>
    where
        F: Future<Output = S3Result<O>>,
    {
        self.check_region(&req)?;
        let key = self.keys.of(req.credentials.as_ref())?.clone();
        let out = op(Call {
            input: req.input,
            key,
            trailers: req.trailing_headers,
        })
        .await?;
        Ok(S3Response::new(out))
    }

    /// Runs `call` over the space `bucket` names, on a blocking thread (every call of the
    /// service may read the disk, a write is a pipeline pass).
    async fn in_space<T: Send + 'static>(
        &self,
        bucket: &str,
        call: impl FnOnce(&Space) -> S3Result<T> + Send + 'static,
    ) -> S3Result<T> {
        let space = self.space(bucket)?;
        blocking(move || call(&space)).await
    }

    /// Requests must be signed for the configured region.
    fn check_region<T>(&self, req: &S3Request<T>) -> S3Result<()> {
        match &req.region {
            Some(region) if region.as_str() != self.region => Err(s3_error!(
                AuthorizationHeaderMalformed,
                "the region '{}' is wrong; expecting '{}'",
                region.as_str(),
                self.region
            )),
            _ => Ok(()),
        }
    }

    async fn list(
        &self,
        bucket: &str,
        prefix: String,
        delimiter: Option<String>,
        after: Option<String>,
        max: usize,
    ) -> S3Result<Listed> {
        let etags = self.etags.clone();
        self.in_space(bucket, move |space| {
            let rows = listing::rows(&prefix, delimiter.as_deref(), |f| children(space, f))
                .map_err(s3_err)?;
            let page = listing::page(rows, after.as_deref(), max);
            let last = page
                .truncated
                .then(|| page.rows.last().map(|r| r.name().to_string()))
                .flatten();
            let mut objects = Vec::new();
            let mut prefixes = Vec::new();
            let fs = space.file_system(Protocol::S3);
            for row in page.rows {
                match row {
                    Row::Prefix(p) => prefixes.push(p),
                    Row::Object(item) => {
                        let cache_key = (space.name().to_string(), item.key.clone());
                        let cached = etags
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .get(&cache_key)
                            .filter(|(m, s, _)| *m == item.modified && *s == item.size)
                            .map(|(_, _, t)| t.clone());
                        let tag = match cached {
                            Some(tag) => tag,
                            None => {
                                let tag = match fs.etag(&item.key) {
                                    Ok(tag) => tag,
                                    // Deleted since it was listed.
                                    Err(e) if e.code == ErrorCode::NotFound => continue,
                                    Err(e) => return Err(s3_err(e)),
                                };
                                let mut cache = etags.lock().unwrap_or_else(|p| p.into_inner());
                                if cache.len() >= ETAG_CACHE {
                                    cache.clear();
                                }
                                cache.insert(cache_key, (item.modified, item.size, tag.clone()));
                                tag
                            }
                        };
                        objects.push((item, tag));
                    }
                }
            }
            Ok(Listed {
                objects,
                prefixes,
                truncated: page.truncated,
                last,
            })
        })
        .await
    }

    /// GET and HEAD: the object, its conditions checked.
    async fn found(&self, bucket: &str, key: &str, conditions: Conditions) -> S3Result<Found> {
        let key = key.to_string();
        let found = self
            .in_space(bucket, move |space| find(space, &key))
            .await?;
        match evaluate(&conditions, &found.tag, found.modified) {
            Verdict::Go => Ok(found),
            Verdict::NotModified => Err(s3_error!(NotModified)),
            Verdict::Failed => Err(precondition_failed()),
        }
    }

    /// Writes a whole object (PutObject, CompleteMultipartUpload) by `actor` under its
    /// preconditions; returns the new ETag.
    async fn write(
        &self,
        actor: &str,
        bucket: &str,
        key: &str,
        bytes: Bytes,
        if_match: Option<ETagCondition>,
        if_none_match: Option<ETagCondition>,
    ) -> S3Result<String> {
        let (actor, key) = (actor.to_string(), key.to_string());
        let must_exist = matches!(if_match, Some(ETagCondition::Any));
        let expect = match (&if_none_match, &if_match) {
            (Some(ETagCondition::Any), _) => Ok(Expect::Absent),
            (Some(ETagCondition::ETag(_)), _) => Err(s3_error!(
                NotImplemented,
                "If-None-Match on a write takes only *"
            )),
            (None, Some(ETagCondition::ETag(e))) => Ok(Expect::Etag(e.value().to_string())),
            _ => Ok(Expect::Anything),
        };
        self.in_space(bucket, move |space| {
            let mut opts = options(space, &actor);
            opts.expect = expect?;
            let checked = opts.expect != Expect::Anything || must_exist;
            let fs = space.file_system(Protocol::S3);
            if key.ends_with('/') {
                if !bytes.is_empty() {
                    return Err(s3_error!(
                        InvalidArgument,
                        "a key ending in / names a folder, which holds no bytes"
                    ));
                }
                make_folders(space, &key)?;
                return Ok(etag(b""));
            }
            if must_exist && fs.stat(&key).map_err(s3_err)?.is_none() {
                return Err(precondition_failed());
            }
            match fs.put(&key, bytes.to_vec(), &opts) {
                Ok(tag) => Ok(tag),
                Err(e) if checked && e.code == ErrorCode::Conflict => Err(precondition_failed()),
                Err(e) => Err(s3_err(e)),
            }
        })
        .await
    }

    /// The bytes of a copy's source, its conditions checked (any failure is 412).
    async fn source(
        &self,
        source: &CopySource,
        conditions: Conditions,
    ) -> S3Result<(String, String, Found)> {
        let CopySource::Bucket { bucket, key, .. } = source else {
            return Err(s3_error!(
                NotImplemented,
                "copies name their source as bucket/key"
            ));
        };
        let (bucket, key) = (bucket.to_string(), key.to_string());
        let k = key.clone();
        let found = self.in_space(&bucket, move |space| find(space, &k)).await?;
        if evaluate(&conditions, &found.tag, found.modified) != Verdict::Go {
            return Err(precondition_failed());
        }
        Ok((bucket, key, found))
    }
}

/// How a write by `actor` goes through a space's file-system layer.
fn options(space: &Space, actor: &str) -> quire_service::WriteOptions {
    space.file_system(Protocol::S3).options(Some(actor))
}

/// Creates the folder a key ending in `/` names, parents first.
fn make_folders(space: &Space, key: &str) -> S3Result<()> {
    let fs = space.file_system(Protocol::S3);
    let path = key.trim_end_matches('/');
    let mut at = 0;
    for part in path.split('/') {
        at += part.len();
        let folder = &path[..at];
        at += 1;
        match fs.stat(folder).map_err(s3_err)? {
            None => fs.create_folder(folder).map_err(s3_err)?,
            Some(FsEntry {
                kind: FsKind::Folder,
                ..
            }) => {}
            Some(_) => {
                return Err(s3_error!(
                    InvalidArgument,
                    "{folder} is a file, so it cannot hold a folder"
                ))
            }
        }
    }
    Ok(())
}

fn max_keys(asked: Option<i32>) -> usize {
    asked.map_or(MAX_KEYS, |m| usize::try_from(m).unwrap_or(0).min(MAX_KEYS))
}

fn standard() -> ObjectStorageClass {
    ObjectStorageClass::from_static(ObjectStorageClass::STANDARD)
}

fn sent_checksum(
    crc32: Option<String>,
    crc32c: Option<String>,
    crc64nvme: Option<String>,
    sha1: Option<String>,
    sha256: Option<String>,
) -> Checksum {
    let mut c = Checksum::default();
    c.checksum_crc32 = crc32;
    c.checksum_crc32c = crc32c;
    c.checksum_crc64nvme = crc64nvme;
    c.checksum_sha1 = sha1;
    c.checksum_sha256 = sha256;
    c
}

// ---------------------------------------------------------------------------------------
// The operations

/// The conditions of GET and HEAD (`if_match`…) or of a copy's source
/// (`copy_source_if_match`…), as the input names them.
macro_rules! conditions {
    ($input:expr, $m:ident, $nm:ident, $ms:ident, $us:ident) => {
        Conditions {
            if_match: $input.$m,
            if_none_match: $input.$nm,
            if_modified_since: $input.$ms,
            if_unmodified_since: $input.$us,
        }
    };
}

/// The checksums an input sends as headers.
macro_rules! sent_checksums {
    ($input:expr) => {
        sent_checksum(
            $input.checksum_crc32,
            $input.checksum_crc32c,
            $input.checksum_crc64nvme,
            $input.checksum_sha1,
            $input.checksum_sha256,
        )
    };
}

/// Echoes the checksums computed over a body in an output.
macro_rules! echo_checksums {
    ($out:expr, $sums:expr) => {{
        let sums = $sums;
        $out.checksum_crc32 = sums.checksum_crc32;
        $out.checksum_crc32c = sums.checksum_crc32c;
        $out.checksum_crc64nvme = sums.checksum_crc64nvme;
        $out.checksum_sha1 = sums.checksum_sha1;
        $out.checksum_sha256 = sums.checksum_sha256;
    }};
}

#[async_trait::async_trait]
impl S3 for QuireS3 {
    async fn list_buckets(
        &self,
        req: S3Request<ListBucketsInput>,
    ) -> S3Result<S3Response<ListBucketsOutput>> {
        self.answer(req, |Call { key, .. }| async move {
            let service = self.service.clone();
            let only = key.space.clone();
            let buckets = blocking(move || {
                Ok(service
                    .spaces()
                    .iter()
                    // A key limited to one space sees that bucket only.
                    .filter(|space| only.as_deref().is_none_or(|only| space.name() == only))
                    .map(|space| {
                        let created = space
                            .file_system(Protocol::S3)
                            .stat("")
                            .ok()
                            .flatten()
                            .map_or(SystemTime::UNIX_EPOCH, |e| e.modified);
                        let mut b = Bucket::default();
                        b.name = Some(space.name().to_string());
                        b.creation_date = Some(timestamp(created));
                        b
                    })
                    .collect::<Vec<_>>())
            })
            .await?;
            let mut out = ListBucketsOutput::default();
            out.buckets = Some(buckets);
            let mut owner = Owner::default();
            owner.id = Some("quire".into());
            owner.display_name = Some(key.actor.clone());
            out.owner = Some(owner);
            Ok(out)
        })
        .await
    }

    async fn head_bucket(
        &self,
        req: S3Request<HeadBucketInput>,
    ) -> S3Result<S3Response<HeadBucketOutput>> {
        self.answer(req, |Call { input, .. }| async move {
            self.space(&input.bucket)?;
            let mut out = HeadBucketOutput::default();
            out.bucket_region = Some(self.region.clone());
            Ok(out)
        })
        .await
    }

    async fn get_bucket_location(
        &self,
        req: S3Request<GetBucketLocationInput>,
    ) -> S3Result<S3Response<GetBucketLocationOutput>> {
        self.answer(req, |Call { input, .. }| async move {
            self.space(&input.bucket)?;
            let mut out = GetBucketLocationOutput::default();
            // us-east-1 is written as no constraint.
            if self.region != "us-east-1" {
                out.location_constraint = Some(BucketLocationConstraint::from(self.region.clone()));
            }
            Ok(out)
        })
        .await
    }

    async fn head_object(
        &self,
        req: S3Request<HeadObjectInput>,
    ) -> S3Result<S3Response<HeadObjectOutput>> {
        self.answer(req, |Call { input, .. }| async move {
            let found = self
                .found(
                    &input.bucket,
                    &input.key,
                    conditions!(
                        input,
                        if_match,
                        if_none_match,
                        if_modified_since,
                        if_unmodified_since
                    ),
                )
                .await?;
            let mut out = HeadObjectOutput::default();
            out.accept_ranges = Some("bytes".into());
            out.content_length = Some(found.bytes.len() as i64);
            out.content_type = Some(media_type_of(name_of(&input.key)).to_string());
            out.e_tag = Some(quoted(&found.tag));
            out.last_modified = Some(timestamp(found.modified));
            Ok(out)
        })
        .await
    }

    async fn get_object(
        &self,
        req: S3Request<GetObjectInput>,
    ) -> S3Result<S3Response<GetObjectOutput>> {
        self.answer(req, |Call { input, .. }| async move {
            if input.part_number.is_some() {
                return Err(s3_error!(
                    NotImplemented,
                    "objects are whole files: GET by part number is not supported"
                ));
            }
            let found = self
                .found(
                    &input.bucket,
                    &input.key,
                    conditions!(
                        input,
                        if_match,
                        if_none_match,
                        if_modified_since,
                        if_unmodified_since
                    ),
                )
                .await?;
            let len = found.bytes.len() as u64;
            let mut out = GetObjectOutput::default();
            let body = match input.range {
                Some(range) => {
                    let r = range.check(len).map_err(|_| {
                        s3_error!(InvalidRange, "the requested range is not satisfiable")
                    })?;
                    out.content_range = Some(format!("bytes {}-{}/{len}", r.start, r.end - 1));
                    found.bytes.slice(r.start as usize..r.end as usize)
                }
                None => found.bytes,
            };
            out.accept_ranges = Some("bytes".into());
            out.content_length = Some(body.len() as i64);
            out.content_type = Some(media_type_of(name_of(&input.key)).to_string());
            out.e_tag = Some(quoted(&found.tag));
            out.last_modified = Some(timestamp(found.modified));
            out.body = Some(StreamingBlob::from(s3s::Body::from(body)));
            Ok(out)
        })
        .await
    }

    async fn put_object(
        &self,
        req: S3Request<PutObjectInput>,
    ) -> S3Result<S3Response<PutObjectOutput>> {
        self.answer(
            req,
            |Call {
                 input,
                 key,
                 trailers,
             }| async move {
                let bytes = read_body(input.body, MAX_OBJECT_BYTES).await?;
                let sums = check_digests(
                    &bytes,
                    sent_checksums!(input),
                    input.content_md5.as_deref(),
                    trailers.as_ref(),
                )?;
                let tag = self
                    .write(
                        &key.actor,
                        &input.bucket,
                        &input.key,
                        bytes,
                        input.if_match,
                        input.if_none_match,
                    )
                    .await?;
                let mut out = PutObjectOutput::default();
                out.e_tag = Some(quoted(&tag));
                echo_checksums!(out, sums);
                Ok(out)
            },
        )
        .await
    }

    async fn delete_object(
        &self,
        req: S3Request<DeleteObjectInput>,
    ) -> S3Result<S3Response<DeleteObjectOutput>> {
        self.answer(req, |Call { input, key, .. }| async move {
            let path = input.key;
            self.in_space(&input.bucket, move |space| {
                delete_key(space, &path, &options(space, &key.actor))
            })
            .await?;
            Ok(DeleteObjectOutput::default())
        })
        .await
    }

    async fn delete_objects(
        &self,
        req: S3Request<DeleteObjectsInput>,
    ) -> S3Result<S3Response<DeleteObjectsOutput>> {
        self.answer(req, |Call { input, key, .. }| async move {
            let quiet = input.delete.quiet.unwrap_or(false);
            let keys: Vec<String> = input.delete.objects.into_iter().map(|o| o.key).collect();
            let (deleted, errors) = self
                .in_space(&input.bucket, move |space| {
                    let opts = options(space, &key.actor);
                    let mut deleted = Vec::new();
                    let mut errors = Vec::new();
                    for key in keys {
                        match delete_key(space, &key, &opts) {
                            Ok(()) => {
                                let mut d = DeletedObject::default();
                                d.key = Some(key);
                                deleted.push(d);
                            }
                            Err(e) => {
                                let mut err = Error::default();
                                err.code = Some(e.code().as_str().to_string());
                                err.message = e.message().map(str::to_string);
                                err.key = Some(key);
                                errors.push(err);
                            }
                        }
                    }
                    Ok((deleted, errors))
                })
                .await?;
            let mut out = DeleteObjectsOutput::default();
            out.deleted = (!quiet).then_some(deleted);
            out.errors = Some(errors);
            Ok(out)
        })
        .await
    }

    async fn copy_object(
        &self,
        req: S3Request<CopyObjectInput>,
    ) -> S3Result<S3Response<CopyObjectOutput>> {
        self.answer(req, |Call { input, key, .. }| async move {
            let (from_bucket, from_key, found) = self
                .source(
                    &input.copy_source,
                    conditions!(
                        input,
                        copy_source_if_match,
                        copy_source_if_none_match,
                        copy_source_if_modified_since,
                        copy_source_if_unmodified_since
                    ),
                )
                .await?;
            let tag = if from_bucket == input.bucket && !from_key.ends_with('/') {
                // Within a space: the file-system layer's copy, which a delete of the source
                // then makes a raw move.
                let to = input.key.clone();
                self.in_space(&input.bucket, move |space| {
                    space
                        .file_system(Protocol::S3)
                        .copy_object(&from_key, &to, &options(space, &key.actor))
                        .map_err(s3_err)
                })
                .await?
            } else {
                self.write(
                    &key.actor,
                    &input.bucket,
                    &input.key,
                    found.bytes,
                    None,
                    None,
                )
                .await?
            };
            let mut result = CopyObjectResult::default();
            result.e_tag = Some(quoted(&tag));
            result.last_modified = Some(timestamp(SystemTime::now()));
            let mut out = CopyObjectOutput::default();
            out.copy_object_result = Some(result);
            Ok(out)
        })
        .await
    }

    async fn list_objects_v2(
        &self,
        req: S3Request<ListObjectsV2Input>,
    ) -> S3Result<S3Response<ListObjectsV2Output>> {
        self.answer(req, |Call { input, .. }| async move {
            let after = match &input.continuation_token {
                Some(token) => Some(listing::untoken(token).ok_or_else(|| {
                    s3_error!(InvalidArgument, "the continuation token is not valid")
                })?),
                None => input.start_after.clone(),
            };
            let max = max_keys(input.max_keys);
            let prefix = input.prefix.clone().unwrap_or_default();
            let listed = self
                .list(
                    &input.bucket,
                    prefix.clone(),
                    input.delimiter.clone(),
                    after,
                    max,
                )
                .await?;
            let enc = encoder(input.encoding_type.as_ref());
            let mut out = ListObjectsV2Output::default();
            out.key_count = Some((listed.objects.len() + listed.prefixes.len()) as i32);
            out.next_continuation_token = listed.last.as_deref().map(listing::token);
            out.is_truncated = Some(listed.truncated);
            (out.contents, out.common_prefixes) = rows_of(listed, &enc);
            out.name = Some(input.bucket);
            out.prefix = Some(enc(&prefix));
            out.delimiter = input.delimiter.as_deref().map(&enc);
            out.start_after = input.start_after.as_deref().map(&enc);
            out.continuation_token = input.continuation_token;
            out.max_keys = Some(max as i32);
            out.encoding_type = input.encoding_type;
            Ok(out)
        })
        .await
    }

    async fn list_objects(
        &self,
        req: S3Request<ListObjectsInput>,
    ) -> S3Result<S3Response<ListObjectsOutput>> {
        self.answer(req, |Call { input, .. }| async move {
            let max = max_keys(input.max_keys);
            let prefix = input.prefix.clone().unwrap_or_default();
            let listed = self
                .list(
                    &input.bucket,
                    prefix.clone(),
                    input.delimiter.clone(),
                    input.marker.clone(),
                    max,
                )
                .await?;
            let enc = encoder(input.encoding_type.as_ref());
            let mut out = ListObjectsOutput::default();
            out.next_marker = listed.last.as_deref().map(&enc);
            out.is_truncated = Some(listed.truncated);
            (out.contents, out.common_prefixes) = rows_of(listed, &enc);
            out.name = Some(input.bucket);
            out.prefix = Some(enc(&prefix));
            out.delimiter = input.delimiter.as_deref().map(&enc);
            out.marker = input.marker.as_deref().map(&enc);
            out.max_keys = Some(max as i32);
            out.encoding_type = input.encoding_type;
            Ok(out)
        })
        .await
    }

    async fn create_multipart_upload(
        &self,
        req: S3Request<CreateMultipartUploadInput>,
    ) -> S3Result<S3Response<CreateMultipartUploadOutput>> {
        self.answer(req, |Call { input, .. }| async move {
            self.space(&input.bucket)?;
            if input.key.ends_with('/') || input.key.trim_matches('/').is_empty() {
                return Err(s3_error!(
                    InvalidArgument,
                    "a multipart upload writes a file: its key cannot end in /"
                ));
            }
            let id = self.uploads.create(&input.bucket, &input.key);
            let mut out = CreateMultipartUploadOutput::default();
            out.bucket = Some(input.bucket);
            out.key = Some(input.key);
            out.upload_id = Some(id);
            Ok(out)
        })
        .await
    }

    async fn upload_part(
        &self,
        req: S3Request<UploadPartInput>,
    ) -> S3Result<S3Response<UploadPartOutput>> {
        self.answer(
            req,
            |Call {
                 input, trailers, ..
             }| async move {
                let bytes = read_body(input.body, crate::MULTIPART_LIMIT).await?;
                let sums = check_digests(
                    &bytes,
                    sent_checksums!(input),
                    input.content_md5.as_deref(),
                    trailers.as_ref(),
                )?;
                let tag = self
                    .uploads
                    .put_part(
                        &input.upload_id,
                        &input.bucket,
                        &input.key,
                        input.part_number,
                        bytes,
                    )
                    .map_err(upload_err)?;
                let mut out = UploadPartOutput::default();
                out.e_tag = Some(quoted(&tag));
                echo_checksums!(out, sums);
                Ok(out)
            },
        )
        .await
    }

    async fn upload_part_copy(
        &self,
        req: S3Request<UploadPartCopyInput>,
    ) -> S3Result<S3Response<UploadPartCopyOutput>> {
        self.answer(req, |Call { input, .. }| async move {
            let (_, _, found) = self
                .source(
                    &input.copy_source,
                    conditions!(
                        input,
                        copy_source_if_match,
                        copy_source_if_none_match,
                        copy_source_if_modified_since,
                        copy_source_if_unmodified_since
                    ),
                )
                .await?;
            let bytes = match input.copy_source_range.as_deref() {
                Some(range) => {
                    let range = Range::parse(range).map_err(|_| {
                        s3_error!(InvalidArgument, "x-amz-copy-source-range: {range}")
                    })?;
                    let r = range.check(found.bytes.len() as u64).map_err(|_| {
                        s3_error!(InvalidRange, "the copy range is not satisfiable")
                    })?;
                    found.bytes.slice(r.start as usize..r.end as usize)
                }
                None => found.bytes,
            };
            let tag = self
                .uploads
                .put_part(
                    &input.upload_id,
                    &input.bucket,
                    &input.key,
                    input.part_number,
                    bytes,
                )
                .map_err(upload_err)?;
            let mut result = CopyPartResult::default();
            result.e_tag = Some(quoted(&tag));
            result.last_modified = Some(timestamp(SystemTime::now()));
            let mut out = UploadPartCopyOutput::default();
            out.copy_part_result = Some(result);
            Ok(out)
        })
        .await
    }

    async fn complete_multipart_upload(
        &self,
        req: S3Request<CompleteMultipartUploadInput>,
    ) -> S3Result<S3Response<CompleteMultipartUploadOutput>> {
        self.answer(req, |Call { input, key, .. }| async move {
            self.space(&input.bucket)?;
            let listed: Vec<(i32, Option<String>)> = input
                .multipart_upload
                .and_then(|m| m.parts)
                .unwrap_or_default()
                .into_iter()
                .map(|p| {
                    (
                        p.part_number.unwrap_or(0),
                        p.e_tag.map(|e| e.value().to_string()),
                    )
                })
                .collect();
            if listed.is_empty() {
                return Err(s3_error!(
                    MalformedXML,
                    "a completed upload lists at least one part"
                ));
            }
            let whole = self
                .uploads
                .complete(&input.upload_id, &input.bucket, &input.key, &listed)
                .map_err(upload_err)?;
            if whole.len() > MAX_OBJECT_BYTES {
                return Err(s3_error!(
                    EntityTooLarge,
                    "an object may hold {} MiB at most",
                    MAX_OBJECT_BYTES >> 20
                ));
            }
            let tag = self
                .write(
                    &key.actor,
                    &input.bucket,
                    &input.key,
                    Bytes::from(whole),
                    input.if_match,
                    input.if_none_match,
                )
                .await?;
            let mut out = CompleteMultipartUploadOutput::default();
            out.location = Some(format!("/{}/{}", input.bucket, input.key));
            out.bucket = Some(input.bucket);
            out.key = Some(input.key);
            out.e_tag = Some(quoted(&tag));
            Ok(out)
        })
        .await
    }

    async fn abort_multipart_upload(
        &self,
        req: S3Request<AbortMultipartUploadInput>,
    ) -> S3Result<S3Response<AbortMultipartUploadOutput>> {
        self.answer(req, |Call { input, .. }| async move {
            self.uploads
                .abort(&input.upload_id, &input.bucket, &input.key)
                .map_err(upload_err)?;
            Ok(AbortMultipartUploadOutput::default())
        })
        .await
    }

    async fn list_parts(
        &self,
        req: S3Request<ListPartsInput>,
    ) -> S3Result<S3Response<ListPartsOutput>> {
        self.answer(req, |Call { input, .. }| async move {
            let parts = self
                .uploads
                .parts(&input.upload_id, &input.bucket, &input.key)
                .map_err(upload_err)?;
            let after = input.part_number_marker.unwrap_or(0);
            let max = input
                .max_parts
                .map_or(1000, |m| usize::try_from(m).unwrap_or(0).min(1000));
            let mut rest = parts.into_iter().filter(|p| p.number > after).peekable();
            let page: Vec<HeldPart> = rest.by_ref().take(max).collect();
            let truncated = rest.peek().is_some();
            let mut out = ListPartsOutput::default();
            out.next_part_number_marker =
                truncated.then(|| page.last().map(|p| p.number)).flatten();
            out.parts = Some(
                page.iter()
                    .map(|p| {
                        let mut part = Part::default();
                        part.part_number = Some(p.number);
                        part.size = Some(p.bytes.len() as i64);
                        part.e_tag = Some(quoted(&p.etag));
                        part.last_modified = Some(timestamp(p.modified));
                        part
                    })
                    .collect(),
            );
            out.is_truncated = Some(truncated);
            out.part_number_marker = input.part_number_marker;
            out.max_parts = Some(max as i32);
            out.bucket = Some(input.bucket);
            out.key = Some(input.key);
            out.upload_id = Some(input.upload_id);
            out.storage_class = Some(StorageClass::from_static(StorageClass::STANDARD));
            Ok(out)
        })
        .await
    }

    async fn list_multipart_uploads(
        &self,
        req: S3Request<ListMultipartUploadsInput>,
    ) -> S3Result<S3Response<ListMultipartUploadsOutput>> {
        self.answer(req, |Call { input, .. }| async move {
            self.space(&input.bucket)?;
            let prefix = input.prefix.clone().unwrap_or_default();
            let uploads: Vec<MultipartUpload> = self
                .uploads
                .pending(&input.bucket)
                .into_iter()
                .filter(|p| p.key.starts_with(&prefix))
                .map(|p| {
                    let mut u = MultipartUpload::default();
                    u.key = Some(p.key);
                    u.upload_id = Some(p.id);
                    u.initiated = Some(timestamp(p.initiated));
                    u
                })
                .collect();
            let mut out = ListMultipartUploadsOutput::default();
            out.bucket = Some(input.bucket);
            out.prefix = input.prefix;
            out.uploads = Some(uploads);
            out.is_truncated = Some(false);
            Ok(out)
        })
        .await
    }
}

/// How a listing writes keys: URL-encoded when `encoding-type=url` asks for it.
fn encoder(encoding: Option<&EncodingType>) -> impl Fn(&str) -> String {
    let url = encoding.is_some_and(|e| e.as_str() == EncodingType::URL);
    move |s: &str| {
        if url {
            listing::url_encode(s)
        } else {
            s.to_string()
        }
    }
}

/// A listing's objects and common prefixes as both ListObjects answers carry them.
fn rows_of(
    listed: Listed,
    enc: &impl Fn(&str) -> String,
) -> (Option<Vec<Object>>, Option<Vec<CommonPrefix>>) {
    let objects = listed
        .objects
        .iter()
        .map(|(item, tag)| object(item, tag, enc))
        .collect();
    let prefixes = listed
        .prefixes
        .iter()
        .map(|p| {
            let mut c = CommonPrefix::default();
            c.prefix = Some(enc(p));
            c
        })
        .collect();
    (Some(objects), Some(prefixes))
}

/// One listed object.
fn object(item: &Item, tag: &str, enc: &impl Fn(&str) -> String) -> Object {
    let mut o = Object::default();
    o.key = Some(enc(&item.key));
    o.size = Some(item.size as i64);
    o.last_modified = Some(timestamp(item.modified));
    o.e_tag = Some(quoted(tag));
    o.storage_class = Some(standard());
    o
}

/// DeleteObject: a file (a copy of it within the window makes the pair a raw move), or the
/// folder a key ending in `/` names when it holds nothing. A key that names nothing is no
/// error (S3 answers 204 either way).
fn delete_key(space: &Space, key: &str, opts: &quire_service::WriteOptions) -> S3Result<()> {
    let fs = space.file_system(Protocol::S3);
    let path = key.trim_end_matches('/');
    if path.is_empty() {
        return Ok(());
    }
    match fs.stat(path).map_err(s3_err)? {
        Some(FsEntry {
            kind: FsKind::File, ..
        }) if !key.ends_with('/') => match fs.delete(path, opts) {
            Ok(()) => Ok(()),
            Err(e) if e.code == ErrorCode::NotFound => Ok(()),
            Err(e) => Err(s3_err(e)),
        },
        Some(FsEntry {
            kind: FsKind::Folder,
            ..
        }) if key.ends_with('/') => {
            // The folder marker goes; the folder's files stay, as in S3.
            if fs.list(path).map_err(s3_err)?.is_empty() {
                fs.delete(path, opts).map_err(s3_err)?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
    }

    #[test]
    fn conditions_follow_the_rfc_order() {
        let tag = "abc";
        let strong = |t: &str| Some(ETagCondition::ETag(ETag::Strong(t.into())));
        let go = Conditions::default();
        assert_eq!(evaluate(&go, tag, at(100)), Verdict::Go);
        let c = Conditions {
            if_match: strong("other"),
            ..Default::default()
        };
        assert_eq!(evaluate(&c, tag, at(100)), Verdict::Failed);
        let c = Conditions {
            if_none_match: strong("abc"),
            ..Default::default()
        };
        assert_eq!(evaluate(&c, tag, at(100)), Verdict::NotModified);
        let c = Conditions {
            if_none_match: Some(ETagCondition::Any),
            ..Default::default()
        };
        assert_eq!(evaluate(&c, tag, at(100)), Verdict::NotModified);
        // If-Modified-Since the Last-Modified it was given: not modified (times are whole
        // seconds, rounded up).
        let modified = at(100) + Duration::from_millis(300);
        let c = Conditions {
            if_modified_since: Some(timestamp(modified)),
            ..Default::default()
        };
        assert_eq!(timestamp(modified), timestamp(at(101)));
        assert_eq!(evaluate(&c, tag, modified), Verdict::NotModified);
        assert_eq!(evaluate(&c, tag, at(101)), Verdict::NotModified);
        assert_eq!(evaluate(&c, tag, at(102)), Verdict::Go);
        // A matching If-Match wins over a failing If-Unmodified-Since.
        let c = Conditions {
            if_match: strong("abc"),
            if_unmodified_since: Some(timestamp(at(50))),
            ..Default::default()
        };
        assert_eq!(evaluate(&c, tag, at(100)), Verdict::Go);
        let c = Conditions {
            if_unmodified_since: Some(timestamp(at(50))),
            ..Default::default()
        };
        assert_eq!(evaluate(&c, tag, at(100)), Verdict::Failed);
        // A non-matching If-None-Match wins over If-Modified-Since.
        let c = Conditions {
            if_none_match: strong("other"),
            if_modified_since: Some(timestamp(at(200))),
            ..Default::default()
        };
        assert_eq!(evaluate(&c, tag, at(100)), Verdict::Go);
    }

    #[test]
    fn sent_checksums_are_checked_against_the_bytes() {
        let body = b"hello";
        let computed = check_digests(
            body,
            sent_checksum(Some("NhCmhg==".into()), None, None, None, None),
            None,
            None,
        )
        .unwrap();
        assert_eq!(computed.checksum_crc32.as_deref(), Some("NhCmhg=="));
        let wrong = check_digests(
            body,
            sent_checksum(Some("AAAAAA==".into()), None, None, None, None),
            None,
            None,
        )
        .unwrap_err();
        assert_eq!(wrong.code(), &S3ErrorCode::BadDigest);
        // Content-MD5 of "hello".
        assert!(check_digests(
            body,
            Checksum::default(),
            Some("XUFAKrxLKna5cZ2REBfFkg=="),
            None
        )
        .is_ok());
        assert!(check_digests(
            body,
            Checksum::default(),
            Some("AAAAAAAAAAAAAAAAAAAAAA=="),
            None
        )
        .is_err());
    }
}
