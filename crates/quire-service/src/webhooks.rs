//! What adapters see of the service's webhooks: the registrations, deliveries and counters of
//! each space. `quire-webhooks` keeps them (a persistent queue fed as an [`EventSink`]) and
//! implements these traits; adapters hold a `dyn WebhookRegistry`, so no adapter depends on
//! another.
//!
//! [`EventSink`]: crate::EventSink

use std::sync::Arc;
use std::time::Duration;

use quire_api::{Webhook, WebhookDelivery, WebhookRequest};

use crate::{Error, Space};

/// The webhooks of every space that has them.
pub trait WebhookRegistry: Send + Sync {
    /// The webhooks of space `name`; `None` when it has none attached.
    fn space_webhooks(&self, name: &str) -> Option<Arc<dyn SpaceWebhooks>>;

    /// The webhooks of every space, in no particular order.
    fn all_spaces(&self) -> Vec<Arc<dyn SpaceWebhooks>>;

    /// Starts the webhooks of a space added while the server runs.
    fn attach(&self, space: &Space) -> Result<(), Error>;

    /// Stops the webhooks of a removed space, waiting up to `grace` for a delivery in flight;
    /// what it had queued stays on disk.
    fn detach(&self, name: &str, grace: Duration);
}

/// The webhooks of one space.
pub trait SpaceWebhooks: Send + Sync {
    /// The space's name.
    fn space_name(&self) -> &str;

    /// Registers a webhook; the answer carries its secret, shown this once. Bad input stores
    /// nothing.
    fn create(&self, request: WebhookRequest) -> Result<Webhook, Error>;

    /// Every webhook, oldest first, without secrets.
    fn list(&self) -> Result<Vec<Webhook>, Error>;

    /// Removes a webhook and its queued deliveries.
    fn delete(&self, id: &str) -> Result<(), Error>;

    /// A webhook's recent deliveries.
    fn deliveries(&self, id: &str) -> Result<Vec<WebhookDelivery>, Error>;

    /// What `/metrics` shows.
    fn metrics(&self) -> WebhookMetrics;
}

/// What `/metrics` shows of a space's webhooks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WebhookMetrics {
    /// Deliveries a receiver accepted (since the start).
    pub delivered: u64,
    /// Attempts that failed (since the start).
    pub failed_attempts: u64,
    /// Deliveries given up after their last retry (since the start).
    pub gave_up: u64,
    /// Deliveries waiting in the queue now.
    pub queued: u64,
    /// Deliveries kept as failed now.
    pub failed: u64,
}
