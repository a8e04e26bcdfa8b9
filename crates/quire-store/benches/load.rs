//! Async batching under load: many writer threads, each its own actor, writing random pages of
//! a 2,000-page root for a fixed time, the way the write pipeline does (one write lock per
//! space; commit another actor's queued version of the page first; write the file; record).
//!
//! Reports writes/s, the largest commit lag seen (age of the oldest uncommitted write, sampled
//! every 5 ms), the largest backlog, the slowest write, and how long the final flush takes;
//! then checks that history holds every write under its own author (read back through the
//! `Quire-Actor` trailers) and that HEAD holds each page's last write.
//!
//! `cargo bench -p quire-store --bench load -- [--secs 60] [--writers 200] [--pages 2000]
//! [--max-lag-ms 2000] [--max-pending 2000] [--window-ms 200] [--batch-max 50]`

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use git2::{ObjectType, Oid, Repository};
use quire_store::{ChangeAction, DiskName, FileChange, History, HistoryOptions, Root, WriterLock};
use quire_vault::PagePath;

struct Args {
    secs: u64,
    writers: usize,
    pages: usize,
    opts: HistoryOptions,
}

fn args() -> Args {
    let mut out = Args {
        secs: 60,
        writers: 200,
        pages: 2_000,
        opts: HistoryOptions::default(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || -> u64 {
            it.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{flag} needs a number"))
        };
        match flag.as_str() {
            "--secs" => out.secs = value(),
            "--writers" => out.writers = value() as usize,
            "--pages" => out.pages = value() as usize,
            "--max-lag-ms" => out.opts.max_commit_lag = Duration::from_millis(value()),
            "--max-pending" => out.opts.max_pending = value() as usize,
            "--window-ms" => out.opts.batch_window = Duration::from_millis(value()),
            "--batch-max" => out.opts.batch_max_size = value() as usize,
            // What `cargo bench` passes to every bench.
            "--bench" => {}
            other => panic!("unknown argument {other}"),
        }
    }
    out
}

fn page(i: usize) -> PagePath {
    PagePath::new(&format!("area-{:02}/page-{i:04}.md", i / 100)).expect("valid path")
}

fn body(page: usize, writer: usize, seq: u64) -> String {
    format!(
        "---\ntitle: Page {page}\n---\n# Page {page}\n\nRevision {seq} by writer-{writer:03}.\n\n\
         See [[page-{:04}]].\n",
        (page + 1) % 2_000
    )
}

fn actor(writer: usize) -> String {
    format!("writer-{writer:03}")
}

/// A small xorshift generator: no dependency, a different stream per writer.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// User + system CPU seconds of this process (Linux).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn main() {
    let args = args();
    let opts = args.opts.clone();
    println!(
        "load: {} writers as {} actors, {} pages, {} s; window {} ms / {} files, bounds {} ms / \
         {} files; load average before {}",
        args.writers,
        args.writers,
        args.pages,
        args.secs,
        opts.batch_window.as_millis(),
        opts.batch_max_size,
        opts.max_commit_lag.as_millis(),
        opts.max_pending,
        load_average()
    );

    let setup = Instant::now();
    let dir = tempfile::tempdir().expect("tempdir");
    let lock = WriterLock::acquire(dir.path(), "bench").expect("writer lock");
    let root = Root::open(dir.path(), &lock).expect("open root");
    for i in 0..args.pages {
        root.write(&page(i), body(i, 0, 0).as_bytes())
            .expect("write");
    }
    let history = History::open(&root, &lock, opts.clone()).expect("open history");
    let first = history.head().expect("the import commit");
    println!(
        "setup: {} pages written and imported in {:.1} s",
        args.pages,
        setup.elapsed().as_secs_f64()
    );

    // Per page, the writes in the order the write lock let them through: (writer, seq).
    let log: Vec<Mutex<Vec<(usize, u64)>>> =
        (0..args.pages).map(|_| Mutex::new(Vec::new())).collect();
    let write_lock = Mutex::new(());
    let seq = AtomicU64::new(1);
    let stop = AtomicBool::new(false);
    let writes = AtomicUsize::new(0);
    let slowest_us = AtomicU64::new(0);
    let slowest_locked_us = AtomicU64::new(0);
    let over_100ms = AtomicUsize::new(0);
    let mut max_lag = Duration::ZERO;
    let mut max_files = 0;

    let cpu_start = cpu_seconds();
    let start = Instant::now();
    let deadline = start + Duration::from_secs(args.secs);
    std::thread::scope(|s| {
        for w in 0..args.writers {
            let (root, history, log, write_lock) = (&root, &history, &log, &write_lock);
            let (seq, stop, writes) = (&seq, &stop, &writes);
            let (slowest_us, slowest_locked_us, over_100ms) =
                (&slowest_us, &slowest_locked_us, &over_100ms);
            s.spawn(move || {
                let mut rng =
                    Rng(0x9E37_79B9_7F4A_7C15 ^ (w as u64 + 1).wrapping_mul(0x2545_F491_4F6C_DD1D));
                let actor = actor(w);
                while !stop.load(Ordering::Relaxed) {
                    let i = rng.below(args.pages);
                    let path = page(i);
                    let disk = DiskName::from(&path);
                    let began = Instant::now();
                    let guard = write_lock.lock().expect("write lock");
                    let locked = Instant::now();
                    let n = seq.fetch_add(1, Ordering::Relaxed);
                    history
                        .commit_others_before(&[&disk], &actor)
                        .expect("commit others");
                    root.write(&path, body(i, w, n).as_bytes()).expect("write");
                    history
                        .record(
                            &[FileChange::new(path, ChangeAction::Write)],
                            &actor,
                            &format!("Update page {i}"),
                        )
                        .expect("record");
                    log[i].lock().expect("log").push((w, n));
                    let in_lock = locked.elapsed();
                    drop(guard);
                    slowest_locked_us.fetch_max(in_lock.as_micros() as u64, Ordering::Relaxed);
                    if in_lock > Duration::from_millis(100) {
                        over_100ms.fetch_add(1, Ordering::Relaxed);
                    }
                    let took = began.elapsed().as_micros() as u64;
                    slowest_us.fetch_max(took, Ordering::Relaxed);
                    writes.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
        // The sampler: the main thread.
        while Instant::now() < deadline {
            let backlog = history.backlog();
            max_lag = max_lag.max(backlog.oldest.unwrap_or_default());
            max_files = max_files.max(backlog.files);
            std::thread::sleep(Duration::from_millis(5));
        }
        stop.store(true, Ordering::Relaxed);
    });
    let elapsed = start.elapsed();
    let left = history.backlog();
    let flush_start = Instant::now();
    history.flush().expect("flush");
    let flush = flush_start.elapsed();
    let cpu = cpu_seconds().zip(cpu_start).map(|(end, start)| end - start);
    let writes = writes.into_inner();
    println!(
        "writes: {writes} in {:.1} s = {:.0} writes/s; CPU {:.1} s; load average after {}",
        elapsed.as_secs_f64(),
        writes as f64 / elapsed.as_secs_f64(),
        cpu.unwrap_or(f64::NAN),
        load_average()
    );
    println!(
        "max commit lag (oldest uncommitted write, sampled every 5 ms): {} ms; max backlog: {} \
         files",
        max_lag.as_millis(),
        max_files,
    );
    println!(
        "slowest write under the write lock (commit others + write + record): {} ms; {} writes \
         over 100 ms; slowest including the wait for the lock: {} ms",
        slowest_locked_us.into_inner() / 1000,
        over_100ms.into_inner(),
        slowest_us.into_inner() / 1000,
    );
    println!(
        "final flush: {} files (oldest {} ms) committed in {:.0} ms",
        left.files,
        left.oldest.unwrap_or_default().as_millis(),
        flush.as_secs_f64() * 1000.0
    );

    // Every version after the import, with the actor history reads back for it (through the
    // trailers), matched to the write whose bytes it holds by blob id.
    let check = Instant::now();
    let changes = history
        .changes(Some(&first), usize::MAX)
        .expect("changes")
        .changes;
    let log: Vec<Vec<(usize, u64)>> = log
        .into_iter()
        .map(|l| l.into_inner().expect("log"))
        .collect();
    let mut written: HashMap<Oid, (usize, usize, u64)> = HashMap::new();
    for (i, writes) in log.iter().enumerate() {
        for &(w, n) in writes {
            let id = Oid::hash_object(ObjectType::Blob, body(i, w, n).as_bytes()).expect("hash");
            written.insert(id, (i, w, n));
        }
    }
    let repo = Repository::open(dir.path()).expect("repo");
    let mut blobs: HashMap<(String, String), Oid> = HashMap::new();
    let mut commits: Vec<&str> = changes.iter().map(|c| c.seq.as_str()).collect();
    commits.dedup();
    for seq in &commits {
        let commit = repo
            .find_commit(Oid::from_str(seq).expect("id"))
            .expect("commit");
        let parent = commit.parent(0).expect("parent").tree().expect("tree");
        let diff = repo
            .diff_tree_to_tree(Some(&parent), Some(&commit.tree().expect("tree")), None)
            .expect("diff");
        for delta in diff.deltas() {
            let path = delta
                .new_file()
                .path()
                .expect("path")
                .to_str()
                .expect("utf-8");
            blobs.insert(((*seq).to_owned(), path.to_owned()), delta.new_file().id());
        }
    }
    let mut versions: Vec<Vec<(usize, u64)>> = vec![Vec::new(); args.pages];
    for change in &changes {
        let id = blobs[&(change.seq.clone(), change.path.clone())];
        let &(i, writer, n) = written
            .get(&id)
            .unwrap_or_else(|| panic!("{} at {}: bytes nobody wrote", change.path, change.seq));
        assert_eq!(change.path, page(i).as_str());
        assert_eq!(
            change.actor,
            actor(writer),
            "{} at {}: written by {}, attributed to {}",
            change.path,
            change.seq,
            actor(writer),
            change.actor
        );
        versions[i].push((writer, n));
    }
    let mut folded = 0;
    for (i, writes) in log.iter().enumerate() {
        let got = &versions[i];
        // Versions appear in the order of the writes...
        let mut next = 0;
        for v in got {
            let at = writes[next..]
                .iter()
                .position(|w| w == v)
                .unwrap_or_else(|| panic!("page {i}: version {v:?} out of order"));
            next += at + 1;
        }
        // ... and every write is one, unless the same actor rewrote the page before its commit.
        for (k, w) in writes.iter().enumerate() {
            if writes.get(k + 1).is_some_and(|next| next.0 == w.0) && !got.contains(w) {
                folded += 1;
            } else {
                assert!(got.contains(w), "page {i}: write {w:?} missing");
            }
        }
        // HEAD holds the page's last write (checked above to be under its writer).
        assert_eq!(
            got.last(),
            writes.last(),
            "page {i}: HEAD is not the last write"
        );
    }
    // `versions` and `blame` read the same trailers; a sample of pages through them.
    for i in (0..args.pages).step_by(100) {
        if let Some(&(w, _)) = log[i].last() {
            let newest = &history.versions(&page(i)).expect("versions")[0];
            assert_eq!(newest.author, actor(w), "page {i}");
            let blame = history.blame(&page(i)).expect("blame");
            assert!(blame.iter().any(|l| l.author == actor(w)), "page {i}");
        }
    }
    println!(
        "check: {} versions in {} commits ({:.1} files per commit), each under its own author; \
         {folded} writes rewritten by the same actor before their commit; HEAD holds every \
         page's last write ({:.1} s)",
        changes.len(),
        commits.len(),
        changes.len() as f64 / commits.len().max(1) as f64,
        check.elapsed().as_secs_f64(),
    );
    let drop_start = Instant::now();
    drop(history);
    println!(
        "drop after flush: {:.0} ms",
        drop_start.elapsed().as_secs_f64() * 1000.0
    );

    // Shutdown at the bound: a queue holding `max_pending` files of 200 actors (the most the
    // bounds let pile up), dropped as `quire serve` does at SIGTERM.
    let full = opts.max_pending.min(args.pages);
    let held = HistoryOptions {
        batch_window: Duration::from_secs(3600),
        batch_max_size: usize::MAX,
        max_commit_lag: Duration::from_secs(3600),
        ..opts.clone()
    };
    let history = History::open(&root, &lock, held).expect("reopen history");
    let before = history.head().expect("head");
    for i in 0..full {
        let path = page(i);
        root.write(&path, body(i, i % 200, u64::MAX - i as u64).as_bytes())
            .expect("write");
        history
            .record(
                &[FileChange::new(path, ChangeAction::Write)],
                &actor(i % 200),
                &format!("Update page {i}"),
            )
            .expect("record");
    }
    let queued = history.backlog().files;
    let drop_start = Instant::now();
    drop(history);
    let dropped = drop_start.elapsed();
    let history = History::open(&root, &lock, opts.clone()).expect("reopen history");
    let last = history.changes(Some(&before), usize::MAX).expect("changes");
    let mut commits: Vec<&str> = last.changes.iter().map(|c| c.seq.as_str()).collect();
    commits.dedup();
    for change in &last.changes {
        let i = (0..full)
            .find(|&i| page(i).as_str() == change.path)
            .expect("a queued page");
        assert_eq!(change.actor, actor(i % 200), "{}", change.path);
    }
    assert_eq!(last.changes.len(), full);
    println!(
        "shutdown with a full queue: {queued} files of {} actors committed by drop in {:.0} ms \
         ({} commit(s)), each file under its own author",
        full.min(200),
        dropped.as_secs_f64() * 1000.0,
        commits.len()
    );
    drop(history);

    let removal = Instant::now();
    drop(root);
    drop(dir);
    println!(
        "temp root removed in {:.1} s",
        removal.elapsed().as_secs_f64()
    );
}
