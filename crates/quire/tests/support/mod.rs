//! The real `quire` binary as a test runs it: a server on a loopback port whose whole log is
//! kept, and one-shot commands.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub fn quire() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_quire"));
    cmd.env_remove("QUIRE_FAULT")
        .env_remove("QUIRE_API_KEY")
        .env_remove("QUIRE_AUTH_TYPE")
        .env_remove("QUIRE_HOST")
        .env_remove("QUIRE_PORT")
        .env_remove("QUIRE_VERSIONING")
        .env_remove("QUIRE_SCRIPT_TIMEOUT_MS");
    cmd
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Writes `.quire/config.toml` of a root (creating the folders).
pub fn write_config(root: &Path, toml: &str) {
    std::fs::create_dir_all(root.join(".quire")).unwrap();
    std::fs::write(root.join(".quire/config.toml"), toml).unwrap();
}

/// A running `quire serve`; killed when dropped.
pub struct Server {
    pub child: Child,
    /// `http://127.0.0.1:<port>/api/quire`
    pub base: String,
    /// `http://127.0.0.1:<port>`
    pub host: String,
    log: Arc<Mutex<String>>,
}

impl Server {
    /// `quire serve --root ROOT --port 0 EXTRA…` with `QUIRE_LOG=debug`; waits until it
    /// prints its address.
    pub fn start(root: &Path, extra: &[&str]) -> Server {
        Server::start_with(root, extra, &[])
    }

    pub fn start_with(root: &Path, extra: &[&str], env: &[(&str, &str)]) -> Server {
        let mut args = vec!["--port", "0", "--mcp-port", "0"];
        args.extend_from_slice(extra);
        Server::start_args(root, &args, env)
    }

    /// `quire serve --root ROOT ARGS…` (no port given: the configuration's, or the default).
    pub fn start_args(root: &Path, args: &[&str], env: &[(&str, &str)]) -> Server {
        let mut cmd = quire();
        cmd.arg("serve")
            .args(args)
            .arg("--root")
            .arg(root)
            .env("QUIRE_LOG", "debug")
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("quire starts");
        let stderr = child.stderr.take().unwrap();
        let log = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let sink = Arc::clone(&log);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if line.contains("serving ") {
                    if let Some(i) = line.find("http://") {
                        let url: String = line[i..].split_whitespace().next().unwrap().into();
                        let _ = tx.send(url);
                    }
                }
                let mut log = sink.lock().unwrap();
                log.push_str(&line);
                log.push('\n');
            }
        });
        let base = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(base) => base,
            Err(_) => {
                let _ = child.kill();
                panic!(
                    "the server did not print its address:\n{}",
                    log.lock().unwrap()
                );
            }
        };
        let host = base.trim_end_matches("/api/quire").to_string();
        Server {
            child,
            base,
            host,
            log,
        }
    }

    /// Everything the server logged so far.
    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// The address of the server's line `<what> listening on <address>` (a trailing `/`
    /// left out), waiting for it at most 30 s.
    pub fn listening(&self, what: &str) -> String {
        let started = Instant::now();
        let needle = format!("{what} listening on ");
        loop {
            let log = self.log();
            if let Some(line) = log.lines().find(|l| l.contains(&needle)) {
                let at = line.find(&needle).unwrap() + needle.len();
                return line[at..].trim().trim_end_matches('/').to_string();
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "no {what} address in the log:\n{log}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// SIGTERM, then waits (at most `limit`) for the process to exit; returns how long it took.
    pub fn terminate(&mut self, limit: Duration) -> Duration {
        let started = Instant::now();
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        loop {
            if let Ok(Some(_)) = self.child.try_wait() {
                // Let the log reader drain what the process printed last.
                std::thread::sleep(Duration::from_millis(50));
                return started.elapsed();
            }
            if started.elapsed() > limit {
                let _ = self.child.kill();
                panic!("the server did not stop within {limit:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `quire serve` that is expected to exit on its own (a refused start): its output.
pub fn serve_refused(root: &Path, extra: &[&str]) -> Output {
    let mut child = quire()
        .args(["serve", "--port", "0", "--mcp-port", "0", "--root"])
        .arg(root)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("quire starts");
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "the server started although it should have refused:\n{}",
                text(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// The status code of a request, whether it succeeded or not.
pub fn status_of(result: Result<ureq::Response, ureq::Error>) -> u16 {
    match result {
        Ok(r) => r.status(),
        Err(ureq::Error::Status(code, _)) => code,
        Err(e) => panic!("transport error: {e}"),
    }
}

/// Whether a test's outside clients run: `problem` says what is missing, if anything. A
/// missing client skips the test (saying why) unless `require` (an environment variable
/// `.ci/run` sets) demands them.
pub fn clients_present(require: &str, problem: Option<String>) -> bool {
    let Some(problem) = problem else {
        return true;
    };
    assert!(
        std::env::var_os(require).is_none(),
        "{require} is set, but {problem}"
    );
    eprintln!("skipped: {problem}");
    false
}

/// Every file below `root` but `.git/` and `.quire/`, with its bytes.
pub fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(dir: &Path, prefix: &str, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().into_string().unwrap();
            if prefix.is_empty() && (name == ".git" || name == ".quire") {
                continue;
            }
            let path = format!("{prefix}{name}");
            if entry.file_type().unwrap().is_dir() {
                walk(&entry.path(), &format!("{path}/"), out);
            } else {
                out.insert(path, std::fs::read(entry.path()).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, "", &mut out);
    out
}

/// The commits of a root, newest first: `author<TAB>subject`.
pub fn git_log(root: &Path) -> Vec<String> {
    git_lines(root, &["log", "--format=%an\t%s"])
}

/// The files git holds in HEAD.
pub fn head_files(root: &Path) -> Vec<String> {
    git_lines(root, &["ls-tree", "-r", "--name-only", "HEAD"])
}

fn git_lines(root: &Path, args: &[&str]) -> Vec<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(root)
        .output()
        .unwrap();
    text(&out.stdout).lines().map(str::to_string).collect()
}
