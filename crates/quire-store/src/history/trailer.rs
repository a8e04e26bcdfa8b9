//! Who wrote each file of a batch commit that holds the writes of several actors.
//!
//! Such a commit is authored by the batch signature (name `quire`, e-mail
//! `quire+batch@quire.local`) and ends with one trailer per file:
//!
//! ```text
//! Quire-Actor: <path> <actor>
//! ```
//!
//! `<path>` is the name git holds the file under, with `%`, spaces and control characters
//! percent-encoded (`%25`, `%20`, …), so it is one token without spaces; every other byte,
//! non-ASCII letters included, is written as is. `<actor>` is the rest of the line: the name
//! the actor would have as a commit author (it may contain spaces).
//!
//! Trailers are trusted only in commits carrying the batch signature, and only in the message's
//! last paragraph. No actor can obtain that signature (an actor's e-mail is derived from its
//! name and never contains `+`), and the batch message quotes callers' messages only as list
//! items, so a caller cannot forge the attribution of another file with its commit message.
//! Restructurings carry a `Quire-Actor: <actor>` trailer of their own; their commits are
//! authored by the actor, so that trailer is never read as a path's.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write as _;

use git2::{Commit, Signature};

/// Author name of a commit of several actors' writes.
pub(crate) const BATCH_NAME: &str = "quire";
/// Its e-mail: no actor's derived e-mail can be this one.
pub(crate) const BATCH_EMAIL: &str = "quire+batch@quire.local";

const KEY: &str = "Quire-Actor: ";

/// The trailer line of one file (without the line break).
pub(crate) fn line(path: &str, actor: &str) -> String {
    format!("{KEY}{} {actor}", encode_path(path))
}

/// Whether a signature is the batch signature.
pub(crate) fn is_batch(sig: &Signature<'_>) -> bool {
    sig.name_bytes() == BATCH_NAME.as_bytes() && sig.email_bytes() == BATCH_EMAIL.as_bytes()
}

/// The actor of `path` in `commit`: the trailer naming it in a batch commit, else the author.
pub(crate) fn actor_of(commit: &Commit<'_>, path: &str) -> String {
    let author = commit.author();
    if is_batch(&author) {
        let message = String::from_utf8_lossy(commit.message_bytes());
        let actor = trailers(&message).find_map(|(p, a)| (p == path).then(|| a.to_owned()));
        if let Some(actor) = actor {
            return actor;
        }
    }
    String::from_utf8_lossy(author.name_bytes()).into_owned()
}

/// Every path's actor in a batch commit; `None` for any other commit (its author is every
/// file's actor).
pub(crate) fn actors(commit: &Commit<'_>) -> Option<HashMap<String, String>> {
    if !is_batch(&commit.author()) {
        return None;
    }
    let message = String::from_utf8_lossy(commit.message_bytes());
    Some(
        trailers(&message)
            .map(|(path, actor)| (path.into_owned(), actor.to_owned()))
            .collect(),
    )
}

/// The `(path, actor)` pairs of the message's last paragraph.
fn trailers(message: &str) -> impl Iterator<Item = (Cow<'_, str>, &str)> {
    let message = message.trim_end();
    let last = message.rsplit("\n\n").next().unwrap_or(message);
    last.lines().filter_map(|line| {
        let (path, actor) = line.strip_prefix(KEY)?.split_once(' ')?;
        Some((decode_path(path)?, actor))
    })
}

fn needs_escape(b: u8) -> bool {
    b == b'%' || b == b' ' || b.is_ascii_control()
}

/// The path as one token without spaces.
pub(crate) fn encode_path(path: &str) -> Cow<'_, str> {
    if !path.bytes().any(needs_escape) {
        return Cow::Borrowed(path);
    }
    let mut out = String::with_capacity(path.len() + 8);
    for c in path.chars() {
        match u8::try_from(c) {
            Ok(b) if needs_escape(b) => {
                let _ = write!(out, "%{b:02X}");
            }
            _ => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// The inverse of [`encode_path`]; `None` for a malformed escape.
pub(crate) fn decode_path(token: &str) -> Option<Cow<'_, str>> {
    if !token.contains('%') {
        return Some(Cow::Borrowed(token));
    }
    quire_syntax::percent_decode_strict(token)
        .ok()
        .map(Cow::Owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_round_trip_and_only_spaces_percent_and_controls_are_escaped() {
        let cases = [
            ("notes/a.md", "notes/a.md"),
            ("my notes/a b.md", "my%20notes/a%20b.md"),
            ("100%.md", "100%25.md"),
            ("tab\there.md", "tab%09here.md"),
            ("café/ünï.md", "café/ünï.md"),
            ("%20.md", "%2520.md"),
        ];
        for (path, encoded) in cases {
            assert_eq!(encode_path(path), encoded);
            assert_eq!(decode_path(encoded).as_deref(), Some(path));
        }
        assert_eq!(decode_path("bad%2"), None);
        assert_eq!(decode_path("bad%zz.md"), None);
    }

    #[test]
    fn trailers_are_read_from_the_last_paragraph_only() {
        let message = "Subject\n\n- alice: Quire-Actor: x.md mallory\n\nQuire-Actor: x.md alice\n\
                       Quire-Actor: a%20b.md bob smith\n";
        let got: Vec<(String, String)> = trailers(message)
            .map(|(p, a)| (p.into_owned(), a.to_owned()))
            .collect();
        assert_eq!(
            got,
            [
                ("x.md".to_owned(), "alice".to_owned()),
                ("a b.md".to_owned(), "bob smith".to_owned())
            ]
        );
        let forged = "Subject\n\nQuire-Actor: x.md mallory\n\nbody";
        assert_eq!(trailers(forged).count(), 0);
    }
}
