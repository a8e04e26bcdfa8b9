//! Events broadcast after a write has passed the whole pipeline (file, commit, index).

use quire_api::Event;
use tokio::sync::broadcast;

/// Fan-out of events to every subscriber of one space. Slow subscribers lose old events
/// (they are told so by the channel) instead of slowing writers down.
#[derive(Debug)]
pub struct EventBus {
    sender: broadcast::Sender<Event>,
}

impl EventBus {
    pub fn new() -> EventBus {
        let (sender, _) = broadcast::channel(1024);
        EventBus { sender }
    }

    pub fn publish(&self, event: Event) {
        // No subscriber is not an error: events are best-effort notifications.
        let _ = self.sender.send(event);
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.sender.subscribe()
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
