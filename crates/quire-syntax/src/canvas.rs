//! Canvas files (`*.canvas.json`): file references of nodes, read by a tolerant JSON scanner
//! that keeps byte spans and never fails (invalid JSON yields what was found before it).

use std::ops::Range;

use crate::model::{Link, LinkKind, LinkPlace};

/// Nesting deeper than this is not followed (and ends the scan).
const MAX_DEPTH: usize = 128;

/// Every node's `file` (or `data.file`) string, as a [`LinkKind::Canvas`] link whose
/// `target_span` covers the raw bytes between the string's quotes. A node's `subpath`
/// (`#Heading`) becomes the link's fragment.
pub fn parse_canvas(text: &str) -> Vec<Link> {
    let mut scanner = Scanner {
        text,
        b: text.as_bytes(),
        pos: 0,
        links: Vec::new(),
        line_at: (0, 1),
    };
    // `None` only says where the JSON stopped making sense; the links found so far stand.
    let _ = scanner.value(Context::Root, 0);
    scanner.links
}

/// What the value being read is, as far as file references go.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    Root,
    Nodes,
    Node,
    NodeData,
    Other,
}

struct Scanner<'t> {
    text: &'t str,
    b: &'t [u8],
    pos: usize,
    links: Vec<Link>,
    /// Last offset whose line number is known, and that line number.
    line_at: (usize, u32),
}

impl Scanner<'_> {
    fn skip_ws(&mut self) {
        while self.pos < self.b.len() && matches!(self.b[self.pos], b' ' | b'\t' | b'\r' | b'\n') {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn value(&mut self, context: Context, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.skip_ws();
        match self.peek()? {
            b'{' => self.object(context, depth),
            b'[' => self.array(context, depth),
            b'"' => self.string().map(|_| ()),
            _ => {
                let start = self.pos;
                while self
                    .peek()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'))
                {
                    self.pos += 1;
                }
                (self.pos > start).then_some(())
            }
        }
    }

    fn object(&mut self, context: Context, depth: usize) -> Option<()> {
        self.pos += 1;
        let first_link = self.links.len();
        let mut subpath = None;
        loop {
            self.skip_ws();
            match self.peek()? {
                b'}' => {
                    self.pos += 1;
                    break;
                }
                // Tolerates missing or doubled commas.
                b',' => {
                    self.pos += 1;
                    continue;
                }
                b'"' => {}
                _ => return None,
            }
            let (_, key) = self.string()?;
            self.skip_ws();
            if self.peek()? != b':' {
                return None;
            }
            self.pos += 1;
            self.skip_ws();
            let is_string = self.peek() == Some(b'"');
            match (context, key.as_str()) {
                (Context::Node | Context::NodeData, "file") if is_string => {
                    let start = self.pos;
                    let (raw, target) = self.string()?;
                    let line = self.line_of(start);
                    self.links.push(Link {
                        kind: LinkKind::Canvas,
                        place: LinkPlace::Canvas,
                        embed: false,
                        span: start..self.pos,
                        target_span: raw,
                        target,
                        fragment: None,
                        alias: None,
                        title: None,
                        angle: false,
                        line,
                    });
                }
                (Context::Node, "subpath") if is_string => subpath = Some(self.string()?.1),
                (Context::Root, "nodes") => self.value(Context::Nodes, depth + 1)?,
                (Context::Node, "data") => self.value(Context::NodeData, depth + 1)?,
                _ => self.value(Context::Other, depth + 1)?,
            }
        }
        if let Some(subpath) = subpath {
            let fragment = subpath.trim_start_matches('#');
            if !fragment.is_empty() {
                for link in &mut self.links[first_link..] {
                    link.fragment = Some(fragment.to_owned());
                }
            }
        }
        Some(())
    }

    fn array(&mut self, context: Context, depth: usize) -> Option<()> {
        self.pos += 1;
        let element = if context == Context::Nodes {
            Context::Node
        } else {
            Context::Other
        };
        loop {
            self.skip_ws();
            match self.peek()? {
                b']' => {
                    self.pos += 1;
                    return Some(());
                }
                b',' => self.pos += 1,
                _ => self.value(element, depth + 1)?,
            }
        }
    }

    /// A string literal at `pos`: the raw bytes between the quotes and the unescaped text.
    fn string(&mut self) -> Option<(Range<usize>, String)> {
        let start = self.pos + 1;
        let mut j = start;
        while j < self.b.len() {
            match self.b[j] {
                b'"' => {
                    self.pos = j + 1;
                    return Some((start..j, unescape(&self.text[start..j])));
                }
                b'\\' => j += 2,
                _ => j += 1,
            }
        }
        None
    }

    fn line_of(&mut self, offset: usize) -> u32 {
        let (known, line) = self.line_at;
        let line = line
            + self.b[known..offset]
                .iter()
                .filter(|&&c| c == b'\n')
                .count() as u32;
        self.line_at = (offset, line);
        line
    }
}

/// Resolves JSON string escapes; malformed ones stay as written.
fn unescape(raw: &str) -> String {
    if !raw.contains('\\') {
        return raw.to_owned();
    }
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(p) = rest.find('\\') {
        out.push_str(&rest[..p]);
        rest = &rest[p..];
        let (decoded, used) = escape(rest);
        match decoded {
            Some(c) => out.push(c),
            None => out.push_str(&rest[..used]),
        }
        rest = &rest[used..];
    }
    out.push_str(rest);
    out
}

/// The character of the escape at the start of `s` (which starts with `\`) and the bytes
/// it spans; `None` for a malformed escape.
fn escape(s: &str) -> (Option<char>, usize) {
    let b = s.as_bytes();
    let Some(&kind) = b.get(1) else {
        return (None, 1);
    };
    let simple = match kind {
        b'"' => Some('"'),
        b'\\' => Some('\\'),
        b'/' => Some('/'),
        b'b' => Some('\u{8}'),
        b'f' => Some('\u{c}'),
        b'n' => Some('\n'),
        b'r' => Some('\r'),
        b't' => Some('\t'),
        b'u' => None,
        // Not an escape: keep the backslash, read the next character normally.
        _ => return (None, 1),
    };
    if let Some(c) = simple {
        return (Some(c), 2);
    }
    let Some(high) = hex4(s, 2) else {
        return (None, 2);
    };
    if (0xD800..0xDC00).contains(&high) {
        if s.get(6..8) == Some("\\u") {
            if let Some(low) = hex4(s, 8).filter(|low| (0xDC00..0xE000).contains(low)) {
                let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                return (char::from_u32(code), 12);
            }
        }
        return (None, 6);
    }
    match char::from_u32(high) {
        Some(c) => (Some(c), 6),
        None => (None, 6),
    }
}

fn hex4(s: &str, at: usize) -> Option<u32> {
    let digits = s.get(at..at + 4)?;
    if !digits.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(digits, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescape_json_strings() {
        let cases = [
            (r"plain", "plain"),
            (r#"a\"b\\c\/d"#, "a\"b\\c/d"),
            (r"\n\t", "\n\t"),
            (r"caf\u00e9", "café"),
            (r"\ud83d\ude00", "😀"),
            (r"\ud83d", r"\ud83d"),
            (r"\x", r"\x"),
            (r"\u12", r"\u12"),
            ("\\", "\\"),
        ];
        for (raw, want) in cases {
            assert_eq!(unescape(raw), want, "{raw}");
        }
    }
}
