//! Google service-account access tokens for the `vertex` embedder: an RS256-signed JWT
//! (the account's `client_email` as issuer, scope `cloud-platform`, audience the account's
//! `token_uri`) exchanged at `token_uri` for an access token, which is kept until a minute
//! before it expires. Written from Google's "Using OAuth 2.0 for Server to Server
//! Applications".

use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{json, Value};

use crate::EmbedError;

const SCOPE: &str = "https://www.googleapis.com/auth/cloud-platform";
const GRANT: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// A service account's key file, read once; the signing key parsed at start.
pub(crate) struct Account {
    client_email: String,
    token_uri: String,
    pub(crate) project_id: Option<String>,
    key: EncodingKey,
    cached: Mutex<Option<(String, Instant)>>,
    agent: ureq::Agent,
}

impl std::fmt::Debug for Account {
    // By hand: neither the key nor a token goes to logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Account")
            .field("client_email", &self.client_email)
            .field("token_uri", &self.token_uri)
            .finish_non_exhaustive()
    }
}

impl Account {
    /// The key file at `path` (what `GOOGLE_APPLICATION_CREDENTIALS` names).
    pub(crate) fn from_file(path: &str, timeout: Duration) -> Result<Account, EmbedError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            EmbedError::Config(format!(
                "vertex: cannot read the service account {path}: {e}"
            ))
        })?;
        let file: Value = serde_json::from_str(&text).map_err(|e| {
            EmbedError::Config(format!("vertex: {path} is not a service account key ({e})"))
        })?;
        let field = |name: &str| file[name].as_str().map(str::to_owned);
        let missing = |name: &str| {
            EmbedError::Config(format!(
                "vertex: {path} has no {name} (a service account key?)"
            ))
        };
        let pem = field("private_key").ok_or_else(|| missing("private_key"))?;
        let key = EncodingKey::from_rsa_pem(pem.as_bytes()).map_err(|e| {
            EmbedError::Config(format!(
                "vertex: the private key of {path} is unreadable ({e})"
            ))
        })?;
        Ok(Account {
            client_email: field("client_email").ok_or_else(|| missing("client_email"))?,
            token_uri: field("token_uri")
                .unwrap_or_else(|| "https://oauth2.googleapis.com/token".to_owned()),
            project_id: field("project_id"),
            key,
            cached: Mutex::new(None),
            agent: ureq::AgentBuilder::new().timeout(timeout).build(),
        })
    }

    /// An access token, from the cache while it has a minute left, else a new one.
    pub(crate) fn token(&self) -> Result<String, EmbedError> {
        let mut cached = self.cached.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((token, until)) = cached.as_ref() {
            if Instant::now() + Duration::from_secs(60) < *until {
                return Ok(token.clone());
            }
        }
        let iat = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let claims = json!({
            "iss": self.client_email,
            "scope": SCOPE,
            "aud": self.token_uri,
            "iat": iat,
            "exp": iat + 3600,
        });
        let assertion = jsonwebtoken::encode(&Header::new(Algorithm::RS256), &claims, &self.key)
            .map_err(|e| EmbedError::Config(format!("vertex: signing the token request: {e}")))?;
        let answer = match self
            .agent
            .post(&self.token_uri)
            .send_form(&[("grant_type", GRANT), ("assertion", &assertion)])
        {
            Ok(answer) => answer,
            Err(ureq::Error::Status(status, answer)) => {
                let body: String = answer.into_string().unwrap_or_default();
                return Err(EmbedError::Refused(format!(
                    "vertex: the token endpoint answered {status}: {}",
                    body.chars().take(200).collect::<String>()
                )));
            }
            Err(ureq::Error::Transport(t)) => {
                return Err(EmbedError::Unreachable(format!(
                    "vertex: the token endpoint {}: {t}",
                    self.token_uri
                )))
            }
        };
        let value: Value = answer
            .into_json()
            .map_err(|e| EmbedError::Refused(format!("vertex: a token answer unread: {e}")))?;
        let token = value["access_token"]
            .as_str()
            .ok_or_else(|| {
                EmbedError::Refused("vertex: the token answer has no access_token".into())
            })?
            .to_owned();
        let lasts = Duration::from_secs(value["expires_in"].as_u64().unwrap_or(3600));
        *cached = Some((token.clone(), Instant::now() + lasts));
        Ok(token)
    }
}
