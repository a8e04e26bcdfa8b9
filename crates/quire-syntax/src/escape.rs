//! The one string escaper: the inside of a double-quoted string that reads back as the same
//! text in JSON (canvas file references) and in YAML (frontmatter values).

/// `s` escaped for a double-quoted JSON or YAML string (without the quotes). Both languages
/// read `\"`, `\\`, `\n`, `\r`, `\t` and `\uXXXX`; every other character of
/// [`must_escape`] is written as `\uXXXX`, which YAML requires and JSON allows.
pub(crate) fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if must_escape(c) => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Characters a YAML reader does not take literally inside a scalar: control characters,
/// which libyaml refuses; the line and paragraph separators, which YAML 1.1 reads as line
/// breaks; the byte order mark and the noncharacters `U+FFFE`, `U+FFFF`, which it refuses.
pub(crate) fn must_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
        )
}

#[cfg(test)]
mod tests {
    use super::double_quoted;

    #[test]
    fn escapes_read_back_in_json_and_yaml() {
        for text in [
            "plain",
            "a \"q\" \\ b",
            "line\nbreak\ttab\r",
            "bell\u{7} del\u{7f} c1\u{85}",
            "separators\u{2028}\u{2029} bom\u{feff} non\u{fffe}\u{ffff}",
        ] {
            let json: String =
                serde_json::from_str(&format!("\"{}\"", double_quoted(text))).unwrap();
            assert_eq!(json, text);
            let yaml: String =
                serde_yaml_ng::from_str(&format!("\"{}\"", double_quoted(text))).unwrap();
            assert_eq!(yaml, text);
        }
    }
}
