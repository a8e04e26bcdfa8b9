//! `lsp_frames` and `lsp_positions`: the language server's frame reader
//! (`quire_lsp::transport::read_frames`) and its UTF-16 position mapping (`quire_lsp::text`).
//!
//! Frames — properties: any byte stream is read to its end (or to `exit`) without panicking;
//! every answer the reader writes itself is a well-formed frame holding a JSON-RPC error; no
//! more messages come out than frames went in.
//!
//! Positions — properties: a byte offset's position maps back to that offset (on character
//! boundaries); any position maps to a character boundary inside the text; line ranges lie
//! inside the text; a `file://` URI under the root names a valid path or nothing.

use std::path::Path;
use std::sync::Mutex;

use quire_lsp::text::{Lines, RootUris};
use quire_lsp::transport::read_frames;
use serde_json::Value;

use crate::text::{check_range, lossy, tokens};
use crate::Target;

pub const FRAMES: Target = Target {
    name: "lsp_frames",
    run: run_frames,
    dictionary: frame_dictionary,
    seeds: crate::no_seeds,
};

pub const POSITIONS: Target = Target {
    name: "lsp_positions",
    run: run_positions,
    dictionary: position_dictionary,
    seeds: crate::no_seeds,
};

fn frame_dictionary() -> Vec<Vec<u8>> {
    tokens(&[
        "Content-Length: ",
        "content-length:",
        "Content-Type: application/vscode-jsonrpc\r\n",
        "\r\n",
        "\r\n\r\n",
        "\n",
        "Content-Length: 2\r\n\r\n{}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"result\":null}",
        "\"id\":",
        "\"method\":",
        "\"params\":",
        "\"error\":{\"code\":-1,\"message\":\"m\"}",
        "18446744073709551616",
        "-1",
        "99999999999999999999",
        "  ",
        ":",
        "\t",
    ])
}

fn position_dictionary() -> Vec<Vec<u8>> {
    tokens(&[
        "\n",
        "\r\n",
        "\r",
        "é",
        "😀",
        "𝄞",
        "\u{2028}",
        "\u{feff}",
        "a",
        "file:///kb/",
        "file://localhost/kb/",
        "file:///kb/%2e%2e/",
        "%20",
        "%C3%A9",
        "%FF",
        "../",
        "//",
    ])
}

fn run_frames(data: &[u8]) {
    let (incoming, received) = crossbeam_channel::unbounded();
    let output = Mutex::new(Vec::new());
    read_frames(data, &incoming, &output);
    drop(incoming);
    let messages = received.into_iter().count();
    let frames = data
        .windows(b"content-length".len())
        .filter(|w| w.eq_ignore_ascii_case(b"content-length"))
        .count();
    assert!(
        messages <= frames,
        "{messages} messages out of {frames} frames"
    );
    let written = output.into_inner().expect("no panic held the lock");
    let mut rest = written.as_slice();
    while !rest.is_empty() {
        let body = next_frame(&mut rest);
        let answer: Value = serde_json::from_slice(body).expect("an answer is JSON");
        assert_eq!(answer["jsonrpc"], "2.0");
        assert!(
            answer["error"]["code"].is_i64(),
            "an answer carries an error code: {answer}"
        );
    }
}

/// The body of the frame at the start of `rest` (exactly `Content-Length: n\r\n\r\n`, as the
/// server writes them), moving `rest` past it.
fn next_frame<'a>(rest: &mut &'a [u8]) -> &'a [u8] {
    let text = std::str::from_utf8(rest).expect("answers are UTF-8");
    let header = text
        .strip_prefix("Content-Length: ")
        .expect("a frame header");
    let (length, after) = header.split_once("\r\n\r\n").expect("a header block end");
    let length: usize = length.parse().expect("a numeric length");
    let start = rest.len() - after.len();
    let body = &rest[start..start + length];
    *rest = &rest[start + length..];
    body
}

fn run_positions(data: &[u8]) {
    let text = lossy(data);
    let text = text.as_ref();
    let lines = Lines::new(text);
    // Every offset for short texts, 64 of them for long ones (each mapping walks its line).
    let step = (text.len() / 64).max(1);
    for offset in (0..=text.len() + 2).step_by(step) {
        let (line, character) = lines.position(offset);
        let back = lines.offset(line, character);
        if offset <= text.len() && text.is_char_boundary(offset) {
            assert_eq!(
                back, offset,
                "offset {offset} → ({line}, {character}) → {back}"
            );
        } else {
            assert!(back <= text.len() && text.is_char_boundary(back));
        }
    }
    let line_count = text.split('\n').count();
    for line in 0..line_count.min(16) + 2 {
        check_range(text, &lines.line_range(line), "line range");
        for character in [0, 1, 2, 3, 7, 100, u32::MAX] {
            let offset = lines.offset(line as u32, character);
            assert!(
                offset <= text.len() && text.is_char_boundary(offset),
                "({line}, {character}) → {offset}"
            );
        }
    }
    let root = RootUris {
        dir: Path::new("/nonexistent/quire-fuzz/kb").to_path_buf(),
        uri: "file:///nonexistent/quire-fuzz/kb".into(),
    };
    for uri in text.lines().take(8) {
        if let Some(path) = root.path_of(uri) {
            assert!(
                !path.as_str().split('/').any(|s| s == ".." || s == "."),
                "{uri:?} names {path}"
            );
        }
    }
}
