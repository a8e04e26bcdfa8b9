//! Who calls an operation, as every adapter describes it.

use quire_service::{Expect, WriteOptions};

/// The caller of an operation: what REST reads from headers (`X-Actor`, `X-Provenance`,
/// `If-Match`, `X-Quire-Client`), MCP from its session and the command line from its flags.
#[derive(Debug, Clone, Default)]
pub struct Caller {
    /// The author of what the call writes; `None` = the service's default (`api`).
    pub actor: Option<String>,
    /// Where written content came from (recorded as `derived-from`).
    pub provenance: Option<String>,
    /// The ETag the caller read, from the protocol (REST's `If-Match`); an input field of
    /// the same meaning wins over it.
    pub if_match: Option<String>,
    /// The client program (`X-Quire-Client`; `mcp-<name>` for agents), for restructurings'
    /// approval rules and their commit trailers.
    pub client: Option<String>,
}

impl Caller {
    /// A caller known only by its actor.
    pub fn by(actor: &str) -> Caller {
        Caller {
            actor: Some(actor.to_string()),
            ..Caller::default()
        }
    }

    /// The write options of a call: this caller's actor and provenance, the operation's
    /// commit `message`, and the ETag it expects (`if_match` given as input, else the
    /// protocol's).
    pub fn write_options(&self, message: Option<String>, if_match: Option<String>) -> WriteOptions {
        let given = |v: Option<String>| v.map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
        WriteOptions {
            actor: given(self.actor.clone()),
            message: given(message),
            derived_from: given(self.provenance.clone()),
            expect: Expect::etag(
                given(if_match)
                    .or_else(|| given(self.if_match.clone()))
                    .as_deref(),
            ),
        }
    }

    /// [`Caller::write_options`] for an input that names an `actor` too: the protocol's
    /// actor (`X-Actor`, the agent's session) wins, the input's fills in.
    pub fn write_options_by(
        &self,
        actor: Option<String>,
        message: Option<String>,
        if_match: Option<String>,
    ) -> WriteOptions {
        let mut opts = self.write_options(message, if_match);
        if opts.actor.is_none() {
            opts.actor = actor
                .map(|a| a.trim().to_string())
                .filter(|a| !a.is_empty());
        }
        opts
    }
}
