//! WebDAV and S3 at once: 20 writers on each against one server (`tests/python/
//! cross_protocol.py`, boto3 and plain HTTP); each write is read back through the other
//! protocol and over REST at once, and after the server stops every page is in HEAD.
//!
//! Skipped, saying why, without python3 and boto3 — unless `QUIRE_REQUIRE_S3_CLIENTS` is set
//! (`.ci/run` installs them and sets it).

mod support;

use std::process::Command;
use std::time::Duration;

use support::{clients_present, head_files, quire, text, write_config, Server};

const SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/python/cross_protocol.py"
);
const SECRET: &str = "cross-secret-0123456789";

fn boto3_available() -> bool {
    let problem = match Command::new("python3")
        .args(["-c", "import boto3"])
        .output()
    {
        Ok(out) if out.status.success() => None,
        other => Some(format!("python3 cannot import boto3 ({other:?})")),
    };
    clients_present("QUIRE_REQUIRE_S3_CLIENTS", problem)
}

#[test]
fn twenty_writers_on_webdav_and_twenty_on_s3_lose_nothing() {
    if !boto3_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    std::fs::create_dir_all(&root).unwrap();
    let out = quire().arg("init").arg(&root).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The server's defaults otherwise: commits batched, as people run it.
    write_config(
        &root,
        "[protocols.webdav]\nenabled = true\nport = 0\n\
         [protocols.s3]\nenabled = true\nport = 0\naccess_key = \"cross\"\n\
         secret_key = \"${QUIRE_TEST_S3_SECRET}\"\n",
    );
    let mut server = Server::start_with(&root, &["--no-mcp"], &[("QUIRE_TEST_S3_SECRET", SECRET)]);
    let (webdav, s3) = (server.listening("WebDAV"), server.listening("S3"));
    let out = Command::new("python3")
        .arg(SCRIPT)
        .args(["--webdav", &webdav, "--s3", &s3, "--rest", &server.base])
        .args(["--bucket", "default", "--access-key", "cross"])
        .env("S3_TEST_SECRET", SECRET)
        .env_remove("AWS_PROFILE")
        .env_remove("AWS_ENDPOINT_URL")
        .env_remove("AWS_CA_BUNDLE")
        .output()
        .unwrap();
    let said = text(&out.stdout);
    assert!(
        out.status.success() && said.contains("every check passed"),
        "{said}\n{}\n--- server log:\n{}",
        text(&out.stderr),
        server.log()
    );
    server.terminate(Duration::from_secs(30));
    let files = head_files(&root);
    for n in 0..20 {
        for i in 0..10 {
            for kind in ["dav", "s3"] {
                let path = format!("together/{kind}-{n:02}-{i:02}.md");
                assert!(files.contains(&path), "{path} is not in HEAD");
            }
        }
    }
}
