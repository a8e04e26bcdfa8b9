//! NFSv3 over a quire service, with `nfsserve`: NFS and MOUNT on one TCP port (user-space
//! clients such as libnfs need no portmapper). The export `/` is the default space; every other
//! space is the top folder `/<name>/`; any folder can be mounted by its path.
//!
//! Each change is a call of the service's file-system layer ([`quire_service::FileSystem`]):
//! a file's writes are buffered and committed as one write when the client asks for it
//! (COMMIT, or a stable WRITE: the [`relay`] in front of nfsserve sees them) or once the file
//! is quiet (see [`fs`]); a rename of a page or folder is a restructuring that keeps every link. NFS has no
//! credentials we can check, so every write is authored by the configured actor and the
//! binary listens on loopback unless told otherwise.

mod fs;
mod ids;
mod relay;
mod rpc;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use nfsserve::tcp::{NFSTcp, NFSTcpListener};
use quire_service::Service;
use tokio::net::TcpListener;

pub use fs::{QuireNfs, Settings, MAX_FILE_BYTES, QUIET};
pub use ids::{Ids, ROOT_ID};

/// Serves NFS on `addr` until `stop` completes, then commits what is still buffered.
pub async fn serve(
    addr: SocketAddr,
    service: Arc<Service>,
    settings: Settings,
    stop: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    let public = TcpListener::bind(addr).await?;
    let files = QuireNfs::new(service, settings);
    let served = start(public, files.clone()).await?;
    let flusher = {
        let files = files.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(QUIET / 4);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                if files.has_pending() {
                    let files = files.clone();
                    let _ = tokio::task::spawn_blocking(move || files.flush_quiet(false)).await;
                }
            }
        })
    };
    let result = tokio::select! {
        served = served => served,
        () = stop => Ok(()),
    };
    flusher.abort();
    let _ = tokio::task::spawn_blocking(move || files.flush_quiet(true)).await;
    result
}

/// Starts nfsserve over `files` on a loopback port of its own (it serves only a listener it
/// binds), and the relay ([`relay`]) from `public` to it. The future ends only if nfsserve
/// stops; dropping it stops both.
async fn start(
    public: TcpListener,
    files: QuireNfs,
) -> std::io::Result<impl Future<Output = std::io::Result<()>>> {
    let nfsserve = NFSTcpListener::bind("127.0.0.1:0", files.clone()).await?;
    let upstream = SocketAddr::new(nfsserve.get_listen_ip(), nfsserve.get_listen_port());
    tracing::info!("NFS listening on {}", public.local_addr()?);
    tracing::debug!("nfsserve on {upstream}, behind the relay");
    Ok(async move {
        tokio::select! {
            served = nfsserve.handle_forever() => served,
            () = relay::run(public, upstream, files) => Ok(()),
        }
    })
}

#[cfg(test)]
mod testing;
