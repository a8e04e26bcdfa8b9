//! `quire serve`: the HTTP server over one or more spaces.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::builder::TypedValueParser as _;
use clap::Args as ClapArgs;
use quire_config::{Config, VersioningStrategy};
use quire_service::{Error, Service};

#[derive(ClapArgs)]
pub struct Args {
    /// Knowledge root to serve; created (with a git repository) on first start.
    #[arg(long, default_value = "knowledge", env = "QUIRE_ROOT")]
    root: PathBuf,
    /// Address to bind (default from [server] host, else 127.0.0.1; 0.0.0.0 for every
    /// interface).
    #[arg(long)]
    host: Option<IpAddr>,
    /// Port to listen on (default from [server] port, else 3333).
    #[arg(long)]
    port: Option<u16>,
    /// How writes are versioned: git (every write a commit; history, blame, diff), cow
    /// (copy-on-write snapshots, limited history) or none (default from [versioning]
    /// strategy, else git).
    #[arg(long, value_parser = versioning())]
    versioning: Option<VersioningStrategy>,
    /// Port of MCP over streamable HTTP (default from [protocols.mcp] port, else 8181; 0 picks
    /// a free port). The endpoint is /mcp, also served on the REST port.
    #[arg(long)]
    mcp_port: Option<u16>,
    /// Do not listen for MCP on a port of its own ([protocols.mcp] enabled = false).
    #[arg(long)]
    no_mcp: bool,
}

/// `--versioning` parses into the configuration's own enum: one spelling, one mapping.
fn versioning() -> impl clap::builder::TypedValueParser<Value = VersioningStrategy> {
    clap::builder::PossibleValuesParser::new(["git", "cow", "none"])
        .map(|s| s.parse().expect("every listed value is a strategy"))
}

pub fn run(args: Args) -> anyhow::Result<()> {
    init_logging();
    std::fs::create_dir_all(&args.root)
        .with_context(|| format!("cannot create the knowledge root {}", args.root.display()))?;
    let config = configure(&args)?;
    let host: IpAddr = config.server.host.parse().with_context(|| {
        format!(
            "[server] host {:?} is not an IP address",
            config.server.host
        )
    })?;
    let addr = SocketAddr::new(host, config.server.port);

    // Everything the configuration asks for is checked before the root is opened.
    super::preflight::check(&args.root, &config)?;
    let mut settings = quire_service::settings_from_config(&args.root, &config);
    let scripts = super::script_child::runner();
    for space in &mut settings {
        space.script = scripts.clone();
    }
    // Spaces added through the API (`.quire/spaces.json`) come back too; their names are
    // known before anything is opened, so keys naming them are checked like the others.
    let registered = Service::registered_in(&args.root)?;
    let names: Vec<&str> = settings
        .iter()
        .map(|s| s.name.as_str())
        .chain(registered.iter().map(|r| r.name.as_str()))
        .collect();
    let refuse = |e: quire_http::SetupError| Error::bad_request(format!("refusing to start: {e}"));
    let mut http = quire_http::HttpSettings::from_config(&config, &names).map_err(refuse)?;
    // File protocols: their ports are taken now, so one already in use stops the start.
    let protocols = super::protocols::bind(&config.protocols, host, &names)?;
    http.protocols.extend(protocols.statuses().clone());
    let reload = http.reload_handle();
    let auth_open = http.auth.current().is_open();
    let service = Arc::new(Service::open(settings)?);
    let added = service.open_registered(&quire_http::reserved_space_names())?;
    if added > 0 {
        tracing::info!("opened {added} space(s) added through the API (.quire/spaces.json)");
    }
    // Webhooks attach to the spaces' events before any request can write.
    let webhooks = if config.webhooks.enabled {
        let settings = quire_webhooks::Settings::from_config(&config.webhooks);
        let webhooks = Arc::new(quire_webhooks::Webhooks::open(&service, settings)?);
        webhooks.start();
        tracing::info!(
            "webhooks on: {} dispatchers per space, {} retries",
            config.webhooks.max_workers,
            config.webhooks.max_retries
        );
        http.webhooks = Some(webhooks.clone());
        Some(webhooks)
    } else {
        None
    };
    let gate = http
        .gate(service.default_space().root_dir())
        .map_err(refuse)?;
    let mcp = mcp_router(&service, &gate, host, &config.server).map_err(refuse)?;
    let app = quire_http::try_router(service.clone(), http)
        .map_err(refuse)?
        .merge(mcp.clone())
        .merge(web_ui());

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("cannot listen on {addr}"))?;
        let local = listener.local_addr()?;
        // Commands run on the same root find the server here and talk to it.
        service.announce_api(&api_address(local))?;
        let mcp_listener = if config.protocols.mcp.enabled {
            let mcp_addr = SocketAddr::new(host, config.protocols.mcp.port);
            let l = tokio::net::TcpListener::bind(mcp_addr)
                .await
                .with_context(|| format!("cannot listen for MCP on {mcp_addr} ([protocols.mcp] port, or --mcp-port; --no-mcp turns it off)"))?;
            Some(l)
        } else {
            None
        };
        service.watch();
        // After the API is announced: a backup round may write (the remote's commits).
        service.start_schedules();
        reload_on_sighup(&args, reload, service.clone(), config.clone());
        if auth_open && !host.is_loopback() {
            tracing::warn!(
                "auth is `none` and the server listens on {host}: anyone who can reach this \
                 address can read and write the knowledge base"
            );
        }
        tracing::info!(
            "serving {} on http://{local}{} (versioning {:?}, auth {})",
            service.default_space().root_dir().display(),
            quire_http::BASE_PATH,
            config.versioning.strategy,
            config.auth.kind
        );
        // After the REST line: scripts and tests take the first address printed as the API.
        if let Some(l) = &mcp_listener {
            tracing::info!(
                "MCP listening on http://{}{}",
                l.local_addr()?,
                quire_mcp::MCP_PATH
            );
        }
        // Slow clients are cut off after `[server] header_read_timeout` ("0": never).
        let header_read_timeout = config.server.header_read_timeout.as_std();
        let serving = quire_http::server::ServeSettings {
            header_read_timeout: (!header_read_timeout.is_zero()).then_some(header_read_timeout),
        };
        let stop = Arc::new(tokio::sync::Notify::new());
        let stopped = stop.clone();
        let protocols_stop = Arc::new(tokio::sync::Notify::new());
        let running = protocols.spawn(&service, &gate, serving, &protocols_stop)?;
        let mcp_stop = Arc::new(tokio::sync::Notify::new());
        if let Some(l) = mcp_listener {
            let stopped = mcp_stop.clone();
            tokio::spawn(quire_http::server::serve(l, mcp, serving, async move {
                stopped.notified().await
            }));
        }
        let server = tokio::spawn(quire_http::server::serve(listener, app, serving, async move {
            stopped.notified().await
        }));
        shutdown_signal().await;
        tracing::info!("shutting down: finishing requests, then committing pending writes");
        stop.notify_one();
        mcp_stop.notify_one();
        protocols_stop.notify_waiters();
        // Requests in flight get a moment; open event streams do not hold the stop up.
        match tokio::time::timeout(SHUTDOWN_GRACE, server).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::error!("the server task failed: {e}"),
            Err(_) => tracing::warn!(
                "connections still open after {} s (event streams); closing them",
                SHUTDOWN_GRACE.as_secs()
            ),
        }
        // The mount's open files are written before the commits are flushed.
        tokio::task::block_in_place(|| running.stop());
        anyhow::Ok(())
    })?;
    service.stop_watching();
    // Deliveries not sent yet stay queued for the next start.
    if let Some(webhooks) = &webhooks {
        webhooks.stop(SHUTDOWN_GRACE);
    }
    service.flush();
    // The last writes reach the backup remote before the lock is released.
    service.stop_schedules();
    // Requests still running on blocking threads finish their pipeline pass first.
    runtime.shutdown_timeout(SHUTDOWN_GRACE);
    tracing::info!("stopped");
    Ok(())
}

/// MCP over streamable HTTP at `/mcp`, behind the same authentication as REST. Writes are
/// authored by the key's actor (its `X-Actor`) or the client's name. Browser pages may call it
/// from the server's own origin and the configured ones (`docs/decisions.md`).
fn mcp_router(
    service: &Arc<Service>,
    gate: &Arc<quire_http::Gate>,
    host: IpAddr,
    server: &quire_config::ServerConfig,
) -> Result<axum::Router, quire_http::SetupError> {
    // DNS-rebinding protection on loopback; a server bound to other interfaces is reached
    // by names only its operator knows, and its keys protect it.
    let allowed_hosts = if host.is_loopback() {
        vec![
            "localhost".into(),
            "127.0.0.1".into(),
            "::1".into(),
            "[::1]".into(),
        ]
    } else {
        Vec::new()
    };
    let mut origins: Vec<String> = server
        .cors_allowed_origins()
        .into_iter()
        .map(str::to_string)
        .collect();
    // Pages served under the public address come from its origin.
    if let Some(public) = server.public_url.as_deref().and_then(origin_of) {
        origins.push(public);
    }
    let allowed_origins =
        quire_mcp::AllowedOrigins::new(&origins).map_err(|message| quire_http::SetupError {
            setting: "server.cors_origins".into(),
            message,
        })?;
    let access = quire_mcp::Access {
        allowed_hosts,
        allowed_origins,
    };
    let gate = gate.clone();
    Ok(quire_mcp::http_router(
        service.clone(),
        None,
        access,
        |mcp| {
            mcp.layer(axum::middleware::from_fn_with_state(
                gate,
                quire_http::gate::check,
            ))
        },
    ))
}

/// `scheme://host[:port]` of a URL (`[server] public_url` may carry a path).
fn origin_of(url: &str) -> Option<String> {
    let uri: axum::http::Uri = url.trim().parse().ok()?;
    Some(format!("{}://{}", uri.scheme_str()?, uri.authority()?))
}

/// The web UI at `/` (its files are public: the app asks for a key before it reads anything),
/// with the same security headers as the API's HTML answers.
fn web_ui() -> axum::Router {
    if !quire_ui::is_built() {
        tracing::warn!("this binary carries no build of the web UI; `/` answers 503");
    }
    quire_ui::router().layer(axum::middleware::map_response(quire_http::security_headers))
}

/// SIGHUP reloads `[auth]` (keys, tokens, mode, OIDC issuer), `[server.rate_limit]` and
/// `[space] visibility` (each space's) from the configuration files: they apply to the next
/// request, connections stay open. A configuration that does not load or cannot be enforced
/// changes nothing (never a weaker policy) and is logged. Other settings that changed are
/// named in the log: they apply at the next start.
fn reload_on_sighup(
    args: &Args,
    reload: quire_http::Reload,
    service: Arc<Service>,
    started: Config,
) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let args = Args {
            root: args.root.clone(),
            host: args.host,
            port: args.port,
            versioning: args.versioning,
            mcp_port: args.mcp_port,
            no_mcp: args.no_mcp,
        };
        let mut hangups = match signal(SignalKind::hangup()) {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(
                    "cannot listen for SIGHUP ({e}): configuration reloads need a restart"
                );
                return;
            }
        };
        let args = Arc::new(args);
        let started = Arc::new(started);
        tokio::spawn(async move {
            while hangups.recv().await.is_some() {
                let (args, reload, service, started) = (
                    args.clone(),
                    reload.clone(),
                    service.clone(),
                    started.clone(),
                );
                let loaded = tokio::task::spawn_blocking(move || {
                    let config = configure(&args).map_err(|e| format!("{e:#}"))?;
                    reload.apply(&config, &service).map_err(|e| e.to_string())?;
                    Ok::<_, String>((
                        config.auth.kind,
                        quire_http::needs_restart(&started, &config),
                    ))
                })
                .await;
                match loaded {
                    Ok(Ok((kind, ignored))) => {
                        tracing::info!(
                            "SIGHUP: authentication reloaded (auth {kind}); reloaded: {}",
                            quire_http::RELOADED_SECTIONS.join(", ")
                        );
                        if !ignored.is_empty() {
                            tracing::warn!(
                                "SIGHUP: changed in the configuration but applied only at the \
                                 next start: {}",
                                ignored.join(", ")
                            );
                        }
                    }
                    Ok(Err(e)) => tracing::error!(
                        "SIGHUP: nothing reloaded (authentication not reloaded), the running \
                         settings stay: {e}"
                    ),
                    Err(e) => tracing::error!("SIGHUP: reload failed: {e}"),
                }
            }
        });
    }
    #[cfg(not(unix))]
    let _ = (args, reload, service, started);
}

/// How long requests in flight may take to finish after a stop signal.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// The address a command on this machine reaches the server at.
fn api_address(local: SocketAddr) -> String {
    let ip = match local.ip() {
        IpAddr::V4(v4) if v4.is_unspecified() => IpAddr::V4(std::net::Ipv4Addr::LOCALHOST),
        IpAddr::V6(v6) if v6.is_unspecified() => IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    format!("http://{}", SocketAddr::new(ip, local.port()))
}

/// The configuration file with the environment's and the command line's overrides (also what
/// SIGHUP reloads).
fn configure(args: &Args) -> anyhow::Result<Config> {
    let mut config = load_config(args)?;
    if let Some(host) = args.host {
        config.server.host = host.to_string();
    }
    if let Some(port) = args.port {
        config.server.port = port;
    }
    if let Some(strategy) = args.versioning {
        config.versioning.strategy = strategy;
    }
    if let Some(port) = args.mcp_port {
        config.protocols.mcp.port = port;
    }
    if args.no_mcp {
        config.protocols.mcp.enabled = false;
    }
    Ok(config)
}

fn load_config(args: &Args) -> anyhow::Result<Config> {
    let loaded = Config::load(&args.root)?;
    for warning in &loaded.warnings {
        eprintln!("quire: warning: {warning}");
    }
    let mut config = loaded.config;
    config.apply_env_overrides(&|name| std::env::var(name).ok())?;
    Ok(config)
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("QUIRE_LOG")
        // s3s logs every refused S3 request as an error; quire-s3 logs its own failures.
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,s3s=off"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

pub(super) async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = terminate => {},
    }
}
