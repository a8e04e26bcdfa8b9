//! Webhooks (`[webhooks] enabled = true`): registrations per space, a persistent delivery
//! queue, and dispatchers that POST each event signed as Standard Webhooks does.
//!
//! Every space has its own [`SpaceHooks`]: the registrations and the queue in
//! `.quire/state/webhooks.db` (`store`), and an [`quire_service::EventSink`] on the space's
//! event bus that turns each `write`, `delete` and `bulk` event into one queued delivery per
//! webhook whose `path_glob` (`glob`) matches the path (a `bulk` event: one per path). The
//! queue is written before the event reaches `/events` subscribers, so a delivery exists as
//! soon as the write is answered, and a restart loses none: [`Webhooks::start`] resumes them.
//! `max_workers` threads per space send them (`dispatch`): signed (`sign`), retried after an
//! exponential delay with jitter, kept as `failed` after `1 + max_retries` attempts.
//!
//! This crate sits above `quire-service` beside the adapters: it reads events and never
//! writes the knowledge root (its only file is its own database under `.quire/state/`).

mod dispatch;
pub mod glob;
pub mod sign;
mod store;
pub mod target;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Duration;

use quire_api::{Event, Webhook, WebhookDelivery, WebhookPayload, WebhookRequest};
use quire_service::{Error, EventSink, Service, SpaceWebhooks, WebhookMetrics, WebhookRegistry};

pub use dispatch::{retry_delay, MAX_RETRY_DELAY};
pub use glob::PathGlob;
pub use sign::Secret;

use store::{HookRow, NewDelivery, Store};

/// How deliveries are made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// Worker threads per space (`[webhooks] max_workers`).
    pub max_workers: usize,
    /// Attempts after the first before a delivery is given up (`[webhooks] max_retries`).
    pub max_retries: u32,
    /// The delay before the first retry; each next one is four times longer (with jitter).
    pub retry_base: Duration,
    /// Time allowed for one attempt (connecting, sending, the answer's head).
    pub timeout: Duration,
}

impl Settings {
    pub const DEFAULT_RETRY_BASE: Duration = Duration::from_secs(5);
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

    pub fn from_config(config: &quire_config::WebhooksConfig) -> Settings {
        Settings {
            max_workers: config.max_workers.max(1) as usize,
            max_retries: config.max_retries,
            retry_base: Settings::DEFAULT_RETRY_BASE,
            timeout: Settings::DEFAULT_TIMEOUT,
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings::from_config(&quire_config::WebhooksConfig::default())
    }
}

/// The webhooks of every space of a service, spaces added at runtime included
/// ([`Webhooks::attach`]).
pub struct Webhooks {
    spaces: RwLock<Vec<Arc<SpaceHooks>>>,
    settings: Settings,
    /// Set by [`Webhooks::start`]: a space attached afterwards starts its dispatchers at once.
    started: std::sync::atomic::AtomicBool,
}

impl Webhooks {
    /// Opens the store of every space and attaches each to its space's events: from here on
    /// every event is queued for the webhooks it matches. Nothing is sent before
    /// [`Webhooks::start`].
    pub fn open(service: &Service, settings: Settings) -> Result<Webhooks, Error> {
        let webhooks = Webhooks {
            spaces: RwLock::new(Vec::new()),
            settings,
            started: std::sync::atomic::AtomicBool::new(false),
        };
        for space in service.spaces() {
            webhooks.attach(&space)?;
        }
        Ok(webhooks)
    }

    /// Opens the store of `space` (a space added while the server runs) and queues its events;
    /// its dispatchers start now if the others have.
    pub fn attach(&self, space: &quire_service::Space) -> Result<(), Error> {
        let store = Store::open(space.root_dir()).map_err(|e| {
            Error::internal(format!("the webhook store of space {}: {e}", space.name()))
        })?;
        let hooks = Arc::new(SpaceHooks {
            name: space.name().to_string(),
            active: RwLock::new(Vec::new()),
            store: Mutex::new(store),
            settings: self.settings.clone(),
            wake: dispatch::Wake::default(),
            counters: Counters::default(),
        });
        hooks.reload()?;
        space.events().add_sink(hooks.clone());
        if self.started.load(Ordering::SeqCst) {
            start_dispatchers(&hooks);
        }
        let mut spaces = self.spaces.write().unwrap_or_else(|e| e.into_inner());
        spaces.retain(|h| h.name != space.name());
        spaces.push(hooks);
        Ok(())
    }

    /// Stops the dispatchers of a removed space (waiting up to `grace`); what it had queued
    /// stays in its store and is sent if the space is added again.
    pub fn detach(&self, name: &str, grace: Duration) {
        let removed = {
            let mut spaces = self.spaces.write().unwrap_or_else(|e| e.into_inner());
            let at = spaces.iter().position(|h| h.name == name);
            at.map(|at| spaces.remove(at))
        };
        if let Some(hooks) = removed {
            hooks.wake.stop(grace);
        }
    }

    /// Starts `max_workers` dispatchers per space; they send what is queued, oldest first,
    /// including what a previous run left.
    pub fn start(&self) {
        self.started.store(true, Ordering::SeqCst);
        for hooks in self.spaces() {
            start_dispatchers(&hooks);
        }
    }

    /// Stops the dispatchers, waiting up to `grace` for attempts in flight. Events still queue
    /// afterwards (until the process ends) and are sent at the next start.
    pub fn stop(&self, grace: Duration) {
        let deadline = std::time::Instant::now() + grace;
        for hooks in self.spaces() {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if !hooks.wake.stop(left) {
                tracing::warn!(
                    space = %hooks.name,
                    "a webhook delivery was still in flight at the stop; it is sent again at \
                     the next start"
                );
            }
        }
    }

    /// The webhooks of the space `name`.
    pub fn space(&self, name: &str) -> Option<Arc<SpaceHooks>> {
        self.spaces
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .find(|s| s.name == name)
            .cloned()
    }

    pub fn spaces(&self) -> Vec<Arc<SpaceHooks>> {
        self.spaces
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

fn start_dispatchers(hooks: &Arc<SpaceHooks>) {
    let agent = dispatch::agent(hooks.settings.timeout);
    for n in 0..hooks.settings.max_workers {
        hooks.wake.begin();
        let hooks = hooks.clone();
        let agent = agent.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("webhooks-{n}"))
            .spawn(move || dispatch::work(hooks, agent));
        if let Err(e) = spawned {
            tracing::error!("cannot start a webhook dispatcher: {e}");
        }
    }
}

#[derive(Default)]
struct Counters {
    delivered: AtomicU64,
    failed_attempts: AtomicU64,
    gave_up: AtomicU64,
}

/// A registration as events are matched against it.
struct Active {
    id: String,
    glob: PathGlob,
}

/// The webhooks of one space: registrations, queue, dispatch.
pub struct SpaceHooks {
    name: String,
    /// The enabled registrations, kept in memory so an event needs no query to find none.
    active: RwLock<Vec<Active>>,
    store: Mutex<Store>,
    settings: Settings,
    wake: dispatch::Wake,
    counters: Counters,
}

/// Ids of registrations: `wh_` + 32 hex digits; of messages (`webhook-id`): `msg_` + 32.
const HOOK_PREFIX: &str = "wh_";
const MESSAGE_PREFIX: &str = "msg_";

impl SpaceHooks {
    pub fn name(&self) -> &str {
        &self.name
    }

    fn store(&self) -> MutexGuard<'_, Store> {
        self.store.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Reads the registrations into memory.
    fn reload(&self) -> Result<(), Error> {
        let rows = self.store().hooks().map_err(Error::internal)?;
        let mut active = Vec::new();
        for row in rows.into_iter().filter(|r| r.enabled) {
            match PathGlob::new(&row.path_glob) {
                Ok(glob) => active.push(Active { id: row.id, glob }),
                Err(e) => tracing::error!(space = %self.name, webhook = %row.id, "{e}; skipped"),
            }
        }
        *self.active.write().unwrap_or_else(|e| e.into_inner()) = active;
        Ok(())
    }

    /// Registers a webhook; the answer carries its secret, shown this once. Bad input (a URL
    /// that is not https outside loopback, a glob that does not compile) stores nothing.
    pub fn create(&self, request: WebhookRequest) -> Result<Webhook, Error> {
        let url = target::check_url(&request.url).map_err(Error::bad_request)?;
        let glob = match request.path_glob.as_deref().map(str::trim) {
            None | Some("") => PathGlob::ALL.to_string(),
            Some(text) => text.to_string(),
        };
        PathGlob::new(&glob).map_err(|e| Error::bad_request(e.to_string()))?;
        let secret = Secret::generate().map_err(Error::internal)?;
        let row = HookRow {
            id: sign::random_id(HOOK_PREFIX).map_err(Error::internal)?,
            url: url.to_string(),
            path_glob: glob,
            secret: secret.text(),
            created_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            enabled: true,
        };
        {
            let store = self.store();
            store.insert_hook(&row).map_err(Error::internal)?;
        }
        self.reload()?;
        tracing::info!(space = %self.name, webhook = %row.id, "webhook registered");
        let mut hook = webhook(&row);
        hook.secret = Some(row.secret);
        Ok(hook)
    }

    /// Every registration, oldest first, without secrets.
    pub fn list(&self) -> Result<Vec<Webhook>, Error> {
        let rows = self.store().hooks().map_err(Error::internal)?;
        Ok(rows.iter().map(webhook).collect())
    }

    /// Removes a registration and the deliveries queued or failed for it.
    pub fn delete(&self, id: &str) -> Result<(), Error> {
        let removed = self.store().delete_hook(id).map_err(Error::internal)?;
        if !removed {
            return Err(Error::not_found(format!("no webhook {id:?}")));
        }
        self.reload()?;
        tracing::info!(space = %self.name, webhook = %id, "webhook deleted");
        Ok(())
    }

    /// The deliveries of a webhook that are queued or failed, oldest first.
    pub fn deliveries(&self, id: &str) -> Result<Vec<WebhookDelivery>, Error> {
        let store = self.store();
        if !store
            .hooks()
            .map_err(Error::internal)?
            .iter()
            .any(|h| h.id == id)
        {
            return Err(Error::not_found(format!("no webhook {id:?}")));
        }
        let rows = store.deliveries(id).map_err(Error::internal)?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let payload: WebhookPayload = serde_json::from_str(&row.body).map_err(|e| {
                Error::internal(format!("delivery {} has an unreadable body: {e}", row.id))
            })?;
            let next_attempt_at = (row.state == quire_api::DeliveryState::Pending)
                .then(|| chrono::DateTime::from_timestamp_millis(row.due_at))
                .flatten()
                .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
            out.push(WebhookDelivery {
                id: row.id,
                webhook: row.webhook,
                state: row.state,
                attempts: row.attempts,
                next_attempt_at,
                last_error: row.last_error,
                payload,
            });
        }
        Ok(out)
    }

    pub fn metrics(&self) -> WebhookMetrics {
        let (queued, failed) = self.store().counts().unwrap_or_default();
        WebhookMetrics {
            delivered: self.counters.delivered.load(Ordering::Relaxed),
            failed_attempts: self.counters.failed_attempts.load(Ordering::Relaxed),
            gave_up: self.counters.gave_up.load(Ordering::Relaxed),
            queued,
            failed,
        }
    }

    /// The deliveries an event makes: one per (path, matching webhook).
    fn deliveries_of(&self, event: &Event) -> Vec<NewDelivery> {
        let active = self.active.read().unwrap_or_else(|e| e.into_inner());
        if active.is_empty() {
            return Vec::new();
        }
        let mut out = Vec::new();
        for payload in payloads(event) {
            let mut body = None;
            for hook in active.iter().filter(|h| h.glob.matches(&payload.path)) {
                let body = body
                    .get_or_insert_with(|| serde_json::to_string(&payload).unwrap_or_default())
                    .clone();
                match sign::random_id(MESSAGE_PREFIX) {
                    Ok(id) => out.push(NewDelivery {
                        id,
                        webhook: hook.id.clone(),
                        body,
                    }),
                    Err(e) => tracing::error!(space = %self.name, "no randomness for an id: {e}"),
                }
            }
        }
        out
    }
}

impl WebhookRegistry for Webhooks {
    fn space_webhooks(&self, name: &str) -> Option<Arc<dyn SpaceWebhooks>> {
        Webhooks::space(self, name).map(|hooks| hooks as Arc<dyn SpaceWebhooks>)
    }

    fn all_spaces(&self) -> Vec<Arc<dyn SpaceWebhooks>> {
        Webhooks::spaces(self)
            .into_iter()
            .map(|hooks| hooks as Arc<dyn SpaceWebhooks>)
            .collect()
    }

    fn attach(&self, space: &quire_service::Space) -> Result<(), Error> {
        Webhooks::attach(self, space)
    }

    fn detach(&self, name: &str, grace: Duration) {
        Webhooks::detach(self, name, grace)
    }
}

impl SpaceWebhooks for SpaceHooks {
    fn space_name(&self) -> &str {
        SpaceHooks::name(self)
    }

    fn create(&self, request: WebhookRequest) -> Result<Webhook, Error> {
        SpaceHooks::create(self, request)
    }

    fn list(&self) -> Result<Vec<Webhook>, Error> {
        SpaceHooks::list(self)
    }

    fn delete(&self, id: &str) -> Result<(), Error> {
        SpaceHooks::delete(self, id)
    }

    fn deliveries(&self, id: &str) -> Result<Vec<WebhookDelivery>, Error> {
        SpaceHooks::deliveries(self, id)
    }

    fn metrics(&self) -> WebhookMetrics {
        SpaceHooks::metrics(self)
    }
}

impl EventSink for SpaceHooks {
    fn accept(&self, event: &Event) {
        let deliveries = self.deliveries_of(event);
        if deliveries.is_empty() {
            return;
        }
        let queued = self.store().enqueue(&deliveries, dispatch::now_ms());
        match queued {
            Ok(()) => self.wake.notify(),
            Err(e) => tracing::error!(
                space = %self.name,
                "{} webhook deliveries of a {} event could not be queued: {e}",
                deliveries.len(),
                event.name()
            ),
        }
    }
}

/// The bodies an event is reported with: one per path.
fn payloads(event: &Event) -> Vec<WebhookPayload> {
    let one = |kind: &str, path: &str, actor: &str, timestamp: &str| WebhookPayload {
        kind: kind.to_string(),
        path: path.to_string(),
        actor: actor.to_string(),
        timestamp: timestamp.to_string(),
    };
    match event {
        Event::Write {
            path,
            actor,
            timestamp,
        } => vec![one("write", path, actor, timestamp)],
        Event::Delete {
            path,
            actor,
            timestamp,
        } => vec![one("delete", path, actor, timestamp)],
        Event::Bulk {
            paths,
            actor,
            timestamp,
        } => paths
            .iter()
            .map(|path| one("bulk", path, actor, timestamp))
            .collect(),
        // One delivery per page the import wrote, so `path_glob` filters it as it does a bulk.
        Event::Import {
            paths,
            actor,
            timestamp,
            ..
        } => paths
            .iter()
            .map(|path| one("import", path, actor, timestamp))
            .collect(),
    }
}

fn webhook(row: &HookRow) -> Webhook {
    Webhook {
        id: row.id.clone(),
        url: row.url.clone(),
        path_glob: row.path_glob.clone(),
        secret: None,
        created_at: row.created_at.clone(),
        enabled: row.enabled,
    }
}
