//! A database's address (`postgres://u:p@host:5432/db`, `mysql://…`, `redis://…`,
//! `mongodb://…`), kept so
//! that its password never leaves: [`Dsn`] prints without it, and every message a driver
//! answers passes through [`Dsn::scrub`] before it becomes an [`ImportError`].
//!
//! Connections are made without TLS; a DSN asking for TLS is refused here rather than
//! silently connected in clear (`sslmode=require`, `rediss://`, `require_ssl=true`…). The
//! exception is MongoDB's URI (`mongodb://`, `mongodb+srv://`): its driver brings TLS
//! (rustls), so `tls=true` is kept and honoured.

use std::fmt;

use crate::ImportError;

/// Seconds a connection attempt waits before it is refused.
pub const CONNECT_TIMEOUT_SECS: u64 = 10;

/// A parsed database URL. `Debug` and [`Dsn::redacted`] show it without password or
/// parameters; only [`Dsn::secret`] hands the full text, to the driver.
#[derive(Clone, PartialEq, Eq)]
pub struct Dsn {
    secret: String,
    scheme: String,
    user: String,
    /// The password (percent-decoded), from the authority or a `password=` parameter.
    password: Option<String>,
    host: String,
    port: Option<u16>,
    /// The path without its `/`: a database name, or Redis's database number.
    database: String,
}

impl fmt::Debug for Dsn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Dsn({})", self.redacted())
    }
}

impl Dsn {
    /// Parses `text` as a URL whose scheme is one of `schemes` (the first is the one named
    /// in messages). A message about a DSN never repeats it: it may hold a password.
    pub fn parse(text: &str, schemes: &[&str]) -> Result<Dsn, ImportError> {
        let text = text.trim();
        let expected = schemes.first().copied().unwrap_or("");
        // MongoDB's URI is `connection.uri` (its Data API URL is `https://`); TLS is the
        // driver's own there, so a URI asking for it is kept.
        let mongodb = expected == "mongodb";
        let field = if mongodb { "uri" } else { "dsn" };
        let bad = |why: &str| {
            ImportError::BadRequest(format!(
                "`connection.{field}` is not a {expected} URL ({expected}://user:password@host:port/database): {why}"
            ))
        };
        let Some((scheme, rest)) = text.split_once("://") else {
            return Err(bad("it has no `://`"));
        };
        let scheme = scheme.to_ascii_lowercase();
        if scheme == "rediss" {
            return Err(tls_refused("`rediss://` asks for TLS"));
        }
        if !schemes.contains(&scheme.as_str()) {
            return Err(bad(&format!("the scheme is `{scheme}`")));
        }
        let (before_query, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (authority, path) = before_query.split_once('/').unwrap_or((before_query, ""));
        let (userinfo, hostport) = match authority.rsplit_once('@') {
            Some((u, h)) => (u, h),
            None => ("", authority),
        };
        let (user, mut password) = match userinfo.split_once(':') {
            Some((u, p)) => (decode(u), Some(decode(p))),
            None => (decode(userinfo), None),
        };
        let (host, port) = if mongodb && hostport.contains(',') {
            // A replica set's seed list, `a:27017,b:27017`: named as written.
            (decode(hostport), None)
        } else {
            split_host_port(hostport).ok_or_else(|| bad("the port is not a number"))?
        };
        if host.is_empty() {
            return Err(bad("it names no host"));
        }
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let key = decode(key).to_ascii_lowercase().replace('-', "_");
            let value = decode(value).to_ascii_lowercase();
            if key == "password" {
                password = Some(decode(pair.split_once('=').map(|(_, v)| v).unwrap_or("")));
            }
            let wants_tls = match key.as_str() {
                "sslmode" | "ssl_mode" => !matches!(
                    value.as_str(),
                    "disable" | "allow" | "prefer" | "disabled" | "preferred"
                ),
                "require_ssl" | "verify_ca" | "verify_identity" | "ssl" | "tls" => {
                    matches!(value.as_str(), "true" | "1" | "yes" | "on")
                }
                _ => false,
            };
            if wants_tls && !mongodb {
                return Err(tls_refused(&format!("`{key}={value}` asks for TLS")));
            }
        }
        Ok(Dsn {
            secret: text.to_string(),
            scheme,
            user,
            password: password.filter(|p| !p.is_empty()),
            host,
            port,
            database: decode(path.trim_end_matches('/')),
        })
    }

    /// The full text, password included: for the driver only.
    pub fn secret(&self) -> &str {
        &self.secret
    }

    /// `scheme://user@host:port/database`: no password, no parameters.
    pub fn redacted(&self) -> String {
        let user = if self.user.is_empty() {
            String::new()
        } else {
            format!("{}@", self.user)
        };
        format!("{}://{user}{}/{}", self.scheme, self.place(), self.database)
    }

    /// `host:port` (or `host`): where the server is.
    pub fn place(&self) -> String {
        match self.port {
            Some(port) => format!("{}:{port}", self.host),
            None => self.host.clone(),
        }
    }

    /// The database named in the path (empty when none).
    pub fn database(&self) -> &str {
        &self.database
    }

    /// `message` with the password and the full DSN taken out.
    pub fn scrub(&self, message: &str) -> String {
        let mut out = message.replace(&self.secret, &self.redacted());
        if let Some(password) = self.password.as_deref() {
            for form in [password.to_string(), encode(password)] {
                if !form.is_empty() {
                    out = out.replace(&form, "***");
                }
            }
        }
        out
    }

    /// The connection failed: a 400 naming the server (never the password).
    pub fn refused(&self, message: &str) -> ImportError {
        ImportError::BadRequest(format!(
            "cannot connect to {}: {}",
            self.redacted(),
            self.scrub(message)
        ))
    }

    /// The server answered an error to a query.
    pub fn failed(&self, message: &str) -> ImportError {
        ImportError::BadRequest(format!("the query failed: {}", self.scrub(message)))
    }
}

fn tls_refused(why: &str) -> ImportError {
    ImportError::BadRequest(format!(
        "{why}, and this server connects to databases without TLS; connect over a trusted \
network (a loopback address, a VPN or an SSH tunnel) with TLS off (`sslmode=disable` for \
PostgreSQL)"
    ))
}

/// `host:port`, `host`, `[v6]:port`; `None` when the port is not a number.
fn split_host_port(text: &str) -> Option<(String, Option<u16>)> {
    if let Some(rest) = text.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        let port = match after.strip_prefix(':') {
            Some(p) => Some(p.parse().ok()?),
            None => None,
        };
        return Some((host.to_string(), port));
    }
    match text.rsplit_once(':') {
        Some((host, port)) => Some((decode(host), Some(port.parse().ok()?))),
        None => Some((decode(text), None)),
    }
}

/// Percent-decoding (`%40` → `@`); a malformed escape is kept as written.
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = |b: u8| (b as char).to_digit(16);
            if let (Some(hi), Some(lo)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((hi * 16 + lo) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Percent-encoding of everything but unreserved characters: how a password may be
/// written inside a URL, and so may show up in a driver's message.
fn encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dsn_prints_without_its_password() {
        let dsn = Dsn::parse(
            "postgres://ann:s%40cret@127.0.0.1:5432/shop?sslmode=disable",
            &["postgres", "postgresql"],
        )
        .unwrap();
        assert_eq!(dsn.redacted(), "postgres://ann@127.0.0.1:5432/shop");
        assert_eq!(
            format!("{dsn:?}"),
            "Dsn(postgres://ann@127.0.0.1:5432/shop)"
        );
        assert_eq!(dsn.database(), "shop");
        let scrubbed = dsn.scrub("auth failed for s@cret and s%40cret in postgres://ann:s%40cret@127.0.0.1:5432/shop?sslmode=disable");
        assert!(
            !scrubbed.contains("s@cret") && !scrubbed.contains("s%40cret"),
            "{scrubbed}"
        );
    }

    #[test]
    fn a_dsn_asking_for_tls_is_refused_and_the_message_keeps_no_password() {
        for text in [
            "postgres://u:hunter2@h/db?sslmode=require",
            "postgres://u:hunter2@h/db?sslmode=verify-full",
            "mysql://u:hunter2@h/db?require_ssl=true",
            "rediss://:hunter2@h:6379/0",
        ] {
            let err = Dsn::parse(text, &["postgres", "mysql", "redis"]).unwrap_err();
            let message = err.to_string();
            assert!(matches!(err, ImportError::BadRequest(_)));
            assert!(message.contains("TLS"), "{message}");
            assert!(!message.contains("hunter2"), "{message}");
        }
        assert!(Dsn::parse("postgres://u:p@h/db?sslmode=disable", &["postgres"]).is_ok());
    }

    #[test]
    fn a_malformed_dsn_is_a_bad_request_without_its_text() {
        for text in [
            "nope",
            "mysql://u:hunter2@h/db",
            "postgres://u:hunter2@h:x/db",
            "postgres://u:hunter2@/db",
        ] {
            let err = Dsn::parse(text, &["postgres"]).unwrap_err();
            assert!(!err.to_string().contains("hunter2"), "{err}");
        }
    }
}
