//! The dispatchers: `max_workers` threads per space take due deliveries from the queue, POST
//! them signed, and record the outcome: a 2xx answer removes the delivery; anything else (a
//! status, a refused connection, a timeout) schedules a retry after an exponential delay with
//! jitter, until `1 + max_retries` attempts have failed and the delivery is kept as `failed`.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use crate::sign::Secret;
use crate::store::Job;
use crate::SpaceHooks;

/// Retry `n` waits about `base · 4^(n-1)`, never more than this.
pub const MAX_RETRY_DELAY: Duration = Duration::from_secs(3600);
/// How long an idle worker sleeps before looking at the queue again on its own.
const IDLE: Duration = Duration::from_secs(30);

/// The delay before retry `retry` (1 for the first retry): `base · 4^(retry-1)`, capped at
/// [`MAX_RETRY_DELAY`], times a jitter factor between 0.8 and 1.2 taken from `unit` (in
/// `0.0..=1.0`), so that deliveries failing together do not come back together.
pub fn retry_delay(base: Duration, retry: u32, unit: f64) -> Duration {
    let factor = 4u32.saturating_pow(retry.saturating_sub(1));
    let delay = base.saturating_mul(factor).min(MAX_RETRY_DELAY);
    delay
        .mul_f64(0.8 + 0.4 * unit.clamp(0.0, 1.0))
        .min(MAX_RETRY_DELAY)
}

/// Wakes the workers of a space: new deliveries, or the stop.
#[derive(Default)]
pub(crate) struct Wake {
    state: Mutex<WakeState>,
    cond: Condvar,
}

#[derive(Default)]
struct WakeState {
    /// Bumped at every enqueue, so a worker that found the queue empty does not sleep through
    /// a delivery queued just after it looked.
    generation: u64,
    stopping: bool,
    /// Workers still running.
    running: usize,
}

impl Wake {
    fn lock(&self) -> MutexGuard<'_, WakeState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn notify(&self) {
        self.lock().generation += 1;
        self.cond.notify_all();
    }

    pub fn begin(&self) {
        let mut state = self.lock();
        state.stopping = false;
        state.running += 1;
    }

    /// Asks the workers to stop and waits up to `grace` for them; a worker still sending then
    /// finishes on its own (or dies with the process: its delivery is sent again next time).
    pub fn stop(&self, grace: Duration) -> bool {
        let deadline = std::time::Instant::now() + grace;
        let mut state = self.lock();
        state.stopping = true;
        self.cond.notify_all();
        while state.running > 0 {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return false;
            }
            state = self
                .cond
                .wait_timeout(state, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }
}

/// Counts a worker out however it ends.
struct Running<'a>(&'a Wake);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.0.lock().running -= 1;
        self.0.cond.notify_all();
    }
}

pub(crate) fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// One worker's loop, until the stop. [`Wake::begin`] was called for it.
pub(crate) fn work(hooks: Arc<SpaceHooks>, agent: ureq::Agent) {
    let wake = &hooks.wake;
    let _running = Running(wake);
    loop {
        let generation = {
            let state = wake.lock();
            if state.stopping {
                return;
            }
            state.generation
        };
        let now = now_ms();
        let taken = hooks.store().take_due(now);
        let wait = match taken {
            Ok(Some(job)) => {
                attempt(&hooks, &agent, job);
                continue;
            }
            Ok(None) => match hooks.store().next_due() {
                Ok(Some(due)) => Duration::from_millis((due - now).clamp(5, 30_000) as u64),
                Ok(None) => IDLE,
                Err(e) => {
                    tracing::error!(space = %hooks.name, "webhook queue: {e}");
                    Duration::from_secs(1)
                }
            },
            Err(e) => {
                tracing::error!(space = %hooks.name, "webhook queue: {e}");
                Duration::from_secs(1)
            }
        };
        let state = wake.lock();
        if state.stopping {
            return;
        }
        if state.generation == generation {
            let _ = wake
                .cond
                .wait_timeout(state, wait.min(IDLE))
                .unwrap_or_else(|e| e.into_inner());
        }
    }
}

fn attempt(hooks: &SpaceHooks, agent: &ureq::Agent, job: Job) {
    let attempts = job.attempts + 1;
    let outcome = send(agent, &job);
    let counters = &hooks.counters;
    let recorded = match outcome {
        // The queue is updated before the counters, so what the metrics count is already
        // in the queue's state.
        Ok(()) => {
            let recorded = hooks.store().delivered(job.seq);
            counters.delivered.fetch_add(1, Ordering::Relaxed);
            recorded
        }
        Err(error) => {
            if attempts > hooks.settings.max_retries {
                tracing::error!(
                    space = %hooks.name,
                    webhook = %job.webhook,
                    delivery = %job.id,
                    "webhook delivery failed {attempts} times, giving up ({error}); it is kept \
                     as failed (GET /webhooks/{}/deliveries)",
                    job.webhook
                );
                let recorded = hooks
                    .store()
                    .attempt_failed(job.seq, attempts, &error, None);
                counters.gave_up.fetch_add(1, Ordering::Relaxed);
                counters.failed_attempts.fetch_add(1, Ordering::Relaxed);
                recorded
            } else {
                let unit =
                    f64::from(getrandom::u32().unwrap_or(u32::MAX / 2)) / f64::from(u32::MAX);
                let delay = retry_delay(hooks.settings.retry_base, attempts, unit);
                tracing::warn!(
                    space = %hooks.name,
                    webhook = %job.webhook,
                    delivery = %job.id,
                    "webhook delivery attempt {attempts} failed ({error}); retrying in {:.1} s",
                    delay.as_secs_f64()
                );
                let at = now_ms() + delay.as_millis() as i64;
                let recorded = hooks
                    .store()
                    .attempt_failed(job.seq, attempts, &error, Some(at));
                counters.failed_attempts.fetch_add(1, Ordering::Relaxed);
                recorded
            }
        }
    };
    if let Err(e) = recorded {
        tracing::error!(space = %hooks.name, "webhook queue: {e}");
    }
}

/// One signed POST. The error says why it failed without the URL (which may carry
/// credentials) and without the receiver's body.
fn send(agent: &ureq::Agent, job: &Job) -> Result<(), String> {
    let Some(secret) = Secret::parse(&job.secret) else {
        return Err("the stored secret does not decode".into());
    };
    let timestamp = chrono::Utc::now().timestamp();
    let signature = secret.sign(&job.id, timestamp, job.body.as_bytes());
    let answer = agent
        .post(&job.url)
        .set("content-type", "application/json")
        .set("webhook-id", &job.id)
        .set("webhook-timestamp", &timestamp.to_string())
        .set("webhook-signature", &signature)
        .send_bytes(job.body.as_bytes());
    match answer {
        Ok(response) if (200..300).contains(&response.status()) => Ok(()),
        Ok(response) => Err(format!("HTTP {}", response.status())),
        Err(ureq::Error::Status(code, _)) => Err(format!("HTTP {code}")),
        Err(ureq::Error::Transport(t)) => Err(match t.message() {
            Some(message) => format!("{}: {message}", t.kind()),
            None => t.kind().to_string(),
        }),
    }
}

/// The HTTP client of a space's workers: no redirects (a 3xx is a failure, the target is
/// what was registered), bounded time per attempt, rustls for https.
pub(crate) fn agent(timeout: Duration) -> ureq::Agent {
    ureq::AgentBuilder::new()
        .timeout_connect(timeout.min(Duration::from_secs(5)))
        .timeout(timeout)
        .redirects(0)
        .user_agent(concat!("quire-webhooks/", env!("CARGO_PKG_VERSION")))
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_delays_grow_by_four_within_the_jitter_bounds() {
        let base = Duration::from_secs(5);
        for (retry, nominal) in [(1, 5.0), (2, 20.0), (3, 80.0), (4, 320.0), (5, 1280.0)] {
            let low = retry_delay(base, retry, 0.0).as_secs_f64();
            let mid = retry_delay(base, retry, 0.5).as_secs_f64();
            let high = retry_delay(base, retry, 1.0).as_secs_f64();
            assert!((low - nominal * 0.8).abs() < 1e-6, "{retry}: {low}");
            assert!((mid - nominal).abs() < 1e-6, "{retry}: {mid}");
            assert!((high - nominal * 1.2).abs() < 1e-6, "{retry}: {high}");
        }
    }

    #[test]
    fn retry_delays_are_capped_and_never_overflow() {
        let base = Duration::from_secs(5);
        for retry in [6, 10, 40, u32::MAX] {
            for unit in [0.0, 0.5, 1.0, 7.0, -3.0] {
                let d = retry_delay(base, retry, unit);
                assert!(d <= MAX_RETRY_DELAY, "{retry} {unit}: {d:?}");
                assert!(d >= MAX_RETRY_DELAY.mul_f64(0.8), "{retry} {unit}: {d:?}");
            }
        }
        assert_eq!(retry_delay(Duration::ZERO, 3, 1.0), Duration::ZERO);
    }
}
