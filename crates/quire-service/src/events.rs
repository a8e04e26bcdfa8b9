//! Events broadcast after a write has passed the whole pipeline (file, commit, index).

use std::sync::{Arc, Condvar, Mutex, RwLock};

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
///
/// Changes are announced in the order they were made: the pipeline takes a [`Ticket`] under
/// the space's write lock and publishes with it after the lock is released (once the index
/// has the change), each ticket waiting for the ones before it.
pub struct EventBus {
    sender: broadcast::Sender<Event>,
    sinks: RwLock<Vec<Arc<dyn EventSink>>>,
    /// (next ticket to hand out, tickets done).
    order: Mutex<(u64, u64)>,
    turn: Condvar,
}

impl std::fmt::Debug for EventBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventBus")
            .field("subscribers", &self.sender.receiver_count())
            .finish_non_exhaustive()
    }
}

/// A place in the order of announcements; dropping it unused gives the place up (in turn).
pub(crate) struct Ticket<'a> {
    bus: &'a EventBus,
    number: u64,
    used: bool,
}

impl Ticket<'_> {
    /// Publishes `events` once every earlier ticket is done.
    pub(crate) fn publish(mut self, events: impl IntoIterator<Item = Event>) {
        self.used = true;
        self.bus.in_turn(self.number, events);
    }
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        if !self.used {
            self.bus.in_turn(self.number, std::iter::empty());
        }
    }
}

impl EventBus {
    pub fn new() -> EventBus {
        let (sender, _) = broadcast::channel(1024);
        EventBus {
            sender,
            sinks: RwLock::new(Vec::new()),
            order: Mutex::new((0, 0)),
            turn: Condvar::new(),
        }
    }

    /// The next place in the order of announcements (take it under the write lock).
    pub(crate) fn ticket(&self) -> Ticket<'_> {
        let mut order = self.order.lock().unwrap_or_else(|e| e.into_inner());
        let number = order.0;
        order.0 += 1;
        Ticket {
            bus: self,
            number,
            used: false,
        }
    }

    fn in_turn(&self, number: u64, events: impl IntoIterator<Item = Event>) {
        let mut order = self.order.lock().unwrap_or_else(|e| e.into_inner());
        while order.1 != number {
            order = self.turn.wait(order).unwrap_or_else(|e| e.into_inner());
        }
        for event in events {
            self.publish(event);
        }
        order.1 += 1;
        self.turn.notify_all();
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
