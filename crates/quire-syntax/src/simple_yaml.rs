//! A fast reader for the common shape of frontmatter YAML (`key: scalar`, flow lists,
//! block lists of scalars, comments), giving exactly what the full YAML parser gives.
//!
//! Parsing YAML through libyaml costs more than scanning the whole page body, so the
//! everyday forms are read here. Anything outside them — nested mappings, escapes, anchors,
//! multi-line scalars, odd numbers, duplicate keys — returns `None` and the caller uses the
//! full parser. A property test checks this reader against `serde_yaml_ng`.

use serde_json::{Map, Number, Value};

use crate::inline::newline;

/// The mapping of `yaml`, or `None` when it is not in the simple subset.
pub(crate) fn read(yaml: &str) -> Option<Map<String, Value>> {
    if !printable(yaml) {
        return None;
    }
    let mut map = Map::new();
    let mut lines = lines(yaml).peekable();
    while let Some(line) = lines.next() {
        if skippable(line)? {
            continue;
        }
        let (key, rest) = key_line(line)?;
        if !matches!(plain(key, Context::Block)?, Value::String(_)) {
            // `true:` or `Null:` keys become "true" and "null" in the full parser.
            return None;
        }
        let value = match rest {
            Some(rest) => value(rest)?,
            None => {
                // `key:` alone: a block list of scalars follows, or the value is null.
                let mut items = Vec::new();
                let mut indent = None;
                while let Some(next) = lines.peek() {
                    if skippable(next)? {
                        lines.next();
                        continue;
                    }
                    let Some((item_indent, item)) = list_item(next) else {
                        break;
                    };
                    if *indent.get_or_insert(item_indent) != item_indent {
                        return None;
                    }
                    items.push(scalar(item, Context::Block)?);
                    lines.next();
                }
                if items.is_empty() {
                    Value::Null
                } else {
                    Value::Array(items)
                }
            }
        };
        if map.insert(key.to_owned(), value).is_some() {
            // The full parser reports duplicate keys.
            return None;
        }
    }
    Some(map)
}

/// The lines of `yaml` without their `\n` or `\r\n` (and an empty last one after a final
/// line ending), as `split('\n')` gives them but without a search set-up per line.
fn lines(yaml: &str) -> impl Iterator<Item = &str> {
    let mut pos = Some(0);
    std::iter::from_fn(move || {
        let start = pos?;
        let line = match newline(yaml.as_bytes(), start) {
            Some(end) => {
                pos = Some(end + 1);
                &yaml[start..end]
            }
            None => {
                pos = None;
                &yaml[start..]
            }
        };
        Some(line.strip_suffix('\r').unwrap_or(line))
    })
}

/// Rejects what libyaml would reject or read specially: control characters, byte order
/// marks, lone carriage returns, tabs before content, and the Unicode line breaks (`U+0085`,
/// `U+2028`, `U+2029`) that YAML 1.1 counts as newlines.
fn printable(yaml: &str) -> bool {
    let b = yaml.as_bytes();
    let mut ascii = true;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'\n' | b'\t' => {}
            b'\r' if b.get(i + 1) == Some(&b'\n') => {}
            0..=0x1f | 0x7f => return false,
            0x80.. => ascii = false,
            _ => {}
        }
    }
    // `char::is_control` is true for `\n`, so the non-ASCII check names its characters.
    ascii
        || !yaml.chars().any(|c| {
            matches!(
                c,
                '\u{80}'
                    ..='\u{9f}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
            )
        })
}

/// Blank and comment-only lines; `None` for lines the subset does not cover.
fn skippable(line: &str) -> Option<bool> {
    let trimmed = line.trim_start_matches(' ');
    if trimmed.starts_with('\t') {
        return None;
    }
    Some(
        trimmed.is_empty()
            || trimmed.starts_with('#')
            || trimmed.trim_end_matches([' ', '\t']).is_empty(),
    )
}

/// libyaml reads an implicit key only when its `:` comes within 1024 characters of its
/// start; a longer key is an error there, so it is left to the full parser (which reports it).
const MAX_KEY_BYTES: usize = 1024;

/// `key: rest` at column 0 with a plain ASCII key; `rest` is `None` when nothing but
/// whitespace or a comment follows the colon.
fn key_line(line: &str) -> Option<(&str, Option<&str>)> {
    let b = line.as_bytes();
    if !b.first()?.is_ascii_alphabetic() && b[0] != b'_' {
        return None;
    }
    let colon = b
        .iter()
        .position(|&c| !(c.is_ascii_alphanumeric() || c == b'_' || c == b'-'))?;
    if b[colon] != b':' || colon >= MAX_KEY_BYTES {
        return None;
    }
    let rest = &line[colon + 1..];
    if rest.is_empty() {
        return Some((&line[..colon], None));
    }
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let rest = rest.trim_start_matches([' ', '\t']);
    if rest.is_empty() || rest.starts_with('#') {
        return Some((&line[..colon], None));
    }
    Some((&line[..colon], Some(rest)))
}

/// `- scalar` with its indentation.
fn list_item(line: &str) -> Option<(usize, &str)> {
    let trimmed = line.trim_start_matches(' ');
    let indent = line.len() - trimmed.len();
    let item = trimmed.strip_prefix("- ")?;
    Some((indent, item.trim_start_matches(' ')))
}

/// A value on the key's line: a flow list or a scalar (with an optional comment after it).
fn value(rest: &str) -> Option<Value> {
    let Some(mut remaining) = rest.strip_prefix('[') else {
        return scalar(rest, Context::Block);
    };
    if let Some(after) = remaining.trim_start_matches(' ').strip_prefix(']') {
        return end_of_line(after).then(|| Value::Array(Vec::new()));
    }
    let mut values = Vec::new();
    loop {
        let (item, after) = flow_item(remaining)?;
        values.push(item);
        if let Some(next) = after.strip_prefix(',') {
            remaining = next;
        } else {
            // The list ends here; quoted items may hold `]` (`"[[Page]]"`), so the closing
            // bracket is only looked for between items.
            let after = after.trim_start_matches(' ').strip_prefix(']')?;
            return end_of_line(after).then_some(Value::Array(values));
        }
    }
}

/// One flow list item: the value and what follows it (from the `,` or `]` on).
fn flow_item(text: &str) -> Option<(Value, &str)> {
    let text = text.trim_start_matches(' ');
    if text.starts_with(['"', '\'']) {
        let (value, after) = quoted(text)?;
        return Some((value, after.trim_start_matches(' ')));
    }
    let end = text.find([',', ']']).unwrap_or(text.len());
    let item = text[..end].trim_end_matches(' ');
    Some((plain(item, Context::Flow)?, &text[end..]))
}

/// Where a plain scalar stands: flow collections forbid more characters.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    Block,
    Flow,
}

/// A scalar filling the rest of a line (quoted or plain, then an optional comment).
fn scalar(text: &str, context: Context) -> Option<Value> {
    if text.starts_with(['"', '\'']) {
        let (value, after) = quoted(text)?;
        return end_of_line(after).then_some(value);
    }
    // A comment starts at ` #`.
    let end = text
        .as_bytes()
        .windows(2)
        .position(|w| matches!(w[0], b' ' | b'\t') && w[1] == b'#')
        .unwrap_or(text.len());
    plain(text[..end].trim_end_matches([' ', '\t']), context)
}

/// Whitespace, optionally followed by a comment.
fn end_of_line(text: &str) -> bool {
    let rest = text.trim_start_matches([' ', '\t']);
    rest.is_empty() || (rest.starts_with('#') && rest.len() < text.len())
}

/// A quoted scalar without escapes: its string and what follows the closing quote.
fn quoted(text: &str) -> Option<(Value, &str)> {
    let quote = text.chars().next()?;
    let inner = &text[1..];
    let close = inner.find(quote)?;
    let content = &inner[..close];
    if quote == '"' && content.bytes().any(|c| c == b'\\') {
        return None;
    }
    let after = &inner[close + 1..];
    if quote == '\'' && after.starts_with('\'') {
        // `''` is an escaped quote.
        return None;
    }
    Some((Value::String(content.to_owned()), after))
}

/// A plain scalar, typed as the full parser types it (YAML 1.2 core schema).
fn plain(text: &str, context: Context) -> Option<Value> {
    let b = text.as_bytes();
    let first = *b.first()?;
    // `-` starts a list item only before a space (or alone); `-2` and `-x` are scalars.
    let dash_scalar = first == b'-' && b.get(1).is_some_and(|&c| c != b' ');
    if (!dash_scalar && b"-?:,[]{}#&*!|>'\"%@`".contains(&first)) || text.ends_with(':') {
        return None;
    }
    // One pass for what a plain scalar may not hold: `: `, ` #`, tabs, and in flow
    // context the flow indicators.
    let mut prev = 0u8;
    for &c in b {
        match c {
            b'\t' => return None,
            b' ' if prev == b':' => return None,
            b'#' if prev == b' ' => return None,
            b',' | b'[' | b']' | b'{' | b'}' if context == Context::Flow => return None,
            _ => {}
        }
        prev = c;
    }
    Some(match text {
        "null" | "Null" | "NULL" | "~" => Value::Null,
        "true" | "True" | "TRUE" => Value::Bool(true),
        "false" | "False" | "FALSE" => Value::Bool(false),
        _ => return number(text).unwrap_or_else(|| Some(Value::String(text.to_owned()))),
    })
}

/// `Some(Some(n))` for a number, `Some(None)` for forms left to the full parser, `None`
/// for text that is no number.
fn number(text: &str) -> Option<Option<Value>> {
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    let starts_with = |prefix: &str| {
        unsigned
            .as_bytes()
            .get(..prefix.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(prefix.as_bytes()))
    };
    if ["0x", "0o", "0b", ".inf", ".nan"]
        .into_iter()
        .any(starts_with)
    {
        return Some(None);
    }
    if !unsigned
        .as_bytes()
        .first()
        .is_some_and(|&c| c.is_ascii_digit() || c == b'.')
    {
        // Every finite float `str::parse` accepts starts so; this spares the parse for
        // the words most values are.
        return None;
    }
    if !unsigned.is_empty() && unsigned.bytes().all(|c| c.is_ascii_digit()) {
        if unsigned.len() > 1 && unsigned.starts_with('0') {
            // Leading zeros make a string in YAML 1.2.
            return None;
        }
        if unsigned.len() > 18 {
            return Some(None);
        }
        return Some(text.parse::<i64>().ok().map(Value::from));
    }
    let float = text.parse::<f64>().ok()?;
    if !float.is_finite() {
        // `inf`, `nan`: strings to the full parser.
        return None;
    }
    Some(Number::from_f64(float).map(Value::Number))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn full(yaml: &str) -> Option<Value> {
        crate::frontmatter::parse_yaml(yaml).ok()
    }

    #[test]
    fn simple_subset_values() {
        let cases = [
            (
                "title: Hello world\n",
                serde_json::json!({"title": "Hello world"}),
            ),
            (
                "a: 1\nb: -2\nc: 1.5\nd: 007\ne: 2024-01-05\n",
                serde_json::json!({"a": 1, "b": -2, "c": 1.5, "d": "007", "e": "2024-01-05"}),
            ),
            (
                "t: true\nf: False\nn: ~\ne:\n",
                serde_json::json!({"t": true, "f": false, "n": null, "e": null}),
            ),
            (
                "tags: [a, \"b c\", 'd']\n",
                serde_json::json!({"tags": ["a", "b c", "d"]}),
            ),
            (
                "tags:\n  - a\n  # c\n  - b # d\n",
                serde_json::json!({"tags": ["a", "b"]}),
            ),
            (
                "up: \"[[Projects]]\" # c\n",
                serde_json::json!({"up": "[[Projects]]"}),
            ),
            ("x: C# and #1\n", serde_json::json!({"x": "C# and"})),
            (
                "inf: inf\nnan: NaN\n",
                serde_json::json!({"inf": "inf", "nan": "NaN"}),
            ),
            ("e: []\n", serde_json::json!({"e": []})),
        ];
        for (yaml, want) in cases {
            assert_eq!(
                read(yaml).map(Value::Object),
                Some(want.clone()),
                "{yaml:?}"
            );
            assert_eq!(full(yaml), Some(want), "{yaml:?}");
        }
    }

    #[test]
    fn outside_the_subset_is_left_to_the_full_parser() {
        let cases = [
            "a:\n  b: 1\n",
            "a: \"esc\\\"aped\"\n",
            "a: 'it''s'\n",
            "a: &anchor x\n",
            "a: 0x1F\n",
            "a: .inf\n",
            "a: 1\na: 2\n",
            "a: [x, [y]]\n",
            "a: |\n  text\n",
            "\"quoted key\": 1\n",
            "a: multi\n  line\n",
            "a: 12345678901234567890\n",
            "a: x\u{1}\n",
        ];
        for yaml in cases {
            assert_eq!(read(yaml), None, "{yaml:?}");
        }
    }

    /// Found by the `frontmatter` fuzz target: a key of more than 1024 characters is no
    /// implicit key to the full parser, yet the fast path read it.
    #[test]
    fn keys_longer_than_yaml_allows_are_left_to_the_full_parser() {
        let long = format!("{}: x\n", "k".repeat(1100));
        assert_eq!(read(&long), None);
        assert_eq!(full(&long), None);
        let longest = format!("{}: x\n", "k".repeat(1023));
        assert_eq!(read(&longest).map(Value::Object), full(&longest));
    }

    fn line() -> impl Strategy<Value = String> {
        let key = prop_oneof![Just("a"), Just("b"), Just("tags"), Just("k-1"), Just("_x")];
        let scalar = prop_oneof![
            Just("x".to_owned()),
            Just("1".to_owned()),
            Just("-0".to_owned()),
            Just("-7".to_owned()),
            Just("-x".to_owned()),
            Just("--".to_owned()),
            Just("-".to_owned()),
            Just("- a".to_owned()),
            Just("-1.5e-3".to_owned()),
            Just("+5".to_owned()),
            Just("05".to_owned()),
            Just("1.50".to_owned()),
            Just("1e3".to_owned()),
            Just(".5".to_owned()),
            Just("1.".to_owned()),
            Just("inf".to_owned()),
            Just("-.inf".to_owned()),
            Just("0x10".to_owned()),
            Just("true".to_owned()),
            Just("yes".to_owned()),
            Just("~".to_owned()),
            Just("null".to_owned()),
            Just("\"q #x\"".to_owned()),
            Just("'s'".to_owned()),
            Just("''".to_owned()),
            Just("\"\"".to_owned()),
            Just("a b".to_owned()),
            Just("a: b".to_owned()),
            Just("a:b".to_owned()),
            Just("[[L]]".to_owned()),
            Just("x # c".to_owned()),
            Just("x#c".to_owned()),
            Just("2024-01-05".to_owned()),
            Just("12:30".to_owned()),
            Just("caf\u{e9}".to_owned()),
            Just("\u{65e5}\u{672c}".to_owned()),
            Just("\"[[S\u{e3}o Paulo|x]]\"".to_owned()),
            Just("a\u{a0}b".to_owned()),
            Just("a\u{85}b".to_owned()),
            Just("a\u{2028}b".to_owned()),
            Just("\u{feff}x".to_owned()),
            Just("\"[[a]]\"".to_owned()),
            Just("'[[a]], [b]'".to_owned()),
            "[a-z0-9 .:#'\"-]{1,8}",
            "[a-z\u{e9}\u{a0}\u{3000}\u{2028}\u{85} ,\\[\\]\"#-]{1,8}",
        ];
        let list = prop::collection::vec(scalar.clone(), 0..4)
            .prop_map(|items| format!("[{}]", items.join(", ")));
        prop_oneof![
            (key.clone(), scalar.clone()).prop_map(|(k, v)| format!("{k}: {v}")),
            (key.clone(), list).prop_map(|(k, v)| format!("{k}: {v}")),
            key.prop_map(|k| format!("{k}:")),
            scalar.clone().prop_map(|v| format!("  - {v}")),
            scalar.prop_map(|v| format!("- {v}")),
            Just("# comment".to_owned()),
            Just("".to_owned()),
            Just("  nested: x".to_owned()),
        ]
    }

    /// The frontmatter of generated vaults (the shapes the benchmark sees: aligned values,
    /// trailing comments, quoted `[[links]]` in flow and block lists, accented words) stays
    /// on the fast path and reads exactly as the full parser reads it.
    #[test]
    fn testkit_frontmatter_is_in_the_subset_and_agrees() {
        let vault = quire_testkit::generate(&quire_testkit::VaultSpec::new(7, 1_500));
        for page in vault.pages().filter_map(|f| f.text()) {
            let Some(block) = crate::frontmatter::locate(page) else {
                continue;
            };
            let yaml = &page[block.yaml];
            let fast = read(yaml).map(Value::Object);
            assert!(fast.is_some(), "{yaml}");
            assert_eq!(fast, full(yaml), "{yaml}");
        }
    }

    proptest! {
        #[test]
        fn simple_reader_agrees_with_the_full_parser(lines in prop::collection::vec(line(), 0..8)) {
            let yaml = lines.join("\n") + "\n";
            if let Some(map) = read(&yaml) {
                prop_assert_eq!(full(&yaml), Some(Value::Object(map)), "{}", yaml);
            }
        }
    }
}
