//! The relay in front of nfsserve: the public port accepts the clients, and each connection
//! is relayed to nfsserve on an internal loopback port (nfsserve serves only a listener it
//! binds itself). The relay reads the calls record by record ([`crate::rpc`]) to do what
//! nfsserve does not: it tells the file system when a client wants its writes *stable*.
//!
//! * **COMMIT** (NFSv3 procedure 21, which nfsserve answers "unavailable"): the relay waits for
//!   the connection's WRITEs to that file to be answered, commits the file's buffer through
//!   the pipeline, then forwards the call and answers it itself: success with the server's
//!   write verifier, or the commit's error.
//! * **WRITE** with `stable` other than UNSTABLE: forwarded; its answer is held until the
//!   file's buffer is committed (or turned into the commit's error).
//! * A handle nfsserve did not make (or from an earlier run) commits every buffered file.
//! * GETPORT of the portmapper (nfsserve answers it with its own port) answers the public one.
//!
//! Everything else passes through unchanged (a multi-fragment call is forwarded as one
//! fragment). A call larger than [`MAX_CALL`] closes the connection. What the relay does not
//! commit, the quiet timer ([`crate::QUIET`]) does: the relay never holds written data.

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

use nfsserve::vfs::NFSFileSystem;

use crate::fs::QuireNfs;
use crate::rpc;

/// The largest call: a WRITE of nfsserve's `wtmax` (1 MiB) with room for the headers.
pub const MAX_CALL: usize = (1 << 20) + (64 << 10);
/// The largest answer the relay holds to read or change (WRITE, COMMIT and GETPORT answers
/// are a few hundred bytes); others stream through.
const MAX_HELD_REPLY: usize = 64 << 10;
/// How long a COMMIT waits for the answers to earlier WRITEs before it commits anyway.
const WRITES_WAIT: Duration = Duration::from_secs(10);

/// Accepts clients on `public` and relays each to nfsserve at `upstream`, until dropped.
pub async fn run(public: TcpListener, upstream: SocketAddr, files: QuireNfs) {
    let port = public.local_addr().map_or(0, |a| a.port());
    loop {
        match public.accept().await {
            Ok((client, _)) => {
                let files = files.clone();
                tokio::spawn(async move {
                    if let Err(e) = connection(client, upstream, files, port).await {
                        tracing::debug!("nfs: a relayed connection ended: {e}");
                    }
                });
            }
            Err(e) => {
                // Out of descriptors, or a connection reset before it was accepted.
                tracing::warn!("nfs: accepting a connection failed: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// What the relay does when the answer to a call comes back.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// A WRITE to `file` (`None`: a handle that is not ours); `stable`: commit it first.
    Write { file: Option<u64>, stable: bool },
    /// A COMMIT whose commit failed: answer this status instead.
    Fail(u32),
    /// A COMMIT that was carried out: answer success (nfsserve answers it "unavailable").
    Committed,
    /// A portmapper GETPORT: answer the public port.
    Port,
}

/// One relayed connection's calls awaiting an answer the relay acts on, by xid.
#[derive(Default)]
struct Conn {
    expected: Mutex<HashMap<u32, Expect>>,
    /// Signalled when a WRITE is answered.
    answered: Notify,
}

impl Conn {
    fn expected(&self) -> std::sync::MutexGuard<'_, HashMap<u32, Expect>> {
        self.expected.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn expect(&self, xid: u32, what: Expect) {
        self.expected().insert(xid, what);
    }

    fn take(&self, xid: u32) -> Option<Expect> {
        let taken = self.expected().remove(&xid);
        if matches!(taken, Some(Expect::Write { .. })) {
            self.answered.notify_waiters();
        }
        taken
    }

    /// Whether a WRITE that may be to `file` is unanswered.
    fn writing(&self, file: Option<u64>) -> bool {
        self.expected().values().any(|e| match *e {
            Expect::Write { file: f, .. } => file.is_none() || f.is_none() || f == file,
            _ => false,
        })
    }

    /// Until the WRITEs that may be to `file` are answered (at most [`WRITES_WAIT`]).
    async fn writes_answered(&self, file: Option<u64>) {
        let deadline = tokio::time::Instant::now() + WRITES_WAIT;
        loop {
            let answered = self.answered.notified();
            tokio::pin!(answered);
            answered.as_mut().enable();
            if !self.writing(file) {
                return;
            }
            if tokio::time::timeout_at(deadline, answered).await.is_err() {
                tracing::warn!("nfs: a COMMIT waited {WRITES_WAIT:?} for WRITE answers");
                return;
            }
        }
    }
}

async fn connection(
    client: TcpStream,
    upstream: SocketAddr,
    files: QuireNfs,
    port: u16,
) -> io::Result<()> {
    let server = TcpStream::connect(upstream).await?;
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    let (from_client, to_client) = client.into_split();
    let (from_server, to_server) = server.into_split();
    let conn = Conn::default();
    // A failure of either side drops both (closing the connection); a client that is done
    // half-closes, and its last answers still come back.
    tokio::try_join!(
        calls(from_client, to_server, &conn, &files),
        replies(from_server, to_client, &conn, &files, port),
    )?;
    Ok(())
}

/// Reads one record into `buf` as a single last fragment (its mark first): `false` at the
/// end of the stream. A record longer than `max` is an error.
async fn read_record(
    from: &mut (impl AsyncRead + Unpin),
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<bool> {
    buf.clear();
    buf.extend_from_slice(&[0; 4]);
    loop {
        let mut mark = [0; 4];
        match from.read_exact(&mut mark).await {
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof && buf.len() == 4 => {
                return Ok(false);
            }
            read => read?,
        };
        let (last, len) = rpc::mark(mark);
        if buf.len() - 4 + len > max {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("an RPC record over {max} bytes"),
            ));
        }
        let at = buf.len();
        buf.resize(at + len, 0);
        from.read_exact(&mut buf[at..]).await?;
        if last {
            let len = buf.len() - 4;
            buf[..4].copy_from_slice(&rpc::encode_mark(len, true));
            return Ok(true);
        }
    }
}

/// Client → nfsserve: each call, after what it asks of the relay.
async fn calls(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    conn: &Conn,
    files: &QuireNfs,
) -> io::Result<()> {
    let mut record = Vec::new();
    while read_record(&mut from, &mut record, MAX_CALL).await? {
        let message = &record[4..];
        if let Some(call) = rpc::call(message) {
            let args = &message[call.args..];
            match (call.prog, call.vers, call.proc_) {
                (rpc::NFS_PROGRAM, rpc::NFS_V3, rpc::NFSPROC3_WRITE) => {
                    if let Some(w) = rpc::write_args(args) {
                        let file = files.file_of(w.handle);
                        let stable = w.stable != rpc::UNSTABLE;
                        conn.expect(call.xid, Expect::Write { file, stable });
                    }
                }
                (rpc::NFS_PROGRAM, rpc::NFS_V3, rpc::NFSPROC3_COMMIT) => {
                    let file = rpc::commit_args(args).and_then(|h| files.file_of(h));
                    conn.writes_answered(file).await;
                    let done = match files.commit(file).await {
                        Ok(()) => Expect::Committed,
                        Err(status) => Expect::Fail(status as u32),
                    };
                    conn.expect(call.xid, done);
                }
                (rpc::PORTMAP_PROGRAM, _, rpc::PMAPPROC_GETPORT) => {
                    conn.expect(call.xid, Expect::Port);
                }
                _ => {}
            }
        }
        to.write_all(&record).await?;
    }
    to.shutdown().await
}

/// nfsserve → client: each answer, streamed, but held and acted on when the relay expects it.
async fn replies(
    mut from: impl AsyncRead + Unpin,
    to: impl AsyncWrite + Unpin,
    conn: &Conn,
    files: &QuireNfs,
    port: u16,
) -> io::Result<()> {
    let mut to = tokio::io::BufWriter::new(to);
    loop {
        to.flush().await?;
        let mut mark = [0; 4];
        match from.read_exact(&mut mark).await {
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(()),
            read => read?,
        };
        let (mut last, len) = rpc::mark(mark);
        let mut xid = [0; 4];
        let expected = if len >= 4 {
            from.read_exact(&mut xid).await?;
            conn.take(u32::from_be_bytes(xid))
        } else {
            None
        };
        let Some(expected) = expected else {
            // Not ours to change: the record as it comes.
            to.write_all(&mark).await?;
            let mut rest = len;
            if len >= 4 {
                to.write_all(&xid).await?;
                rest -= 4;
            }
            loop {
                copy_exactly(&mut from, &mut to, rest).await?;
                if last {
                    break;
                }
                from.read_exact(&mut mark).await?;
                to.write_all(&mark).await?;
                (last, rest) = rpc::mark(mark);
            }
            continue;
        };
        // Held: the whole record, as one fragment.
        let mut message = xid.to_vec();
        let mut rest = len - 4;
        loop {
            if message.len() + rest > MAX_HELD_REPLY {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "an answer to WRITE, COMMIT or GETPORT over 64 KiB",
                ));
            }
            let at = message.len();
            message.resize(at + rest, 0);
            from.read_exact(&mut message[at..]).await?;
            if last {
                break;
            }
            from.read_exact(&mut mark).await?;
            (last, rest) = rpc::mark(mark);
        }
        let xid = u32::from_be_bytes(xid);
        match expected {
            Expect::Write { file, stable: true } => {
                if let Err(status) = files.commit(file).await {
                    message = rpc::failure_reply(xid, status as u32);
                }
            }
            Expect::Write { stable: false, .. } => {}
            Expect::Fail(status) => message = rpc::failure_reply(xid, status),
            Expect::Committed => message = rpc::commit_reply(xid, files.serverid()),
            Expect::Port => {
                if let Some(at) = rpc::getport_port_at(&message) {
                    if message[at..at + 4] != [0; 4] {
                        message[at..at + 4].copy_from_slice(&u32::from(port).to_be_bytes());
                    }
                }
            }
        }
        to.write_all(&rpc::encode_mark(message.len(), true)).await?;
        to.write_all(&message).await?;
    }
}

/// Copies exactly `n` bytes.
async fn copy_exactly(
    from: &mut (impl AsyncRead + Unpin),
    to: &mut (impl AsyncWrite + Unpin),
    n: usize,
) -> io::Result<()> {
    let copied = tokio::io::copy(&mut (&mut *from).take(n as u64), to).await?;
    if copied < n as u64 {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    Ok(())
}

#[cfg(test)]
mod tests;
