//! The frames on the editor's pipes (`Content-Length` headers, then a JSON body), read and
//! written here rather than by lsp-server, whose reader ends the session at the first frame
//! it cannot parse. A bad frame is answered instead (-32700 for a body that is no JSON or a
//! frame without a length, -32600 for JSON that is no message) and the session goes on.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use lsp_server::{Connection, Message};
use serde_json::{json, Value};

const PARSE_ERROR: i32 = lsp_server::ErrorCode::ParseError as i32;
const INVALID_REQUEST: i32 = lsp_server::ErrorCode::InvalidRequest as i32;

/// The threads moving frames; [`IoThreads::join`] waits until every message is written.
pub struct IoThreads {
    writer: JoinHandle<io::Result<()>>,
    // Ends at `exit` or at the end of the input; never waited for (it may be blocked on a
    // read that only the editor's leaving ends).
    _reader: JoinHandle<()>,
}

impl IoThreads {
    /// Waits until the writer has written every message sent before the connection's last
    /// sender was dropped.
    pub fn join(self) -> io::Result<()> {
        match self.writer.join() {
            Ok(written) => written,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

/// A connection on stdin and stdout.
pub fn stdio() -> (Connection, IoThreads) {
    connect(io::stdin(), io::stdout())
}

/// A connection reading frames from `input` and writing them to `output`.
pub fn connect(
    input: impl Read + Send + 'static,
    output: impl Write + Send + 'static,
) -> (Connection, IoThreads) {
    let output = Arc::new(Mutex::new(output));
    let (to_writer, outgoing) = crossbeam_channel::unbounded::<Message>();
    let out = output.clone();
    let writer = std::thread::Builder::new()
        .name("quire-lsp-writer".into())
        .spawn(move || {
            for message in outgoing {
                let mut out = out.lock().unwrap_or_else(|p| p.into_inner());
                message.write(&mut *out)?;
                out.flush()?;
            }
            Ok(())
        })
        .expect("a thread starts");
    let (incoming, receiver) = crossbeam_channel::unbounded::<Message>();
    let reader = std::thread::Builder::new()
        .name("quire-lsp-reader".into())
        .spawn(move || read_frames(BufReader::new(input), &incoming, &output))
        .expect("a thread starts");
    let connection = Connection {
        sender: to_writer,
        receiver,
    };
    (
        connection,
        IoThreads {
            writer,
            _reader: reader,
        },
    )
}

/// Reads frames until the input ends or `exit` arrives, passing each message to `incoming`
/// and answering the bad frames itself on `output`. Public for the fuzz target of `fuzz/`,
/// which feeds it arbitrary bytes.
pub fn read_frames(
    mut input: impl BufRead,
    incoming: &crossbeam_channel::Sender<Message>,
    output: &Mutex<impl Write>,
) {
    loop {
        let body = match read_frame(&mut input) {
            Ok(Some(Ok(body))) => body,
            Ok(Some(Err(bad_header))) => {
                answer(output, error(Value::Null, PARSE_ERROR, &bad_header));
                continue;
            }
            Ok(None) => return,
            Err(e) => {
                tracing::warn!("reading from the editor: {e}");
                return;
            }
        };
        match message_of(&body) {
            Ok(message) => {
                let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
                if incoming.send(message).is_err() || exit {
                    return;
                }
            }
            Err(refusal) => {
                tracing::warn!(
                    "a bad frame from the editor: {}",
                    refusal["error"]["message"]
                );
                answer(output, refusal);
            }
        }
    }
}

/// One frame's body: `None` at the end of the input, `Some(Err(why))` for a header block
/// that gives no length (the next frame is looked for after it).
fn read_frame(input: &mut impl BufRead) -> io::Result<Option<Result<Vec<u8>, String>>> {
    let mut length: Option<Result<usize, String>> = None;
    let mut seen_any = false;
    loop {
        let mut line = Vec::new();
        if input.read_until(b'\n', &mut line)? == 0 {
            // The end of the input, between frames or inside a header block.
            return Ok(None);
        }
        let line = String::from_utf8_lossy(&line);
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            if !seen_any {
                continue;
            }
            break;
        }
        seen_any = true;
        if let Some((name, value)) = line.split_once(':') {
            if name.trim().eq_ignore_ascii_case("Content-Length") {
                length = Some(
                    value
                        .trim()
                        .parse()
                        .map_err(|_| format!("a bad Content-Length header: {line:?}")),
                );
            }
        }
    }
    let length = match length {
        Some(Ok(length)) => length,
        Some(Err(why)) => return Ok(Some(Err(why))),
        None => return Ok(Some(Err("a frame without a Content-Length header".into()))),
    };
    // Read as it comes rather than allocating what the header claims.
    let mut body = Vec::new();
    input.take(length as u64).read_to_end(&mut body)?;
    if body.len() < length {
        return Ok(None);
    }
    Ok(Some(Ok(body)))
}

/// The message of a body, or the error response refusing it.
fn message_of(body: &[u8]) -> Result<Message, Value> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| error(Value::Null, PARSE_ERROR, &format!("not JSON: {e}")))?;
    // The id when the request names one, so the editor can match the refusal.
    let id = match &value["id"] {
        id @ (Value::Number(_) | Value::String(_)) => id.clone(),
        _ => Value::Null,
    };
    serde_json::from_value(value)
        .map_err(|e| error(id, INVALID_REQUEST, &format!("not a JSON-RPC message: {e}")))
}

fn error(id: Value, code: i32, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// Writes a response the writer thread does not know of, between two of its messages.
fn answer(output: &Mutex<impl Write>, response: Value) {
    let body = response.to_string();
    let mut out = output.lock().unwrap_or_else(|p| p.into_inner());
    let written =
        write!(out, "Content-Length: {}\r\n\r\n{body}", body.len()).and_then(|()| out.flush());
    if let Err(e) = written {
        tracing::warn!("writing to the editor: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    /// What the reader makes of `input`: the messages it passes on and what it answers.
    fn read_all(input: &str) -> (Vec<Message>, Vec<Value>) {
        let (incoming, received) = crossbeam_channel::unbounded();
        let output = Mutex::new(Vec::new());
        read_frames(input.as_bytes(), &incoming, &output);
        drop(incoming);
        let written = output.into_inner().unwrap();
        let mut answers = Vec::new();
        let mut rest = written.as_slice();
        while let Ok(Some(Ok(body))) = read_frame(&mut rest) {
            answers.push(serde_json::from_slice(&body).unwrap());
        }
        (received.into_iter().collect(), answers)
    }

    #[test]
    fn a_bad_frame_is_answered_and_the_next_one_read() {
        let request =
            r#"{"jsonrpc":"2.0","id":1,"method":"workspace/symbol","params":{"query":""}}"#;
        let input = [
            frame("{\"broken"),
            frame(r#"{"jsonrpc":"2.0","id":7,"what":1}"#),
            "X-Nothing: 1\r\n\r\n".into(),
            "Content-Length: many\r\n\r\n".into(),
            frame(request),
        ]
        .concat();
        let (messages, answers) = read_all(&input);
        assert_eq!(messages.len(), 1);
        assert!(matches!(&messages[0], Message::Request(r) if r.method == "workspace/symbol"));
        let codes: Vec<(Value, Value)> = answers
            .iter()
            .map(|a| (a["id"].clone(), a["error"]["code"].clone()))
            .collect();
        assert_eq!(
            codes,
            [
                (Value::Null, json!(-32700)),
                (json!(7), json!(-32600)),
                (Value::Null, json!(-32700)),
                (Value::Null, json!(-32700)),
            ]
        );
    }

    #[test]
    fn reading_stops_at_exit_and_at_a_cut_frame() {
        let exit = frame(r#"{"jsonrpc":"2.0","method":"exit"}"#);
        let after = frame(r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#);
        let (messages, _) = read_all(&format!("{exit}{after}"));
        assert_eq!(messages.len(), 1);
        let (messages, answers) = read_all("Content-Length: 50\r\n\r\n{\"jsonrpc\"");
        assert!(messages.is_empty() && answers.is_empty());
    }
}
