//! The manifest: what a restructuring asks for, parsed from YAML or JSON with every key and
//! field validated before anything is planned.

use regex::Regex;
use thiserror::Error;

pub use quire_api::restructure::{
    EditEntry, Manifest, MergeEntry, MoveEntry, Replace, Select, SplitEntry, TagRename,
};

/// Largest manifest body accepted (the plan endpoint's 1 MB limit).
pub const MAX_MANIFEST_BYTES: usize = 1 << 20;

/// Which syntax a manifest body is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ManifestFormat {
    Json,
    Yaml,
    /// JSON when the body starts with `{`, YAML otherwise.
    Auto,
}

/// Why a manifest body was refused. The Display text is meant for a 400 response body.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ManifestError {
    #[error("manifest is {size} bytes; the limit is {MAX_MANIFEST_BYTES} bytes")]
    TooLarge { size: usize },
    #[error("manifest is not valid UTF-8")]
    NotUtf8,
    #[error("{}", syntax_text(.format, *.line, .message))]
    Syntax {
        format: &'static str,
        line: Option<usize>,
        message: String,
    },
    #[error("unknown key `{key}`{}{}", at_line(*.line), expected_keys(.expected))]
    UnknownKey {
        key: String,
        line: Option<usize>,
        /// The keys allowed there, as serde lists them (`` `moves`, `merges` ``).
        expected: Option<String>,
    },
    #[error("a manifest needs at least one of moves, merges, edits, rename_tags, relinks, split")]
    Empty,
    /// The body holds nothing at all: the required `manifest` is missing.
    #[error(
        "missing `manifest`: the body is empty; send a manifest with at least one of moves, \
         merges, edits, rename_tags, relinks, split"
    )]
    Missing,
    #[error("{0}")]
    Invalid(String),
}

fn syntax_text(format: &str, line: Option<usize>, message: &str) -> String {
    match line {
        Some(line) => format!("{format} syntax error at line {line}: {message}"),
        None => format!("{format} syntax error: {message}"),
    }
}

fn expected_keys(expected: &Option<String>) -> String {
    expected
        .as_deref()
        .map(|keys| format!("; expected {keys}"))
        .unwrap_or_default()
}

fn at_line(line: Option<usize>) -> String {
    line.map(|line| format!(" at line {line}"))
        .unwrap_or_default()
}

/// Parses and validates a manifest body.
pub fn parse_manifest(body: &[u8], format: ManifestFormat) -> Result<Manifest, ManifestError> {
    if body.len() > MAX_MANIFEST_BYTES {
        return Err(ManifestError::TooLarge { size: body.len() });
    }
    let text = std::str::from_utf8(body).map_err(|_| ManifestError::NotUtf8)?;
    let format = match format {
        ManifestFormat::Auto if text.trim_start().starts_with('{') => ManifestFormat::Json,
        ManifestFormat::Auto => ManifestFormat::Yaml,
        other => other,
    };
    if text.trim().is_empty() {
        return Err(ManifestError::Missing);
    }
    let manifest: Option<Manifest> = match format {
        ManifestFormat::Json => serde_json::from_str(text).map_err(|err| {
            let line = (err.line() > 0).then_some(err.line());
            decode_error("JSON", line, err.to_string())
        })?,
        _ if quire_syntax::yaml_nests_deeper_than(text, quire_syntax::YAML_MAX_FLOW_DEPTH) => {
            return Err(decode_error(
                "YAML",
                None,
                format!(
                    "brackets nest more than {} levels deep",
                    quire_syntax::YAML_MAX_FLOW_DEPTH
                ),
            ));
        }
        _ => serde_yaml_ng::from_str(text).map_err(|err| {
            let line = err.location().map(|at| at.line());
            decode_error("YAML", line, err.to_string())
        })?,
    };
    let manifest = manifest.ok_or(ManifestError::Missing)?;
    validate_manifest(&manifest)?;
    Ok(manifest)
}

/// Turns a serde message into the error kind it names; serde's unknown-field text is
/// "unknown field `x`, expected …".
fn decode_error(format: &'static str, line: Option<usize>, message: String) -> ManifestError {
    if let Some(rest) = message.split("unknown field `").nth(1) {
        if let Some(end) = rest.find('`') {
            let listed = rest[end + 1..].split(" at line ").next().unwrap_or("");
            return ManifestError::UnknownKey {
                key: rest[..end].to_owned(),
                line,
                expected: listed
                    .strip_prefix(", expected ")
                    .map(|keys| keys.trim_end().to_owned()),
            };
        }
    }
    // Strip the position serde appends, the line is reported separately.
    let message = match message.find(" at line ") {
        Some(at) => message[..at].to_owned(),
        None => message,
    };
    ManifestError::Syntax {
        format,
        line,
        message,
    }
}

/// Checks what the types cannot: at least one change, exclusive fields, regexes, levels,
/// timestamps. [`parse_manifest`] calls it; call it for a manifest that arrived as a typed
/// value (inside a JSON request body).
pub fn validate_manifest(manifest: &Manifest) -> Result<(), ManifestError> {
    if manifest.moves.is_empty()
        && manifest.merges.is_empty()
        && manifest.edits.is_empty()
        && manifest.rename_tags.is_empty()
        && manifest.relinks.is_empty()
        && manifest.split.is_none()
    {
        return Err(ManifestError::Empty);
    }
    for (i, entry) in manifest.moves.iter().enumerate() {
        validate_move(entry, &format!("moves[{i}]"))?;
    }
    for (i, entry) in manifest.relinks.iter().enumerate() {
        validate_move(entry, &format!("relinks[{i}]"))?;
    }
    for (i, entry) in manifest.merges.iter().enumerate() {
        non_empty(&entry.from, &format!("merges[{i}].from"))?;
        non_empty(&entry.into, &format!("merges[{i}].into"))?;
    }
    for (i, entry) in manifest.edits.iter().enumerate() {
        validate_edit(entry, &format!("edits[{i}]"))?;
    }
    for (i, entry) in manifest.rename_tags.iter().enumerate() {
        non_empty(&entry.from, &format!("rename_tags[{i}].from"))?;
        non_empty(&entry.to, &format!("rename_tags[{i}].to"))?;
    }
    if let Some(split) = &manifest.split {
        non_empty(&split.from, "split.from")?;
        if !(1..=6).contains(&split.level) {
            return invalid(format!(
                "split.level must be a heading level from 1 to 6, not {}",
                split.level
            ));
        }
    }
    if let Some(now) = &manifest.now {
        if !is_rfc3339(now) {
            return invalid(format!(
                "now must be an RFC 3339 timestamp such as 2024-05-01T12:00:00Z, not `{now}`"
            ));
        }
    }
    Ok(())
}

fn invalid<T>(message: String) -> Result<T, ManifestError> {
    Err(ManifestError::Invalid(message))
}

fn non_empty(value: &str, field: &str) -> Result<(), ManifestError> {
    if value.trim().is_empty() {
        return invalid(format!("{field} must not be empty"));
    }
    Ok(())
}

fn validate_move(entry: &MoveEntry, field: &str) -> Result<(), ManifestError> {
    match (&entry.from, &entry.from_regex) {
        (Some(_), Some(_)) => {
            return invalid(format!(
                "{field}: `from` and `from_regex` exclude each other"
            ))
        }
        (None, None) => return invalid(format!("{field}: needs `from` or `from_regex`")),
        (Some(from), None) => non_empty(from, &format!("{field}.from"))?,
        (None, Some(pattern)) => {
            if let Err(err) = Regex::new(pattern) {
                return invalid(format!("{field}.from_regex is not a valid regex: {err}"));
            }
        }
    }
    non_empty(&entry.to, &format!("{field}.to"))
}

fn validate_edit(entry: &EditEntry, field: &str) -> Result<(), ManifestError> {
    let select = &entry.select;
    if select.paths.is_empty() && select.glob.is_none() && select.query.is_none() {
        return invalid(format!(
            "{field}.select needs at least one of paths, glob, query (use glob `**` for every page)"
        ));
    }
    for (i, replace) in entry.replace.iter().enumerate() {
        if replace.find.is_empty() {
            return invalid(format!("{field}.replace[{i}].find must not be empty"));
        }
        if replace.regex {
            if let Err(err) = Regex::new(&replace.find) {
                return invalid(format!(
                    "{field}.replace[{i}].find is not a valid regex: {err}"
                ));
            }
        }
    }
    if let Some(policy) = &entry.on_conflict {
        let suffix_ok = policy
            .strip_prefix("suffix(\"")
            .and_then(|rest| rest.strip_suffix("\")"))
            .is_some_and(|pattern| pattern.contains("%d"));
        if policy != "error" && !suffix_ok {
            return invalid(format!(
                "{field}.on_conflict must be `error` or `suffix(\"-%d\")`, not `{policy}`"
            ));
        }
    }
    if let Some(template) = &entry.move_to {
        non_empty(template, &format!("{field}.move_to"))?;
        if let Err(err) = quire_query::Template::parse(template) {
            return invalid(format!(
                "{field}.move_to: {} at byte {} of `{template}`",
                err.message, err.position
            ));
        }
    }
    let expressions = [
        ("select.query".to_owned(), select.query.as_deref()),
        ("when".to_owned(), entry.when.as_deref()),
    ]
    .into_iter()
    .chain(
        entry
            .compute
            .iter()
            .map(|(key, src)| (format!("compute.{key}"), Some(src.as_str()))),
    );
    for (name, src) in expressions {
        let Some(src) = src else { continue };
        if let Err(err) = quire_query::parse(src) {
            return invalid(format!(
                "{field}.{name}: {} at byte {} of `{src}`",
                err.message, err.position
            ));
        }
    }
    for (key, list) in [
        ("add_tags", &entry.add_tags),
        ("remove_tags", &entry.remove_tags),
    ] {
        for tag in list {
            let name = tag.trim().trim_start_matches('#');
            if name.is_empty() || name.contains(char::is_whitespace) {
                return invalid(format!(
                    "{field}.{key}: `{tag}` is not a tag name (no spaces, not empty)"
                ));
            }
        }
    }
    Ok(())
}

/// `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`, with plausible field ranges.
fn is_rfc3339(text: &str) -> bool {
    let b = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        b.get(range.clone())
            .filter(|d| d.iter().all(u8::is_ascii_digit))
            .map(|d| d.iter().fold(0u32, |n, c| n * 10 + u32::from(c - b'0')))
    };
    let shape = b.len() >= 20
        && b[4] == b'-'
        && b[7] == b'-'
        && matches!(b[10], b'T' | b't' | b' ')
        && b[13] == b':'
        && b[16] == b':';
    if !shape {
        return false;
    }
    let fields = [
        digits(0..4),
        digits(5..7),
        digits(8..10),
        digits(11..13),
        digits(14..16),
        digits(17..19),
    ];
    let [Some(_), Some(month), Some(day), Some(hour), Some(minute), Some(second)] = fields else {
        return false;
    };
    if !((1..=12).contains(&month)
        && (1..=31).contains(&day)
        && hour < 24
        && minute < 60
        && second <= 60)
    {
        return false;
    }
    let mut rest = &text[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let len = frac.bytes().take_while(u8::is_ascii_digit).count();
        if len == 0 {
            return false;
        }
        rest = &frac[len..];
    }
    match rest.as_bytes() {
        [b'Z' | b'z'] => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => [h1, h2, m1, m2].iter().all(|c| c.is_ascii_digit()),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_accepts_zulu_offsets_and_fractions() {
        let cases = [
            ("2024-05-01T12:00:00Z", true),
            ("2024-05-01T12:00:00.123+02:00", true),
            ("2024-05-01 12:00:00-05:30", true),
            ("2024-05-01", false),
            ("2024-13-01T12:00:00Z", false),
            ("2024-05-01T12:00:00", false),
            ("2024-05-01T12:00:00.Z", false),
        ];
        for (text, want) in cases {
            assert_eq!(is_rfc3339(text), want, "{text}");
        }
    }
}
