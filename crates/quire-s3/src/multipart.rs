//! Multipart uploads in progress. Their parts are kept in memory, in this process only: the
//! file is written (one pass of the pipeline, one commit) when the upload completes. All
//! uploads together hold at most [`MULTIPART_LIMIT`] bytes; a part beyond it is refused with
//! a message naming the limit. An upload nobody touched for [`UPLOAD_TTL`] is dropped, and a
//! restart drops them all (clients start over).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use bytes::Bytes;

/// How many bytes the parts of all uploads in progress may hold together.
pub const MULTIPART_LIMIT: usize = 1 << 30;
/// An upload untouched for this long is dropped with its parts.
pub const UPLOAD_TTL: Duration = Duration::from_secs(24 * 3600);
/// S3's largest part number.
pub const MAX_PART_NUMBER: i32 = 10_000;

/// Why an upload call is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UploadError {
    /// No such upload (never made, completed, aborted or dropped), or not for this key.
    NoSuchUpload,
    /// The parts in memory would exceed [`MULTIPART_LIMIT`].
    TooLarge,
    /// A part number outside 1..=10000.
    BadPartNumber,
    /// A listed part was not uploaded, or its ETag differs.
    InvalidPart(i32),
    /// The listed parts are not in ascending order.
    InvalidPartOrder,
}

/// One uploaded part.
#[derive(Debug, Clone)]
pub struct Part {
    pub number: i32,
    pub bytes: Bytes,
    /// The part's ETag (its git blob id, unquoted).
    pub etag: String,
    pub modified: SystemTime,
}

#[derive(Debug)]
struct Upload {
    bucket: String,
    key: String,
    initiated: SystemTime,
    touched: Instant,
    parts: BTreeMap<i32, Part>,
}

impl Upload {
    fn bytes(&self) -> usize {
        self.parts.values().map(|p| p.bytes.len()).sum()
    }
}

/// An upload as ListMultipartUploads shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    pub key: String,
    pub id: String,
    pub initiated: SystemTime,
}

/// The uploads in progress of every bucket.
#[derive(Debug, Default)]
pub struct Uploads {
    state: Mutex<State>,
    next: AtomicU64,
}

#[derive(Debug, Default)]
struct State {
    uploads: HashMap<String, Upload>,
    /// The bytes of every part held.
    bytes: usize,
}

impl Uploads {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts an upload of `key` in `bucket`; returns its id.
    pub fn create(&self, bucket: &str, key: &str) -> String {
        let mut state = self.lock();
        state.expire();
        let serial = self.next.fetch_add(1, Ordering::Relaxed);
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        // Unique in this process (the serial) and across restarts (the clock).
        let id = format!("{nanos:x}-{serial:x}");
        state.uploads.insert(
            id.clone(),
            Upload {
                bucket: bucket.to_string(),
                key: key.to_string(),
                initiated: SystemTime::now(),
                touched: Instant::now(),
                parts: BTreeMap::new(),
            },
        );
        id
    }

    /// Keeps part `number` of an upload (replacing one of the same number); returns its ETag.
    pub fn put_part(
        &self,
        id: &str,
        bucket: &str,
        key: &str,
        number: i32,
        bytes: Bytes,
    ) -> Result<String, UploadError> {
        if !(1..=MAX_PART_NUMBER).contains(&number) {
            return Err(UploadError::BadPartNumber);
        }
        let mut state = self.lock();
        let State {
            uploads,
            bytes: held,
        } = &mut *state;
        let upload = find(uploads, id, bucket, key)?;
        let old = upload.parts.get(&number).map_or(0, |p| p.bytes.len());
        if *held - old + bytes.len() > MULTIPART_LIMIT {
            return Err(UploadError::TooLarge);
        }
        let etag = quire_service::etag(&bytes);
        *held = *held - old + bytes.len();
        upload.touched = Instant::now();
        upload.parts.insert(
            number,
            Part {
                number,
                bytes,
                etag: etag.clone(),
                modified: SystemTime::now(),
            },
        );
        Ok(etag)
    }

    /// The parts of an upload, by number.
    pub fn parts(&self, id: &str, bucket: &str, key: &str) -> Result<Vec<Part>, UploadError> {
        let mut state = self.lock();
        let upload = find(&mut state.uploads, id, bucket, key)?;
        upload.touched = Instant::now();
        Ok(upload.parts.values().cloned().collect())
    }

    /// The whole file of a completed upload: the listed parts (number and the ETag the
    /// client was given, quoted or not) in ascending order, joined. The upload ends; on a
    /// refusal it stays as it was.
    pub fn complete(
        &self,
        id: &str,
        bucket: &str,
        key: &str,
        listed: &[(i32, Option<String>)],
    ) -> Result<Vec<u8>, UploadError> {
        let mut state = self.lock();
        let upload = find(&mut state.uploads, id, bucket, key)?;
        if listed.windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err(UploadError::InvalidPartOrder);
        }
        let mut size = 0;
        for (number, etag) in listed {
            let part = upload
                .parts
                .get(number)
                .ok_or(UploadError::InvalidPart(*number))?;
            if etag
                .as_deref()
                .is_some_and(|e| e.trim().trim_matches('"') != part.etag)
            {
                return Err(UploadError::InvalidPart(*number));
            }
            size += part.bytes.len();
        }
        let mut whole = Vec::with_capacity(size);
        for (number, _) in listed {
            whole.extend_from_slice(&upload.parts[number].bytes);
        }
        let freed = upload.bytes();
        state.uploads.remove(id);
        state.bytes -= freed;
        Ok(whole)
    }

    /// Ends an upload without a file.
    pub fn abort(&self, id: &str, bucket: &str, key: &str) -> Result<(), UploadError> {
        let mut state = self.lock();
        let freed = find(&mut state.uploads, id, bucket, key)?.bytes();
        state.uploads.remove(id);
        state.bytes -= freed;
        Ok(())
    }

    /// The uploads in progress in `bucket`, by key then id.
    pub fn pending(&self, bucket: &str) -> Vec<Pending> {
        let mut state = self.lock();
        state.expire();
        let mut out: Vec<Pending> = state
            .uploads
            .iter()
            .filter(|(_, u)| u.bucket == bucket)
            .map(|(id, u)| Pending {
                key: u.key.clone(),
                id: id.clone(),
                initiated: u.initiated,
            })
            .collect();
        out.sort_by(|a, b| (&a.key, &a.id).cmp(&(&b.key, &b.id)));
        out
    }

    /// The bytes all parts hold now.
    #[cfg(test)]
    pub fn held(&self) -> usize {
        self.lock().bytes
    }
}

impl State {
    fn expire(&mut self) {
        let stale: Vec<String> = self
            .uploads
            .iter()
            .filter(|(_, u)| u.touched.elapsed() >= UPLOAD_TTL)
            .map(|(id, _)| id.clone())
            .collect();
        for id in stale {
            if let Some(upload) = self.uploads.remove(&id) {
                self.bytes -= upload.bytes();
            }
        }
    }
}

fn find<'a>(
    uploads: &'a mut HashMap<String, Upload>,
    id: &str,
    bucket: &str,
    key: &str,
) -> Result<&'a mut Upload, UploadError> {
    match uploads.get_mut(id) {
        Some(u) if u.bucket == bucket && u.key == key => Ok(u),
        _ => Err(UploadError::NoSuchUpload),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_join_in_the_listed_order_and_free_their_memory() {
        let uploads = Uploads::default();
        let id = uploads.create("b", "k");
        let e2 = uploads
            .put_part(&id, "b", "k", 2, Bytes::from_static(b"world"))
            .unwrap();
        let e1 = uploads
            .put_part(&id, "b", "k", 1, Bytes::from_static(b"hello "))
            .unwrap();
        assert_eq!(e1, quire_service::etag(b"hello "));
        assert_eq!(uploads.held(), 11);
        let listed = [(1, Some(format!("\"{e1}\""))), (2, Some(e2))];
        assert_eq!(
            uploads.complete(&id, "b", "k", &listed).unwrap(),
            b"hello world"
        );
        assert_eq!(uploads.held(), 0);
        assert_eq!(
            uploads.complete(&id, "b", "k", &listed),
            Err(UploadError::NoSuchUpload)
        );
    }

    #[test]
    fn a_wrong_listing_is_refused_and_keeps_the_upload() {
        let uploads = Uploads::default();
        let id = uploads.create("b", "k");
        uploads
            .put_part(&id, "b", "k", 1, Bytes::from_static(b"a"))
            .unwrap();
        uploads
            .put_part(&id, "b", "k", 2, Bytes::from_static(b"b"))
            .unwrap();
        assert_eq!(
            uploads.complete(&id, "b", "k", &[(2, None), (1, None)]),
            Err(UploadError::InvalidPartOrder)
        );
        assert_eq!(
            uploads.complete(&id, "b", "k", &[(1, Some("nope".into()))]),
            Err(UploadError::InvalidPart(1))
        );
        assert_eq!(
            uploads.complete(&id, "b", "k", &[(3, None)]),
            Err(UploadError::InvalidPart(3))
        );
        assert_eq!(
            uploads.complete(&id, "other", "k", &[(1, None)]),
            Err(UploadError::NoSuchUpload)
        );
        // Only the listed parts make the file.
        assert_eq!(uploads.complete(&id, "b", "k", &[(2, None)]).unwrap(), b"b");
    }

    #[test]
    fn the_memory_limit_counts_every_upload_and_a_replaced_part_once() {
        let uploads = Uploads::default();
        let a = uploads.create("b", "a");
        let c = uploads.create("b", "c");
        let half = Bytes::from(vec![0u8; MULTIPART_LIMIT / 2]);
        uploads.put_part(&a, "b", "a", 1, half.clone()).unwrap();
        // The same part again replaces it: still half the limit.
        uploads.put_part(&a, "b", "a", 1, half.clone()).unwrap();
        uploads.put_part(&c, "b", "c", 1, half.clone()).unwrap();
        assert_eq!(
            uploads.put_part(&c, "b", "c", 2, Bytes::from_static(b"x")),
            Err(UploadError::TooLarge)
        );
        uploads.abort(&a, "b", "a").unwrap();
        uploads
            .put_part(&c, "b", "c", 2, Bytes::from_static(b"x"))
            .unwrap();
        assert_eq!(uploads.held(), MULTIPART_LIMIT / 2 + 1);
        assert_eq!(
            uploads.put_part(&c, "b", "c", 0, Bytes::new()),
            Err(UploadError::BadPartNumber)
        );
        let pending = uploads.pending("b");
        assert_eq!(pending.len(), 1);
        assert_eq!(pending[0].key, "c");
    }
}
