//! Record marks, call headers and the WRITE and COMMIT arguments, over hand-built bytes.

use super::*;

/// XDR words, big-endian.
fn words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_be_bytes()).collect()
}

/// An XDR opaque: its length, its bytes, zero padding to 4.
fn opaque(bytes: &[u8]) -> Vec<u8> {
    let mut out = words(&[bytes.len() as u32]);
    out.extend_from_slice(bytes);
    out.resize(out.len() + (4 - bytes.len() % 4) % 4, 0);
    out
}

/// A call header with an AUTH_UNIX credential (odd-sized machine name, so its body is
/// padded) and an AUTH_NONE verifier.
fn header(xid: u32, prog: u32, vers: u32, proc_: u32) -> Vec<u8> {
    let mut cred = words(&[0x6543_2100]); // stamp
    cred.extend(opaque(b"host7"));
    cred.extend(words(&[1000, 1000, 2, 4, 27])); // uid, gid, two gids
    let mut out = words(&[xid, CALL, RPC_VERSION, prog, vers, proc_]);
    out.extend(words(&[1])); // AUTH_UNIX
    out.extend(opaque(&cred));
    out.extend(words(&[0, 0])); // AUTH_NONE, empty
    out
}

fn handle(id: u64) -> Vec<u8> {
    let mut h = 1234u64.to_le_bytes().to_vec();
    h.extend_from_slice(&id.to_le_bytes());
    h
}

#[test]
fn record_marks_split_and_join() {
    assert_eq!(mark([0x80, 0, 0, 0x74]), (true, 0x74));
    assert_eq!(mark([0x00, 0x10, 0, 0]), (false, 0x10_0000));
    assert_eq!(mark([0xff, 0xff, 0xff, 0xff]), (true, 0x7fff_ffff));
    assert_eq!(encode_mark(0x74, true), [0x80, 0, 0, 0x74]);
    assert_eq!(encode_mark(0x10_0000, false), [0, 0x10, 0, 0]);
    for (len, last) in [(0, true), (1, false), (1 << 20, true), (0x7fff_ffff, false)] {
        assert_eq!(mark(encode_mark(len, last)), (last, len));
    }
}

#[test]
fn a_call_header_skips_credential_and_verifier() {
    let mut message = header(0xdead_beef, NFS_PROGRAM, NFS_V3, NFSPROC3_WRITE);
    let args_at = message.len();
    message.extend(words(&[7, 7]));
    let call = call(&message).unwrap();
    assert_eq!(
        call,
        Call {
            xid: 0xdead_beef,
            prog: NFS_PROGRAM,
            vers: NFS_V3,
            proc_: NFSPROC3_WRITE,
            args: args_at,
        }
    );
    // MOUNT with AUTH_NONE both: arguments right after the 40-byte header.
    let mut mount = words(&[9, CALL, RPC_VERSION, 100_005, 3, 1, 0, 0, 0, 0]);
    mount.extend(opaque(b"/notes"));
    let c = super::call(&mount).unwrap();
    assert_eq!((c.prog, c.vers, c.proc_, c.args), (100_005, 3, 1, 40));
}

#[test]
fn what_is_not_a_call_is_none() {
    // A reply, another RPC version, a truncated header, a credential longer than 400 bytes
    // or longer than the message.
    assert_eq!(call(&words(&[1, REPLY, 0, 0, 0, 0])), None);
    assert_eq!(
        call(&words(&[1, CALL, 3, NFS_PROGRAM, 3, 0, 0, 0, 0, 0])),
        None
    );
    assert_eq!(call(&words(&[1, CALL, 2, NFS_PROGRAM, 3])), None);
    let mut long = words(&[1, CALL, 2, NFS_PROGRAM, 3, 0, 1, 404]);
    long.extend(vec![0; 404]);
    long.extend(words(&[0, 0]));
    assert_eq!(call(&long), None);
    assert_eq!(
        call(&words(&[1, CALL, 2, NFS_PROGRAM, 3, 0, 1, 64, 0])),
        None
    );
    assert_eq!(call(&[]), None);
}

#[test]
fn write_arguments_give_the_handle_and_stability() {
    let mut message = header(5, NFS_PROGRAM, NFS_V3, NFSPROC3_WRITE);
    message.extend(opaque(&handle(42)));
    message.extend(words(&[0, 1 << 20])); // offset 1 MiB
    message.extend(words(&[3, 2])); // count 3, FILE_SYNC
    message.extend(opaque(b"abc"));
    let c = call(&message).unwrap();
    let args = write_args(&message[c.args..]).unwrap();
    assert_eq!(args.handle, &handle(42)[..]);
    assert_eq!(args.stable, 2);
    // A handle longer than NFS3_FHSIZE, or arguments cut short: none.
    let mut long = opaque(&[0; 65]);
    long.extend(words(&[0, 0, 0, 0]));
    assert_eq!(write_args(&long), None);
    assert_eq!(write_args(&message[c.args..c.args + 28]), None);
}

#[test]
fn commit_arguments_give_the_handle() {
    let mut message = header(6, NFS_PROGRAM, NFS_V3, NFSPROC3_COMMIT);
    message.extend(opaque(&handle(7)));
    message.extend(words(&[0, 0, 0])); // offset 0, count 0: the whole file
    let c = call(&message).unwrap();
    assert_eq!(c.proc_, NFSPROC3_COMMIT);
    assert_eq!(commit_args(&message[c.args..]), Some(&handle(7)[..]));
    assert_eq!(commit_args(&message[c.args..message.len() - 1]), None);
    // An odd-length handle is padded, and the offset is read after the padding.
    let mut odd = opaque(&[1, 2, 3]);
    odd.extend(words(&[0, 0, 0]));
    assert_eq!(commit_args(&odd), Some(&[1, 2, 3][..]));
}

#[test]
fn the_failure_reply_is_an_accepted_call_with_a_status_and_no_attributes() {
    let reply = failure_reply(0x0102_0304, 5);
    assert_eq!(reply, words(&[0x0102_0304, REPLY, 0, 0, 0, 0, 5, 0, 0]));
}

#[test]
fn the_port_of_a_getport_reply_is_found_only_in_a_successful_one() {
    let ok = words(&[3, REPLY, 0, 0, 0, 0, 40_000]);
    assert_eq!(getport_port_at(&ok), Some(24));
    // Denied, PROG_UNAVAIL, a call, a reply with more than one word of results.
    assert_eq!(getport_port_at(&words(&[3, REPLY, 1, 0, 0])), None);
    assert_eq!(getport_port_at(&words(&[3, REPLY, 0, 0, 0, 1])), None);
    assert_eq!(getport_port_at(&words(&[3, CALL, 0, 0, 0, 0, 1])), None);
    assert_eq!(getport_port_at(&words(&[3, REPLY, 0, 0, 0, 0, 1, 2])), None);
}
