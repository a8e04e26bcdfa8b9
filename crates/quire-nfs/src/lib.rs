//! NFSv3 over a quire service, with `nfsserve`: NFS and MOUNT on one TCP port (user-space
//! clients such as libnfs need no portmapper). The export `/` is the default space; every other
//! space is the top folder `/<name>/`; any folder can be mounted by its path.
//!
//! Each change is a call of the service's file-system layer ([`quire_service::FileSystem`]):
//! a file's writes are buffered and committed as one write once the file is quiet (see
//! [`fs`]); a rename of a page or folder is a restructuring that keeps every link. NFS has no
//! credentials we can check, so every write is authored by the configured actor and the
//! binary listens on loopback unless told otherwise.

mod fs;
mod ids;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use nfsserve::tcp::{NFSTcp, NFSTcpListener};
use quire_service::Service;

pub use fs::{QuireNfs, Settings, MAX_FILE_BYTES, QUIET};
pub use ids::{Ids, ROOT_ID};

/// Serves NFS on `addr` until `stop` completes, then commits what is still buffered.
/// nfsserve binds the listener itself, from an IPv4 `ip:port`.
pub async fn serve(
    addr: SocketAddr,
    service: Arc<Service>,
    settings: Settings,
    stop: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    if !addr.is_ipv4() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::AddrNotAvailable,
            format!("NFS listens on IPv4 addresses only, not {addr}"),
        ));
    }
    let files = QuireNfs::new(service, settings);
    let listener = NFSTcpListener::bind(&addr.to_string(), files.clone()).await?;
    tracing::info!(
        "NFS listening on {}:{}",
        listener.get_listen_ip(),
        listener.get_listen_port()
    );
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
        served = listener.handle_forever() => served,
        () = stop => Ok(()),
    };
    flusher.abort();
    let _ = tokio::task::spawn_blocking(move || files.flush_quiet(true)).await;
    result
}
