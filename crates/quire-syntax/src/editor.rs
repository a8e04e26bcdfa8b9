//! Line-preserving frontmatter editor: sets and removes top-level keys and leaves every
//! other byte of the page as it was (comments, key order, alignment, quoting, line endings).
//! Frontmatter that is not written one key per line (a flow mapping `{a: 1}`) cannot be
//! edited line by line: the first edit that changes it writes the block again, one key a line.

use serde_json::{Map, Value};

use crate::frontmatter::{comment_start, locate, parse_yaml, top_key, yaml_value};
use crate::simple_yaml;

/// Edits the top-level keys of a page's frontmatter.
///
/// ```
/// use quire_syntax::FrontmatterEditor;
/// let mut editor = FrontmatterEditor::new("---\ntitle:  Old   # keep\ntags: [a]\n---\nBody\n");
/// editor.set("title", &serde_json::json!("New"));
/// editor.unset("tags");
/// editor.set("up", &serde_json::json!("[[Projects]]"));
/// assert_eq!(editor.finish(), "---\ntitle:  New   # keep\nup: \"[[Projects]]\"\n---\nBody\n");
/// ```
#[derive(Debug, Clone)]
pub struct FrontmatterEditor {
    /// Everything before the YAML (the opening fence), empty when the page had none.
    head: String,
    entries: Vec<Entry>,
    /// The closing fence and the body (or the whole page when it had no frontmatter).
    tail: String,
    newline: &'static str,
    had_block: bool,
    /// The parsed mapping, when some of its keys have no lines of their own: edits apply
    /// here, and a changed mapping is written again as a whole.
    whole: Option<Whole>,
}

#[derive(Debug, Clone)]
struct Whole {
    map: Map<String, Value>,
    changed: bool,
}

/// A run of YAML lines: one top-level key with its continuation lines, or lines that
/// belong to no key (comments, blank lines).
#[derive(Debug, Clone)]
struct Entry {
    key: Option<String>,
    /// The exact lines, each with its line ending.
    text: String,
}

impl FrontmatterEditor {
    pub fn new(text: &str) -> Self {
        let Some(block) = locate(text) else {
            let newline = match text.find('\n') {
                Some(p) if p > 0 && text.as_bytes()[p - 1] == b'\r' => "\r\n",
                _ => "\n",
            };
            return FrontmatterEditor {
                head: String::new(),
                entries: Vec::new(),
                tail: text.to_owned(),
                newline,
                had_block: false,
                whole: None,
            };
        };
        let head = &text[..block.yaml.start];
        let newline = if head.ends_with("\r\n") { "\r\n" } else { "\n" };
        let yaml = &text[block.yaml.clone()];
        let entries = group(yaml);
        // The fast path reads only one-key-a-line YAML: what it reads needs no more checking.
        let fast = simple_yaml::read(yaml);
        let read_fast = fast.is_some();
        let value = match fast {
            Some(map) => Ok(Value::Object(map)),
            None => parse_yaml(yaml),
        };
        let whole = match value {
            Ok(Value::Object(map))
                if !lines_as_yaml_reads_them(yaml, &entries, &map, read_fast) =>
            {
                Some(Whole {
                    map,
                    changed: false,
                })
            }
            _ => None,
        };
        FrontmatterEditor {
            head: head.to_owned(),
            entries,
            tail: text[block.yaml.end..].to_owned(),
            newline,
            had_block: true,
            whole,
        }
    }

    /// Sets top-level `key` to `value`: replaces that key's lines (or appends new lines at
    /// the end of the block). A key that already holds an equal value is left untouched.
    pub fn set(&mut self, key: &str, value: &Value) {
        if let Some(whole) = &mut self.whole {
            if whole.map.get(key) != Some(value) {
                whole.map.insert(key.to_owned(), value.clone());
                whole.changed = true;
            }
            return;
        }
        let newline = self.newline;
        match self
            .entries
            .iter_mut()
            .find(|e| e.key.as_deref() == Some(key))
        {
            Some(entry) => {
                if holds(&entry.text, key, value) {
                    return;
                }
                entry.text = replace(&entry.text, value, newline);
            }
            None => {
                if let Some(last) = self.entries.last_mut() {
                    if !last.text.ends_with('\n') {
                        last.text.push_str(newline);
                    }
                }
                let prefix = format!("{}: ", render_key(key, "", newline));
                self.entries.push(Entry {
                    key: Some(key.to_owned()),
                    text: render(&prefix, value, ListStyle::Flow, "", newline),
                });
            }
        }
    }

    /// Removes top-level `key` with all its lines.
    pub fn unset(&mut self, key: &str) {
        if let Some(whole) = &mut self.whole {
            whole.changed |= whole.map.remove(key).is_some();
            return;
        }
        self.entries.retain(|e| e.key.as_deref() != Some(key));
    }

    /// The page text with the edits applied.
    pub fn finish(self) -> String {
        if let Some(whole) = self.whole.filter(|w| w.changed) {
            let mut yaml = String::new();
            block_mapping(&whole.map, 0, self.newline, &mut yaml);
            return format!("{}{yaml}{}", self.head, self.tail);
        }
        let yaml: String = self.entries.iter().map(|e| e.text.as_str()).collect();
        if self.had_block {
            return format!("{}{yaml}{}", self.head, self.tail);
        }
        if yaml.is_empty() {
            return self.tail;
        }
        let nl = self.newline;
        format!("---{nl}{yaml}---{nl}{}", self.tail)
    }
}

/// Splits YAML text into entries. Blank and unindented comment lines between keys stay on
/// their own, unless more lines of the same key follow them.
fn group(yaml: &str) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    let mut pending = String::new();
    for line in yaml.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        let keyed = if content.starts_with(['#', ' ', '\t']) || content.trim().is_empty() {
            None
        } else {
            top_key(content)
        };
        if let Some((key, _)) = keyed {
            flush(&mut entries, &mut pending);
            entries.push(Entry {
                key: Some(key.into_owned()),
                text: line.to_owned(),
            });
            continue;
        }
        let in_keyed_entry = entries.last().is_some_and(|e| e.key.is_some());
        let blank_or_comment = content.trim().is_empty() || content.starts_with('#');
        let continues = !blank_or_comment
            && (content.starts_with([' ', '\t']) || content == "-" || content.starts_with("- "));
        if in_keyed_entry && blank_or_comment {
            pending.push_str(line);
        } else if in_keyed_entry && continues {
            if let Some(last) = entries.last_mut() {
                last.text.push_str(&pending);
                last.text.push_str(line);
            }
            pending.clear();
        } else {
            flush(&mut entries, &mut pending);
            entries.push(Entry {
                key: None,
                text: line.to_owned(),
            });
        }
    }
    flush(&mut entries, &mut pending);
    entries
}

/// Whether the editor's lines are the YAML reader's: the reader also breaks lines at a lone
/// `\r`, U+0085, U+2028 and U+2029 (where `…` may then end the document), which the editor's
/// lines do not; and every key's lines must read, on their own, as that key with its value,
/// or fail only for an alias of an anchor in other lines (checked when the fast path, which
/// reads only one-key-a-line YAML, declined the block).
fn lines_as_yaml_reads_them(
    yaml: &str,
    entries: &[Entry],
    map: &Map<String, Value>,
    read_fast: bool,
) -> bool {
    let odd_break = yaml.contains(['\u{85}', '\u{2028}', '\u{2029}'])
        || yaml
            .match_indices('\r')
            .any(|(at, _)| yaml.as_bytes().get(at + 1) != Some(&b'\n'));
    if odd_break || !one_key_a_line(entries, map) {
        return false;
    }
    if read_fast {
        return true;
    }
    entries.iter().all(|entry| match &entry.key {
        None => true,
        Some(key) => match yaml_value(&entry.text) {
            Ok(Value::Object(alone)) => alone.len() == 1 && alone.get(key) == map.get(key),
            // An alias whose anchor is in another key's lines.
            Err(diagnostic) => diagnostic.message.contains("unknown anchor"),
            Ok(_) => false,
        },
    })
}

/// Whether every key of `map` has lines of its own, no lines but comments stand outside the
/// keys' lines, and the lines that look like keys are the mapping's keys, once each (a quoted
/// value may go on over lines that look like keys): only then can a key be edited by
/// rewriting its lines.
fn one_key_a_line(entries: &[Entry], map: &Map<String, Value>) -> bool {
    let keyed: Vec<&str> = entries.iter().filter_map(|e| e.key.as_deref()).collect();
    if keyed.len() != map.len() || !keyed.iter().all(|key| map.contains_key(*key)) {
        return false;
    }
    let loose_content = entries.iter().filter(|e| e.key.is_none()).any(|e| {
        e.text.lines().any(|line| {
            let line = line.trim();
            !line.is_empty() && !line.starts_with('#')
        })
    });
    !loose_content
        && map
            .keys()
            .all(|key| entries.iter().any(|e| e.key.as_deref() == Some(key)))
}

fn flush(entries: &mut Vec<Entry>, pending: &mut String) {
    if !pending.is_empty() {
        entries.push(Entry {
            key: None,
            text: std::mem::take(pending),
        });
    }
}

/// Whether the entry's YAML already says `key: value`.
fn holds(entry: &str, key: &str, value: &Value) -> bool {
    let Ok(parsed) = serde_yaml_ng::from_str::<serde_yaml_ng::Value>(entry) else {
        return false;
    };
    let Some(current) = parsed.get(key) else {
        return false;
    };
    serde_json::to_value(current).is_ok_and(|current| current == *value)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ListStyle {
    /// `key: [a, b]`
    Flow,
    /// `key:` followed by `- a` lines.
    Block,
}

/// New text for an existing entry: keeps the key as written, the spacing after its colon,
/// the list style and the indentation of its items, and a trailing comment of a one-line
/// value.
fn replace(old: &str, value: &Value, newline: &'static str) -> String {
    let mut lines = old.split_inclusive('\n');
    let first = lines
        .next()
        .unwrap_or_default()
        .trim_end_matches(['\n', '\r']);
    let after_colon = top_key(first).map_or(first.len(), |(_, after)| after);
    // Spaces and tabs only: a no-break space is part of the value in YAML.
    let gap =
        first[after_colon..].len() - first[after_colon..].trim_start_matches([' ', '\t']).len();
    let mut prefix = first[..after_colon + gap].to_owned();
    if gap == 0 {
        prefix.push(' ');
    }
    // An anchor (`base: &base …`) stays: aliases elsewhere in the block name it. Its name is
    // what the YAML reader takes as one: letters, digits, `-` and `_` (`&a:b` is the anchor
    // `a` before the text `:b`).
    if let Some(name) = first[after_colon + gap..].strip_prefix('&') {
        let len = name
            .bytes()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_'))
            .count();
        if len > 0 {
            prefix.push('&');
            prefix.push_str(&name[..len]);
            prefix.push(' ');
        }
    }
    let one_line = old.trim_end_matches(['\n', '\r']).lines().count() == 1;
    let comment_at = comment_start(first, after_colon);
    let comment = if one_line && comment_at < first.len() {
        // The comment with the whitespace that separates it from the value.
        let value_end = first[..comment_at].trim_end_matches([' ', '\t']).len();
        &first[value_end..]
    } else {
        ""
    };
    let block_item = lines
        .map(|l| l.trim_end_matches(['\n', '\r']))
        .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .filter(|l| {
            let item = l.trim_start();
            item == "-" || item.starts_with("- ")
        });
    match block_item {
        Some(item) => {
            let indent = &item[..item.len() - item.trim_start().len()];
            render(&prefix, value, ListStyle::Block, indent, newline)
        }
        None => {
            let mut out = render(&prefix, value, ListStyle::Flow, "", newline);
            if !comment.is_empty() && !out[..out.len() - newline.len()].contains('\n') {
                out.truncate(out.len() - newline.len());
                out.push_str(comment);
                out.push_str(newline);
            }
            out
        }
    }
}

/// Renders `prefix` (key, colon, spacing) followed by `value`, ending with `newline`.
fn render(
    prefix: &str,
    value: &Value,
    style: ListStyle,
    item_indent: &str,
    newline: &str,
) -> String {
    let key_part = prefix.trim_end();
    match value {
        Value::Array(items) if style == ListStyle::Block && !items.is_empty() => {
            let mut out = format!("{key_part}{newline}");
            for item in items {
                out.push_str(&format!(
                    "{item_indent}- {}{newline}",
                    flow(item, Context::Block)
                ));
            }
            out
        }
        Value::Object(map) if !map.is_empty() => {
            let mut out = format!("{key_part}{newline}");
            block_mapping(map, 2, newline, &mut out);
            out
        }
        _ => format!("{prefix}{}{newline}", flow(value, Context::Block)),
    }
}

fn block_mapping(
    map: &serde_json::Map<String, Value>,
    indent: usize,
    newline: &str,
    out: &mut String,
) {
    let pad = " ".repeat(indent);
    for (key, value) in map {
        match value {
            Value::Object(inner) if !inner.is_empty() => {
                out.push_str(&format!(
                    "{pad}{}:{newline}",
                    render_key(key, &pad, newline)
                ));
                block_mapping(inner, indent + 2, newline, out);
            }
            _ => out.push_str(&format!(
                "{pad}{}: {}{newline}",
                render_key(key, &pad, newline),
                flow(value, Context::Block)
            )),
        }
    }
}

/// Where a scalar stands: flow collections forbid more plain characters.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    Block,
    Flow,
}

/// A value on one line: scalars, `[a, b]`, `{k: v}`.
fn flow(value: &Value, context: Context) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => scalar(s, context),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(|i| flow(i, Context::Flow)).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(map) => {
            let items: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", scalar(k, Context::Flow), flow(v, Context::Flow)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
    }
}

/// A key as written before its `:`. YAML reads an implicit key of at most 1024 bytes, so a
/// longer one is an explicit key (`? key`, then `: value` on the next line at `pad`).
fn render_key(key: &str, pad: &str, newline: &str) -> String {
    let written = scalar(key, Context::Block);
    if written.len() > 1024 {
        return format!("? {written}{newline}{pad}");
    }
    written
}

/// A string as a YAML scalar: plain when it reads back as the same string, else
/// double-quoted.
fn scalar(s: &str, context: Context) -> String {
    if !needs_quotes(s, context) {
        return s.to_owned();
    }
    format!("\"{}\"", crate::escape::double_quoted(s))
}

fn needs_quotes(s: &str, context: Context) -> bool {
    let Some(first) = s.chars().next() else {
        return true;
    };
    if s.trim() != s || s.chars().any(crate::escape::must_escape) {
        return true;
    }
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) {
        return true;
    }
    // `...` and `---` at the start of a line end or start a document.
    if s.starts_with("...") {
        return true;
    }
    if s.contains(": ") || s.contains(" #") || s.ends_with(':') {
        return true;
    }
    // In a flow collection the YAML reader refuses a `:` inside a plain scalar.
    if context == Context::Flow && s.contains([',', '[', ']', '{', '}', ':']) {
        return true;
    }
    let lower = s.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "null" | "~" | "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n"
    ) {
        return true;
    }
    looks_numeric(s) && !looks_like_date(s)
}

/// Anything a YAML reader might take for a number (1.1 and 1.2 rules alike).
fn looks_numeric(s: &str) -> bool {
    if s.parse::<f64>().is_ok() {
        return true;
    }
    let lower = s.to_ascii_lowercase();
    let body = lower.trim_start_matches(['+', '-']);
    body.starts_with("0x")
        || body.starts_with("0o")
        || body.starts_with("0b")
        || matches!(body, ".inf" | ".nan")
        || (body.starts_with(|c: char| c.is_ascii_digit() || c == '.')
            && body
                .chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '_' | '.' | 'e' | '+' | '-' | ':')))
}

/// `2024-01-31`: stays plain (a string to this crate's YAML reader, a date to editors).
fn looks_like_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                *c == b'-'
            } else {
                c.is_ascii_digit()
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_quoting() {
        let cases: &[(&str, &str)] = &[
            ("plain", "plain"),
            ("two words", "two words"),
            ("", "\"\""),
            ("[[Projects]]", "\"[[Projects]]\""),
            ("#tag", "\"#tag\""),
            ("a: b", "\"a: b\""),
            ("a #b", "\"a #b\""),
            ("true", "\"true\""),
            ("No", "\"No\""),
            ("42", "\"42\""),
            ("1.5e3", "\"1.5e3\""),
            ("0x1F", "\"0x1F\""),
            ("12:30", "\"12:30\""),
            ("2024-01-31", "2024-01-31"),
            (" padded", "\" padded\""),
            ("line\nbreak", "\"line\\nbreak\""),
            ("say \"hi\"", "say \"hi\""),
            ("'quoted", "\"'quoted\""),
            ("ü", "ü"),
        ];
        for (input, want) in cases {
            assert_eq!(scalar(input, Context::Block), *want, "{input:?}");
        }
        assert_eq!(scalar("a, b", Context::Flow), "\"a, b\"");
        assert_eq!(scalar("a, b", Context::Block), "a, b");
    }

    #[test]
    fn rendered_scalars_read_back_as_strings() {
        for s in [
            "true", "42", "a: b", "#x", "- x", "null", "~", "", " x", "\"", "\\", "x\ty", "é",
        ] {
            let yaml = format!("k: {}\n", scalar(s, Context::Block));
            let parsed: serde_yaml_ng::Value = serde_yaml_ng::from_str(&yaml).unwrap();
            assert_eq!(parsed.get("k").and_then(|v| v.as_str()), Some(s), "{yaml}");
        }
    }
}
