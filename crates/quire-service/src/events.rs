//! Events broadcast after a write has passed the whole pipeline (file, commit, index).

use std::sync::{Arc, RwLock};

use quire_api::Event;
use tokio::sync::broadcast;

/// A consumer that must see every event (the webhook queue): called synchronously by the
/// publisher, before broadcast subscribers, so it cannot fall behind and lose events the way a
/// lagging subscriber does. It must be quick (an append to a queue) and must not write to the
/// knowledge root.
pub trait EventSink: Send + Sync {
    fn accept(&self, event: &Event);
}

/// Fan-out of events to every subscriber of one space. Slow subscribers lose old events
/// (they are told so by the channel) instead of slowing writers down; sinks see them all.
pub struct EventBus {
    sender: broadcast::Sender<Event>,
    sinks: RwLock<Vec<Arc<dyn EventSink>>>,
}

impl std::fmt::Debug for EventBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventBus")
            .field("subscribers", &self.sender.receiver_count())
            .finish_non_exhaustive()
    }
}

impl EventBus {
    pub fn new() -> EventBus {
        let (sender, _) = broadcast::channel(1024);
        EventBus {
            sender,
            sinks: RwLock::new(Vec::new()),
        }
    }

    pub fn publish(&self, event: Event) {
        for sink in self.sinks.read().unwrap_or_else(|e| e.into_inner()).iter() {
            sink.accept(&event);
        }
        // No subscriber is not an error: events are best-effort notifications.
        let _ = self.sender.send(event);
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.sender.subscribe()
    }

    /// Adds a sink that sees every event published from now on.
    pub fn add_sink(&self, sink: Arc<dyn EventSink>) {
        self.sinks
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .push(sink);
    }
}

impl Default for EventBus {
    fn default() -> Self {
        EventBus::new()
    }
}

pub(crate) fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}
