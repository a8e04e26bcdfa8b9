//! Accepting connections: HTTP/1.1 with a deadline on every request's line and headers, so that
//! clients sending them a byte at a time (slowloris) are cut off instead of holding
//! connections open for free, and a graceful stop that lets requests in flight finish.
//!
//! `axum::serve` sets no timer on its connections, and without one hyper waits for headers
//! forever; this loop is `axum::serve` with the timer and the deadline.

use std::future::Future;
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tower::ServiceExt as _;

/// How connections are served.
#[derive(Debug, Clone, Copy)]
pub struct ServeSettings {
    /// `[server] header_read_timeout`: how long a request's line and headers may take to
    /// arrive (also how long an idle kept-alive connection waits for the next request);
    /// `None` waits forever.
    pub header_read_timeout: Option<Duration>,
}

/// How long the accept loop pauses after an error accepting a connection (out of file
/// descriptors, most often), so that it does not spin while connections are closed.
const ACCEPT_PAUSE: Duration = Duration::from_millis(50);

/// Serves `app` on `listener` until `shutdown` completes, then waits for the open connections
/// to finish the request they are on (the caller bounds that wait). Handlers see the client's
/// address as `ConnectInfo<SocketAddr>`, as under `axum::serve`.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    settings: ServeSettings,
    shutdown: impl Future<Output = ()> + Send,
) {
    // Every connection holds a receiver; `closed()` on the sender completes once all are gone.
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(());
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, remote) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(e) => {
                    tracing::warn!("cannot accept a connection: {e}");
                    tokio::time::sleep(ACCEPT_PAUSE).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Answers written in pieces (a streamed body after its headers: WebDAV's multistatus,
        // event streams) must not wait for the client's delayed ACK of the first piece.
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!("TCP_NODELAY: {e}");
        }
        let service = app
            .clone()
            .map_request(move |mut request: axum::http::Request<Incoming>| {
                request.extensions_mut().insert(ConnectInfo(remote));
                request
            });
        let mut stop = stop_rx.clone();
        tokio::spawn(serve_connection(stream, service, settings, async move {
            let _ = stop.changed().await;
        }));
    }
    drop(listener);
    drop(stop_rx);
    // Tells every connection to finish (`send` fails only when none is open).
    let _ = stop_tx.send(());
    stop_tx.closed().await;
}

/// One connection, until the client closes it, a deadline passes or `stop` asks it to end
/// after its current request.
async fn serve_connection<S>(
    stream: tokio::net::TcpStream,
    service: S,
    settings: ServeSettings,
    stop: impl Future<Output = ()>,
) where
    S: tower::Service<axum::http::Request<Incoming>, Response = axum::response::Response>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    S::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(settings.header_read_timeout);
    let connection =
        builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service));
    let mut connection = std::pin::pin!(connection);
    let mut stop = std::pin::pin!(stop);
    let mut stopping = false;
    loop {
        tokio::select! {
            result = connection.as_mut() => {
                if let Err(e) = result {
                    tracing::debug!("connection closed: {e}");
                }
                return;
            }
            () = &mut stop, if !stopping => {
                stopping = true;
                connection.as_mut().graceful_shutdown();
            }
        }
    }
}
