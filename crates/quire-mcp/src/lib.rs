//! MCP adapter over `quire-service`: the `quire_*` tools, the `quire://` resources and their
//! change notifications, served over stdio (`quire mcp`) or streamable HTTP (`quire serve`).
//!
//! Built on the official Rust SDK (`rmcp`). Tools are a table (`tools/`, one module per area): a name, a
//! description written for agents, and the JSON Schema of the `quire-api` type its arguments
//! deserialize into. A call runs the space's service on a blocking thread and answers the
//! result as structured content plus a short text; a `quire_service::Error` becomes a tool
//! error carrying the same message REST gives. Writes are ordinary pipeline passes by the
//! configured actor, else the client's name; restructurings carry the client `mcp-<client>`,
//! so the approval rules treat MCP callers as agents.

mod bridge;
mod http;
mod origin;
mod protocol;
mod resources;
mod stdio;
mod tools;

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use quire_service::{Service, Space};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities,
    ServerConfig, SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

pub use bridge::bridge_stdio;
pub use http::{router as http_router, Access, MCP_PATH};
pub use origin::AllowedOrigins;

/// What every session of the MCP server shares.
#[derive(Clone)]
pub struct McpServer {
    service: Arc<Service>,
    /// The configured author of writes; `None` uses the client's name.
    actor: Option<String>,
    /// Resource URIs this session subscribed to.
    subscriptions: Arc<Mutex<BTreeSet<String>>>,
    /// Whether this session's event forwarder runs.
    forwarding: Arc<Mutex<bool>>,
    /// The space one request addresses (header `X-Quire-Space` over HTTP); `None`: the
    /// default space.
    addressed: Option<Arc<Space>>,
}

impl McpServer {
    /// A server over `service`'s default space. `actor` is the author of writes (else the
    /// client's name, else `mcp`).
    pub fn new(service: Arc<Service>, actor: Option<String>) -> McpServer {
        McpServer {
            service,
            actor: actor.filter(|a| !a.trim().is_empty()),
            subscriptions: Arc::default(),
            forwarding: Arc::default(),
            addressed: None,
        }
    }

    /// This session for one request: bound to the space the request's `X-Quire-Space`
    /// header names (the gate admitted the credential for that space), else the default
    /// space. An unknown space is an error, never another space.
    fn for_request(&self, context: &RequestContext<RoleServer>) -> Result<McpServer, ErrorData> {
        let named = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.headers.get("x-quire-space"))
            .map(|v| v.to_str().unwrap_or("").trim().to_string());
        let Some(name) = named else {
            return Ok(self.clone());
        };
        let space = self
            .service
            .space(&name)
            .ok_or_else(|| ErrorData::invalid_params(format!("unknown space {name:?}"), None))?;
        Ok(McpServer {
            addressed: Some(space),
            ..self.clone()
        })
    }

    /// A fresh session sharing the service (HTTP makes one per MCP session).
    fn session(&self) -> McpServer {
        McpServer::new(self.service.clone(), self.actor.clone())
    }

    fn space(&self) -> Arc<Space> {
        match &self.addressed {
            Some(space) => space.clone(),
            None => self.service.default_space().clone(),
        }
    }

    /// Serves one client over stdin/stdout until it disconnects.
    pub async fn serve_stdio(self) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        use rmcp::ServiceExt;
        let running = self.serve(stdio::stdio()).await?;
        running.waiting().await?;
        Ok(())
    }
}

/// Who calls: the author of writes and the client name restructurings record.
#[derive(Debug, Clone)]
pub(crate) struct Caller {
    pub actor: String,
    /// `mcp-<client name>`.
    pub client: String,
}

impl McpServer {
    fn caller(&self, context: &RequestContext<RoleServer>) -> Caller {
        let name = context
            .peer
            .peer_info()
            .map(|info| info.client_info.name.clone())
            .filter(|n| !n.trim().is_empty())
            .unwrap_or_else(|| "client".to_string());
        let header_actor = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.headers.get("x-actor"))
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(str::to_string);
        let actor = header_actor
            .or_else(|| self.actor.clone())
            .unwrap_or_else(|| plain_actor(&name));
        Caller {
            actor,
            client: format!("mcp-{}", plain_actor(&name)),
        }
    }
}

/// A client name as an actor: the pipeline takes plain names (no spaces or angle brackets).
fn plain_actor(name: &str) -> String {
    let cleaned: String = name
        .trim()
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '-'
            }
        })
        .collect();
    if cleaned.is_empty() {
        "mcp".into()
    } else {
        cleaned
    }
}

/// What an agent should know first (the `instructions` of `initialize`).
const INSTRUCTIONS: &str = "quire is a knowledge base of markdown pages under git. Start with \
quire_context (this root's own playbook and schema, if any), then quire_tree (what exists) or \
quire_search (full text), then quire_read (a path, a page name or a \
[[link]]; metadata_only and if_not_etag keep answers small). Write with quire_write passing the \
etag you read as if_match. Move or rename pages only with quire_rename or quire_refactor_plan + \
quire_refactor_apply: they keep every link working. Large restructurings need the user's \
confirmation.";

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_resources_subscribe()
                .build(),
        )
        .with_server_info(Implementation::new("quire", env!("CARGO_PKG_VERSION")))
        .with_instructions(INSTRUCTIONS)
    }

    /// Up to 2025-11-25: confirmation of large restructurings asks the client with a
    /// server-to-client elicitation request, and subscriptions use `resources/subscribe`,
    /// both of which the 2026-07-28 revision replaced.
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let vectors = self
            .service
            .spaces()
            .iter()
            .any(|s| s.vector_status().is_some());
        Ok(ListToolsResult::with_all_items(tools::list(vectors)))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let caller = self.caller(&context);
        // The scope of the credential this HTTP request was admitted with (none over stdio or
        // without authentication): a read scope calls read-only tools only.
        let scope = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<quire_api::Grant>())
            .map(|grant| grant.scope);
        if let Some(scope) = scope {
            if let Some(refusal) = tools::refuse_for_scope(&request.name, scope) {
                return Ok(refusal.into());
            }
        }
        let hook = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<quire_api::AuditHook>())
            .cloned();
        let writes = !tools::is_read_only(&request.name);
        let tool = request.name.to_string();
        let args = serde_json::Value::Object(request.arguments.unwrap_or_default());
        let server = self.for_request(&context)?;
        let result = tools::call(&server, &tool, args, &caller, &context.peer).await?;
        if let (Some(hook), true) = (hook, writes) {
            (hook.0)(&tool, result.is_error != Some(true));
        }
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        resources::list(&self.for_request(&context)?).await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(
            resources::templates(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        Ok(resources::read(&self.for_request(&context)?, &request.uri)
            .await?
            .into())
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        resources::subscribe(
            &self.for_request(&context)?,
            request.uri,
            context.peer.clone(),
        )
    }

    /// A request rmcp could not read: invalid params when the method exists.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        Err(protocol::unread(&request))
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscriptions
            .lock()
            .expect("subscriptions lock")
            .remove(&request.uri);
        Ok(())
    }
}
