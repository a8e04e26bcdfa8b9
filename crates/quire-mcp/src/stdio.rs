//! JSON-RPC over stdin/stdout, one message a line: what `quire mcp` serves and relays.
//!
//! rmcp's own stdio transport drops a line that is not JSON without a word, leaving the client
//! to wait for an answer that never comes. Here such a line is answered as JSON-RPC 2.0 says:
//! a parse error (-32700) with `id: null`; JSON that is not a message is an invalid request
//! (-32600) with the id it carries, if any; a notification is never answered. Either way the
//! session goes on.

use std::future::Future;
use std::sync::Arc;

use rmcp::model::ServerJsonRpcMessage;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// The longest line read (a message of 16 MiB, as rmcp's own transports allow); a longer one
/// is skipped and answered with a parse error, so a peer cannot make the buffer grow forever.
const MAX_LINE: usize = 16 * 1024 * 1024;

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;

/// Messages as lines over a reader and a writer (stdin and stdout for [`stdio`]).
pub(crate) struct Lines<R, W> {
    read: BufReader<R>,
    /// The line being read; it survives a cancelled `receive` (rmcp polls it in a `select!`).
    line: Vec<u8>,
    /// Skipping the rest of a line longer than [`MAX_LINE`].
    discarding: bool,
    write: Arc<Mutex<W>>,
}

/// The transport over this process's stdin and stdout.
pub(crate) fn stdio() -> Lines<tokio::io::Stdin, tokio::io::Stdout> {
    Lines::new(tokio::io::stdin(), tokio::io::stdout())
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin + Send + 'static> Lines<R, W> {
    pub(crate) fn new(read: R, write: W) -> Lines<R, W> {
        Lines {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            write: Arc::new(Mutex::new(write)),
        }
    }

    /// Reads the next whole line into `self.line`; `false` at the end of the input.
    async fn read_line(&mut self) -> bool {
        loop {
            // Never more than one byte past the limit, so an endless line costs no memory.
            let room = (MAX_LINE + 1).saturating_sub(self.line.len()) as u64;
            let read = (&mut self.read)
                .take(room)
                .read_until(b'\n', &mut self.line)
                .await;
            match read {
                Err(e) => {
                    tracing::debug!("stdin closed: {e}");
                    return false;
                }
                // The end: a last line without its newline still counts.
                Ok(0) => return !self.line.is_empty() && !std::mem::take(&mut self.discarding),
                Ok(_) if self.line.ends_with(b"\n") => {
                    if self.discarding {
                        self.discarding = false;
                        self.line.clear();
                        continue;
                    }
                    return true;
                }
                Ok(_) if self.line.len() > MAX_LINE => {
                    self.line.clear();
                    if !self.discarding {
                        self.discarding = true;
                        self.reply(error(
                            Value::Null,
                            PARSE_ERROR,
                            format!("a line longer than {MAX_LINE} bytes was not read"),
                        ));
                    }
                }
                Ok(_) => {}
            }
        }
    }

    /// Writes an answer of the transport's own (an error), apart from rmcp's answers. Spawned,
    /// so a `receive` cancelled by rmcp's `select!` never leaves half a line on the output.
    fn reply(&self, message: Value) {
        let write = self.write.clone();
        tokio::spawn(async move {
            let mut line = message.to_string().into_bytes();
            line.push(b'\n');
            let mut out = write.lock().await;
            if let Err(e) = write_line(&mut *out, &line).await {
                tracing::debug!("cannot answer on stdout: {e}");
            }
        });
    }
}

async fn write_line<W: AsyncWrite + Unpin>(out: &mut W, line: &[u8]) -> std::io::Result<()> {
    out.write_all(line).await?;
    out.flush().await
}

/// A JSON-RPC error response.
fn error(id: Value, code: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The answer to a line that is no message rmcp reads; `None` for a notification (JSON-RPC
/// never answers one).
fn refusal(line: &[u8], problem: &serde_json::Error) -> Option<Value> {
    if problem.is_syntax() || problem.is_eof() {
        return Some(error(
            Value::Null,
            PARSE_ERROR,
            format!("not JSON: {problem}"),
        ));
    }
    let value: Value = serde_json::from_slice(line).unwrap_or_default();
    let is_notification = value.get("method").is_some() && value.get("id").is_none();
    if is_notification {
        tracing::debug!("ignoring a notification that does not parse: {problem}");
        return None;
    }
    let id = match value.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    };
    Some(error(
        id,
        INVALID_REQUEST,
        format!("not a JSON-RPC 2.0 message: {problem}"),
    ))
}

impl<R, W> Transport<RoleServer> for Lines<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = self.write.clone();
        async move {
            let mut line = serde_json::to_vec::<ServerJsonRpcMessage>(&item)?;
            line.push(b'\n');
            let mut out = write.lock().await;
            write_line(&mut *out, &line).await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if !self.read_line().await {
                return None;
            }
            let line = std::mem::take(&mut self.line);
            let text = line.strip_suffix(b"\n").unwrap_or(&line);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
            if text.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice(text) {
                Ok(message) => return Some(message),
                Err(problem) => {
                    if let Some(answer) = refusal(text, &problem) {
                        self.reply(answer);
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.write.lock().await.flush().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn answers_to(input: &'static [u8]) -> (Vec<RxJsonRpcMessage<RoleServer>>, Vec<Value>) {
        let (out, mut seen) = tokio::io::duplex(1 << 16);
        let mut lines = Lines::new(input, out);
        let mut messages = Vec::new();
        while let Some(message) = lines.receive().await {
            messages.push(message);
        }
        lines.close().await.unwrap();
        // Let the spawned answers finish, then end the output.
        tokio::task::yield_now().await;
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        drop(lines);
        let mut text = String::new();
        seen.read_to_string(&mut text).await.unwrap();
        let answers = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (messages, answers)
    }

    #[tokio::test]
    async fn bad_lines_are_answered_and_good_ones_read() {
        let input = b"not json\n\
{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\
\n\
[1, 2]\n\
{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"result\":5,\"error\":{}}\n\
{\"jsonrpc\":\"1.0\",\"method\":\"notifications/whatever\"}\n\
{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}";
        let (messages, answers) = answers_to(input).await;
        assert_eq!(messages.len(), 2, "{messages:?}");
        let codes: Vec<(Value, i64)> = answers
            .iter()
            .map(|a| (a["id"].clone(), a["error"]["code"].as_i64().unwrap()))
            .collect();
        assert_eq!(
            codes,
            [
                (Value::Null, PARSE_ERROR),
                (Value::Null, INVALID_REQUEST),
                (json!("x"), INVALID_REQUEST),
            ]
        );
    }
}
