//! Double-brace templates over a row's fields: `{{field}}`, `{{ field }}`, `{{a.b}}` for a
//! field inside an object (`{{tags.0}}` for an item of a list). A template is parsed once,
//! before any row is read, so a malformed one refuses the whole import.

use serde_json::{Map, Value};

/// A parsed template: literal text and field references, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Field(String),
}

/// What rendering a template over one row gave.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Rendered {
    pub text: String,
    /// The fields the template names that the row does not have (they rendered empty).
    pub missing: Vec<String>,
}

impl Template {
    /// Parses `source`. `{{` without its `}}`, an empty `{{ }}` and a `{{` inside a
    /// placeholder are errors; a lone `}}` is literal text.
    pub fn parse(source: &str) -> Result<Template, String> {
        let mut parts = Vec::new();
        let mut rest = source;
        while let Some(open) = rest.find("{{") {
            if open > 0 {
                parts.push(Part::Text(rest[..open].to_string()));
            }
            let after = &rest[open + 2..];
            let Some(close) = after.find("}}") else {
                return Err(format!(
                    "template {source:?}: `{{{{` without a closing `}}}}`"
                ));
            };
            let name = after[..close].trim();
            if name.is_empty() {
                return Err(format!("template {source:?}: an empty `{{{{ }}}}`"));
            }
            if name.contains("{{") {
                return Err(format!("template {source:?}: `{{{{` inside a placeholder"));
            }
            parts.push(Part::Field(name.to_string()));
            rest = &after[close + 2..];
        }
        if !rest.is_empty() {
            parts.push(Part::Text(rest.to_string()));
        }
        Ok(Template { parts })
    }

    /// The field a template made of exactly one placeholder names (its value keeps its JSON
    /// type in frontmatter: a number stays a number).
    pub fn sole_field(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [Part::Field(name)] => Some(name),
            _ => None,
        }
    }

    /// The template over `row`: each placeholder replaced by its field as text; a missing
    /// field renders empty and is listed in `missing`.
    pub fn render(&self, row: &Map<String, Value>) -> Rendered {
        let mut out = Rendered::default();
        for part in &self.parts {
            match part {
                Part::Text(text) => out.text.push_str(text),
                Part::Field(name) => match lookup(row, name) {
                    Some(value) => out.text.push_str(&text_of(value)),
                    None => out.missing.push(name.clone()),
                },
            }
        }
        out
    }
}

/// The field `name` of `row`: the key itself first (a CSV header may hold a dot), else a
/// path through objects (`a.b`) and lists (`tags.0`). `null` counts as missing.
pub fn lookup<'a>(row: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    if let Some(value) = row.get(name) {
        return (!value.is_null()).then_some(value);
    }
    let mut segments = name.split('.');
    let mut current = row.get(segments.next()?)?;
    for segment in segments {
        current = match current {
            Value::Object(map) => map.get(segment)?,
            Value::Array(items) => items.get(segment.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    (!current.is_null()).then_some(current)
}

/// A value as template text: strings as they are, numbers and booleans as JSON writes them,
/// a list of scalars joined with `, `, anything else as compact JSON.
pub fn text_of(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Bool(_) | Value::Number(_) => value.to_string(),
        Value::Array(items) if items.iter().all(|v| !v.is_array() && !v.is_object()) => {
            items.iter().map(text_of).collect::<Vec<_>>().join(", ")
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn row(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn placeholders_with_and_without_spaces_are_filled() {
        let t = Template::parse("{{a}}-{{ b }}-{{  c\t}}").unwrap();
        let r = t.render(&row(json!({"a": "x", "b": 2, "c": true})));
        assert_eq!(r.text, "x-2-true");
        assert!(r.missing.is_empty());
    }

    #[test]
    fn nested_fields_reach_into_objects_and_lists() {
        let t = Template::parse("{{author.name}} / {{tags.1}} / {{tags}}").unwrap();
        let r = t.render(&row(json!({"author": {"name": "Zoë"}, "tags": ["a", "b"]})));
        assert_eq!(r.text, "Zoë / b / a, b");
    }

    #[test]
    fn a_key_with_a_dot_wins_over_the_nested_path() {
        let t = Template::parse("{{a.b}}").unwrap();
        let r = t.render(&row(json!({"a.b": "flat", "a": {"b": "nested"}})));
        assert_eq!(r.text, "flat");
    }

    #[test]
    fn a_missing_or_null_field_renders_empty_and_is_reported() {
        let t = Template::parse("x{{nope}}y{{n}}").unwrap();
        let r = t.render(&row(json!({"n": null})));
        assert_eq!(r.text, "xy");
        assert_eq!(r.missing, vec!["nope".to_string(), "n".to_string()]);
    }

    #[test]
    fn malformed_templates_are_refused() {
        assert!(Template::parse("{{open").is_err());
        assert!(Template::parse("{{ }}").is_err());
        assert!(Template::parse("{{a{{b}}").is_err());
        // A lone closing pair is text.
        let t = Template::parse("a }} b").unwrap();
        assert_eq!(t.render(&Map::new()).text, "a }} b");
    }

    #[test]
    fn a_sole_placeholder_is_known() {
        assert_eq!(Template::parse("{{ n }}").unwrap().sole_field(), Some("n"));
        assert_eq!(Template::parse("n: {{n}}").unwrap().sole_field(), None);
    }

    #[test]
    fn unicode_text_around_placeholders_is_kept() {
        let t = Template::parse("日本/{{名前}}.md").unwrap();
        assert_eq!(t.render(&row(json!({"名前": "東京"}))).text, "日本/東京.md");
    }
}
