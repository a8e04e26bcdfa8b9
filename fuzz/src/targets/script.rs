//! `script_lines`: the line protocol between the service and a script process
//! (`quire_api::script`): the service's line reader, the child's lines (`call`, `done`,
//! `failed`), the job and the answers, and the manifest a `done` line carries, checked as the
//! service checks it.
//!
//! The input is what a child writes. Its first byte picks the reader's line limit (small, to
//! reach the over-long branch). Properties: the reader never returns more than the limit nor a
//! line with its newline, and it consumes the input in order; every line that decodes
//! serialises and decodes to itself; a `done` manifest is parsed like a manifest body, never
//! panicking.

use quire_api::script::{read_line, ChildLine, HostAnswer, LineTooLong, ScriptJob};
use quire_restructure::{parse_manifest, ManifestFormat};

use crate::text::tokens;
use crate::Target;

pub const TARGET: Target = Target {
    name: "script_lines",
    run,
    dictionary,
    seeds: crate::no_seeds,
};

fn dictionary() -> Vec<Vec<u8>> {
    tokens(&[
        "{\"call\":{\"fn\":\"read\",\"path\":\"a.md\"}}\n", "{\"call\":{\"fn\":\"query\",\"dql\":\"LIST\"}}\n",
        "{\"call\":{\"fn\":\"files\",\"glob\":\"**/*.md\"}}\n", "{\"call\":{\"fn\":\"links\",\"path\":\"a.md\"}}\n",
        "{\"call\":{\"fn\":\"frontmatter\",\"path\":\"a.md\"}}\n",
        "{\"done\":{\"manifest\":{\"moves\":[{\"from\":\"a.md\",\"to\":\"b/\"}]},\"output\":\"\"}}\n",
        "{\"failed\":{\"error\":\"boom\"}}\n", "{\"ok\":\"# A\\n\"}\n", "{\"error\":\"no such file\"}\n",
        "{\"script\":\"def main(): return {}\"}\n", "\"extra\":1", "\n", "\r\n", "\\u0000", "null",
    ])
}

fn run(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let limit = match first % 4 {
        0 => 8,
        1 => 64,
        2 => 4096,
        _ => 1 << 20,
    };
    // A reader that hands out small chunks, as a pipe does.
    let mut reader = std::io::BufReader::with_capacity(7, rest);
    let mut consumed = 0;
    loop {
        match read_line(&mut reader, limit) {
            Ok(Some(line)) => {
                assert!(
                    line.len() <= limit,
                    "a line of {} bytes past the limit {limit}",
                    line.len()
                );
                assert!(!line.contains(&b'\n'), "a line holds its newline");
                assert_eq!(
                    &rest[consumed..consumed + line.len()],
                    &line[..],
                    "lines out of order"
                );
                consumed += line.len() + 1;
                check_line(&line);
            }
            Ok(None) => {
                assert!(
                    !rest[consumed..].contains(&b'\n'),
                    "the reader stopped before a line"
                );
                break;
            }
            Err(LineTooLong) => {
                let next = rest[consumed..].iter().position(|&b| b == b'\n');
                assert!(
                    next.is_none_or(|n| n > limit),
                    "a line within the limit refused"
                );
                break;
            }
        }
    }
}

fn check_line(line: &[u8]) {
    if let Ok(child) = serde_json::from_slice::<ChildLine>(line) {
        let json = serde_json::to_vec(&child).expect("a line serialises");
        let again: ChildLine = serde_json::from_slice(&json).expect("it decodes again");
        assert_eq!(again, child, "a child line changed through its JSON");
        if let ChildLine::Done(done) = &child {
            let body = serde_json::to_vec(&done.manifest).expect("a manifest value serialises");
            let _ = parse_manifest(&body, ManifestFormat::Json);
        }
    }
    if let Ok(job) = serde_json::from_slice::<ScriptJob>(line) {
        let json = serde_json::to_vec(&job).expect("a job serialises");
        assert_eq!(serde_json::from_slice::<ScriptJob>(&json).ok(), Some(job));
    }
    if let Ok(answer) = serde_json::from_slice::<HostAnswer>(line) {
        let json = serde_json::to_vec(&answer).expect("an answer serialises");
        assert_eq!(
            serde_json::from_slice::<HostAnswer>(&json).ok(),
            Some(answer)
        );
    }
}
