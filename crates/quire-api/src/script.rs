//! The conversation between the service and the process that runs a restructuring script
//! (`quire __script`): one JSON value per line, over the child's standard input and output.
//!
//! ```text
//! service → child   {"script": "…"}                                   (once, first)
//! child → service   {"call": {"fn": "read", "path": "a.md"}}           (any number, each answered)
//! service → child   {"ok": "# A\n…"}   or   {"error": "no such file …"}
//! child → service   {"done": {"manifest": {…}, "output": "…"}}        (last)
//!               or  {"failed": {"error": "…"}}
//! ```
//!
//! The child opens nothing itself: every read is a `call` the service answers from its own
//! read paths, so the child has no way to write. The numbers below bound what one script may
//! read and print; both sides know them.

use std::io::BufRead;

use serde::{Deserialize, Serialize};

/// Reads (`query`, `files`, `read`, `frontmatter`, `links`) one script may make.
pub const MAX_HOST_CALLS: usize = 10_000;
/// Bytes of answers (as JSON) one script may read in total: 32 MiB.
pub const MAX_READ_BYTES: usize = 32 << 20;
/// Bytes of `print` output kept; the rest is cut off with a note: 1 MiB.
pub const MAX_OUTPUT_BYTES: usize = 1 << 20;
/// Largest script source accepted: 1 MiB, like a manifest.
pub const MAX_SCRIPT_BYTES: usize = 1 << 20;
/// Largest line the service reads from the child (a request, or the final manifest and
/// output): 8 MiB.
pub const MAX_CHILD_LINE_BYTES: usize = 8 << 20;

/// The first line the service sends: the source to run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptJob {
    pub script: String,
}

/// A read the script asks the service for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "fn", rename_all = "lowercase", deny_unknown_fields)]
pub enum HostCall {
    /// A DQL query; answered with the query result (`mode`, `headers`, `rows`).
    Query { dql: String },
    /// The paths of the files matching a glob, sorted; answered with a list of strings.
    Files { glob: String },
    /// A file's text; answered with a string.
    Read { path: String },
    /// A page's frontmatter; answered with an object (empty when it has none).
    Frontmatter { path: String },
    /// A page's outgoing links; answered with a list of `{target, path}` (`path` is null
    /// when the link resolves to no file).
    Links { path: String },
}

impl HostCall {
    /// The script function's name.
    pub fn name(&self) -> &'static str {
        match self {
            HostCall::Query { .. } => "query",
            HostCall::Files { .. } => "files",
            HostCall::Read { .. } => "read",
            HostCall::Frontmatter { .. } => "frontmatter",
            HostCall::Links { .. } => "links",
        }
    }
}

/// The service's answer to one [`HostCall`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HostAnswer {
    Ok(serde_json::Value),
    /// A sentence the script's error shows (`no such file: a.md`).
    Error(String),
}

/// A line the child sends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChildLine {
    Call(HostCall),
    Done(ScriptDone),
    Failed(ScriptFailed),
}

/// The script ran to its end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScriptDone {
    /// What `main()` returned, or the global `manifest` (not yet checked as a manifest).
    pub manifest: serde_json::Value,
    pub output: String,
}

/// The script failed: a syntax error, a runtime error or a limit, as a sentence for the
/// caller (with the line and column where there is one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScriptFailed {
    pub error: String,
}

/// A line longer than the reader's limit: the other side broke the protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineTooLong;

/// One line of the conversation without its `\n`, at most `limit` bytes (the service reads
/// the child's lines with [`MAX_CHILD_LINE_BYTES`]). `None` at the end of the input or on a
/// read error: a last line without its newline is no complete message.
pub fn read_line(reader: &mut impl BufRead, limit: usize) -> Result<Option<Vec<u8>>, LineTooLong> {
    let mut line = Vec::new();
    loop {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return Ok(None),
        };
        if buf.is_empty() {
            return Ok(None);
        }
        let (chunk, found) = match buf.iter().position(|b| *b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if line.len() + chunk.len() > limit {
            return Err(LineTooLong);
        }
        line.extend_from_slice(chunk);
        let used = found.unwrap_or(chunk.len());
        reader.consume(used);
        if found.is_some() {
            return Ok(Some(line));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_have_the_documented_shape() {
        let call = ChildLine::Call(HostCall::Read {
            path: "a.md".into(),
        });
        assert_eq!(
            serde_json::to_string(&call).unwrap(),
            r#"{"call":{"fn":"read","path":"a.md"}}"#
        );
        let answer = HostAnswer::Error("no such file".into());
        assert_eq!(
            serde_json::to_string(&answer).unwrap(),
            r#"{"error":"no such file"}"#
        );
        let done: ChildLine =
            serde_json::from_str(r#"{"done":{"manifest":{"moves":[]},"output":""}}"#).unwrap();
        assert!(matches!(done, ChildLine::Done(_)));
    }

    #[test]
    fn lines_are_read_whole_up_to_the_limit() {
        let input = b"{\"a\":1}\n12345\n123456\nno newline";
        let mut reader = std::io::BufReader::with_capacity(2, &input[..]);
        assert_eq!(read_line(&mut reader, 7), Ok(Some(b"{\"a\":1}".to_vec())));
        assert_eq!(read_line(&mut reader, 5), Ok(Some(b"12345".to_vec())));
        assert_eq!(read_line(&mut reader, 5), Err(LineTooLong));
        let mut reader = &b"tail without newline"[..];
        assert_eq!(read_line(&mut reader, 100), Ok(None));
    }
}
