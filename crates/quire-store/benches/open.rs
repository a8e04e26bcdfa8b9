//! Start-up cost of a 10,000-file git root: the writable open (writer lock, crash recovery with
//! its status scan) right after every file's stat data went stale (files touched, copied or
//! restored with their content unchanged), the writable open after that (the next start), and
//! the read-only open (no recovery, no scan).
//!
//! Run with `cargo bench -p quire-store --bench open`. With `QUIRE_BENCH_DROP_CACHES=1` (root
//! on Linux) the page cache is dropped before each timed open, so the files are read from disk.

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use quire_store::{History, HistoryOptions, Root, WriterLock};

const FILES: usize = 10_000;
const PER_FOLDER: usize = 100;
const ROUNDS: usize = 5;

fn opts() -> HistoryOptions {
    HistoryOptions {
        async_commit: false,
        ..HistoryOptions::default()
    }
}

fn rel(i: usize) -> String {
    format!("area-{:03}/note-{i:05}.md", i / PER_FOLDER)
}

/// Wall time and CPU time (user + system, 10 ms resolution) of one open.
#[derive(Clone, Copy)]
struct Cost {
    wall: Duration,
    cpu: Option<f64>,
}

fn timed(open: impl FnOnce() -> History) -> (Cost, History) {
    drop_caches();
    let cpu = cpu_seconds();
    let start = Instant::now();
    let history = open();
    let wall = start.elapsed();
    let cpu = cpu_seconds().zip(cpu).map(|(end, start)| end - start);
    (Cost { wall, cpu }, history)
}

/// A writable open as `quire serve` does it; the history is dropped outside the timing.
fn writable_open(dir: &Path) -> (Cost, History) {
    timed(|| {
        let lock = WriterLock::acquire(dir, "bench").expect("writer lock");
        let root = Root::open(dir, &lock).expect("open root");
        History::open(&root, &lock, opts()).expect("open history")
    })
}

/// A read-only open as a command beside a running server would do it.
fn read_only_open(dir: &Path) -> (Cost, History) {
    timed(|| {
        let root = Root::open_read_only(dir).expect("open root");
        History::open_read_only(&root, opts()).expect("open history")
    })
}

/// User + system CPU time of this process from `/proc/self/stat` (Linux; `None` elsewhere).
fn cpu_seconds() -> Option<f64> {
    let stat = fs::read_to_string("/proc/self/stat").ok()?;
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Gives every file another modification time, its content unchanged: the index's stat data
/// no longer matches, so a status scan must hash each file again to know it is unchanged.
fn touch_all(dir: &Path, when: SystemTime) {
    for i in 0..FILES {
        let file = fs::File::options()
            .write(true)
            .open(dir.join(rel(i)))
            .expect("open file");
        file.set_modified(when).expect("set mtime");
    }
}

fn drop_caches() {
    if std::env::var_os("QUIRE_BENCH_DROP_CACHES").is_some() {
        let synced = std::process::Command::new("sync").status();
        let dropped = fs::write("/proc/sys/vm/drop_caches", "3");
        if synced.is_err() || dropped.is_err() {
            eprintln!("cannot drop the page cache (needs root on Linux)");
        }
    }
}

/// `812 ms (CPU 640 ms)`.
fn show(cost: Cost) -> String {
    let wall = cost.wall.as_secs_f64() * 1000.0;
    match cost.cpu {
        Some(cpu) => format!("{wall:.1} ms (CPU {:.0} ms)", cpu * 1000.0),
        None => format!("{wall:.1} ms"),
    }
}

/// The cost with the median wall time.
fn median(mut v: Vec<Cost>) -> Cost {
    v.sort_by_key(|c| c.wall);
    v[v.len() / 2]
}

fn main() {
    let dir = tempfile::tempdir().expect("tempdir");
    for i in 0..FILES {
        let path = dir.path().join(rel(i));
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        let body = format!(
            "---\ntitle: Note {i}\n---\n# Note {i}\n\nSee [[note-{:05}]].\n\n{}\n",
            (i + 1) % FILES,
            "Some text of an ordinary page. ".repeat(20)
        );
        fs::write(path, body).expect("write");
    }
    let (import, history) = writable_open(dir.path());
    drop(history);
    println!(
        "{FILES} files in {} folders; first open (import commit) {}",
        FILES / PER_FOLDER,
        show(import)
    );

    let (mut stale, mut second, mut read_only) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        let hours = Duration::from_secs(3600 * (round as u64 + 1));
        touch_all(dir.path(), SystemTime::now() - hours);
        let (t1, h) = writable_open(dir.path());
        drop(h);
        let (t2, h) = writable_open(dir.path());
        drop(h);
        let (t3, h) = read_only_open(dir.path());
        drop(h);
        println!(
            "round {}: writable open, stat data stale {}; next writable open {}; \
             read-only open {}",
            round + 1,
            show(t1),
            show(t2),
            show(t3)
        );
        stale.push(t1);
        second.push(t2);
        read_only.push(t3);
    }
    println!(
        "median of {ROUNDS}: writable open, stat data stale {}; next writable open {}; \
         read-only open {}",
        show(median(stale)),
        show(median(second)),
        show(median(read_only))
    );
}
