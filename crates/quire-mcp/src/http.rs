//! Streamable HTTP: the MCP endpoint as an axum router, one MCP session per client, behind
//! the `Origin` check (`origin.rs`) and the caller's authentication.

use std::sync::Arc;

use quire_service::Service;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::origin::{self, AllowedOrigins};
use crate::McpServer;

/// Where the MCP endpoint is mounted (on the MCP port, and on the REST port for the
/// stdio bridge).
pub const MCP_PATH: &str = "/mcp";

/// Who may reach the endpoint, besides what authentication decides.
#[derive(Debug, Clone, Default)]
pub struct Access {
    /// The `Host` values accepted (DNS rebinding protection); empty accepts any host.
    pub allowed_hosts: Vec<String>,
    /// The browser origins accepted besides the server's own.
    pub allowed_origins: AllowedOrigins,
}

/// The MCP endpoint at [`MCP_PATH`]. `authenticate` puts the caller's authentication around
/// it; the `Origin` check goes around that, so a foreign page is refused (403) before any
/// credential is looked at.
pub fn router(
    service: Arc<Service>,
    actor: Option<String>,
    access: Access,
    authenticate: impl FnOnce(axum::Router) -> axum::Router,
) -> axum::Router {
    let server = McpServer::new(service, actor);
    let config = StreamableHttpServerConfig::default().with_allowed_hosts(access.allowed_hosts);
    let mcp = StreamableHttpService::new(
        move || Ok(server.session()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    authenticate(axum::Router::new().nest_service(MCP_PATH, mcp)).layer(
        axum::middleware::from_fn_with_state(Arc::new(access.allowed_origins), origin::check),
    )
}
