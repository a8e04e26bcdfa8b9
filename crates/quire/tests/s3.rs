//! The S3-compatible API against the real binary, with real clients: `boto3` and the `aws`
//! CLI (PyPI) drive `tests/python/s3_clients.py` — put, get, head, listings with prefix,
//! delimiter and continuation, ranges and conditions, flexible checksums, multipart of a 12 MB
//! asset, copy + delete as a raw move, batch deletes, folders, a second space as a second
//! bucket, a read-scoped key, a wrong secret. This file checks what the clients cannot see:
//! every write is a commit by the configured actor, `/readyz`, and the refused starts.
//!
//! Skipped, saying why, when python3, boto3 or the aws CLI is missing — unless
//! `QUIRE_REQUIRE_S3_CLIENTS` is set: `.ci/run` installs them and sets it.

mod support;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::{quire, serve_refused, text, write_config, Server};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/s3_clients.py");

/// The whole script may take this long (a debug build, two 12 MB uploads, a few hundred calls).
const LIMIT: Duration = Duration::from_secs(600);

const ACCESS_KEY: &str = "quire-test-key";
/// The secret reaches the server through the environment only (`${QUIRE_TEST_S3_SECRET}`).
const SECRET: &str = "s3cr3t-0123456789-abcdef";

/// Whether python3 with boto3 and the aws CLI run; `false` (with a message) when skipped.
fn clients_available() -> bool {
    let required = std::env::var_os("QUIRE_REQUIRE_S3_CLIENTS").is_some();
    let boto = Command::new("python3")
        .args(["-c", "import boto3, botocore"])
        .output();
    let problem = match boto {
        Ok(out) if out.status.success() => match Command::new("aws").arg("--version").output() {
            Ok(out) if out.status.success() => return true,
            Ok(out) => format!("the aws CLI fails: {}", text(&out.stderr).trim()),
            Err(e) => format!(
                "the aws CLI does not run ({e}); install it with `python3 -m pip install awscli`"
            ),
        },
        Ok(out) => format!(
            "python3 cannot import boto3 ({}); install it with `python3 -m pip install boto3`",
            text(&out.stderr).trim()
        ),
        Err(e) => format!("python3 does not run ({e})"),
    };
    assert!(!required, "QUIRE_REQUIRE_S3_CLIENTS is set, but {problem}");
    eprintln!("skipped: {problem}");
    false
}

/// A main root `alpha` (the default space) with a page, and a second space `beta`.
fn seeded(dir: &Path, s3: &str) -> (PathBuf, PathBuf) {
    let root = dir.join("alpha");
    let beta = dir.join("beta");
    std::fs::create_dir_all(root.join("notes")).unwrap();
    std::fs::create_dir_all(&beta).unwrap();
    std::fs::write(
        root.join("notes/alpha.md"),
        "# Alpha\n\nSee [[s3]] and [[one]].\n",
    )
    .unwrap();
    let out = quire().arg("init").arg(&root).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    write_config(
        &root,
        &format!(
            "[versioning]\nasync_commit = false\n\
             [[spaces]]\nname = \"alpha\"\nroot = \"{}\"\n\
             [[spaces]]\nname = \"beta\"\nroot = \"{}\"\n\
             [protocols.s3]\n{s3}",
            root.display(),
            beta.display()
        ),
    );
    (root, beta)
}

/// `[protocols.s3]` with the test key, the secret from the environment, and `extra`.
fn s3_section(extra: &str) -> String {
    format!(
        "enabled = true\nport = 0\naccess_key = \"{ACCESS_KEY}\"\n\
         secret_key = \"${{QUIRE_TEST_S3_SECRET}}\"\n{extra}"
    )
}

/// A server with S3 on (its secret in the environment), and the S3 address.
fn start(root: &Path) -> (Server, String) {
    let server = Server::start_with(root, &["--no-mcp"], &[("QUIRE_TEST_S3_SECRET", SECRET)]);
    let started = Instant::now();
    loop {
        let log = server.log();
        if let Some(line) = log.lines().find(|l| l.contains("S3 listening on ")) {
            let at = line.find("http://").unwrap();
            let url = line[at..].trim().trim_end_matches('/').to_string();
            return (server, url);
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no S3 address in the log:\n{log}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs the client script in `mode`; its output.
fn run_script(
    mode: &str,
    server: &Server,
    s3: &str,
    roots: (&Path, &Path),
    region: &str,
) -> String {
    let mut child = Command::new("python3")
        .arg(SCRIPT)
        .arg(mode)
        .args(["--endpoint", s3])
        .args(["--rest", &server.base])
        .args(["--bucket", "alpha", "--other-bucket", "beta"])
        .arg("--root")
        .arg(roots.0)
        .arg("--other-root")
        .arg(roots.1)
        .args(["--access-key", ACCESS_KEY, "--region", region])
        .env("S3_TEST_SECRET", SECRET)
        .env("PYTHONUNBUFFERED", "1")
        .env_remove("AWS_PROFILE")
        .env_remove("AWS_ENDPOINT_URL")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 starts");
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the S3 client script did not finish within {LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (stdout, stderr) = (stdout.join().unwrap(), stderr.join().unwrap());
    println!("{stdout}");
    assert!(
        status.success(),
        "the S3 client script ({mode}) failed ({status}):\n{stdout}\n{stderr}\n--- server log:\n{}",
        server.log()
    );
    assert!(stdout.contains("every check passed"), "{stdout}");
    stdout
}

/// `git log` of a root: (author, subject) of each commit, newest first.
fn commits(root: &Path) -> Vec<(String, String)> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["log", "--format=%an%x09%s"])
        .output()
        .unwrap();
    text(&out.stdout)
        .lines()
        .map(|l| {
            let (a, s) = l.split_once('\t').unwrap();
            (a.to_string(), s.to_string())
        })
        .collect()
}

#[test]
fn boto3_and_the_aws_cli_reach_every_space_as_a_bucket() {
    if !clients_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // [protocols.s3] enabled, port, access_key, secret_key (from the environment), actor and
    // region as the configuration sets them.
    let (root, beta) = seeded(
        dir.path(),
        &s3_section("actor = \"backup-bot\"\nregion = \"eu-west-1\"\n"),
    );
    let (server, s3) = start(&root);
    // After the start, which commits the configuration written above as an outside edit.
    let before = commits(&root).len();
    let port: u16 = s3.rsplit(':').next().unwrap().parse().unwrap();

    // /readyz reports S3 on the port it listens on.
    let ready: serde_json::Value = ureq::get(&format!("{}/readyz", server.host))
        .call()
        .unwrap()
        .into_json()
        .unwrap();
    let status = &ready["protocols"]["s3"];
    assert_eq!(status["enabled"], true, "{ready}");
    assert_eq!(status["healthy"], true, "{ready}");
    assert_eq!(status["port"], port, "{ready}");
    assert!(status["error"].is_null(), "{ready}");

    run_script("full", &server, &s3, (&root, &beta), "eu-west-1");
    run_script("wrong", &server, &s3, (&root, &beta), "eu-west-1");

    // Every write was a commit by the configured actor: the files the clients wrote are in
    // HEAD, each last changed by backup-bot, and no commit since the start is anyone else's.
    let after = commits(&root);
    let new = &after[..after.len() - before];
    assert!(new.len() > 30, "{new:?}");
    let others: Vec<_> = new.iter().filter(|(a, _)| a != "backup-bot").collect();
    assert!(others.is_empty(), "commits by someone else: {others:?}");
    for path in [
        "notes/moved.md",
        "assets/big.bin",
        "assets/cli.bin",
        "page/a b+c.md",
    ] {
        let out = Command::new("git")
            .arg("-C")
            .arg(&root)
            .args(["log", "-1", "--format=%an", "--", path])
            .output()
            .unwrap();
        assert_eq!(text(&out.stdout).trim(), "backup-bot", "{path}");
    }
    // Deleted over S3, deleted in HEAD.
    let out = Command::new("git")
        .arg("-C")
        .arg(&root)
        .args(["ls-files", "notes/s3.md", "list/a.md", "synced"])
        .output()
        .unwrap();
    assert_eq!(text(&out.stdout).trim(), "", "deleted files still tracked");
    // The versions API tells the same.
    let history: serde_json::Value =
        ureq::get(&format!("{}/versions?path=notes/moved.md", server.base))
            .call()
            .unwrap()
            .into_json()
            .unwrap();
    assert!(history.to_string().contains("backup-bot"), "{history}");
    // The other space's writes are that space's commits.
    let beta_commits = commits(&beta);
    assert!(
        beta_commits.iter().any(|(a, _)| a == "backup-bot"),
        "{beta_commits:?}"
    );
    // The secret never reaches the log.
    assert!(!server.log().contains(SECRET), "the secret was logged");
}

#[test]
fn a_read_scoped_s3_key_reads_but_never_writes() {
    if !clients_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (root, beta) = seeded(dir.path(), &s3_section("scope = \"read\"\n"));
    let (server, s3) = start(&root);
    let before = commits(&root);
    run_script("readonly", &server, &s3, (&root, &beta), "us-east-1");
    assert_eq!(commits(&root), before, "a read-scoped key wrote");
    assert!(root.join("notes/alpha.md").exists());
}

#[test]
fn s3_refuses_to_start_on_a_taken_port_or_without_a_key() {
    let dir = tempfile::tempdir().unwrap();
    // enabled without access_key and secret_key: fail closed, naming the settings.
    let (root, _) = seeded(dir.path(), "enabled = true\nport = 0\n");
    let out = serve_refused(&root, &["--no-mcp"]);
    let said = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        said.contains("refusing to start")
            && said.contains("protocols.s3.access_key")
            && said.contains("protocols.s3.secret_key"),
        "{said}"
    );
    assert!(!said.contains(SECRET));

    // A port already taken stops the start with a message naming S3 and the port.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let other = dir.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    write_config(
        &other,
        &format!(
            "[protocols.s3]\nenabled = true\nport = {port}\naccess_key = \"{ACCESS_KEY}\"\n\
             secret_key = \"{SECRET}\"\n"
        ),
    );
    let out = serve_refused(&other, &["--no-mcp"]);
    let said = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        said.contains("S3") && said.contains(&port.to_string()),
        "{said}"
    );
    assert!(!said.contains(SECRET), "the secret was printed: {said}");
}
