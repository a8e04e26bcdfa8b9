//! `quire serve`: the HTTP server over one or more spaces.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::{Args as ClapArgs, ValueEnum};
use quire_config::{Config, VersioningStrategy};
use quire_service::Service;

#[derive(ClapArgs)]
pub struct Args {
    /// Knowledge root to serve; created (with a git repository) on first start.
    #[arg(long, default_value = "knowledge", env = "QUIRE_ROOT")]
    root: PathBuf,
    /// Address to bind (default from [server] host, else 0.0.0.0).
    #[arg(long)]
    host: Option<IpAddr>,
    /// Port to listen on (default from [server] port, else 3333).
    #[arg(long)]
    port: Option<u16>,
    /// How writes are versioned (default from [versioning] strategy, else git).
    #[arg(long, value_enum)]
    versioning: Option<Versioning>,
}

#[derive(Clone, Copy, ValueEnum)]
enum Versioning {
    /// Every write is a git commit; history, blame and diff available.
    Git,
    /// Copy-on-write snapshots without git, limited history.
    Cow,
    /// No history; writes overwrite in place.
    None,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    init_logging();
    std::fs::create_dir_all(&args.root)
        .with_context(|| format!("cannot create the knowledge root {}", args.root.display()))?;
    let mut config = load_config(&args)?;
    if let Some(host) = args.host {
        config.server.host = host.to_string();
    }
    if let Some(port) = args.port {
        config.server.port = port;
    }
    if let Some(v) = args.versioning {
        config.versioning.strategy = match v {
            Versioning::Git => VersioningStrategy::Git,
            Versioning::Cow => VersioningStrategy::Cow,
            Versioning::None => VersioningStrategy::None,
        };
    }
    let host: IpAddr = config.server.host.parse().with_context(|| {
        format!(
            "[server] host {:?} is not an IP address",
            config.server.host
        )
    })?;
    let addr = SocketAddr::new(host, config.server.port);

    let settings = quire_service::settings_from_config(&args.root, &config);
    let service = Arc::new(Service::open(settings)?);
    let app = quire_http::router(service.clone());

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("cannot listen on {addr}"))?;
        let local = listener.local_addr()?;
        if config.auth.kind == quire_config::AuthType::None && !host.is_loopback() {
            tracing::warn!(
                "auth is `none` and the server listens on {host}: anyone who can reach this \
                 address can read and write the knowledge base"
            );
        }
        tracing::info!(
            "serving {} on http://{local}{} (versioning {:?})",
            service.default_space().root_dir().display(),
            quire_http::BASE_PATH,
            config.versioning.strategy
        );
        axum::serve(listener, app)
            .with_graceful_shutdown(shutdown_signal())
            .await
            .context("the server stopped with an error")
    })?;
    tracing::info!("shutting down: committing pending writes");
    service.flush();
    Ok(())
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
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

async fn shutdown_signal() {
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
