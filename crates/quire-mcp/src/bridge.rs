//! The stdio ↔ streamable-HTTP bridge: `quire mcp` on a root a server holds relays every
//! message between the client on stdin/stdout and the server's MCP endpoint, so that the
//! server stays the root's one writer. Elicitations and notifications pass through too.

use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{IntoTransport, StreamableHttpClientTransport, Transport};
use rmcp::{RoleClient, RoleServer};

/// Relays stdin/stdout to the MCP endpoint `url` (`http://host:port/mcp`), with `key` as the
/// Bearer key when the server needs one, until either side closes.
pub async fn bridge_stdio(
    url: &str,
    key: Option<String>,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_string());
    if let Some(key) = key.filter(|k| !k.trim().is_empty()) {
        config = config.auth_header(key);
    }
    let mut up = StreamableHttpClientTransport::from_config(config);
    let mut down = IntoTransport::<RoleServer, _, _>::into_transport(rmcp::transport::stdio());
    loop {
        tokio::select! {
            from_client = Transport::<RoleServer>::receive(&mut down) => match from_client {
                Some(message) => Transport::<RoleClient>::send(&mut up, message).await?,
                None => break,
            },
            from_server = Transport::<RoleClient>::receive(&mut up) => match from_server {
                Some(message) => Transport::<RoleServer>::send(&mut down, message).await?,
                None => break,
            },
        }
    }
    let _ = Transport::<RoleClient>::close(&mut up).await;
    Ok(())
}
