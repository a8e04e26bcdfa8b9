//! What authentication hands on: the principal a request was admitted as, why one was
//! refused, and the setup error of a setting that cannot be enforced. Below the checks that
//! produce them (`auth`, `oidc`, `settings`).

use quire_api::Scope;
use quire_config::KeyScope;

/// The credential a request was admitted with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    pub scope: Scope,
    pub actor: Option<String>,
    /// The only space the credential opens.
    pub space: Option<String>,
}

/// Why credentials were refused: 401, with a message for the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused(pub String);

pub(crate) fn scope_of(scope: KeyScope) -> Scope {
    match scope {
        KeyScope::Read => Scope::Read,
        KeyScope::Write => Scope::Write,
        KeyScope::Admin => Scope::Admin,
    }
}

/// A setting the HTTP layer cannot act on; the server must refuse to start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{setting}: {message}")]
pub struct SetupError {
    /// The configuration key at fault, e.g. `auth.type`.
    pub setting: String,
    pub message: String,
}
