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
