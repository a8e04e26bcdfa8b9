//! The chunker: a markdown page → windows of at most `size` tokens, each prefixed with the
//! heading path of its section.
//!
//! Tokens are counted with the local model's tokenizer ([`Tokens::shared`]). BERT's WordPiece
//! tokenizes each whitespace-separated word on its own, so a window's count is the sum of its
//! words' counts; the chunker works on that word stream and cuts it only between words.

use std::collections::HashMap;

use crate::local::Tokens;
use crate::Chunk;

/// Cuts `markdown` into chunks of at most about `size` tokens.
///
/// * A leading frontmatter block (`---` … `---`) is dropped; an empty body gives no chunks.
/// * A body of at most `size` tokens gives one chunk: the body as written.
/// * Otherwise the body is cut at ATX headings (`#` … `######`, outside code) first. Each chunk
///   of a section starts with the section's heading path, e.g. `Stars > Distances: `; text
///   before the first heading has no prefix. A heading with neither text nor subsections
///   gives a chunk of its path alone.
/// * Within a section, blocks (paragraphs, fenced code blocks) are packed whole into windows.
///   A block that does not fit in a window on its own is cut: a fenced code block at line
///   ends, a paragraph between words. A single word longer than a window is a chunk of its own.
/// * Consecutive windows of one section overlap by at most `overlap` tokens of whole words.
///   The overlap is clamped below `size / 2`, and given up where it would push a block that
///   fits a window into the next one.
/// * The heading prefix counts against `size`, but leaves each window at least `size / 2`.
pub fn chunk(markdown: &str, size: usize, overlap: usize) -> Vec<Chunk> {
    chunk_with(Tokens::shared(), markdown, size, overlap)
}

/// [`chunk`] with a tokenizer of the caller's.
pub fn chunk_with(tokens: &Tokens, markdown: &str, size: usize, overlap: usize) -> Vec<Chunk> {
    let size = size.max(1);
    let overlap = overlap.min(size.saturating_sub(1) / 2);
    let body = strip_frontmatter(markdown);
    if body.trim().is_empty() {
        return Vec::new();
    }
    let sections = sections(body);
    let mut counts = Counts {
        tokens,
        seen: HashMap::new(),
    };
    let streams: Vec<Vec<Word>> = sections
        .iter()
        .map(|s| {
            s.blocks
                .iter()
                .flat_map(|b| words(&mut counts, body, b))
                .collect()
        })
        .collect();
    let total: usize = sections
        .iter()
        .zip(&streams)
        .map(|(s, words)| s.heading_tokens(tokens) + words.iter().map(|w| w.tokens).sum::<usize>())
        .sum();
    if total <= size {
        return vec![Chunk {
            idx: 0,
            text: body.trim().to_owned(),
        }];
    }

    let mut out = Vec::new();
    for (i, (section, stream)) in sections.iter().zip(&streams).enumerate() {
        let path = section.path.join(" > ");
        if stream.is_empty() {
            let has_children = sections
                .get(i + 1)
                .is_some_and(|next| next.level > section.level);
            if !path.is_empty() && !has_children {
                out.push(path);
            }
            continue;
        }
        let budget = size
            .saturating_sub(tokens.count(&path))
            .max(size / 2)
            .max(1);
        for (s, e) in windows(stream, budget, overlap) {
            let text = render(body, &stream[s..e]);
            out.push(if path.is_empty() {
                text
            } else {
                format!("{path}: {text}")
            });
        }
    }
    out.into_iter()
        .enumerate()
        .map(|(idx, text)| Chunk { idx, text })
        .collect()
}

/// The page without a leading `---` frontmatter block (kept if it never closes).
fn strip_frontmatter(page: &str) -> &str {
    let page = page.strip_prefix('\u{feff}').unwrap_or(page);
    let mut lines = page.split_inclusive('\n');
    match lines.next() {
        Some(first) if first.trim_end() == "---" => {}
        _ => return page,
    }
    let mut at = page.split_inclusive('\n').next().map_or(0, str::len);
    for line in lines {
        at += line.len();
        let l = line.trim_end();
        if l == "---" || l == "..." {
            return &page[at..];
        }
    }
    page
}

/// A run of the page: a paragraph or a fenced code block (byte range, fences included).
#[derive(Debug)]
struct Block {
    start: usize,
    end: usize,
    code: bool,
}

#[derive(Debug)]
struct Section {
    /// 0 before the first heading, else the heading's level.
    level: usize,
    path: Vec<String>,
    blocks: Vec<Block>,
}

impl Section {
    fn heading_tokens(&self, tokens: &Tokens) -> usize {
        self.path.last().map_or(0, |t| tokens.count(t))
    }
}

/// `(level, title)` if `line` is an ATX heading.
fn heading(line: &str) -> Option<(usize, &str)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let level = rest.len() - rest.trim_start_matches('#').len();
    if !(1..=6).contains(&level) {
        return None;
    }
    let after = &rest[level..];
    if !after.is_empty() && !after.starts_with([' ', '\t']) {
        return None;
    }
    let title = after.trim();
    // A closing run of `#` is not part of the title.
    let stripped = title.trim_end_matches('#');
    let title = if stripped.is_empty() || stripped.ends_with([' ', '\t']) {
        stripped.trim_end()
    } else {
        title
    };
    Some((level, title))
}

/// `(fence char, run length)` if `line` opens or closes a fenced code block.
fn fence(line: &str) -> Option<(char, usize)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let c = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let run = rest.len() - rest.trim_start_matches(c).len();
    (run >= 3).then_some((c, run))
}

/// The body split into sections at headings, each a list of blocks.
fn sections(body: &str) -> Vec<Section> {
    let mut out = vec![Section {
        level: 0,
        path: Vec::new(),
        blocks: Vec::new(),
    }];
    let mut stack: Vec<(usize, String)> = Vec::new();
    let mut para: Option<usize> = None;
    let mut code: Option<(usize, char, usize)> = None;
    let mut at = 0;
    for raw in body.split_inclusive('\n') {
        let start = at;
        at += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        let section = out.last_mut().expect("one section at least");
        if let Some((from, c, run)) = code {
            if let Some((c2, run2)) = fence(line) {
                if c2 == c && run2 >= run && line.trim().trim_start_matches(c).is_empty() {
                    section.blocks.push(Block {
                        start: from,
                        end: start + line.len(),
                        code: true,
                    });
                    code = None;
                }
            }
            continue;
        }
        let close_para = |section: &mut Section, para: &mut Option<usize>| {
            if let Some(from) = para.take() {
                let end = body[..start].trim_end().len().max(from);
                section.blocks.push(Block {
                    start: from,
                    end,
                    code: false,
                });
            }
        };
        if let Some((c, run)) = fence(line) {
            close_para(section, &mut para);
            code = Some((start, c, run));
        } else if let Some((level, title)) = heading(line) {
            close_para(section, &mut para);
            while stack.last().is_some_and(|(l, _)| *l >= level) {
                stack.pop();
            }
            stack.push((level, title.to_owned()));
            out.push(Section {
                level,
                path: stack.iter().map(|(_, t)| t.clone()).collect(),
                blocks: Vec::new(),
            });
        } else if line.trim().is_empty() {
            close_para(section, &mut para);
        } else if para.is_none() {
            para = Some(start);
        }
    }
    let section = out.last_mut().expect("one section at least");
    if let Some((from, _, _)) = code {
        // An unclosed fence runs to the end of the page.
        section.blocks.push(Block {
            start: from,
            end: body.trim_end().len().max(from),
            code: true,
        });
    } else if let Some(from) = para {
        section.blocks.push(Block {
            start: from,
            end: body.trim_end().len().max(from),
            code: false,
        });
    }
    out.retain(|s| s.level > 0 || !s.blocks.is_empty());
    out
}

/// One whitespace-separated word of the page.
#[derive(Debug, Clone, Copy)]
struct Word {
    start: usize,
    end: usize,
    tokens: usize,
    /// A window may start here without cutting a block.
    block_start: bool,
    /// A window may start here without cutting a line (of a code block).
    line_start: bool,
}

/// Token counts of words, each distinct word tokenized once. BERT's pre-tokenizer splits at
/// whitespace before WordPiece runs, so a word's count does not depend on its neighbours.
struct Counts<'a, 'b> {
    tokens: &'a Tokens,
    seen: HashMap<&'b str, usize>,
}

impl<'b> Counts<'_, 'b> {
    fn of(&mut self, word: &'b str) -> usize {
        *self
            .seen
            .entry(word)
            .or_insert_with(|| self.tokens.count(word))
    }
}

/// The words of `block`, with their token counts.
fn words<'b>(counts: &mut Counts<'_, 'b>, body: &'b str, block: &Block) -> Vec<Word> {
    let text = &body[block.start..block.end];
    let mut out: Vec<Word> = Vec::new();
    let mut word_start = None;
    let mut newline = true;
    let mut line_start = true;
    for (i, ch) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        if ch.is_whitespace() {
            if let Some(s) = word_start.take() {
                out.push(Word {
                    start: block.start + s,
                    end: block.start + i,
                    tokens: 0,
                    block_start: out.is_empty(),
                    line_start: !block.code || line_start,
                });
                line_start = false;
            }
            if ch == '\n' {
                newline = true;
            }
        } else if word_start.is_none() {
            word_start = Some(i);
            if newline {
                line_start = true;
                newline = false;
            }
        }
    }
    for w in &mut out {
        w.tokens = counts.of(&body[w.start..w.end]);
    }
    out
}

/// The word ranges `[s, e)` of each window of a section.
fn windows(stream: &[Word], budget: usize, overlap: usize) -> Vec<(usize, usize)> {
    let mut prefix = Vec::with_capacity(stream.len() + 1);
    prefix.push(0usize);
    for w in stream {
        prefix.push(prefix.last().copied().unwrap_or(0) + w.tokens);
    }
    let cost = |s: usize, e: usize| prefix[e] - prefix[s];
    let block_end = |p: usize| {
        (p + 1..stream.len())
            .find(|&i| stream[i].block_start)
            .unwrap_or(stream.len())
    };

    let mut out = Vec::new();
    let mut p = 0;
    let mut prev_start = 0;
    while p < stream.len() {
        // Seed with the tail of the previous window: whole words, at most `overlap` tokens.
        let mut s = p;
        if !out.is_empty() {
            while s > prev_start + 1 && cost(s - 1, p) <= overlap {
                s -= 1;
            }
        }
        // The furthest end that fits.
        let mut e_max = p;
        while e_max < stream.len() && cost(s, e_max + 1) <= budget {
            e_max += 1;
        }
        let boundary = (p + 1..=e_max)
            .rev()
            .find(|&i| i == stream.len() || stream[i].block_start);
        let e = if let Some(e) = boundary {
            e
        } else if stream[p].block_start && cost(p, block_end(p)) <= budget {
            // The next block fits a window but not behind the overlap: shorten the overlap.
            let e = block_end(p);
            while cost(s, e) > budget {
                s += 1;
            }
            e
        } else {
            // The block is cut: at a line end of a code block if one fits, else between words.
            let line = (p + 1..=e_max).rev().find(|&i| stream[i].line_start);
            line.unwrap_or(e_max).max(p + 1)
        };
        out.push((s, e));
        prev_start = s;
        p = e;
    }
    out
}

/// The text of a window: the page's own text within a block, blocks joined by a blank line.
fn render(body: &str, words: &[Word]) -> String {
    let mut out = String::new();
    let mut run_start = 0;
    for (i, w) in words.iter().enumerate() {
        if i > 0 && w.block_start {
            out.push_str(&body[words[run_start].start..words[i - 1].end]);
            out.push_str("\n\n");
            run_start = i;
        }
    }
    if let Some(last) = words.last() {
        out.push_str(&body[words[run_start].start..last.end]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(page: &str, size: usize, overlap: usize) -> Vec<String> {
        let chunks = chunk(page, size, overlap);
        for (i, c) in chunks.iter().enumerate() {
            assert_eq!(c.idx, i);
        }
        chunks.into_iter().map(|c| c.text).collect()
    }

    fn count(text: &str) -> usize {
        Tokens::shared().count(text)
    }

    /// `n` distinct one-token words.
    fn words(n: usize, from: usize) -> String {
        const W: [&str; 10] = [
            "apple", "river", "stone", "cloud", "green", "house", "music", "paper", "table",
            "water",
        ];
        (from..from + n)
            .map(|i| W[i % 10])
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn word_counts_add_up_to_the_count_of_the_text() {
        let text = "Parallax (π), naïve café—stars! 星の距離 `code::path()` x=1;\tend\u{7}.";
        let per_word: usize = text.split_whitespace().map(count).sum();
        assert_eq!(per_word, count(text));
    }

    #[test]
    fn empty_page_gives_no_chunks() {
        assert!(texts("", 64, 8).is_empty());
        assert!(texts("  \n\n \n", 64, 8).is_empty());
        assert!(texts("---\ntitle: x\n---\n\n", 64, 8).is_empty());
    }

    #[test]
    fn short_page_gives_one_chunk_as_written() {
        let page = "# Stars\n\nSuns are far.\n\n## Distances\n\nParallax.";
        assert_eq!(texts(page, 64, 8), vec![page.to_owned()]);
    }

    #[test]
    fn frontmatter_is_dropped() {
        let page = "---\ntitle: Secret frontmatter\ntags: [x]\n---\nBody text here.";
        assert_eq!(texts(page, 64, 8), vec!["Body text here.".to_owned()]);
        // A `---` that never closes is not frontmatter.
        assert_eq!(
            texts("---\nno close", 64, 8),
            vec!["---\nno close".to_owned()]
        );
    }

    #[test]
    fn sections_start_with_their_heading_path() {
        let page = format!(
            "Intro {}\n\n# Stars\n\n{}\n\n## Distances\n\n{}\n\n# Bread\n\n{}",
            words(20, 0),
            words(20, 1),
            words(20, 2),
            words(20, 3)
        );
        let t = texts(&page, 30, 0);
        assert_eq!(t.len(), 4, "{t:#?}");
        assert!(t[0].starts_with("Intro apple"));
        assert!(t[1].starts_with("Stars: river"));
        assert!(t[2].starts_with("Stars > Distances: stone"));
        assert!(t[3].starts_with("Bread: cloud"));
    }

    #[test]
    fn a_heading_with_no_text_and_no_subsection_is_a_chunk_of_its_own() {
        let page = format!(
            "# A\n\n## B\n\n{}\n\n## Empty\n\n# C\n\n{}",
            words(20, 0),
            words(20, 0)
        );
        let t = texts(&page, 25, 0);
        assert_eq!(t.len(), 3, "{t:#?}");
        assert!(t[0].starts_with("A > B: "));
        assert_eq!(t[1], "A > Empty");
        assert!(t[2].starts_with("C: "));
    }

    #[test]
    fn paragraphs_are_packed_whole_into_windows_of_at_most_size() {
        let paras: Vec<String> = (0..6).map(|i| words(12, i)).collect();
        let page = paras.join("\n\n");
        let t = texts(&page, 30, 0);
        // Two 12-token paragraphs fit in 30 tokens, three do not.
        assert_eq!(
            t,
            vec![
                format!("{}\n\n{}", paras[0], paras[1]),
                format!("{}\n\n{}", paras[2], paras[3]),
                format!("{}\n\n{}", paras[4], paras[5]),
            ]
        );
        for c in &t {
            assert!(count(c) <= 30);
        }
    }

    #[test]
    fn a_paragraph_longer_than_size_is_cut_between_words() {
        let page = words(100, 0);
        let t = texts(&page, 40, 0);
        assert_eq!(t.len(), 3);
        for c in &t {
            assert!(count(c) <= 40, "{c}");
        }
        assert_eq!(t.join(" "), page);
    }

    #[test]
    fn a_code_block_is_not_split_when_it_fits_a_window() {
        let code = format!("```\n{}\n{}\n```", words(8, 0), words(8, 3));
        let page = format!("{}\n\n{code}\n\n{}", words(20, 0), words(5, 0));
        let t = texts(&page, 30, 0);
        assert!(t.iter().any(|c| c.contains(&code)), "{t:#?}");
    }

    #[test]
    fn a_code_block_larger_than_size_is_split_at_line_ends() {
        let lines: Vec<String> = (0..10)
            .map(|i| format!("let {} = {};", words(1, i), i))
            .collect();
        let code = format!("```rust\n{}\n```", lines.join("\n"));
        let t = texts(&code, 20, 0);
        assert!(t.len() > 1);
        for c in &t {
            assert!(count(c) <= 20, "{c}");
            // Every cut is at a line end: each piece is whole lines of the block.
            for line in c.lines() {
                assert!(
                    line.starts_with("let ") || line.starts_with("```"),
                    "{line:?} in {c:?}"
                );
                assert!(
                    line.ends_with(';') || line.starts_with("```"),
                    "{line:?} in {c:?}"
                );
            }
        }
    }

    #[test]
    fn headings_inside_code_blocks_do_not_start_sections() {
        let page = format!(
            "# Real\n\n```\n# not a heading\n{}\n```\n\n{}",
            words(30, 0),
            words(30, 0)
        );
        let t = texts(&page, 40, 0);
        assert!(t.iter().all(|c| c.starts_with("Real: ")), "{t:#?}");
    }

    #[test]
    fn consecutive_windows_overlap_by_whole_words() {
        // 100 distinct words, so the shared run of two windows is unambiguous.
        const W: [&str; 10] = [
            "apple", "river", "stone", "cloud", "green", "house", "music", "paper", "table",
            "water",
        ];
        let page = (0..100)
            .map(|i| format!("{}{}", W[i % 10], W[i / 10]))
            .collect::<Vec<_>>()
            .join(" ");
        let t = texts(&page, 60, 10);
        assert!(t.len() >= 3);
        for pair in t.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            let b_words: Vec<&str> = b.split(' ').collect();
            let shared = (1..b_words.len())
                .rev()
                .find(|&n| a.ends_with(&format!(" {}", b_words[..n].join(" "))))
                .unwrap_or(0);
            let shared_tokens = count(&b_words[..shared].join(" "));
            // Whole words, at most `overlap` tokens, and not much less (one word is < 5 tokens).
            assert!(
                (6..=10).contains(&shared_tokens),
                "overlap {shared_tokens} tokens: {a:?} / {b:?}"
            );
            assert!(count(b) <= 60);
        }
    }

    #[test]
    fn overlap_is_clamped_below_half_the_size() {
        let page = words(100, 0);
        let t = texts(&page, 20, 50);
        // With overlap 9 (< 10), each window advances by at least 11 words.
        assert!(t.len() <= 100 / 11 + 2, "{}", t.len());
        assert_eq!(t.last().map(|c| c.ends_with("water")), Some(true));
    }

    #[test]
    fn a_word_longer_than_size_is_a_chunk_of_its_own() {
        // Under BERT's 100-character limit, so it is many word pieces rather than one [UNK].
        let long = "supercalifragilistic".repeat(4);
        let page = format!("{} {long} {}", words(5, 0), words(5, 0));
        let t = texts(&page, 10, 2);
        assert!(count(&long) > 10);
        assert!(t.iter().any(|c| c.contains(&long)), "{t:#?}");
    }

    mod prop {
        use super::super::chunk;
        use proptest::prelude::*;

        fn line() -> impl Strategy<Value = String> {
            prop_oneof![
                3 => "[a-z]{1,8}( [a-z]{1,8}){0,12}",
                1 => "#{1,3} [a-z]{1,8}( [a-z]{1,8}){0,2}",
                1 => Just(String::new()),
                1 => Just("```".to_owned()),
                1 => "    [a-z]{1,6} = [0-9]{1,4};",
            ]
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]
            #[test]
            fn every_word_of_the_body_is_in_some_chunk(
                lines in prop::collection::vec(line(), 0..40),
                size in 8usize..80,
                overlap in 0usize..40,
            ) {
                let page = lines.join("\n");
                let chunks = chunk(&page, size, overlap);
                for word in page.split_whitespace().filter(|w| !w.starts_with('#') && !w.starts_with("```")) {
                    prop_assert!(
                        chunks.iter().any(|c| c.text.split_whitespace().any(|w| w.trim_end_matches(':') == word)),
                        "{word:?} missing from {chunks:#?}"
                    );
                }
            }
        }
    }
}
