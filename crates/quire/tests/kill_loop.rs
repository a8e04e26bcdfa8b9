//! Killed with SIGKILL during a burst of writes, quire starts again, every time: four writers,
//! a kill at a pseudo-random moment, a restart — twenty rounds with async batching and twenty
//! with synchronous commits. After every restart each acknowledged write is on disk with its
//! bytes and in HEAD, and `git status` is clean.

mod support;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use support::{write_config, Server};

const WRITERS: usize = 4;
const PATHS_PER_WRITER: usize = 6;
const ROUNDS: usize = 20;

/// What a path may hold: the last acknowledged content, or the one in flight when the server
/// died (written or not).
#[derive(Default, Clone)]
struct Expected {
    acked: Option<String>,
    in_flight: Option<String>,
}

/// A small deterministic generator: the same kill moments on every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
}

fn writers(
    server: &Server,
    round: usize,
    expected: &Arc<Mutex<BTreeMap<String, Expected>>>,
    stop: &Arc<AtomicBool>,
) -> Vec<std::thread::JoinHandle<()>> {
    (0..WRITERS)
        .map(|w| {
            let base = server.base.clone();
            let expected = Arc::clone(expected);
            let stop = Arc::clone(stop);
            std::thread::spawn(move || {
                let agent = ureq::AgentBuilder::new()
                    .timeout(Duration::from_secs(5))
                    .build();
                let mut n = 0usize;
                while !stop.load(Ordering::Relaxed) {
                    let path = format!("w{w}/p{}.md", n % PATHS_PER_WRITER);
                    let content = format!("# round {round} writer {w} write {n}\n");
                    expected
                        .lock()
                        .unwrap()
                        .entry(path.clone())
                        .or_default()
                        .in_flight = Some(content.clone());
                    let sent = agent
                        .put(&format!("{base}/file?path={path}"))
                        .set("X-Actor", &format!("writer-{w}"))
                        .send_string(&content);
                    let mut map = expected.lock().unwrap();
                    let entry = map.get_mut(&path).unwrap();
                    match sent {
                        Ok(r) if r.status() == 200 => {
                            entry.acked = Some(content);
                            entry.in_flight = None;
                        }
                        // The server died mid-request: the write may or may not have landed.
                        _ => return,
                    }
                    n += 1;
                }
            })
        })
        .collect()
}

fn check(root: &Path, expected: &BTreeMap<String, Expected>, round: usize) {
    let repo = git2::Repository::open(root).unwrap();
    let head = repo.head().unwrap().peel_to_tree().unwrap();
    for (path, e) in expected {
        let disk = std::fs::read_to_string(root.join(path)).ok();
        let allowed = [e.acked.clone(), e.in_flight.clone()];
        assert!(
            allowed.contains(&disk) && (disk.is_some() || e.acked.is_none()),
            "round {round}: {path} holds {disk:?}, expected the acknowledged {:?} (or the \
             unacknowledged {:?})",
            e.acked,
            e.in_flight
        );
        if let Some(content) = &disk {
            let entry = head
                .get_path(Path::new(path))
                .unwrap_or_else(|_| panic!("round {round}: {path} is not in HEAD"));
            let blob = repo.find_blob(entry.id()).unwrap();
            assert_eq!(
                blob.content(),
                content.as_bytes(),
                "round {round}: HEAD holds other bytes for {path}"
            );
        }
    }
    let mut opts = git2::StatusOptions::new();
    opts.include_untracked(true).recurse_untracked_dirs(true);
    let dirty: Vec<String> = repo
        .statuses(Some(&mut opts))
        .unwrap()
        .iter()
        .map(|s| format!("{:?} {}", s.status(), s.path().unwrap_or("?")))
        .collect();
    assert!(
        dirty.is_empty(),
        "round {round}: git status not clean: {dirty:?}"
    );
}

fn kill_loop(config: &str, seed: u64) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    write_config(&root, config);
    let expected: Arc<Mutex<BTreeMap<String, Expected>>> = Arc::default();
    let mut rng = Lcg(seed);
    let mut server = Server::start(&root, &[]);
    for round in 0..ROUNDS {
        let stop = Arc::new(AtomicBool::new(false));
        let threads = writers(&server, round, &expected, &stop);
        std::thread::sleep(Duration::from_millis(50 + rng.next() % 450));
        server.child.kill().unwrap();
        server.child.wait().unwrap();
        stop.store(true, Ordering::Relaxed);
        for t in threads {
            t.join().unwrap();
        }
        // The restart recovers; it must succeed every time.
        server = Server::start(&root, &[]);
        check(&root, &expected.lock().unwrap(), round);
        // What was in flight is settled now: the disk says which way it went.
        for (path, e) in expected.lock().unwrap().iter_mut() {
            if e.in_flight.is_some() {
                e.acked = std::fs::read_to_string(root.join(path)).ok();
                e.in_flight = None;
            }
        }
    }
    let written = expected
        .lock()
        .unwrap()
        .values()
        .filter(|e| e.acked.is_some())
        .count();
    assert!(
        written >= WRITERS,
        "the writers got writes through ({written} paths)"
    );
}

#[test]
fn sigkill_during_writes_with_async_batching_always_restarts_clean() {
    kill_loop("[versioning]\nasync_commit = true\n", 0x05ee_da5c);
}

#[test]
fn sigkill_during_writes_with_synchronous_commits_always_restarts_clean() {
    kill_loop("[versioning]\nasync_commit = false\n", 0x005e_ed5c);
}
