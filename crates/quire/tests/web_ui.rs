//! `quire serve` serves the web UI at `/` beside the API, with the security headers, and the
//! UI shadows no host route.

mod support;

use support::{status_of, Server};

#[test]
fn serve_answers_the_web_ui_at_root_and_keeps_host_routes() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(&dir.path().join("kb"), &[]);

    for path in ["/", "/page/notes/a.md", "/restructure"] {
        let res = ureq::get(&format!("{}{path}", server.host)).call().unwrap();
        assert_eq!(res.status(), 200, "{path}");
        assert_eq!(res.header("content-type"), Some("text/html; charset=utf-8"));
        let csp = res.header("content-security-policy").unwrap_or_default();
        assert!(csp.contains("script-src 'self'"), "{path}: {csp}");
        assert_eq!(res.header("x-frame-options"), Some("DENY"));
        assert!(res.into_string().unwrap().contains("<div id=\"app\">"));
    }

    // Host routes still answer as themselves; unknown paths keep the API's JSON 404.
    let health = ureq::get(&format!("{}/health", server.host))
        .call()
        .unwrap();
    assert!(health.into_string().unwrap().contains("ok"));
    for path in ["/api/quire/no-such-route", "/nowhere", "/p/x.md"] {
        let res = ureq::get(&format!("{}{path}", server.host)).call();
        assert_eq!(status_of(res), 404, "{path}");
    }
    let res = ureq::get(&format!("{}/nowhere", server.host)).call();
    let body = match res {
        Err(ureq::Error::Status(_, r)) => r.into_string().unwrap(),
        other => panic!("expected 404, got {other:?}"),
    };
    assert!(body.contains("\"error\""), "{body}");

    server.terminate(std::time::Duration::from_secs(10));
}
