//! Commit throughput: 1,000 sequential write + record (synchronous git commits) in a
//! 10,000-file repository. Run with `cargo bench -p quire-store --bench commit`.

use std::time::{Duration, Instant};

use quire_store::{ChangeAction, FileChange, History, HistoryOptions, Root, WriterLock};
use quire_vault::PagePath;

const FILES: usize = 10_000;
const COMMITS: usize = 1_000;

/// Lays out `FILES` pages in folders of `per_folder`, opens git history (which makes the
/// first commit of all of them), then times `COMMITS` single-file write + record rounds.
fn run(label: &str, per_folder: usize) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path_of = |i: usize| {
        let name = if per_folder >= FILES {
            format!("note-{i:05}.md")
        } else {
            format!("area-{:03}/note-{i:05}.md", i / per_folder)
        };
        PagePath::new(&name).expect("valid path")
    };
    let lock = WriterLock::acquire(dir.path(), "bench").expect("writer lock");
    let root = Root::open(dir.path(), &lock).expect("open root");
    for i in 0..FILES {
        let body = format!(
            "---\ntitle: Note {i}\n---\n# Note {i}\n\nSee [[note-{:05}]].\n",
            (i + 1) % FILES
        );
        root.write(&path_of(i), body.as_bytes()).expect("write");
    }
    let setup = Instant::now();
    let history = History::open(
        &root,
        &lock,
        HistoryOptions {
            async_commit: false,
            ..HistoryOptions::default()
        },
    )
    .expect("open history");
    let import = setup.elapsed();

    let cpu_start = cpu_seconds();
    let start = Instant::now();
    let mut writing = Duration::ZERO;
    for n in 0..COMMITS {
        // A stride through the files so consecutive commits touch different folders.
        let path = path_of((n * 7_919) % FILES);
        let body = format!("# Edited\n\nRevision {n}.\n");
        let write_start = Instant::now();
        root.write(&path, body.as_bytes()).expect("write");
        writing += write_start.elapsed();
        history
            .record(
                &[FileChange::new(path, ChangeAction::Write)],
                "bench",
                "edit",
            )
            .expect("record");
    }
    let elapsed = start.elapsed();
    let cpu = cpu_seconds().zip(cpu_start).map(|(end, start)| end - start);
    println!(
        "{label}: {FILES} files, first commit {:.2}s; {COMMITS} write+record in {:.2}s \
         (of which file writes {:.2}s) = {:.0} commits/s",
        import.as_secs_f64(),
        elapsed.as_secs_f64(),
        writing.as_secs_f64(),
        COMMITS as f64 / elapsed.as_secs_f64()
    );
    if let Some(cpu) = cpu {
        // On a busy machine wall time swings; CPU time per commit is the steadier figure.
        println!(
            "{label}: {:.2} ms CPU per commit = {:.0} commits per CPU-second",
            cpu * 1000.0 / COMMITS as f64,
            COMMITS as f64 / cpu
        );
    }
}

/// User + system CPU time of this process from `/proc/self/stat` (Linux; `None` elsewhere).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are the 12th and 13th.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    // The kernel's USER_HZ is 100 on every mainstream Linux configuration.
    Some(ticks / 100.0)
}

/// `cargo bench --bench commit [-- nested|flat]`: both layouts unless one is named.
fn main() {
    let only: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    if only.as_deref().is_none_or(|o| o == "nested") {
        run("100 folders x 100 files", 100);
    }
    if only.as_deref().is_none_or(|o| o == "flat") {
        run("one flat folder", FILES);
    }
}
