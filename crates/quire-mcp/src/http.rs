//! Streamable HTTP: the MCP endpoint as an axum router, one MCP session per client. The
//! caller (`quire serve`) puts its authentication layer around it.

use std::sync::Arc;

use quire_service::Service;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::McpServer;

/// Where the MCP endpoint is mounted (on the MCP port, and on the REST port for the
/// stdio bridge).
pub const MCP_PATH: &str = "/mcp";

/// The MCP endpoint at [`MCP_PATH`]. `allowed_hosts` are the `Host` values accepted (DNS
/// rebinding protection); empty accepts any host.
pub fn router(
    service: Arc<Service>,
    actor: Option<String>,
    allowed_hosts: Vec<String>,
) -> axum::Router {
    let server = McpServer::new(service, actor);
    let config = StreamableHttpServerConfig::default().with_allowed_hosts(allowed_hosts);
    let mcp = StreamableHttpService::new(
        move || Ok(server.session()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    axum::Router::new().nest_service(MCP_PATH, mcp)
}
