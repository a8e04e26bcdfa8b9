//! Webhooks: registrations (`POST/GET /webhooks`, `DELETE /webhooks/{id}`), the body POSTed
//! to a registered URL, and the deliveries still queued or given up.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Body of `POST /webhooks`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebhookRequest {
    /// Where events are POSTed: an `https://` URL, or `http://` to a loopback address
    /// (`localhost`, `127.0.0.0/8`, `[::1]`).
    pub url: String,
    /// Which page paths are reported: `filepath.Match` patterns plus `**` for any number of
    /// folders (`**` every file, `notes/**` a folder, `*.md` top-level pages). Default `**`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path_glob: Option<String>,
}

/// A registered webhook. `secret` is returned once, in the answer of `POST /webhooks`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Webhook {
    pub id: String,
    pub url: String,
    pub path_glob: String,
    /// `whsec_` + base64 key of the `webhook-signature` HMAC (Standard Webhooks); only in the
    /// answer of the creation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
    /// RFC 3339.
    pub created_at: String,
    pub enabled: bool,
}

/// The JSON body POSTed to a webhook's URL, signed with the headers `webhook-id`,
/// `webhook-timestamp` and `webhook-signature`. A `bulk` event is sent once per page path it
/// wrote that the webhook's glob matches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct WebhookPayload {
    /// `write`, `delete`, `bulk` (or `import`, once imports exist).
    #[serde(rename = "type")]
    pub kind: String,
    pub path: String,
    pub actor: String,
    /// RFC 3339: when the change passed the pipeline (`webhook-timestamp` is the time of the
    /// attempt).
    pub timestamp: String,
}

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DeliveryState {
    /// Waiting for its first attempt or its next retry.
    Pending,
    /// Being sent now.
    Sending,
    /// Every attempt failed (`1 + max_retries`); kept until the webhook is deleted.
    Failed,
}

/// A delivery not (yet) accepted by its receiver. Delivered messages are not kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct WebhookDelivery {
    /// The `webhook-id` header: the same on every attempt, for the receiver to deduplicate.
    pub id: String,
    pub webhook: String,
    pub state: DeliveryState,
    /// Attempts made so far.
    pub attempts: u32,
    /// RFC 3339: when the next attempt is due (pending deliveries only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_attempt_at: Option<String>,
    /// Why the last attempt failed (an HTTP status or a connection error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    pub payload: WebhookPayload,
}
