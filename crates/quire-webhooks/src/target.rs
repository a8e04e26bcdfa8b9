//! Which URLs a webhook may POST to: `https://` anywhere, `http://` only to this machine
//! (`localhost`, `127.0.0.0/8`, `[::1]`), where nothing crosses a network in clear.

use std::net::IpAddr;

/// The longest URL accepted.
pub const MAX_URL_LEN: usize = 2048;

/// `url`, checked; the message says what is wrong.
pub fn check_url(text: &str) -> Result<url::Url, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("url is empty".into());
    }
    if text.len() > MAX_URL_LEN {
        return Err(format!("url is longer than {MAX_URL_LEN} bytes"));
    }
    let url = url::Url::parse(text).map_err(|e| format!("url {text:?} is not a URL: {e}"))?;
    let Some(host) = url.host() else {
        return Err(format!("url {text:?} names no host"));
    };
    match url.scheme() {
        "https" => Ok(url),
        "http" if is_loopback(&host) => Ok(url),
        "http" => Err(format!(
            "url {text:?} must use https (http is accepted for loopback addresses only)"
        )),
        other => Err(format!(
            "url {text:?} must be an https:// URL (not {other}:)"
        )),
    }
}

fn is_loopback(host: &url::Host<&str>) -> bool {
    match host {
        url::Host::Domain(name) => name.eq_ignore_ascii_case("localhost"),
        url::Host::Ipv4(ip) => IpAddr::V4(*ip).is_loopback(),
        url::Host::Ipv6(ip) => IpAddr::V6(*ip).is_loopback(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn https_anywhere_and_http_on_loopback_only() {
        for ok in [
            "https://hooks.example.com/quire",
            "https://10.0.0.1:8443/x?token=1",
            "http://127.0.0.1:9000/hook",
            "http://127.8.9.10/hook",
            "http://localhost:9000/",
            "http://LOCALHOST/",
            "http://[::1]:9000/hook",
            "  https://example.com/  ",
        ] {
            assert!(check_url(ok).is_ok(), "{ok}");
        }
        for (bad, why) in [
            ("http://example.com/hook", "https"),
            ("http://10.0.0.1/hook", "https"),
            ("http://localhost.example.com/", "https"),
            ("http://[::2]/", "https"),
            ("ftp://example.com/", "https://"),
            ("file:///etc/passwd", "no host"),
            ("example.com/hook", "not a URL"),
            ("", "empty"),
        ] {
            let err = check_url(bad).expect_err(bad);
            assert!(err.contains(why), "{bad}: {err}");
        }
        assert!(check_url(&format!("https://e.com/{}", "a".repeat(MAX_URL_LEN))).is_err());
    }
}
