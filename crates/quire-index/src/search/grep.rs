//! The grep tier (`[search] engine = "grep"`): evaluates a parsed [`Query`] over raw page
//! text, without the index. Same semantics as the FTS5 tier — tokens folded for case and
//! diacritics, CJK characters one token each, phrases as adjacent tokens, `*` as a prefix on
//! the last token — so both tiers find the same pages.
//!
//! The text is the whole file, so words in the frontmatter (tags, aliases, property values)
//! are found as in the FTS tier; words of the path are matched too, and `tag:`, `path:` and
//! `file:` by the rules of [`super::document`].
//!
//! Hits are ordered by the number of matches of the query's positive terms (title, text and
//! path), then by path. The snippet is HTML like the FTS tier's, around the first match in the
//! text. Grep knows no other metadata: the `tag` filter and `trust_boost` of the request are
//! not applied here (the caller filters the pages it passes); `path_prefix`, `limit` and
//! `offset` are.

use super::document::{file_name, place, tag_and_parents};
use super::query::{Field, Prefix, Query, Term};
use super::text::{escape_html, fold, tokens, Token};
use super::{folder, SearchHit, SearchRequest, SearchResults};

/// Tokens of context on each side of the first match in a snippet.
const CONTEXT_TOKENS: usize = 10;

/// One page as the grep tier reads it.
#[derive(Debug, Clone, Default)]
pub struct GrepPage {
    pub path: String,
    pub title: String,
    /// The whole file, frontmatter included.
    pub text: String,
    /// Where the body starts in `text` (after the frontmatter): snippets come from the body,
    /// like the FTS tier's.
    pub body_start: usize,
    /// Its tags without `#` (nested as `parent/child`); only a query with a `tag:` term reads
    /// them, so a caller may leave them out otherwise ([`Query::uses`]).
    pub tags: Vec<String>,
}

/// Searches `pages` for `query`.
pub fn search(
    query: &Query,
    pages: impl IntoIterator<Item = GrepPage>,
    request: &SearchRequest,
) -> SearchResults {
    let terms = Compiled::new(query);
    let folder = folder(request.path_prefix.as_deref());
    let mut hits = Vec::new();
    for page in pages {
        let path = page.path.as_str();
        if folder.as_deref().is_some_and(|f| !path.starts_with(f)) {
            continue;
        }
        let title_tokens = tokens(&page.title);
        let text_tokens = tokens(&page.text);
        let place_tokens = tokens(place(path));
        let file_tokens = tokens(file_name(path));
        let everywhere = [&title_tokens[..], &text_tokens[..], &place_tokens[..]];
        let mut counts = vec![0usize; terms.terms.len()];
        for (count, term) in counts.iter_mut().zip(&terms.terms) {
            *count = match term.field {
                None => everywhere
                    .iter()
                    .map(|f| occurrences(term, f).count())
                    .sum(),
                Some(Field::Path) => occurrences(term, &place_tokens).count(),
                Some(Field::File) => occurrences(term, &file_tokens).count(),
                Some(Field::Tag) => page.tags.iter().filter(|t| term.tagged(t)).count(),
            };
        }
        if !terms.matches(query, &counts, &mut 0) {
            continue;
        }
        let score = terms.positive_count(query, &counts, &mut 0);
        hits.push((score, page));
    }
    hits.sort_by(|(a, a_page), (b, b_page)| b.cmp(a).then_with(|| a_page.path.cmp(&b_page.path)));
    let total = hits.len();
    // Snippets for the hits asked for only.
    let hits = hits
        .into_iter()
        .skip(request.offset)
        .take(request.limit)
        .map(|(score, page)| {
            let body = page.text.get(page.body_start..).unwrap_or(&page.text);
            SearchHit {
                snippet: snippet(body, &tokens(body), &terms, query),
                path: page.path,
                title: page.title,
                score: score as f64,
            }
        })
        .collect();
    SearchResults { total, hits }
}

/// A term cut into folded tokens (a tag: the whole folded tag), and the field it must match
/// in (`None`: anywhere).
struct CompiledTerm {
    tokens: Vec<String>,
    prefix: Prefix,
    field: Option<Field>,
}

impl CompiledTerm {
    /// Whether the page tag `tag` is this `tag:` term's tag or one nested below it.
    fn tagged(&self, tag: &str) -> bool {
        let Some(wanted) = self.tokens.first() else {
            return false;
        };
        tag_and_parents(tag).any(|name| {
            let name = fold(name);
            match self.prefix {
                Prefix::Exact => name == *wanted,
                Prefix::Prefix => name.starts_with(wanted.as_str()),
            }
        })
    }
}

/// The terms of a query in the order a depth-first walk meets them.
struct Compiled {
    terms: Vec<CompiledTerm>,
}

impl Compiled {
    fn new(query: &Query) -> Compiled {
        fn collect(query: &Query, out: &mut Vec<CompiledTerm>) {
            match query {
                Query::Term(Term { text, prefix }) => out.push(CompiledTerm {
                    tokens: tokens(text).into_iter().map(|t| t.folded).collect(),
                    prefix: *prefix,
                    field: None,
                }),
                Query::Field(Field::Tag, Term { text, prefix }) => out.push(CompiledTerm {
                    tokens: vec![fold(text)],
                    prefix: *prefix,
                    field: Some(Field::Tag),
                }),
                Query::Field(field, Term { text, prefix }) => out.push(CompiledTerm {
                    tokens: tokens(text).into_iter().map(|t| t.folded).collect(),
                    prefix: *prefix,
                    field: Some(*field),
                }),
                Query::And(parts) | Query::Or(parts) => {
                    parts.iter().for_each(|p| collect(p, out));
                }
                Query::Not(inner) => collect(inner, out),
            }
        }
        let mut terms = Vec::new();
        collect(query, &mut terms);
        Compiled { terms }
    }

    /// Whether the page matches, given the occurrence count of every term (`next` walks the
    /// terms in [`Compiled::new`]'s order).
    fn matches(&self, query: &Query, counts: &[usize], next: &mut usize) -> bool {
        match query {
            Query::Term(_) | Query::Field(..) => {
                *next += 1;
                counts[*next - 1] > 0
            }
            // Every part is walked (no short cut) so `next` stays in step.
            Query::And(parts) => {
                let each: Vec<bool> = parts
                    .iter()
                    .map(|p| self.matches(p, counts, next))
                    .collect();
                each.into_iter().all(|m| m)
            }
            Query::Or(parts) => {
                let each: Vec<bool> = parts
                    .iter()
                    .map(|p| self.matches(p, counts, next))
                    .collect();
                each.into_iter().any(|m| m)
            }
            Query::Not(inner) => !self.matches(inner, counts, next),
        }
    }

    /// Occurrences of the terms that are not under a negation.
    fn positive_count(&self, query: &Query, counts: &[usize], next: &mut usize) -> usize {
        match query {
            Query::Term(_) | Query::Field(..) => {
                *next += 1;
                counts[*next - 1]
            }
            Query::And(parts) | Query::Or(parts) => parts
                .iter()
                .map(|p| self.positive_count(p, counts, next))
                .sum(),
            Query::Not(inner) => {
                self.positive_count(inner, counts, next);
                0
            }
        }
    }

    /// Which terms are positive words (marked in snippets), in walk order.
    fn positive(&self, query: &Query) -> Vec<bool> {
        fn walk(query: &Query, negated: bool, out: &mut Vec<bool>) {
            match query {
                Query::Term(_) => out.push(!negated),
                Query::Field(..) => out.push(false),
                Query::And(parts) | Query::Or(parts) => {
                    parts.iter().for_each(|p| walk(p, negated, out));
                }
                Query::Not(inner) => walk(inner, true, out),
            }
        }
        let mut out = Vec::with_capacity(self.terms.len());
        walk(query, false, &mut out);
        out
    }
}

/// Start indexes of the term's occurrences in `field`.
fn occurrences<'a>(term: &'a CompiledTerm, field: &'a [Token]) -> impl Iterator<Item = usize> + 'a {
    let n = term.tokens.len();
    (0..(field.len() + 1).saturating_sub(n)).filter(move |&start| {
        n > 0
            && term.tokens.iter().enumerate().all(|(i, wanted)| {
                let got = &field[start + i].folded;
                if i + 1 == n && term.prefix == Prefix::Prefix {
                    got.starts_with(wanted.as_str())
                } else {
                    got == wanted
                }
            })
    })
}

/// HTML around the first positive match in the text, all positive matches in view marked.
fn snippet(text: &str, field: &[Token], terms: &Compiled, query: &Query) -> String {
    let positive = terms.positive(query);
    // Token index ranges of every positive match.
    let mut marks: Vec<(usize, usize)> = terms
        .terms
        .iter()
        .zip(&positive)
        .filter(|(_, &p)| p)
        .flat_map(|(term, _)| occurrences(term, field).map(|s| (s, s + term.tokens.len())))
        .collect();
    marks.sort_unstable();
    let first = marks.first().map_or(0, |m| m.0);
    let from = first.saturating_sub(CONTEXT_TOKENS);
    let to = (first + CONTEXT_TOKENS * 2).min(field.len());
    if field.is_empty() {
        return String::new();
    }
    let start_byte = if from == 0 {
        0
    } else {
        field[from].range.start
    };
    let end_byte = if to == field.len() {
        text.len()
    } else {
        field[to - 1].range.end
    };
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    let mut at = start_byte;
    let mut last_end = 0;
    for &(s, e) in &marks {
        if s < from || e > to || s < last_end {
            continue;
        }
        let (ms, me) = (field[s].range.start, field[e - 1].range.end);
        escape_html(&text[at..ms], &mut out);
        out.push_str("<mark>");
        escape_html(&text[ms..me], &mut out);
        out.push_str("</mark>");
        at = me;
        last_end = e;
    }
    escape_html(&text[at..end_byte], &mut out);
    if to < field.len() {
        out.push('…');
    }
    out
}
