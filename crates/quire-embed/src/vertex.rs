//! Google service-account access tokens for the `vertex` embedder (scope `cloud-platform`):
//! the signing and the exchange are `quire-gauth`'s; here its errors become the embedder's,
//! prefixed `vertex:`.

use std::time::Duration;

use crate::EmbedError;

/// A service account's key file, read once.
#[derive(Debug)]
pub(crate) struct Account {
    inner: quire_gauth::Account,
    pub(crate) project_id: Option<String>,
}

fn embed_error(e: quire_gauth::Error) -> EmbedError {
    match e {
        quire_gauth::Error::Config(m) => EmbedError::Config(format!("vertex: {m}")),
        quire_gauth::Error::Refused(m) => EmbedError::Refused(format!("vertex: {m}")),
        quire_gauth::Error::Unreachable(m) => EmbedError::Unreachable(format!("vertex: {m}")),
    }
}

impl Account {
    /// The key file at `path` (what `GOOGLE_APPLICATION_CREDENTIALS` names).
    pub(crate) fn from_file(path: &str, timeout: Duration) -> Result<Account, EmbedError> {
        let inner = quire_gauth::Account::from_file(path, quire_gauth::CLOUD_PLATFORM, timeout)
            .map_err(embed_error)?;
        Ok(Account {
            project_id: inner.project_id().map(str::to_owned),
            inner,
        })
    }

    /// An access token, from the cache while it has a minute left, else a new one.
    pub(crate) fn token(&self) -> Result<String, EmbedError> {
        self.inner.token().map_err(embed_error)
    }
}
