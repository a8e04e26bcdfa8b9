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
    /// `[protocols.nfs]`: its port, held until nfsserve binds it, and how it writes.
    nfs: Option<(TcpListener, quire_nfs::Settings)>,
    /// `[protocols.s3]`: its listener and keys.
    s3: Option<(TcpListener, quire_s3::Settings)>,
    /// `[protocols.fuse]`: where to mount the default space, and as whom.
    fuse: Option<(std::path::PathBuf, Option<String>)>,
    statuses: BTreeMap<String, ProtocolStatus>,
}

/// What runs until the server stops: the FUSE mount.
pub struct Running {
    mounted: Option<quire_fuse::Mounted>,
}

impl Running {
    /// Writes what is open in the mount and unmounts it.
    pub fn stop(self) {
        if let Some(mounted) = self.mounted {
            match mounted.unmount() {
                Ok(()) => tracing::info!("FUSE mount unmounted"),
                Err(e) => tracing::error!("unmounting the FUSE mount failed: {e}"),
            }
        }
    }
}

/// Binds each enabled protocol's port (`0` picks a free one). `spaces` are the names of the
/// configured spaces (an S3 key limited to one must name one of them).
pub fn bind(config: &ProtocolsConfig, host: IpAddr, spaces: &[&str]) -> anyhow::Result<Bound> {
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
    let nfs = if config.nfs.enabled {
        let listener = listen(host, config.nfs.port, "NFS", "[protocols.nfs] port")?;
        statuses.insert("nfs".into(), healthy(&listener)?);
        let settings = quire_nfs::Settings {
            actor: config.nfs.actor.clone(),
            read_only: config.nfs.read_only,
        };
        Some((listener, settings))
    } else {
        None
    };
    let s3 = if config.s3.enabled {
        let settings = s3_settings(&config.s3, spaces)?;
        let listener = listen(host, config.s3.port, "S3", "[protocols.s3] port")?;
        statuses.insert("s3".into(), healthy(&listener)?);
        Some((listener, settings))
    } else {
        None
    };
    let fuse = config.fuse.mountpoint.as_ref().map(|mountpoint| {
        statuses.insert(
            "fuse".into(),
            ProtocolStatus {
                enabled: true,
                healthy: true,
                port: 0,
                error: None,
            },
        );
        (
            std::path::PathBuf::from(mountpoint),
            config.fuse.actor.clone(),
        )
    });
    Ok(Bound {
        webdav,
        nfs,
        s3,
        fuse,
        statuses,
    })
}

/// The S3 keys, each a principal; an enabled S3 without a key, or with a key that is
/// incomplete, repeated or names no space, does not start.
fn s3_settings(
    config: &quire_config::S3Config,
    spaces: &[&str],
) -> anyhow::Result<quire_s3::Settings> {
    let principals = config
        .principals(spaces)
        .map_err(|e| anyhow::anyhow!("refusing to start: {e}"))?;
    let keys = principals
        .into_iter()
        .map(|p| quire_s3::Key {
            access_key: p.access_key,
            secret_key: p.secret_key.expose().to_string(),
            actor: p.actor,
            read_only: p.scope == quire_config::S3Scope::Read,
            space: p.space,
        })
        .collect();
    Ok(quire_s3::Settings {
        keys,
        region: config.region.clone(),
    })
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
    ) -> anyhow::Result<Running> {
        // The mount first: one that fails stops the start before anything is served.
        let mounted = match self.fuse {
            Some((mountpoint, actor)) => {
                let space = service.default_space().clone();
                let mounted = quire_fuse::mount(space, &mountpoint, actor).with_context(|| {
                    format!(
                        "cannot mount the knowledge root at {} ([protocols.fuse] mountpoint; it \
                         must be an existing empty folder, with /dev/fuse and fusermount3)",
                        mountpoint.display()
                    )
                })?;
                tracing::info!("FUSE mounted at {}", mountpoint.display());
                Some(mounted)
            }
            None => None,
        };
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
        if let Some((listener, settings)) = self.nfs {
            // nfsserve binds its own listener: the port held since `bind` is let go and
            // taken again at once.
            let addr = listener.local_addr()?;
            drop(listener);
            let (service, stop) = (service.clone(), stop.clone());
            tokio::spawn(async move {
                let stopped = async move { stop.notified().await };
                if let Err(e) = quire_nfs::serve(addr, service, settings, stopped).await {
                    tracing::error!("NFS on {addr} stopped: {e}");
                }
            });
        }
        if let Some((listener, settings)) = self.s3 {
            let listener = tokio::net::TcpListener::from_std(listener)?;
            tracing::info!("S3 listening on http://{}/", listener.local_addr()?);
            // The gate in front: the rate limit and the audit log of the other doors, with
            // each key's actor (the secrets stay with the S3 service, which checks them).
            let s3_gate = quire_http::gate::S3Gate {
                gate: gate.clone(),
                actors: Arc::new(
                    settings
                        .keys
                        .iter()
                        .map(|k| (k.access_key.clone(), k.actor.clone()))
                        .collect(),
                ),
            };
            let app = quire_s3::router(service.clone(), settings).layer(
                axum::middleware::from_fn_with_state(s3_gate, quire_http::gate::check_s3),
            );
            let stop = stop.clone();
            tokio::spawn(quire_http::server::serve(
                listener,
                app,
                serving,
                async move { stop.notified().await },
            ));
        }
        Ok(Running { mounted })
    }
}
