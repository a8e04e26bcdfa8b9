//! Root-relative path arithmetic for link destinations: relative forms and percent-encoding.

/// The folder part of a root-relative path (`""` for a root file).
pub(crate) fn folder_of(path: &str) -> &str {
    path.rfind('/').map_or("", |slash| &path[..slash])
}

/// `to` (a root-relative file path) written relative to the folder `from` (`""` = root):
/// `../` for each folder to leave, then the rest of `to`. Never starts with `./`.
pub(crate) fn relative(from: &str, to: &str) -> String {
    let to_folder = folder_of(to);
    let from_parts: Vec<&str> = from.split('/').filter(|p| !p.is_empty()).collect();
    let to_parts: Vec<&str> = to_folder.split('/').filter(|p| !p.is_empty()).collect();
    let common = from_parts
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut out = String::with_capacity(to.len() + 3 * (from_parts.len() - common));
    for _ in common..from_parts.len() {
        out.push_str("../");
    }
    for part in &to_parts[common..] {
        out.push_str(part);
        out.push('/');
    }
    out.push_str(&to[to_folder.len() + usize::from(!to_folder.is_empty())..]);
    out
}

/// How much of a markdown destination to percent-encode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Encoding {
    /// Only what would end or break an inline destination: spaces, parentheses, `<`, `>`, `%`.
    Minimal,
    /// Every byte outside the URL-unreserved set and `/`, including non-ASCII UTF-8 bytes.
    Full,
}

pub(crate) fn percent_encode(path: &str, encoding: Encoding) -> String {
    let mut out = String::with_capacity(path.len() + 8);
    for c in path.chars() {
        let keep = match encoding {
            Encoding::Minimal => !matches!(c, ' ' | '(' | ')' | '<' | '>' | '%'),
            Encoding::Full => c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~' | '/'),
        };
        if keep {
            out.push(c);
        } else {
            let mut buf = [0_u8; 4];
            for byte in c.encode_utf8(&mut buf).bytes() {
                out.push('%');
                out.push(char::from(b"0123456789ABCDEF"[usize::from(byte >> 4)]));
                out.push(char::from(b"0123456789ABCDEF"[usize::from(byte & 15)]));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_climb_and_descend() {
        let cases = [
            ("", "a.md", "a.md"),
            ("", "x/y/a.md", "x/y/a.md"),
            ("x", "x/a.md", "a.md"),
            ("x/y", "x/a.md", "../a.md"),
            ("x/y", "a.md", "../../a.md"),
            ("x/y", "x/z/a b.md", "../z/a b.md"),
            ("x", "x/y/a.md", "y/a.md"),
            ("xy", "x/a.md", "../x/a.md"),
        ];
        for (from, to, expected) in cases {
            assert_eq!(relative(from, to), expected, "{from} -> {to}");
        }
    }

    #[test]
    fn folder_of_strips_the_name() {
        assert_eq!(folder_of("a.md"), "");
        assert_eq!(folder_of("x/y/a.md"), "x/y");
    }

    #[test]
    fn percent_encoding_modes() {
        let cases = [
            ("a b/c.md", Encoding::Minimal, "a%20b/c.md"),
            ("caf\u{e9}.md", Encoding::Minimal, "caf\u{e9}.md"),
            ("caf\u{e9} x.md", Encoding::Full, "caf%C3%A9%20x.md"),
            ("../a-b_c.md", Encoding::Full, "../a-b_c.md"),
        ];
        for (path, encoding, expected) in cases {
            assert_eq!(percent_encode(path, encoding), expected);
        }
    }
}
