//! Read-your-writes under load: several clients write and search at once, with git commits
//! batched (the server's default), and every write that was acknowledged is found by a search
//! made after it — by the writer itself and by the other clients.

mod support;

use std::sync::{Arc, Mutex};
use std::thread;

use quire_service::{HistoryOptions, SearchQuery, Space, WriteOptions};
use support::TestSpace;

const WRITERS: usize = 4;
const WRITES_EACH: usize = 60;

/// A word no other page holds: the writer, the write and a letter code, as letters only so the
/// tokenizer keeps it whole.
fn word(writer: usize, n: usize) -> String {
    let letters = |mut v: usize| {
        let mut out = String::new();
        for _ in 0..3 {
            out.push((b'a' + (v % 26) as u8) as char);
            v /= 26;
        }
        out
    };
    format!("zq{}x{}", letters(writer), letters(n))
}

fn finds(space: &Space, word: &str) -> Vec<String> {
    space
        .find()
        .search(&SearchQuery {
            q: word.to_string(),
            ..SearchQuery::default()
        })
        .expect("search answers")
        .results
        .into_iter()
        .map(|hit| hit.path)
        .collect()
}

#[test]
fn every_acknowledged_write_is_found_by_searches_running_beside_the_writers() {
    let seed: Vec<(String, String)> = (0..200)
        .map(|i| {
            (
                format!("seed/p{i}.md"),
                format!("# Seed {i}\n\nFiller text.\n"),
            )
        })
        .collect();
    let files: Vec<(&str, &str)> = seed.iter().map(|(p, c)| (p.as_str(), c.as_str())).collect();
    let test = TestSpace::with(
        HistoryOptions {
            async_commit: true,
            ..HistoryOptions::default()
        },
        Default::default(),
        &files,
    );
    let space = Arc::new(test.space);
    space.find().flush();
    let acknowledged: Arc<Mutex<Vec<(String, String)>>> = Arc::default();
    let writers: Vec<_> = (0..WRITERS)
        .map(|writer| {
            let space = space.clone();
            let acknowledged = acknowledged.clone();
            thread::spawn(move || {
                for n in 0..WRITES_EACH {
                    let word = word(writer, n);
                    // Half the writes replace a seed page (each once), half create a page.
                    let path = if n % 2 == 0 {
                        format!("seed/p{}.md", writer * WRITES_EACH / 2 + n / 2)
                    } else {
                        format!("new/w{writer}/n{n}.md")
                    };
                    let text = format!("# Note {writer} {n}\n\nThe word is {word}.\n");
                    space
                        .files()
                        .write(&path, text.into_bytes(), &WriteOptions::default())
                        .expect("write");
                    assert_eq!(
                        finds(&space, &word),
                        vec![path.clone()],
                        "the writer's own search right after its write"
                    );
                    acknowledged.lock().unwrap().push((word, path));
                }
            })
        })
        .collect();
    // Two readers search, all the while, for writes already acknowledged by anyone.
    let readers: Vec<_> = (0..2)
        .map(|reader| {
            let space = space.clone();
            let acknowledged = acknowledged.clone();
            thread::spawn(move || {
                let mut checked = 0usize;
                let mut i = reader;
                loop {
                    let done = acknowledged.lock().unwrap().len();
                    if done == WRITERS * WRITES_EACH {
                        break;
                    }
                    if done == 0 {
                        thread::yield_now();
                        continue;
                    }
                    let (word, path) = acknowledged.lock().unwrap()[i % done].clone();
                    let found = finds(&space, &word);
                    assert_eq!(found, vec![path], "another client's search of {word}");
                    checked += 1;
                    i = i.wrapping_mul(31).wrapping_add(7);
                }
                checked
            })
        })
        .collect();
    for writer in writers {
        writer.join().expect("writer");
    }
    let checked: usize = readers.into_iter().map(|r| r.join().expect("reader")).sum();
    assert!(checked > 0, "the readers searched while the writers wrote");
    // Each page was written once: afterwards search still finds every word.
    for (word, path) in acknowledged.lock().unwrap().iter() {
        assert_eq!(&finds(&space, word), &vec![path.clone()], "{word}");
    }
    space.flush().expect("commits");
}

/// A space whose index thread gathers changes for a minute before it indexes them (unless a
/// reader asks), with `[search] async_index` as given.
fn slow_index_space(async_index: bool) -> (tempfile::TempDir, Space) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.md"), "# A\n").unwrap();
    let space = Space::open(quire_service::SpaceSettings {
        name: "test".into(),
        root: dir.path().to_path_buf(),
        history: HistoryOptions {
            async_commit: true,
            ..HistoryOptions::default()
        },
        assets: Default::default(),
        refactor: Default::default(),
        claims: Default::default(),
        find: quire_service::FindSettings {
            index: quire_service::IndexSettings {
                async_index,
                window: std::time::Duration::from_secs(60),
                batch_max: 10_000,
                ..Default::default()
            },
            ..Default::default()
        },
        script: None,
        editorial: Default::default(),
        public_url: None,
        backup: None,
        janitor: Default::default(),
    })
    .expect("space opens");
    space.find().flush();
    (dir, space)
}

/// The writer does not wait for the index (its batch is still gathering, for a minute); the
/// reader does: a search and a query made after the write was answered find it at once,
/// because a reader that finds changes not yet indexed has the gathering batch indexed now.
#[test]
fn readers_wait_for_the_index_and_writers_do_not() {
    let (_dir, space) = slow_index_space(false);
    let started = std::time::Instant::now();
    for n in 0..20 {
        space
            .files()
            .write(
                &format!("notes/n{n}.md"),
                format!("# Note {n}\n\nThe word is zqbarrier{}.\n", word(0, n)).into_bytes(),
                &WriteOptions::default(),
            )
            .expect("write");
    }
    assert!(
        started.elapsed() < std::time::Duration::from_secs(30),
        "twenty writes were answered without waiting for the minute-long index batch"
    );
    assert_eq!(
        finds(&space, &format!("zqbarrier{}", word(0, 7))),
        vec!["notes/n7.md".to_string()],
        "a search after the writes finds them"
    );
    space
        .files()
        .write(
            "notes/late.md",
            b"---\nstatus: late\n---\n# Late\n".to_vec(),
            &WriteOptions::default(),
        )
        .expect("write");
    let rows = space
        .find()
        .query("LIST FROM \"notes\" WHERE status = \"late\"")
        .expect("query")
        .rows;
    assert_eq!(rows.len(), 1, "a query after the write sees it: {rows:?}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(30),
        "the readers did not wait for the window either: they had the batch indexed"
    );
}

/// With `[search] async_index` readers do not wait either: a change reaches searches when
/// its batch is indexed (here, a minute later), not at once.
#[test]
fn with_async_index_a_search_does_not_wait_for_the_batch() {
    let (_dir, space) = slow_index_space(true);
    space
        .files()
        .write(
            "notes/n.md",
            b"# N\n\nThe word is zqeventual.\n".to_vec(),
            &WriteOptions::default(),
        )
        .expect("write");
    assert!(finds(&space, "zqeventual").is_empty(), "not indexed yet");
    space.find().flush();
    assert_eq!(finds(&space, "zqeventual"), vec!["notes/n.md".to_string()]);
}

/// With `[search] async_index` no reader waits for the index thread, so it yields the CPU to
/// writers: on Linux its nice value is 10 once the first pass is done.
#[cfg(target_os = "linux")]
#[test]
fn with_async_index_the_index_thread_yields_the_cpu() {
    let (_dir, _space) = slow_index_space(true);
    let nice_of_index_threads = || -> Vec<i64> {
        let mut nice = Vec::new();
        for task in std::fs::read_dir("/proc/self/task").expect("tasks") {
            let task = task.expect("task").path();
            let name = std::fs::read_to_string(task.join("comm")).unwrap_or_default();
            if name.trim() != "quire-index" {
                continue;
            }
            let stat = std::fs::read_to_string(task.join("stat")).unwrap_or_default();
            // Fields after the name in parentheses start with the third (state); nice is
            // the nineteenth.
            if let Some(n) = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(16))
                .and_then(|n| n.parse().ok())
            {
                nice.push(n);
            }
        }
        nice
    };
    // The thread lowers its priority after the first pass, which `slow_index_space` waited
    // for; the call itself comes right after, so give it a moment.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !nice_of_index_threads().contains(&10) {
        assert!(
            std::time::Instant::now() < deadline,
            "no index thread at nice 10: {:?}",
            nice_of_index_threads()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
