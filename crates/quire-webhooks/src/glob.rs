//! `path_glob`: Go's `filepath.Match` semantics on each `/`-separated segment, plus a segment
//! `**` that stands for any number of folders (none included).
//!
//! In a segment, `*` is any run of characters, `?` one character, `[abc]`, `[a-z]` and
//! `[^a-z]` a character class, `\x` the character `x`; none of them crosses a `/`. So `*.md`
//! matches top-level pages only, `notes/**` everything below `notes/`, `**/*.md` every page,
//! and `**` every file. `globset` was not used: its `*` crosses folders unless told otherwise,
//! and its classes and escapes follow other rules.

use std::fmt;

/// The longest pattern accepted.
pub const MAX_GLOB_LEN: usize = 1024;

/// A compiled `path_glob`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathGlob {
    text: String,
    segments: Vec<Segment>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    /// `**`: zero or more whole segments.
    Any,
    Glob(Vec<Token>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Star,
    One,
    Char(char),
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

/// Why a pattern does not compile (Go's `ErrBadPattern`, and ours).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobError(String);

impl fmt::Display for GlobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for GlobError {}

impl PathGlob {
    /// Every file.
    pub const ALL: &'static str = "**";

    pub fn new(text: &str) -> Result<PathGlob, GlobError> {
        let bad = |why: &str| Err(GlobError(format!("path_glob {text:?}: {why}")));
        if text.is_empty() {
            return bad("empty pattern (leave path_glob out to match every file)");
        }
        if text.len() > MAX_GLOB_LEN {
            return bad(&format!("longer than {MAX_GLOB_LEN} bytes"));
        }
        if text.starts_with('/') {
            return bad("paths are relative to the root; remove the leading /");
        }
        if text.chars().any(char::is_control) {
            return bad("control characters are not allowed");
        }
        let mut segments: Vec<Segment> = Vec::new();
        for part in text.split('/') {
            if part == "." || part == ".." {
                return bad("`.` and `..` name no page (paths are relative to the root)");
            }
            let segment = if part == "**" {
                Segment::Any
            } else {
                match compile_segment(part) {
                    Ok(tokens) => Segment::Glob(tokens),
                    Err(why) => return bad(why),
                }
            };
            // `**/**` is `**`.
            if segment == Segment::Any && segments.last() == Some(&Segment::Any) {
                continue;
            }
            segments.push(segment);
        }
        Ok(PathGlob {
            text: text.to_string(),
            segments,
        })
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the root-relative `path` (`/`-separated) matches the whole pattern.
    pub fn matches(&self, path: &str) -> bool {
        let names: Vec<Vec<char>> = path.split('/').map(|s| s.chars().collect()).collect();
        let (p, n) = (self.segments.len(), names.len());
        // done[i][j]: segments[i..] match names[j..]; filled from the end.
        let mut done = vec![vec![false; n + 1]; p + 1];
        done[p][n] = true;
        for i in (0..p).rev() {
            for j in (0..=n).rev() {
                done[i][j] = match &self.segments[i] {
                    Segment::Any => done[i + 1][j] || (j < n && done[i][j + 1]),
                    Segment::Glob(tokens) => {
                        j < n && done[i + 1][j + 1] && match_segment(tokens, &names[j])
                    }
                };
            }
        }
        done[0][0]
    }
}

impl fmt::Display for PathGlob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

fn compile_segment(part: &str) -> Result<Vec<Token>, &'static str> {
    let chars: Vec<char> = part.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '*' => {
                // `a**b` inside a segment is `a*b`, as in Go.
                if tokens.last() != Some(&Token::Star) {
                    tokens.push(Token::Star);
                }
                i += 1;
            }
            '?' => {
                tokens.push(Token::One);
                i += 1;
            }
            '\\' => {
                let Some(&c) = chars.get(i + 1) else {
                    return Err("a trailing \\ escapes nothing");
                };
                tokens.push(Token::Char(c));
                i += 2;
            }
            '[' => {
                let (token, next) = compile_class(&chars, i + 1)?;
                tokens.push(token);
                i = next;
            }
            c => {
                tokens.push(Token::Char(c));
                i += 1;
            }
        }
    }
    Ok(tokens)
}

/// A class starting after its `[` at `start`; returns it and the index after its `]`.
fn compile_class(chars: &[char], start: usize) -> Result<(Token, usize), &'static str> {
    const UNCLOSED: &str = "a [ class is not closed by ]";
    let mut i = start;
    let negated = chars.get(i) == Some(&'^');
    if negated {
        i += 1;
    }
    let mut ranges = Vec::new();
    let one = |i: &mut usize| -> Result<char, &'static str> {
        match chars.get(*i) {
            None => Err(UNCLOSED),
            Some('\\') => {
                let c = *chars.get(*i + 1).ok_or(UNCLOSED)?;
                *i += 2;
                Ok(c)
            }
            Some('-') | Some(']') => Err("a class needs a character before - or ]"),
            Some(&c) => {
                *i += 1;
                Ok(c)
            }
        }
    };
    loop {
        if chars.get(i) == Some(&']') && !ranges.is_empty() {
            return Ok((Token::Class { negated, ranges }, i + 1));
        }
        let lo = one(&mut i)?;
        let hi = if chars.get(i) == Some(&'-') {
            i += 1;
            one(&mut i)?
        } else {
            lo
        };
        if hi < lo {
            return Err("a class range runs backwards");
        }
        ranges.push((lo, hi));
    }
}

impl Token {
    fn accepts(&self, c: char) -> bool {
        match self {
            Token::Star => true,
            Token::One => true,
            Token::Char(x) => *x == c,
            Token::Class { negated, ranges } => {
                ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *negated
            }
        }
    }
}

/// One segment against one name (neither holds `/`): the usual backtracking over the last
/// `*`, linear in practice.
fn match_segment(tokens: &[Token], name: &[char]) -> bool {
    let (mut t, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if let Some(token) = tokens.get(t) {
            if *token == Token::Star {
                star = Some((t, n));
                t += 1;
                continue;
            }
            if token.accepts(name[n]) {
                t += 1;
                n += 1;
                continue;
            }
        }
        match star {
            Some((st, sn)) => {
                t = st + 1;
                n = sn + 1;
                star = Some((st, sn + 1));
            }
            None => return false,
        }
    }
    tokens[t..].iter().all(|token| *token == Token::Star)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(pattern: &str, path: &str, expected: bool) {
        let glob = PathGlob::new(pattern).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(glob.matches(path), expected, "{pattern:?} on {path:?}");
    }

    #[test]
    fn the_three_forms_of_the_spec() {
        for (pattern, path, expected) in [
            ("**", "a.md", true),
            ("**", "notes/deep/a.md", true),
            ("notes/**", "notes/a.md", true),
            ("notes/**", "notes/x/y/a.md", true),
            ("notes/**", "other/a.md", false),
            ("notes/**", "notesx/a.md", false),
            ("*.md", "a.md", true),
            ("*.md", "notes/a.md", false),
            ("*.md", "a.txt", false),
        ] {
            check(pattern, path, expected);
        }
    }

    #[test]
    fn filepath_match_semantics_within_a_segment() {
        for (pattern, path, expected) in [
            // Cases in the manner of Go's own table for filepath.Match.
            ("abc", "abc", true),
            ("*", "abc", true),
            ("*c", "abc", true),
            ("a*", "a", true),
            ("a*", "abc", true),
            ("a*", "ab/c", false),
            ("a*/b", "abc/b", true),
            ("a*/b", "a/c/b", false),
            ("a*b*c*d*e*/f", "axbxcxdxe/f", true),
            ("a*b*c*d*e*/f", "axbxcxdxexxx/f", true),
            ("a*b*c*d*e*/f", "axbxcxdxe/xxx/f", false),
            ("a*b?c*x", "abxbbxdbxebxczzx", true),
            ("a*b?c*x", "abxbbxdbxebxczzy", false),
            ("ab[c]", "abc", true),
            ("ab[b-d]", "abc", true),
            ("ab[e-g]", "abc", false),
            ("ab[^c]", "abc", false),
            ("ab[^b-d]", "abc", false),
            ("ab[^e-g]", "abc", true),
            ("a\\*b", "a*b", true),
            ("a\\*b", "ab", false),
            ("a?b", "a☺b", true),
            ("a[^a]b", "a☺b", true),
            ("a???b", "a☺b", false),
            ("[a-ζ]*", "α", true),
            ("*[a-ζ]", "A", false),
            ("a?b", "a/b", false),
            ("a*b", "a/b", false),
            ("[\\]a]", "]", true),
            ("[\\-]", "-", true),
            ("[x\\-]", "z", false),
            ("[\\-x]", "x", true),
            ("*x", "xxx", true),
            (".*", ".hidden", true),
            ("*", ".hidden", true),
        ] {
            check(pattern, path, expected);
        }
    }

    #[test]
    fn a_double_star_segment_spans_any_number_of_folders() {
        for (pattern, path, expected) in [
            ("**/*.md", "a.md", true),
            ("**/*.md", "x/y/a.md", true),
            ("**/*.md", "x/y/a.txt", false),
            ("a/**/b.md", "a/b.md", true),
            ("a/**/b.md", "a/x/y/b.md", true),
            ("a/**/b.md", "a/x/y/c.md", false),
            ("**/drafts/**", "x/drafts/y.md", true),
            ("**/drafts/**", "drafts/y.md", true),
            ("**/drafts/**", "x/draft/y.md", false),
            ("**/**/**", "a/b/c", true),
            // Inside a segment `**` is a `*`: it does not cross folders.
            ("a**.md", "abc.md", true),
            ("a**.md", "a/b.md", false),
        ] {
            check(pattern, path, expected);
        }
    }

    #[test]
    fn bad_patterns_are_refused_with_the_reason() {
        for (pattern, reason) in [
            ("[", "not closed"),
            ("a[b", "not closed"),
            ("[^", "not closed"),
            ("[]a]", "character before"),
            ("[a-]", "character before"),
            ("[z-a]", "backwards"),
            ("a\\", "trailing"),
            ("/notes/**", "relative"),
            ("../**", "name no page"),
            ("notes/./*.md", "name no page"),
            ("", "empty"),
            ("a\u{0}b", "control"),
        ] {
            let err = PathGlob::new(pattern).expect_err(pattern);
            assert!(err.to_string().contains(reason), "{pattern:?}: {err}");
        }
        assert!(PathGlob::new(&"a".repeat(MAX_GLOB_LEN + 1)).is_err());
    }

    #[test]
    fn many_double_stars_stay_fast() {
        let pattern = "**/a/".repeat(40) + "*.md";
        let glob = PathGlob::new(&pattern).unwrap();
        let path = "a/".repeat(60) + "b.txt";
        assert!(!glob.matches(&path));
    }
}
