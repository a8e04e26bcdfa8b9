//! `quire mount`: a knowledge root as a folder (FUSE) until SIGTERM or Ctrl-C.
//!
//! One writer per root: the command holds the root while it is mounted, like a server. A root
//! a server already holds is mounted by that server (`[protocols.fuse] mountpoint`), so the
//! command refuses it and says so.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args as ClapArgs;
use quire_service::{Error, ErrorCode};

use super::venue::{open_root, Purpose};

#[derive(ClapArgs)]
pub struct Args {
    /// Knowledge root to mount.
    #[arg(long, default_value = "knowledge", env = "QUIRE_ROOT")]
    root: PathBuf,
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
    if !args.root.is_dir() {
        return Err(Error::bad_request(format!("{} is not a folder", args.root.display())).into());
    }
    if let Some(holder) = quire_service::root_holder(&args.root)? {
        return Err(Error::new(
            ErrorCode::Conflict,
            format!(
                "{} is held by {holder}: one process writes a root, so mount it through that \
                 server (`[protocols.fuse] mountpoint` in its configuration, or its WebDAV)",
                args.root.display()
            ),
        )
        .into());
    }
    let service = open_root(&args.root, Purpose::Write("mount"))?;
    let space = service.default_space().clone();
    let mounted = quire_fuse::mount(space, &args.mountpoint, Some(args.actor.clone()))
        .with_context(|| {
            format!(
                "cannot mount at {} (an existing empty folder; needs /dev/fuse and fusermount3)",
                args.mountpoint.display()
            )
        })?;
    tracing::info!(
        "mounted {} at {}; SIGTERM or Ctrl-C unmounts",
        args.root.display(),
        args.mountpoint.display()
    );
    service.watch();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the signal handler")?;
    runtime.block_on(super::serve::shutdown_signal());
    tracing::info!("unmounting: writing open files, then committing pending writes");
    mounted.unmount().context("unmounting failed")?;
    service.stop_watching();
    service.flush();
    tracing::info!("unmounted");
    Ok(())
}
