//! The Obsidian-flavoured constructs pulldown-cmark does not know, as pure helpers of the
//! event rewriter: `%%comments%%` (removed before parsing), callouts (`> [!type]- Title`),
//! `==highlights==`, task states beyond `[ ]`/`[x]`, and `^blockid` markers.

use std::borrow::Cow;

use pulldown_cmark::{CowStr, Event, Tag, TagEnd};

use crate::escape_html;

/// `text` without its `%%comments%%` (inline or over several lines); code (fenced, indented
/// and inline spans, as `quire-syntax` finds it) keeps its `%%`. An unclosed `%%` hides the
/// rest of the page, as in Obsidian.
pub(crate) fn strip_comments(text: &str) -> Cow<'_, str> {
    if !text.contains("%%") {
        return Cow::Borrowed(text);
    }
    let code = quire_syntax::parse(text).code;
    let in_code = |at: usize| code.iter().any(|r| r.contains(&at));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    let mut search = 0;
    while let Some(found) = text[search..].find("%%") {
        let open = search + found;
        if in_code(open) {
            search = open + 2;
            continue;
        }
        out.push_str(&text[at..open]);
        let mut close_search = open + 2;
        let close = loop {
            match text[close_search..].find("%%") {
                Some(f) if in_code(close_search + f) => close_search += f + 2,
                Some(f) => break Some(close_search + f),
                None => break None,
            }
        };
        match close {
            Some(close) => {
                at = close + 2;
                search = at;
            }
            None => return Cow::Owned(out),
        }
    }
    out.push_str(&text[at..]);
    Cow::Owned(out)
}

/// A callout's header: `[!type]`, then `-` (folded) or `+` (foldable, open), then its title.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Callout<'a> {
    /// Lowercased; letters, digits and `-` only.
    pub kind: String,
    pub fold: Option<bool>,
    pub title: &'a str,
}

pub(crate) fn callout_header(text: &str) -> Option<Callout<'_>> {
    let rest = text.strip_prefix("[!")?;
    let close = rest.find(']')?;
    let kind = &rest[..close];
    if kind.is_empty()
        || !kind
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
    {
        return None;
    }
    let mut rest = &rest[close + 1..];
    let fold = match rest.chars().next() {
        Some('-') => Some(false),
        Some('+') => Some(true),
        _ => None,
    };
    if fold.is_some() {
        rest = &rest[1..];
    }
    Some(Callout {
        kind: kind.to_lowercase(),
        fold,
        title: rest.trim_start(),
    })
}

/// The title a callout without one shows: its type, capitalised.
pub(crate) fn default_title(kind: &str) -> String {
    let mut chars = kind.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Rewrites every blockquote that starts with a callout header into the callout's HTML, in
/// place (the events between stay, so links and formatting inside are handled as anywhere).
/// A callout is a `div` (or a `details` when foldable) with `data-callout` naming its type,
/// a title and a content part; nested callouts nest.
pub(crate) fn callouts(events: &mut Vec<Event<'_>>) {
    let mut i = 0;
    while i < events.len() {
        if matches!(events[i], Event::Start(Tag::BlockQuote(_))) {
            rewrite_callout(events, i);
        }
        i += 1;
    }
}

fn rewrite_callout(events: &mut Vec<Event<'_>>, at: usize) {
    if !matches!(events.get(at + 1), Some(Event::Start(Tag::Paragraph))) {
        return;
    }
    let Some(Event::Text(first)) = events.get(at + 2) else {
        return;
    };
    let Some(header) = callout_header(first) else {
        return;
    };
    let title = header.title.to_string();
    let kind = header.kind.clone();
    let fold = header.fold;
    // The end of the title: the first line break of the first paragraph, or its end.
    let mut depth = 0usize;
    let mut title_end = at + 3;
    while title_end < events.len() {
        match &events[title_end] {
            Event::Start(_) => depth += 1,
            Event::End(TagEnd::Paragraph) if depth == 0 => break,
            Event::End(_) => depth = depth.saturating_sub(1),
            Event::SoftBreak | Event::HardBreak if depth == 0 => break,
            _ => {}
        }
        title_end += 1;
    }
    let mut quotes = 0usize;
    let mut end = at;
    for (j, event) in events.iter().enumerate().skip(at) {
        match event {
            Event::Start(Tag::BlockQuote(_)) => quotes += 1,
            Event::End(TagEnd::BlockQuote(_)) => {
                quotes -= 1;
                if quotes == 0 {
                    end = j;
                    break;
                }
            }
            _ => {}
        }
    }
    if end == at || title_end >= events.len() {
        return;
    }
    let (open, title_tag, close) = match fold {
        None => (
            format!(
                "<div class=\"callout\" data-callout=\"{}\">\n",
                escape_html(&kind)
            ),
            "div",
            "</div>\n",
        ),
        Some(open) => (
            format!(
                "<details class=\"callout\" data-callout=\"{}\"{}>\n",
                escape_html(&kind),
                if open { " open" } else { "" }
            ),
            "summary",
            "</details>\n",
        ),
    };
    let title_only = title_end == at + 3;
    let title_text = if title.is_empty() && title_only {
        default_title(&kind)
    } else {
        title
    };
    events[at] = Event::Html(format!("{open}<{title_tag} class=\"callout-title\">").into());
    events[at + 1] = Event::Html(CowStr::Borrowed(""));
    events[at + 2] = Event::Text(title_text.into());
    let content = format!("</{title_tag}>\n<div class=\"callout-content\">\n");
    events[title_end] = match events[title_end] {
        Event::End(TagEnd::Paragraph) => Event::Html(content.into()),
        _ => Event::Html(format!("{content}<p>").into()),
    };
    events[end] = Event::Html(format!("</div>\n{close}").into());
}

/// `==text==` in a text run as text and `<mark>` events. `open` says whether a highlight is
/// open when the run starts (and after it); `later` whether a later run of the same block
/// holds a `==` that may close one opened here (`==a **b** c==`).
pub(crate) fn highlights<'a>(text: CowStr<'a>, open: &mut bool, later: bool) -> Vec<Event<'a>> {
    if !text.contains("==") {
        return vec![Event::Text(text)];
    }
    let mut out = Vec::new();
    let mut plain = String::new();
    let mut rest: &str = &text;
    let flush = |plain: &mut String, out: &mut Vec<Event<'a>>| {
        if !plain.is_empty() {
            out.push(Event::Text(std::mem::take(plain).into()));
        }
    };
    while let Some(at) = rest.find("==") {
        let before = &rest[..at];
        let after = &rest[at + 2..];
        let closes = *open
            && !before.ends_with(char::is_whitespace)
            && !(before.is_empty() && plain.ends_with(char::is_whitespace));
        let opens = !*open
            && after.starts_with(|c: char| !c.is_whitespace() && c != '=')
            && (closer_in(after) || later);
        if closes || opens {
            plain.push_str(before);
            flush(&mut plain, &mut out);
            out.push(Event::Html(if opens { "<mark>" } else { "</mark>" }.into()));
            *open = opens;
        } else {
            plain.push_str(&rest[..at + 2]);
        }
        rest = after;
    }
    plain.push_str(rest);
    flush(&mut plain, &mut out);
    out
}

/// Whether `text` holds a `==` that closes a highlight (not after a space).
fn closer_in(text: &str) -> bool {
    text.match_indices("==")
        .any(|(i, _)| i > 0 && !text[..i].ends_with(char::is_whitespace))
}

/// The state of a task list item: `[ ]` open, `[x]` done, and the other one-character states
/// people use (`[/]` in progress, `[-]` cancelled …).
pub(crate) fn task_name(state: char) -> &'static str {
    match state {
        ' ' => "to do",
        'x' | 'X' => "done",
        '/' => "in progress",
        '-' => "cancelled",
        '>' => "forwarded",
        '<' => "scheduled",
        '?' => "question",
        '!' => "important",
        '*' => "star",
        '"' => "quote",
        'i' => "information",
        'I' => "idea",
        'b' => "bookmark",
        'p' => "pro",
        'c' => "con",
        _ => "other state",
    }
}

/// `[c] ` opening a list item's text: the state and the rest of the text.
pub(crate) fn task_prefix(text: &str) -> Option<(char, &str)> {
    let rest = text.strip_prefix('[')?;
    let mut chars = rest.char_indices();
    let (_, state) = chars.next()?;
    let (close, bracket) = chars.next()?;
    if bracket != ']' || state == ']' || state == '[' {
        return None;
    }
    let after = &rest[close + 1..];
    (after.starts_with(' ') || after.is_empty()).then(|| (state, after.trim_start_matches(' ')))
}

/// The box a task item starts with: a checkbox for open and done, else a box naming its state.
pub(crate) fn task_box(state: char) -> String {
    match state {
        ' ' => "<input type=\"checkbox\" disabled aria-label=\"to do\"> ".to_string(),
        'x' | 'X' => "<input type=\"checkbox\" disabled checked aria-label=\"done\"> ".to_string(),
        other => format!(
            "<span class=\"task-box\" role=\"img\" aria-label=\"{}\">{}</span> ",
            task_name(other),
            escape_html(&other.to_string())
        ),
    }
}

/// A trailing ` ^id` of a text run: the text before it and the id.
pub(crate) fn block_id(text: &str) -> Option<(&str, &str)> {
    let trimmed = text.trim_end();
    let caret = trimmed.rfind('^')?;
    let id = &trimmed[caret + 1..];
    let before = &trimmed[..caret];
    (!id.is_empty()
        && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        && (before.is_empty() || before.ends_with([' ', '\t'])))
    .then(|| (before.trim_end(), id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_removed_outside_code_only() {
        assert_eq!(strip_comments("a %%hidden%% b"), "a  b");
        assert_eq!(strip_comments("a\n%%\nline\n%%\nb"), "a\n\nb");
        assert_eq!(strip_comments("`%%kept%%` and %%gone%%"), "`%%kept%%` and ");
        assert_eq!(
            strip_comments("```\n%%code%%\n```\n"),
            "```\n%%code%%\n```\n"
        );
        assert_eq!(strip_comments("open %%never closed"), "open ");
    }

    #[test]
    fn callout_headers_name_type_fold_and_title() {
        let c = callout_header("[!TIP]- Fold me").unwrap();
        assert_eq!(
            (c.kind.as_str(), c.fold, c.title),
            ("tip", Some(false), "Fold me")
        );
        assert_eq!(callout_header("[!note]").unwrap().title, "");
        assert_eq!(callout_header("[!faq]+").unwrap().fold, Some(true));
        assert!(callout_header("[!bad type]").is_none());
        assert!(callout_header("[x] not a callout").is_none());
    }

    #[test]
    fn task_prefixes_and_block_ids() {
        assert_eq!(task_prefix("[/] half"), Some(('/', "half")));
        assert_eq!(task_prefix("[link] x"), None);
        assert_eq!(block_id("text ^abc-1"), Some(("text", "abc-1")));
        assert_eq!(block_id("^abc"), Some(("", "abc")));
        assert_eq!(block_id("2^10"), None);
        assert_eq!(block_id("x ^a_b"), None);
    }
}
