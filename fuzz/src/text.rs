//! Small helpers the targets share: bytes as text, and checks of byte ranges against a text.

use std::ops::Range;

/// The input as text: valid UTF-8 as it is, anything else with its bad bytes replaced, so
/// byte-level mutations still reach the parsers.
pub fn lossy(data: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// Panics unless `range` lies inside `text` on character boundaries.
#[track_caller]
pub fn check_range(text: &str, range: &Range<usize>, what: &str) {
    assert!(
        range.start <= range.end && range.end <= text.len(),
        "{what} {range:?} is outside the text of {} bytes",
        text.len()
    );
    assert!(
        text.is_char_boundary(range.start) && text.is_char_boundary(range.end),
        "{what} {range:?} splits a character"
    );
}

/// FNV-1a: a stable hash for deriving choices from an input and naming saved inputs.
pub fn hash(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Splits `text` at its first line break: the first line and the rest.
pub fn first_line(text: &str) -> (&str, &str) {
    match text.split_once('\n') {
        Some((a, b)) => (a, b),
        None => (text, ""),
    }
}

/// Dictionary tokens from string literals.
pub fn tokens(words: &[&str]) -> Vec<Vec<u8>> {
    words.iter().map(|w| w.as_bytes().to_vec()).collect()
}
