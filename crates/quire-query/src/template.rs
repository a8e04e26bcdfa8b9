//! `move_to` templates: text with `{{placeholder}}` parts, rendered per page.
//!
//! `{{year}}`, `{{month}}` and `{{day}}` come from the `date` variable (zero-padded month
//! and day); `{{slug}}` is `slug(title)`; `{{stem}}`, `{{name}}`, `{{dir}}` and anything else
//! between the braces is an expression over the same scope. A placeholder that evaluates to
//! null is an error, so a page without a date never lands in `notes//x.md`.

use crate::expr::{self, Error, EvalContext, Expr, Scope};
use crate::value::Value;

/// A parsed template, reusable across pages.
#[derive(Debug, Clone)]
pub struct Template {
    parts: Vec<Part>,
}

#[derive(Debug, Clone)]
enum Part {
    Text(String),
    Placeholder {
        expr: Expr,
        at: usize,
        source: String,
    },
}

impl Template {
    /// Parses `template`; errors carry byte offsets into it.
    pub fn parse(template: &str) -> Result<Template, Error> {
        let mut parts = Vec::new();
        let mut rest_start = 0;
        while let Some(open) = template[rest_start..].find("{{").map(|i| rest_start + i) {
            if open > rest_start {
                parts.push(Part::Text(template[rest_start..open].to_owned()));
            }
            let inner_start = open + 2;
            let close = template[inner_start..]
                .find("}}")
                .map(|i| inner_start + i)
                .ok_or_else(|| Error::new(open, "unterminated placeholder: expected '}}'"))?;
            let inner = &template[inner_start..close];
            let expr = match inner.trim() {
                "year" => expr::parse(r#"date(date, "%Y")"#),
                "month" => expr::parse(r#"date(date, "%m")"#),
                "day" => expr::parse(r#"date(date, "%d")"#),
                "slug" => expr::parse("slug(title)"),
                _ => {
                    expr::parse(inner).map_err(|e| Error::new(inner_start + e.position, e.message))
                }
            }?;
            parts.push(Part::Placeholder {
                expr,
                at: open,
                source: inner.trim().to_owned(),
            });
            rest_start = close + 2;
        }
        if rest_start < template.len() {
            parts.push(Part::Text(template[rest_start..].to_owned()));
        }
        Ok(Template { parts })
    }

    /// Renders the template for one page.
    pub fn render(&self, scope: &dyn Scope, ctx: &EvalContext) -> Result<String, Error> {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Text(text) => out.push_str(text),
                Part::Placeholder { expr, at, source } => {
                    let value = expr
                        .eval(scope, ctx)
                        .map_err(|e| Error::new(*at, e.message))?;
                    if value == Value::Null {
                        return Err(Error::new(*at, format!("{{{{{source}}}}} has no value")));
                    }
                    out.push_str(&value.to_string());
                }
            }
        }
        Ok(out)
    }
}

/// Parses and renders `template` in one step: `render_template("notes/{{year}}/{{slug}}.md",
/// &scope, &ctx)`.
pub fn render_template(
    template: &str,
    scope: &dyn Scope,
    ctx: &EvalContext,
) -> Result<String, Error> {
    Template::parse(template)?.render(scope, ctx)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn scope() -> BTreeMap<String, Value> {
        let mut scope = BTreeMap::new();
        scope.insert(
            "date".into(),
            Value::from_json(&serde_json::json!("2024-03-07")),
        );
        scope.insert("title".into(), Value::from("Weekly Review: Q1!"));
        scope.insert("stem".into(), Value::from("review"));
        scope.insert("dir".into(), Value::from("inbox"));
        scope.insert(
            "fm".into(),
            Value::from_json(&serde_json::json!({"project": "Apollo", "review-by": "ann"})),
        );
        scope
    }

    #[test]
    fn renders_builtin_placeholders_and_expressions() {
        let ctx =
            EvalContext::at(chrono::DateTime::parse_from_rfc3339("2024-03-07T09:00:00Z").unwrap());
        assert_eq!(
            render_template(
                "notes/{{year}}/{{month}}/{{day}}/{{slug}}.md",
                &scope(),
                &ctx
            )
            .unwrap(),
            "notes/2024/03/07/weekly-review-q1.md"
        );
        assert_eq!(
            render_template(
                r#"{{dir}}/{{ lower(fm.project) }}/{{ fm["review-by"] }}-{{stem}}.md"#,
                &scope(),
                &ctx
            )
            .unwrap(),
            "inbox/apollo/ann-review.md"
        );
    }

    #[test]
    fn template_errors_have_positions() {
        let ctx =
            EvalContext::at(chrono::DateTime::parse_from_rfc3339("2024-03-07T09:00:00Z").unwrap());
        assert_eq!(
            Template::parse("a/{{year").unwrap_err(),
            Error::new(2, "unterminated placeholder: expected '}}'")
        );
        assert_eq!(Template::parse("a/{{ x + }}").unwrap_err().position, 9);
        assert_eq!(
            render_template("a/{{fm.missing}}.md", &scope(), &ctx).unwrap_err(),
            Error::new(2, "{{fm.missing}} has no value")
        );
    }
}
