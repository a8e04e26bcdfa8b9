//! `quire mount`: a knowledge root as a folder (FUSE) until SIGTERM or Ctrl-C.
//!
//! One writer per root: a root nobody holds is held by the command while it is mounted, like a
//! server; a root a server holds (or `--server`) is mounted through that server, every call of
//! the mount relayed to its file-system layer ([`relay`]).

mod relay;

use std::path::PathBuf;

use anyhow::Context;
use clap::Args as ClapArgs;
use quire_fuse::Files;

use super::remote::Remote;
use super::venue::{choose, open_root, Purpose, Venue};

#[derive(ClapArgs)]
pub struct Args {
    /// Knowledge root to mount. When a server holds it, the mount goes through that server.
    #[arg(long, default_value = "knowledge", env = "QUIRE_ROOT")]
    root: PathBuf,
    /// Mount the default space of a running server instead (set QUIRE_API_KEY when it asks
    /// for a key).
    #[arg(long)]
    server: Option<String>,
    /// Author of the writes made through the mount.
    #[arg(long, default_value = "fuse")]
    actor: String,
    /// An existing, empty folder to mount the root at.
    mountpoint: PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let filter = tracing_subscriber::EnvFilter::try_from_env("QUIRE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
    let venue = choose(
        args.server.is_none().then_some(args.root.as_path()),
        args.server.as_deref(),
        Purpose::Write("mount"),
    )?;
    match venue {
        Venue::Server(remote) => mount_through(remote, &args),
        Venue::Root(root) => mount_root(root, &args),
    }
}

/// Mounts a root nobody holds, holding it while mounted.
fn mount_root(root: PathBuf, args: &Args) -> anyhow::Result<()> {
    let service = open_root(&root, Purpose::Write("mount"))?;
    let space = service.default_space().clone();
    let mounted = quire_fuse::mount(space, &args.mountpoint, Some(args.actor.clone()))
        .with_context(|| cannot_mount(args))?;
    tracing::info!(
        "mounted {} at {}; SIGTERM or Ctrl-C unmounts",
        root.display(),
        args.mountpoint.display()
    );
    service.watch();
    wait_for_signal()?;
    tracing::info!("unmounting: writing open files, then committing pending writes");
    mounted.unmount().context("unmounting failed")?;
    service.stop_watching();
    service.flush();
    tracing::info!("unmounted");
    Ok(())
}

/// Mounts the default space of the server at `remote`: every call goes to it.
fn mount_through(remote: Remote, args: &Args) -> anyhow::Result<()> {
    let relay = relay::Relay::new(remote, &args.actor);
    // A server that cannot be reached, or refuses the key, is said now, not at the first `ls`.
    relay.stat("").map_err(anyhow::Error::from)?;
    let mounted = quire_fuse::mount_files(Box::new(relay), &args.mountpoint)
        .with_context(|| cannot_mount(args))?;
    tracing::info!(
        "mounted at {} through the server; SIGTERM or Ctrl-C unmounts",
        args.mountpoint.display()
    );
    wait_for_signal()?;
    tracing::info!("unmounting: writing open files through the server");
    mounted.unmount().context("unmounting failed")?;
    tracing::info!("unmounted");
    Ok(())
}

fn cannot_mount(args: &Args) -> String {
    format!(
        "cannot mount at {} (an existing empty folder; needs /dev/fuse and fusermount3)",
        args.mountpoint.display()
    )
}

fn wait_for_signal() -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the signal handler")?;
    runtime.block_on(super::serve::shutdown_signal());
    Ok(())
}
