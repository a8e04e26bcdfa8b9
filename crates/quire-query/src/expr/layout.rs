//! Date layouts: strftime (`%Y-%m-%d`) as chrono reads it, and Go reference layouts
//! (`2006-01-02`, `Jan 2, 2006`, `15:04`) converted to strftime.

use chrono::format::{Item, StrftimeItems};

/// Go reference-time elements and their strftime equivalents, longest first so that
/// `2006` wins over `2` and `January` over `Jan`.
const GO_ELEMENTS: [(&str, &str); 29] = [
    ("January", "%B"),
    ("Monday", "%A"),
    (".000000000", "%.9f"),
    (".000000", "%.6f"),
    (".000", "%.3f"),
    ("-07:00", "%:z"),
    ("Z07:00", "%:z"),
    ("-0700", "%z"),
    ("2006", "%Y"),
    ("Jan", "%b"),
    ("Mon", "%a"),
    ("MST", "%Z"),
    ("002", "%j"),
    ("_2", "%e"),
    ("01", "%m"),
    ("02", "%d"),
    ("03", "%I"),
    ("04", "%M"),
    ("05", "%S"),
    ("06", "%y"),
    ("15", "%H"),
    ("PM", "%p"),
    ("pm", "%P"),
    ("1", "%-m"),
    ("2", "%-d"),
    ("3", "%-I"),
    ("4", "%-M"),
    ("5", "%-S"),
    ("%", "%%"),
];

/// Converts a Go reference layout to strftime; text that is no Go element is kept.
///
/// ```
/// assert_eq!(quire_query::go_layout_to_strftime("Jan 2, 2006 15:04"), "%b %-d, %Y %H:%M");
/// ```
pub fn go_layout_to_strftime(layout: &str) -> String {
    let mut out = String::with_capacity(layout.len() + 8);
    let mut rest = layout;
    'outer: while !rest.is_empty() {
        for (go, strftime) in GO_ELEMENTS {
            if let Some(after) = rest.strip_prefix(go) {
                out.push_str(strftime);
                rest = after;
                continue 'outer;
            }
        }
        let c = rest.chars().next().unwrap_or_default();
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// The strftime form of a layout: layouts containing `%` are strftime already, others are Go
/// layouts. `Err` when chrono would reject the layout (it panics on formatting otherwise).
pub(crate) fn strftime_layout(layout: &str) -> Result<String, String> {
    let strftime = if layout.contains('%') {
        layout.to_owned()
    } else {
        go_layout_to_strftime(layout)
    };
    if StrftimeItems::new(&strftime).any(|item| matches!(item, Item::Error)) {
        return Err(format!("invalid date layout '{layout}'"));
    }
    Ok(strftime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_layouts_convert() {
        assert_eq!(go_layout_to_strftime("2006-01-02"), "%Y-%m-%d");
        assert_eq!(go_layout_to_strftime("15:04:05"), "%H:%M:%S");
        assert_eq!(go_layout_to_strftime("Monday, January 2"), "%A, %B %-d");
        assert_eq!(go_layout_to_strftime("3:04PM"), "%-I:%M%p");
        assert_eq!(
            go_layout_to_strftime("2006-01-02T15:04:05.000Z07:00"),
            "%Y-%m-%dT%H:%M:%S%.3f%:z"
        );
        assert_eq!(go_layout_to_strftime("100%"), "%-m00%%");
    }

    #[test]
    fn bad_strftime_is_an_error() {
        assert!(strftime_layout("%Y-%Q").is_err());
        assert!(strftime_layout("%").is_err());
        assert_eq!(strftime_layout("2006").unwrap(), "%Y");
    }
}
