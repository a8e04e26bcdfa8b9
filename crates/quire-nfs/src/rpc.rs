//! Just enough ONC RPC (RFC 5531) for the relay ([`crate::relay`]) to see which call a
//! record carries: record marking, the call header, the arguments of NFSv3 WRITE and COMMIT,
//! and the few replies the relay writes or changes itself. Everything here is pure: byte
//! slices in, values out.
//!
//! On TCP an RPC message is one *record* of one or more fragments, each after a 4-byte mark:
//! the top bit says "last fragment", the other 31 bits are the fragment's length.

/// The last-fragment bit of a record mark.
const LAST: u32 = 1 << 31;

/// RPC message types.
const CALL: u32 = 0;
const REPLY: u32 = 1;
/// The only RPC version there is.
const RPC_VERSION: u32 = 2;

/// NFS, its version 3, and the procedures the relay acts on.
pub const NFS_PROGRAM: u32 = 100_003;
pub const NFS_V3: u32 = 3;
pub const NFSPROC3_WRITE: u32 = 7;
pub const NFSPROC3_COMMIT: u32 = 21;
/// `stable_how` UNSTABLE: the server may keep the data in memory until COMMIT.
pub const UNSTABLE: u32 = 0;
/// The portmapper and its GETPORT procedure (nfsserve answers it on the NFS port).
pub const PORTMAP_PROGRAM: u32 = 100_000;
pub const PMAPPROC_GETPORT: u32 = 3;

/// A record mark: whether the fragment is the record's last, and its length.
pub fn mark(header: [u8; 4]) -> (bool, usize) {
    let word = u32::from_be_bytes(header);
    (word & LAST != 0, (word & !LAST) as usize)
}

/// The mark of a fragment of `len` bytes (`len` below 2³¹).
pub fn encode_mark(len: usize, last: bool) -> [u8; 4] {
    debug_assert!(len < LAST as usize);
    let word = (len as u32 & !LAST) | if last { LAST } else { 0 };
    word.to_be_bytes()
}

/// An XDR reader over a message: big-endian words, opaques padded to 4 bytes.
struct Xdr<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Xdr<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Xdr { bytes, at: 0 }
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let slice = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(slice)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_be_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_be_bytes(self.take(8)?.try_into().ok()?))
    }

    /// A variable-length opaque of at most `max` bytes: its bytes, the padding skipped.
    fn opaque(&mut self, max: usize) -> Option<&'a [u8]> {
        let len = self.u32()? as usize;
        if len > max {
            return None;
        }
        let bytes = self.take(len)?;
        self.take((4 - len % 4) % 4)?;
        Some(bytes)
    }

    /// `opaque_auth`: a flavor and a body of at most 400 bytes (both skipped).
    fn auth(&mut self) -> Option<()> {
        self.u32()?;
        self.opaque(400).map(|_| ())
    }
}

/// An RPC call's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Call {
    pub xid: u32,
    pub prog: u32,
    pub vers: u32,
    pub proc_: u32,
    /// Where the procedure's arguments start in the message.
    pub args: usize,
}

/// The header of an RPC call message (a record's bytes, marks removed); `None` for a reply,
/// a version other than 2, or a message too short or malformed to tell.
pub fn call(message: &[u8]) -> Option<Call> {
    let mut x = Xdr::new(message);
    let xid = x.u32()?;
    if x.u32()? != CALL || x.u32()? != RPC_VERSION {
        return None;
    }
    let (prog, vers, proc_) = (x.u32()?, x.u32()?, x.u32()?);
    x.auth()?; // credential
    x.auth()?; // verifier
    Some(Call {
        xid,
        prog,
        vers,
        proc_,
        args: x.at,
    })
}

/// The largest NFSv3 file handle.
const FHSIZE3: usize = 64;

/// What the relay needs of WRITE3args: the file's handle and how stable the write must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteArgs<'a> {
    pub handle: &'a [u8],
    pub stable: u32,
}

/// WRITE3args: `nfs_fh3 file; offset3 offset; count3 count; stable_how stable; opaque data`.
pub fn write_args(args: &[u8]) -> Option<WriteArgs<'_>> {
    let mut x = Xdr::new(args);
    let handle = x.opaque(FHSIZE3)?;
    x.u64()?;
    x.u32()?;
    let stable = x.u32()?;
    Some(WriteArgs { handle, stable })
}

/// COMMIT3args: `nfs_fh3 file; offset3 offset; count3 count` — the handle.
pub fn commit_args(args: &[u8]) -> Option<&[u8]> {
    let mut x = Xdr::new(args);
    let handle = x.opaque(FHSIZE3)?;
    x.u64()?;
    x.u32()?;
    Some(handle)
}

/// An accepted, successful reply's header, up to its results: `xid, REPLY, MSG_ACCEPTED,
/// verifier AUTH_NONE, SUCCESS`.
fn success_header(xid: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(36);
    for word in [xid, REPLY, 0, 0, 0, 0] {
        out.extend_from_slice(&word.to_be_bytes());
    }
    out
}

/// The failed answer to a WRITE or COMMIT (both are `nfsstat3 status; wcc_data file_wcc`),
/// with no attributes before or after.
pub fn failure_reply(xid: u32, status: u32) -> Vec<u8> {
    let mut out = success_header(xid);
    for word in [status, 0, 0] {
        out.extend_from_slice(&word.to_be_bytes());
    }
    out
}

/// The successful answer to a COMMIT (`NFS3_OK`, no attributes, then the write verifier:
/// the one the server's WRITE answers carry, so the client does not send its writes again).
pub fn commit_reply(xid: u32, verf: [u8; 8]) -> Vec<u8> {
    let mut out = failure_reply(xid, 0);
    out.extend_from_slice(&verf);
    out
}

/// Where a successful GETPORT reply keeps the port: `None` if `reply` is not an accepted,
/// successful reply with one word of results.
pub fn getport_port_at(reply: &[u8]) -> Option<usize> {
    let mut x = Xdr::new(reply);
    x.u32()?; // xid
    if x.u32()? != REPLY || x.u32()? != 0 {
        return None; // not a reply, or denied
    }
    x.auth()?; // verifier
    if x.u32()? != 0 {
        return None; // not SUCCESS
    }
    let at = x.at;
    x.u32()?;
    (x.at == reply.len()).then_some(at)
}

#[cfg(test)]
mod tests;
