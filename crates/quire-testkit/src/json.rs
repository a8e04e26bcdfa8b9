//! Writing JSON string literals; the sidecar files are assembled by hand from these.

use std::fmt::Write;

/// Appends `value` as a JSON string literal (quotes included).
pub(crate) fn push_str(out: &mut String, value: &str) {
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_quotes_backslashes_and_controls() {
        let cases = [
            ("plain", "\"plain\""),
            ("a \"b\"", "\"a \\\"b\\\"\""),
            ("c:\\d", "\"c:\\\\d\""),
            ("line\nnext\u{1}", "\"line\\nnext\\u0001\""),
            ("caf\u{e9}", "\"caf\u{e9}\""),
        ];
        for (input, expected) in cases {
            let mut out = String::new();
            push_str(&mut out, input);
            assert_eq!(out, expected);
        }
    }
}
