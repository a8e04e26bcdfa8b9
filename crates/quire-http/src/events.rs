//! `GET /events`: the Server-Sent Events stream of writes, deletes and bulk writes.

use std::convert::Infallible;
use std::time::Duration;

use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use tokio_stream::wrappers::errors::BroadcastStreamRecvError;
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::{Stream, StreamExt};

use crate::context::SpaceCtx;

/// Events after they passed the whole pipeline. The stream stays open; reconnect with backoff.
/// `Last-Event-ID` is accepted, but events are not replayed: use `/changes` to catch up.
#[utoipa::path(get, path = "/events", tag = "events", operation_id = "events",
    responses((status = 200, content_type = "text/event-stream", description = "events `write`, `delete`, `bulk` with `{path, actor, timestamp}` or `{paths, actor, timestamp}`")))]
pub async fn events(
    axum::extract::State(state): axum::extract::State<crate::AppState>,
    SpaceCtx(space): SpaceCtx,
) -> Sse<impl Stream<Item = Result<SseEvent, Infallible>>> {
    let open = crate::metrics::SseGuard::new(&state.metrics.sse);
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
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
}
