//! `GET /events`: the Server-Sent Events stream of writes, deletes and bulk writes.

use std::convert::Infallible;
use std::time::Duration;

use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use tokio_stream::wrappers::errors::BroadcastStreamRecvError;
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::{Stream, StreamExt};

use crate::context::SpaceCtx;
use crate::error::ApiError;

/// Events after they passed the whole pipeline. The stream stays open; reconnect with backoff.
/// `Last-Event-ID` is accepted, but events are not replayed: use `/changes` to catch up.
/// At most `[server] max_event_streams` streams are open at once (over every space); one more
/// is answered 503, so idle subscribers cannot exhaust the server's connections and memory.
#[utoipa::path(get, path = "/events", tag = "events", operation_id = "events",
    responses((status = 200, content_type = "text/event-stream", description = "events `write`, `delete`, `bulk` with `{path, actor, timestamp}` or `{paths, actor, timestamp}`"),
        (status = 503, body = crate::ErrorBody, description = "`[server] max_event_streams` streams are open already")))]
pub async fn events(
    axum::extract::State(state): axum::extract::State<crate::AppState>,
    SpaceCtx(space): SpaceCtx,
) -> Result<Sse<impl Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    let open = crate::metrics::SseGuard::open(&state.metrics.sse, state.max_event_streams)
        .ok_or_else(|| {
            ApiError(quire_service::Error::unavailable(format!(
                "too many event streams open ({} at most, [server] max_event_streams); \
                 retry later",
                state.max_event_streams
            )))
        })?;
    let stream = BroadcastStream::new(space.events().subscribe()).map(move |item| {
        let _open = &open;
        Ok(match item {
            Ok(event) => SseEvent::default()
                .event(event.name())
                .json_data(&event)
                .unwrap_or_else(|_| SseEvent::default().comment("unserialisable event")),
            Err(BroadcastStreamRecvError::Lagged(n)) => {
                SseEvent::default().comment(format!("{n} events dropped; catch up with /changes"))
            }
        })
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}
