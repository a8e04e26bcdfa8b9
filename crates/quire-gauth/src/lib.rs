//! Google service-account access tokens: an RS256-signed JWT (the account's `client_email` as
//! issuer, the asked scope, audience the account's `token_uri`) exchanged at `token_uri` for
//! an access token, which is kept until a minute before it expires. The `vertex` embedder
//! (`quire-embed`) and the `firestore` import source (`quire-import`) use it. Written from
//! Google's "Using OAuth 2.0 for Server to Server Applications".
//!
//! **Secrets.** Neither the private key nor a token is ever part of an [`Error`] or of
//! `Debug`: a key that does not parse is named by what it was read from, and a refusal of the
//! token endpoint quotes its answer, which holds neither.

use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{json, Value};

/// Every Google Cloud API (the `vertex` embedder).
pub const CLOUD_PLATFORM: &str = "https://www.googleapis.com/auth/cloud-platform";
/// Firestore and Datastore.
pub const DATASTORE: &str = "https://www.googleapis.com/auth/datastore";
/// The token endpoint of a key file without `token_uri`.
pub const TOKEN_URI: &str = "https://oauth2.googleapis.com/token";
const GRANT: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// Why no token: the key file is wrong (`Config`), the token endpoint said no (`Refused`) or
/// could not be reached (`Unreachable`). The message never holds the key or a token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    Config(String),
    Refused(String),
    Unreachable(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Config(m) | Error::Refused(m) | Error::Unreachable(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

/// A service account's key, read once; the signing key parsed at start.
pub struct Account {
    client_email: String,
    token_uri: String,
    project_id: Option<String>,
    scope: String,
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
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

impl Account {
    /// The key file at `path` (what `GOOGLE_APPLICATION_CREDENTIALS` names).
    pub fn from_file(path: &str, scope: &str, timeout: Duration) -> Result<Account, Error> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::Config(format!("cannot read the service account {path}: {e}")))?;
        Account::from_json(&text, path, scope, timeout)
    }

    /// A key file's text (`{"type": "service_account", "client_email", "private_key",
    /// "token_uri", …}`); `what` names it in messages (a path, `credentials`).
    pub fn from_json(
        text: &str,
        what: &str,
        scope: &str,
        timeout: Duration,
    ) -> Result<Account, Error> {
        // serde_json's message gives a line and column, never the text.
        let file: Value = serde_json::from_str(text)
            .map_err(|e| Error::Config(format!("{what} is not a service account key ({e})")))?;
        if !file.is_object() {
            return Err(Error::Config(format!(
                "{what} is not a service account key (a JSON object)"
            )));
        }
        let field = |name: &str| file[name].as_str().map(str::to_owned);
        let missing =
            |name: &str| Error::Config(format!("{what} has no {name} (a service account key?)"));
        let pem = field("private_key").ok_or_else(|| missing("private_key"))?;
        let key = EncodingKey::from_rsa_pem(pem.as_bytes())
            .map_err(|e| Error::Config(format!("the private key of {what} is unreadable ({e})")))?;
        Ok(Account {
            client_email: field("client_email").ok_or_else(|| missing("client_email"))?,
            token_uri: field("token_uri").unwrap_or_else(|| TOKEN_URI.to_owned()),
            project_id: field("project_id"),
            scope: scope.to_owned(),
            key,
            cached: Mutex::new(None),
            agent: ureq::AgentBuilder::new().timeout(timeout).build(),
        })
    }

    /// The key file's `project_id`.
    pub fn project_id(&self) -> Option<&str> {
        self.project_id.as_deref()
    }

    /// The key file's `token_uri` (or Google's).
    pub fn token_uri(&self) -> &str {
        &self.token_uri
    }

    /// An access token, from the cache while it has a minute left, else a new one.
    pub fn token(&self) -> Result<String, Error> {
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
            "scope": self.scope,
            "aud": self.token_uri,
            "iat": iat,
            "exp": iat + 3600,
        });
        let assertion = jsonwebtoken::encode(&Header::new(Algorithm::RS256), &claims, &self.key)
            .map_err(|e| Error::Config(format!("signing the token request: {e}")))?;
        let answer = match self
            .agent
            .post(&self.token_uri)
            .send_form(&[("grant_type", GRANT), ("assertion", &assertion)])
        {
            Ok(answer) => answer,
            Err(ureq::Error::Status(status, answer)) => {
                let body: String = answer.into_string().unwrap_or_default();
                return Err(Error::Refused(format!(
                    "the token endpoint answered {status}: {}",
                    body.chars().take(200).collect::<String>()
                )));
            }
            Err(ureq::Error::Transport(t)) => {
                return Err(Error::Unreachable(format!(
                    "the token endpoint {}: {t}",
                    self.token_uri
                )))
            }
        };
        let value: Value = answer
            .into_json()
            .map_err(|e| Error::Refused(format!("a token answer unread: {e}")))?;
        let token = value["access_token"]
            .as_str()
            .ok_or_else(|| Error::Refused("the token answer has no access_token".into()))?
            .to_owned();
        let lasts = Duration::from_secs(value["expires_in"].as_u64().unwrap_or(3600));
        *cached = Some((token.clone(), Instant::now() + lasts));
        Ok(token)
    }
}
