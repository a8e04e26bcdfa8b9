//! The relay in front of a real nfsserve over a real space: calls built by hand, as a client
//! sends them, over a TCP connection to the public port.

use std::path::Path;

use nfsserve::nfs::sattr3;
use nfsserve::vfs::NFSFileSystem;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::*;
use crate::{Settings, ROOT_ID};

struct Served {
    dir: tempfile::TempDir,
    files: QuireNfs,
    port: u16,
    task: tokio::task::JoinHandle<io::Result<()>>,
}

impl Drop for Served {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Served {
    async fn start() -> Served {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("notes")).unwrap();
        std::fs::write(dir.path().join("notes/a.md"), "# A\n").unwrap();
        let files = QuireNfs::new(crate::testing::service(dir.path()), Settings::default());
        let public = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = public.local_addr().unwrap().port();
        let task = tokio::spawn(crate::start(public, files.clone()).await.unwrap());
        Served {
            dir,
            files,
            port,
            task,
        }
    }

    /// A new, empty, buffered file in `notes/`, and its handle.
    async fn new_file(&self, name: &str) -> Vec<u8> {
        let notes = self
            .files
            .lookup(ROOT_ID, &b"notes".as_slice().into())
            .await
            .unwrap();
        let (id, _) = self
            .files
            .create(notes, &name.as_bytes().into(), sattr3::default())
            .await
            .unwrap();
        self.files.id_to_fh(id).data
    }

    async fn connect(&self) -> TcpStream {
        TcpStream::connect(("127.0.0.1", self.port)).await.unwrap()
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn commits(&self) -> usize {
        crate::testing::commits(self.root()).len()
    }

    fn on_disk(&self, path: &str) -> Option<Vec<u8>> {
        std::fs::read(self.root().join(path)).ok()
    }
}

fn words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_be_bytes()).collect()
}

fn opaque(bytes: &[u8]) -> Vec<u8> {
    let mut out = words(&[bytes.len() as u32]);
    out.extend_from_slice(bytes);
    out.resize(out.len() + (4 - bytes.len() % 4) % 4, 0);
    out
}

/// A call with AUTH_NONE credential and verifier.
fn call(xid: u32, prog: u32, vers: u32, proc_: u32, args: &[u8]) -> Vec<u8> {
    let mut out = words(&[xid, 0, 2, prog, vers, proc_, 0, 0, 0, 0]);
    out.extend_from_slice(args);
    out
}

fn write(xid: u32, handle: &[u8], offset: u64, stable: u32, data: &[u8]) -> Vec<u8> {
    let mut args = opaque(handle);
    args.extend(offset.to_be_bytes());
    args.extend(words(&[data.len() as u32, stable]));
    args.extend(opaque(data));
    call(xid, rpc::NFS_PROGRAM, 3, rpc::NFSPROC3_WRITE, &args)
}

fn commit(xid: u32, handle: &[u8]) -> Vec<u8> {
    let mut args = opaque(handle);
    args.extend(words(&[0, 0, 0]));
    call(xid, rpc::NFS_PROGRAM, 3, rpc::NFSPROC3_COMMIT, &args)
}

/// Sends `message` as one record of one fragment.
async fn send(stream: &mut TcpStream, message: &[u8]) {
    stream
        .write_all(&rpc::encode_mark(message.len(), true))
        .await
        .unwrap();
    stream.write_all(message).await.unwrap();
}

/// The next answer's words (whole records only; their messages are word-aligned).
async fn answer(stream: &mut TcpStream) -> Vec<u32> {
    let mut record = Vec::new();
    assert!(read_record(stream, &mut record, 1 << 20).await.unwrap());
    record[4..]
        .chunks(4)
        .map(|w| u32::from_be_bytes(w.try_into().unwrap()))
        .collect()
}

/// `xid, REPLY, MSG_ACCEPTED, AUTH_NONE, 0, accept_stat` and, if SUCCESS, the NFS status.
fn status(answer: &[u32]) -> (u32, u32, Option<u32>) {
    assert_eq!(answer[1..5], [1, 0, 0, 0], "{answer:?}");
    (answer[0], answer[5], answer.get(6).copied())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_commit_commits_the_unstable_writes_before_it_is_answered() {
    let s = Served::start().await;
    let handle = s.new_file("new.md").await;
    let before = s.commits();
    let mut c = s.connect().await;
    let mut verifier = Vec::new();
    for (xid, offset, piece) in [(1, 0, &b"# New\n"[..]), (2, 6, b"more\n")] {
        send(&mut c, &write(xid, &handle, offset, rpc::UNSTABLE, piece)).await;
        let written = answer(&mut c).await;
        assert_eq!(status(&written), (xid, 0, Some(0)));
        verifier = written[written.len() - 2..].to_vec();
    }
    assert_eq!(s.on_disk("notes/new.md"), None, "buffered until COMMIT");
    send(&mut c, &commit(3, &handle)).await;
    // Answered by the relay once the file is committed (nfsserve would say PROC_UNAVAIL):
    // NFS3_OK, no attributes, the verifier of the WRITE answers.
    let committed = answer(&mut c).await;
    assert_eq!(status(&committed), (3, 0, Some(0)));
    assert_eq!(committed[7..], [0, 0, verifier[0], verifier[1]]);
    assert_eq!(s.on_disk("notes/new.md").unwrap(), b"# New\nmore\n");
    assert_eq!(s.commits(), before + 1);
    // Nothing is left for the quiet timer.
    assert!(!s.files.has_pending());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_commit_sent_before_the_writes_are_answered_waits_for_them() {
    let s = Served::start().await;
    let handle = s.new_file("piped.bin").await;
    let before = s.commits();
    let mut c = s.connect().await;
    let chunk = vec![7u8; 256 << 10];
    let mut calls = Vec::new();
    for i in 0..4u32 {
        calls.extend(rpc::encode_mark(0, false)); // an empty fragment first: still one record
        let w = write(
            10 + i,
            &handle,
            u64::from(i) * chunk.len() as u64,
            0,
            &chunk,
        );
        calls.extend(rpc::encode_mark(w.len(), true));
        calls.extend(w);
    }
    let cm = commit(20, &handle);
    calls.extend(rpc::encode_mark(cm.len(), true));
    calls.extend(cm);
    c.write_all(&calls).await.unwrap();
    let mut xids = Vec::new();
    for _ in 0..5 {
        xids.push(status(&answer(&mut c).await).0);
    }
    xids.sort();
    assert_eq!(xids, [10, 11, 12, 13, 20]);
    assert_eq!(s.on_disk("notes/piped.bin").unwrap(), vec![7u8; 1 << 20]);
    assert_eq!(s.commits(), before + 1, "four WRITEs, one commit");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stable_write_is_answered_once_committed() {
    let s = Served::start().await;
    let handle = s.new_file("sync.md").await;
    let before = s.commits();
    let mut c = s.connect().await;
    // DATA_SYNC, then FILE_SYNC: each answer comes after its commit.
    send(&mut c, &write(1, &handle, 0, 1, b"# Sync\n")).await;
    assert_eq!(status(&answer(&mut c).await), (1, 0, Some(0)));
    assert_eq!(s.on_disk("notes/sync.md").unwrap(), b"# Sync\n");
    send(&mut c, &write(2, &handle, 7, 2, b"two\n")).await;
    assert_eq!(status(&answer(&mut c).await), (2, 0, Some(0)));
    assert_eq!(s.on_disk("notes/sync.md").unwrap(), b"# Sync\ntwo\n");
    assert_eq!(s.commits(), before + 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_commit_with_a_foreign_handle_commits_every_buffered_file() {
    let s = Served::start().await;
    let (one, two) = (s.new_file("one.md").await, s.new_file("two.md").await);
    let mut c = s.connect().await;
    send(&mut c, &write(1, &one, 0, 0, b"1\n")).await;
    send(&mut c, &write(2, &two, 0, 0, b"2\n")).await;
    answer(&mut c).await;
    answer(&mut c).await;
    send(&mut c, &commit(3, b"not a handle of ours")).await;
    answer(&mut c).await;
    assert_eq!(s.on_disk("notes/one.md").unwrap(), b"1\n");
    assert_eq!(s.on_disk("notes/two.md").unwrap(), b"2\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_over_the_limit_closes_the_connection_and_keeps_the_data() {
    let s = Served::start().await;
    let handle = s.new_file("kept.md").await;
    let mut c = s.connect().await;
    send(&mut c, &write(1, &handle, 0, 0, b"kept\n")).await;
    answer(&mut c).await;
    c.write_all(&rpc::encode_mark(MAX_CALL + 1, true))
        .await
        .unwrap();
    let _ = c.write_all(&[0; 1024]).await;
    let mut rest = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), c.read_to_end(&mut rest)).await;
    assert!(
        matches!(read, Ok(Ok(0)) | Ok(Err(_))),
        "closed: {read:?} {rest:?}"
    );
    // The write is still buffered, and committed by the quiet timer's path.
    assert!(s.files.has_pending());
    s.files.flush_quiet(true);
    assert_eq!(s.on_disk("notes/kept.md").unwrap(), b"kept\n");
    // Other connections are served.
    let mut other = s.connect().await;
    send(&mut other, &call(9, rpc::NFS_PROGRAM, 3, 0, &[])).await;
    assert_eq!(status(&answer(&mut other).await).0, 9);
}

#[tokio::test(flavor = "multi_thread")]
async fn getport_answers_the_public_port() {
    let s = Served::start().await;
    let mut c = s.connect().await;
    let args = words(&[rpc::NFS_PROGRAM, 3, 6, 0]);
    send(
        &mut c,
        &call(4, rpc::PORTMAP_PROGRAM, 2, rpc::PMAPPROC_GETPORT, &args),
    )
    .await;
    let a = answer(&mut c).await;
    assert_eq!(status(&a), (4, 0, Some(u32::from(s.port))));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_commit_that_fails_answers_its_error() {
    let s = Served::start().await;
    let handle = s.new_file("lost.md").await;
    let mut c = s.connect().await;
    send(&mut c, &write(1, &handle, 0, 0, b"# Lost\n")).await;
    answer(&mut c).await;
    // The folder becomes a file behind the server's back: the layer cannot write below it.
    std::fs::remove_dir_all(s.root().join("notes")).unwrap();
    std::fs::write(s.root().join("notes"), "a file\n").unwrap();
    send(&mut c, &commit(2, &handle)).await;
    let a = answer(&mut c).await;
    let (xid, accepted, nfs) = status(&a);
    assert_eq!((xid, accepted), (2, 0));
    assert_ne!(nfs, Some(0), "{a:?}");
    assert_eq!(a[7..], [0, 0], "no attributes: {a:?}");
}
