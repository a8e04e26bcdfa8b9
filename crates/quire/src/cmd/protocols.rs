//! The file protocols `quire serve` runs beside REST and MCP. Their listeners are bound before
//! the root is served, so a port already taken stops the server with a message naming the
//! protocol and the port (never a server that looks ready without it); `/readyz` reports each.

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr, TcpListener};
use std::sync::Arc;

use anyhow::Context;
use quire_api::ProtocolStatus;
use quire_config::ProtocolsConfig;
use quire_service::Service;

/// The listeners of the enabled protocols this version builds.
pub struct Bound {
    webdav: Option<TcpListener>,
    statuses: BTreeMap<String, ProtocolStatus>,
}

/// Binds each enabled protocol's port (`0` picks a free one).
pub fn bind(config: &ProtocolsConfig, host: IpAddr) -> anyhow::Result<Bound> {
    let mut statuses = BTreeMap::new();
    let webdav = if config.webdav.enabled {
        let listener = listen(
            host,
            config.webdav.port,
            "WebDAV",
            "[protocols.webdav] port",
        )?;
        statuses.insert("webdav".into(), healthy(&listener)?);
        Some(listener)
    } else {
        None
    };
    Ok(Bound { webdav, statuses })
}

fn listen(host: IpAddr, port: u16, what: &str, setting: &str) -> anyhow::Result<TcpListener> {
    let addr = SocketAddr::new(host, port);
    let listener = TcpListener::bind(addr).with_context(|| {
        format!("cannot listen for {what} on {addr} ({setting}; `enabled = false` turns it off)")
    })?;
    listener.set_nonblocking(true)?;
    Ok(listener)
}

fn healthy(listener: &TcpListener) -> anyhow::Result<ProtocolStatus> {
    Ok(ProtocolStatus {
        enabled: true,
        healthy: true,
        port: listener.local_addr()?.port(),
        error: None,
    })
}

impl Bound {
    /// The status of each protocol this process serves, for `/readyz` (the others keep the
    /// configuration's view).
    pub fn statuses(&self) -> &BTreeMap<String, ProtocolStatus> {
        &self.statuses
    }

    /// Serves each bound protocol until `stop` is notified. Inside the runtime.
    pub fn spawn(
        self,
        service: &Arc<Service>,
        gate: &Arc<quire_http::Gate>,
        serving: quire_http::server::ServeSettings,
        stop: &Arc<tokio::sync::Notify>,
    ) -> anyhow::Result<()> {
        if let Some(listener) = self.webdav {
            let listener = tokio::net::TcpListener::from_std(listener)?;
            tracing::info!("WebDAV listening on http://{}/", listener.local_addr()?);
            let app = quire_webdav::router(service.clone())
                .layer(axum::middleware::from_fn_with_state(
                    gate.clone(),
                    quire_http::gate::check_webdav,
                ))
                .layer(axum::middleware::map_response(quire_http::security_headers));
            let stop = stop.clone();
            tokio::spawn(quire_http::server::serve(
                listener,
                app,
                serving,
                async move { stop.notified().await },
            ));
        }
        Ok(())
    }
}
