//! The stdio ↔ streamable-HTTP bridge: `quire mcp` on a root a server holds relays every
//! message between the client on stdin/stdout and the server's MCP endpoint, so that the
//! server stays the root's one writer. Elicitations and notifications pass through too.
//!
//! When a message cannot get through — the server wants a key and none is set, refuses the
//! key, or cannot be reached — the client is not left with a closed connection: the request
//! is answered with a JSON-RPC error saying what to do, and the relay ends with that error
//! (the command exits non-zero).

use std::path::Path;

use quire_service::{Error, ErrorCode};
use rmcp::model::{ClientJsonRpcMessage, ErrorCode as RpcCode, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransportConfig, StreamableHttpError,
};
use rmcp::transport::{StreamableHttpClientTransport, Transport};
use rmcp::{ErrorData, RoleClient, RoleServer};

use crate::stdio;

/// The JSON-RPC code of a request the relay could not deliver: JSON-RPC's range for errors
/// an implementation defines ("server error").
const UNDELIVERED: RpcCode = RpcCode(-32000);

/// Relays stdin/stdout to the MCP endpoint `url` (`http://host:port/mcp`) of the server
/// holding `root`, with `key` as the Bearer key when the server needs one, until either side
/// closes. A message that cannot be delivered ends the relay with the error the client was
/// answered with.
pub async fn bridge_stdio(url: &str, key: Option<String>, root: &Path) -> Result<(), Error> {
    let key = key.map(|k| k.trim().to_string()).filter(|k| !k.is_empty());
    let keyed = key.is_some();
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_string());
    if let Some(key) = key {
        config = config.auth_header(key);
    }
    let mut up = StreamableHttpClientTransport::from_config(config);
    let mut down = stdio::stdio();
    let relayed = loop {
        tokio::select! {
            from_client = Transport::<RoleServer>::receive(&mut down) => match from_client {
                Some(message) => {
                    let id = match &message {
                        ClientJsonRpcMessage::Request(request) => Some(request.id.clone()),
                        _ => None,
                    };
                    if let Err(e) = Transport::<RoleClient>::send(&mut up, message).await {
                        let refusal = undelivered(&e, url, keyed, root);
                        if let Some(id) = id {
                            let data = serde_json::json!({ "url": url });
                            let answer = ErrorData::new(UNDELIVERED, refusal.message.clone(), Some(data));
                            let _ = Transport::<RoleServer>::send(
                                &mut down,
                                ServerJsonRpcMessage::error(answer, Some(id)),
                            )
                            .await;
                        }
                        break Err(refusal);
                    }
                }
                None => break Ok(()),
            },
            from_server = Transport::<RoleClient>::receive(&mut up) => match from_server {
                Some(message) => {
                    if let Err(e) = Transport::<RoleServer>::send(&mut down, message).await {
                        break Err(Error::internal(format!("cannot write to stdout: {e}")));
                    }
                }
                None => break Ok(()),
            },
        }
    };
    let _ = Transport::<RoleClient>::close(&mut up).await;
    relayed
}

/// What to tell a user whose message the server at `url` did not take.
fn undelivered<E: std::error::Error + Send + Sync + 'static>(
    e: &StreamableHttpError<E>,
    url: &str,
    keyed: bool,
    root: &Path,
) -> Error {
    let root = root.display();
    let where_keys = format!(
        "`quire token create --root {root} --scope write` makes one; `quire token list` \
         shows the ones that exist"
    );
    match e {
        StreamableHttpError::AuthRequired(_) if keyed => Error::new(
            ErrorCode::Unauthorized,
            format!(
                "the quire server holding {root} ({url}) refused the key in QUIRE_API_KEY: \
                 set QUIRE_API_KEY to a key of that server ({where_keys})"
            ),
        ),
        StreamableHttpError::AuthRequired(_) => Error::new(
            ErrorCode::Unauthorized,
            format!(
                "the quire server holding {root} ({url}) needs an API key: set QUIRE_API_KEY \
                 to a key of that server in the environment of `quire mcp` ({where_keys})"
            ),
        ),
        // The HTTP client got no answer at all (refused, reset, timed out, no route).
        StreamableHttpError::Client(client) => Error::new(
            ErrorCode::Unavailable,
            format!(
                "cannot reach the quire server holding {root} at {url} ({}); when it is not \
                 running any more, start `quire mcp` again and it opens the root itself",
                causes(client)
            ),
        ),
        other => Error::new(
            ErrorCode::Unavailable,
            format!("the quire server holding {root} ({url}) did not take the message: {other}"),
        ),
    }
}

/// An error and its causes, `: `-separated (an HTTP client's own message names no cause).
fn causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
