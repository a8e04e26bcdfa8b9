//! The S3-compatible API against the real binary, with real clients: `boto3` and the `aws`
//! CLI (PyPI) drive `tests/python/s3_clients.py` — put, get, head, listings with prefix,
//! delimiter and continuation, ranges and conditions, flexible checksums, multipart of a 12 MB
//! asset, copy + delete as a raw move, batch deletes, folders, a second space as a second
//! bucket, a read-scoped key, a wrong secret; several keys, each with its own scope and bucket;
//! `SlowDown` over the rate limit. This file checks what the clients cannot see: every write
//! is a commit by its key's actor, `/readyz`, the audit log, and the refused starts.
//!
//! Skipped, saying why, when python3, boto3 or the aws CLI is missing — unless
//! `QUIRE_REQUIRE_S3_CLIENTS` is set: `.ci/run` installs them and sets it.

mod support;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::{clients_present, quire, serve_refused, text, write_config, Server};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/s3_clients.py");

/// The whole script may take this long (a debug build, two 12 MB uploads, a few hundred calls).
const LIMIT: Duration = Duration::from_secs(600);

const ACCESS_KEY: &str = "quire-test-key";
/// The secret reaches the server through the environment only (`${QUIRE_TEST_S3_SECRET}`).
const SECRET: &str = "s3cr3t-0123456789-abcdef";

/// Whether python3 with boto3 and the aws CLI run; `false` (with a message) when skipped.
fn clients_available() -> bool {
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
    clients_present("QUIRE_REQUIRE_S3_CLIENTS", Some(problem))
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
    start_with(root, &[("QUIRE_TEST_S3_SECRET", SECRET)])
}

/// [`start`] with this environment.
fn start_with(root: &Path, env: &[(&str, &str)]) -> (Server, String) {
    let server = Server::start_with(root, &["--no-mcp"], env);
    let url = server.listening("S3");
    (server, url)
}

/// Runs the client script in `mode`; its output.
fn run_script(
    mode: &str,
    server: &Server,
    s3: &str,
    roots: (&Path, &Path),
    region: &str,
) -> String {
    run_script_with(mode, server, s3, roots, region, &[])
}

/// [`run_script`] with more environment (`S3_TEST_KEYS`).
fn run_script_with(
    mode: &str,
    server: &Server,
    s3: &str,
    roots: (&Path, &Path),
    region: &str,
    env: &[(&str, &str)],
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
        .envs(env.iter().copied())
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

/// Three `[[protocols.s3.keys]]` beside the single key, each secret from the environment:
/// `a` (actor alice, every space), `b` (actor bob, writes `beta` only) and `r` (read-only,
/// `beta` only).
const KEYS: &str = "[[protocols.s3.keys]]\naccess_key = \"key-a\"\n\
    secret_key = \"${QUIRE_TEST_S3_A}\"\nactor = \"alice\"\n\
    [[protocols.s3.keys]]\naccess_key = \"key-b\"\nsecret_key = \"${QUIRE_TEST_S3_B}\"\n\
    actor = \"bob\"\nspace = \"beta\"\n\
    [[protocols.s3.keys]]\naccess_key = \"key-r\"\nsecret_key = \"${QUIRE_TEST_S3_R}\"\n\
    actor = \"reader\"\nscope = \"read\"\nspace = \"beta\"\n";
const SECRET_A: &str = "secret-of-a-0123456789";
const SECRET_B: &str = "secret-of-b-0123456789";
const SECRET_R: &str = "secret-of-r-0123456789";
/// The server's environment with every secret.
const KEY_SECRETS: &[(&str, &str)] = &[
    ("QUIRE_TEST_S3_SECRET", SECRET),
    ("QUIRE_TEST_S3_A", SECRET_A),
    ("QUIRE_TEST_S3_B", SECRET_B),
    ("QUIRE_TEST_S3_R", SECRET_R),
];
/// The keys as the client script reads them (`S3_TEST_KEYS`).
fn client_keys() -> String {
    format!("a=key-a:{SECRET_A},b=key-b:{SECRET_B},r=key-r:{SECRET_R}")
}

/// The author of the last commit that touched `path` in `root`.
fn author_of(root: &Path, path: &str) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["log", "-1", "--format=%an", "--", path])
        .output()
        .unwrap();
    text(&out.stdout).trim().to_string()
}

#[test]
fn each_s3_key_is_a_principal_with_its_actor_scope_and_space() {
    if !clients_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // [[protocols.s3.keys]] beside the single key.
    let (root, beta) = seeded(dir.path(), &format!("{}{KEYS}", s3_section("")));
    let (server, s3) = start_with(&root, KEY_SECRETS);
    let keys = client_keys();
    let env = [("S3_TEST_KEYS", keys.as_str())];

    run_script_with(
        "keys-write",
        &server,
        &s3,
        (&root, &beta),
        "us-east-1",
        &env,
    );
    // Each write is a commit by its key's actor.
    assert_eq!(author_of(&root, "notes/by-a.md"), "alice");
    assert_eq!(author_of(&beta, "by-a.md"), "alice");
    assert_eq!(author_of(&beta, "by-b.md"), "bob");
    // The single key of [protocols.s3] is one more, its actor the default.
    assert_eq!(author_of(&root, "notes/by-main.md"), "s3");
    assert!(!root.join("notes/b.md").exists());
    assert!(
        !beta.join("stolen.md").exists(),
        "a copy out of a bucket the key does not open"
    );

    // The read-only key limited to beta: lists and reads beta only, writes nothing anywhere.
    let before = (commits(&root), commits(&beta));
    run_script_with("keys-read", &server, &s3, (&root, &beta), "us-east-1", &env);
    assert_eq!(
        (commits(&root), commits(&beta)),
        before,
        "the read-only key wrote"
    );
    assert!(!beta.join("r.md").exists() && !beta.join("x.md").exists());
    assert!(beta.join("by-b.md").exists());

    let log = server.log();
    for secret in [SECRET, SECRET_A, SECRET_B, SECRET_R] {
        assert!(!log.contains(secret), "a secret was logged");
    }
}

#[test]
fn bad_s3_keys_stop_the_start_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    // The single key's secret written in the file here: `serve_refused` passes no environment.
    let single = format!(
        "enabled = true\nport = 0\naccess_key = \"{ACCESS_KEY}\"\nsecret_key = \"{SECRET}\"\n"
    );
    let refused = |name: &str, keys: &str| {
        let (root, _) = seeded(&dir.path().join(name), &format!("{single}{keys}"));
        let out = serve_refused(&root, &["--no-mcp"]);
        assert!(!out.status.success(), "{name}: started");
        let said = text(&out.stderr);
        assert!(said.contains("refusing to start"), "{name}: {said}");
        assert!(
            !said.contains(SECRET),
            "{name}: the secret was printed: {said}"
        );
        said
    };
    // The single key's access key again as an entry.
    let said = refused(
        "duplicate",
        &format!("[[protocols.s3.keys]]\naccess_key = \"{ACCESS_KEY}\"\nsecret_key = \"other\"\n"),
    );
    assert!(
        said.contains("protocols.s3.keys[0]")
            && said.contains(ACCESS_KEY)
            && said.contains("twice"),
        "{said}"
    );
    // A space no configured space is named.
    let said = refused(
        "space",
        "[[protocols.s3.keys]]\naccess_key = \"k\"\nsecret_key = \"s\"\nspace = \"gamma\"\n",
    );
    assert!(
        said.contains("(access key \"k\")") && said.contains("\"gamma\""),
        "{said}"
    );
    // A secret from a variable that is not set.
    let said = refused(
        "empty",
        "[[protocols.s3.keys]]\naccess_key = \"k\"\nsecret_key = \"${QUIRE_TEST_S3_UNSET}\"\n",
    );
    assert!(
        said.contains("(access key \"k\")") && said.contains("secret_key is empty"),
        "{said}"
    );
}

#[test]
fn s3_requests_over_the_rate_limit_are_slowed_down() {
    if !clients_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (root, beta) = seeded(dir.path(), &format!("{}{KEYS}", s3_section("")));
    // [server.rate_limit] after the S3 section: a burst of 3, then one a minute.
    let config = std::fs::read_to_string(root.join(".quire/config.toml")).unwrap();
    write_config(
        &root,
        &format!("{config}[server.rate_limit]\nrequests_per_minute = 1\nburst_size = 3\n"),
    );
    let (server, s3) = start_with(&root, KEY_SECRETS);
    let keys = client_keys();
    run_script_with(
        "slowdown",
        &server,
        &s3,
        (&root, &beta),
        "us-east-1",
        &[("S3_TEST_KEYS", keys.as_str())],
    );
    // Limited in S3 XML, whatever the signature: the gate answers before it is checked.
    let answer = ureq::get(&format!("{s3}/alpha/notes/alpha.md"))
        .set(
            "Authorization",
            "AWS4-HMAC-SHA256 Credential=key-a/20260101/us-east-1/s3/aws4_request, \
             SignedHeaders=host, Signature=00",
        )
        .call();
    let Err(ureq::Error::Status(429, answer)) = answer else {
        panic!("not limited: {answer:?}");
    };
    assert!(answer.header("Retry-After").is_some());
    let body = answer.into_string().unwrap();
    assert!(body.contains("<Code>SlowDown</Code>"), "{body}");
}

#[test]
fn s3_writes_and_refusals_are_in_the_audit_log() {
    if !clients_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (root, beta) = seeded(dir.path(), &format!("{}{KEYS}", s3_section("")));
    let config = std::fs::read_to_string(root.join(".quire/config.toml")).unwrap();
    write_config(&root, &format!("{config}[audit]\nenabled = true\n"));
    let (server, s3) = start_with(&root, KEY_SECRETS);
    let keys = client_keys();
    run_script_with(
        "audited",
        &server,
        &s3,
        (&root, &beta),
        "us-east-1",
        &[("S3_TEST_KEYS", keys.as_str())],
    );
    let entries: Vec<serde_json::Value> = ureq::get(&format!("{}/audit", server.base))
        .call()
        .unwrap()
        .into_json()
        .unwrap();
    let s3_entries: Vec<&serde_json::Value> =
        entries.iter().filter(|e| e["route"] == "/s3").collect();
    let found = |method: &str, status: u64, actor: &str, space: &str, path: &str| {
        s3_entries.iter().any(|e| {
            e["method"] == method
                && e["status"] == status
                && e["actor"] == actor
                && e["space"] == space
                && e["path"].as_str().unwrap_or("").starts_with(path)
        })
    };
    // The put, by its key's actor, in its bucket.
    assert!(
        found("PUT", 200, "alice", "alpha", "/alpha/notes/audited.md"),
        "{s3_entries:#?}"
    );
    // The read-only key's refused put, and the wrong secret's refused read.
    assert!(
        found("PUT", 403, "reader", "beta", "/beta/no.md"),
        "{s3_entries:#?}"
    );
    assert!(
        found("GET", 403, "alice", "alpha", "/alpha/notes/alpha.md"),
        "{s3_entries:#?}"
    );
    // A read that went through is no entry.
    assert!(
        !found("GET", 200, "alice", "alpha", "/alpha/notes/audited.md"),
        "{s3_entries:#?}"
    );
    // No secret in the log.
    let log = std::fs::read_to_string(root.join(".quire/state/audit.jsonl")).unwrap();
    for secret in [SECRET, SECRET_A, SECRET_B, SECRET_R] {
        assert!(!log.contains(secret), "a secret in the audit log");
    }
}
