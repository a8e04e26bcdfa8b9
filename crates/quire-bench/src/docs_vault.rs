//! A vault made of quire's own documentation, one page per topic: the pages the labelled
//! questions of `eval/questions.json` are asked against.
//!
//! The rule, so that a question's expected path stays stable while the docs grow:
//!
//! * `docs/decisions.md`: each top-level bullet is a page. Its title is the bold text that
//!   opens it (`* **Title.** …` or `* **Title** …`, the final period dropped); a bullet
//!   without one takes its section's heading. The page's text is the bullet and its
//!   continuation lines. A paragraph that opens with bold text (`**WebDAV** (…)`, the
//!   introductions of the file protocols) is a page the same way. Path:
//!   `decisions/<section-slug>/<title-slug>.md`.
//! * `README.md`, `ARCHITECTURE.md`, `docs/PERFORMANCE.md`, `docs/RELIABILITY.md`: each `## `
//!   section is a page (its `### ` subsections included), titled by the heading, at
//!   `<doc>/<section-slug>.md`; the text before the first `## ` is a page too, titled by the
//!   document's `# ` heading, at `<doc>/overview.md`.
//!
//! Slugs are lowercase ASCII letters, digits and `-`, at most [`SLUG_MAX`] characters; a
//! path already taken gets `-2`, `-3`… in the order of the sources. Every page starts with
//! `# Title`. Only `std`: the same input always gives the same pages.

use std::collections::HashSet;
use std::io;
use std::path::Path;

/// The longest slug, cut at a `-` where one is near.
pub const SLUG_MAX: usize = 60;

/// How a source document is cut into pages.
#[derive(Clone, Copy)]
enum Cut {
    /// One page per top-level bullet, in folders per `## ` section.
    Bullets,
    /// One page per `## ` section.
    Sections,
}

/// The documents read, relative to the repository, in the order their pages are named.
const SOURCES: [(&str, Cut); 5] = [
    ("docs/decisions.md", Cut::Bullets),
    ("README.md", Cut::Sections),
    ("ARCHITECTURE.md", Cut::Sections),
    ("docs/PERFORMANCE.md", Cut::Sections),
    ("docs/RELIABILITY.md", Cut::Sections),
];

/// One page of the vault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocPage {
    /// Root-relative, `/`-separated, ending in `.md`.
    pub path: String,
    /// The whole file, starting with `# Title`.
    pub text: String,
}

/// The pages made from the documentation of the repository at `repo`.
pub fn pages(repo: &Path) -> io::Result<Vec<DocPage>> {
    let mut taken = HashSet::new();
    let mut out = Vec::new();
    for (source, cut) in SOURCES {
        let markdown = std::fs::read_to_string(repo.join(source))
            .map_err(|e| io::Error::new(e.kind(), format!("{source}: {e}")))?;
        let doc = slug(
            Path::new(source)
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or(source),
        );
        let found = match cut {
            Cut::Bullets => bullets(&markdown),
            Cut::Sections => sections(&markdown),
        };
        for piece in found {
            let stem = match &piece.section {
                Some(section) => format!("{doc}/{}/{}", slug(section), slug(&piece.title)),
                None => format!("{doc}/{}", piece.name.unwrap_or_else(|| slug(&piece.title))),
            };
            let path = unique(&mut taken, &stem);
            out.push(DocPage {
                text: format!("# {}\n\n{}\n", piece.title, piece.body.trim_end()),
                path,
            });
        }
    }
    Ok(out)
}

/// Writes `pages` below `dir` (created as needed).
pub fn write(pages: &[DocPage], dir: &Path) -> io::Result<()> {
    for page in pages {
        let full = dir.join(&page.path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(full, &page.text)?;
    }
    Ok(())
}

/// A piece of a document before it is named.
struct Piece {
    /// The `## ` heading it sits under, for pages grouped in folders.
    section: Option<String>,
    /// A fixed file stem instead of the title's slug.
    name: Option<String>,
    title: String,
    body: String,
}

/// `stem.md`, or `stem-2.md`, `stem-3.md`… if taken.
fn unique(taken: &mut HashSet<String>, stem: &str) -> String {
    let mut n = 1;
    loop {
        let path = if n == 1 {
            format!("{stem}.md")
        } else {
            format!("{stem}-{n}.md")
        };
        if taken.insert(path.clone()) {
            return path;
        }
        n += 1;
    }
}

/// Lowercase ASCII letters and digits, runs of anything else as one `-`, at most
/// [`SLUG_MAX`] characters (cut at the last `-` in the second half, if any).
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    if out.len() > SLUG_MAX {
        out.truncate(SLUG_MAX);
        if let Some(cut) = out.rfind('-').filter(|&i| i >= SLUG_MAX / 2) {
            out.truncate(cut);
        }
    }
    let out = out.trim_matches('-').to_string();
    if out.is_empty() {
        "untitled".to_string()
    } else {
        out
    }
}

/// Lines with whether each is inside a fenced code block (fence lines count as inside), so a
/// `# comment` in a shell example is not taken for a heading.
fn fenced_lines(markdown: &str) -> Vec<(&str, bool)> {
    let mut fence: Option<&str> = None;
    markdown
        .lines()
        .map(|line| {
            let trimmed = line.trim_start();
            let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
            match (fence, marker) {
                (None, Some(m)) => {
                    fence = Some(m);
                    (line, true)
                }
                (Some(open), Some(m)) if open == m => {
                    fence = None;
                    (line, true)
                }
                (open, _) => (line, open.is_some()),
            }
        })
        .collect()
}

/// The text of a `## ` heading line, or none.
fn section_heading(line: &str) -> Option<&str> {
    line.strip_prefix("## ").map(str::trim)
}

/// A top-level bullet's text after its marker, or none.
fn bullet_start(line: &str) -> Option<&str> {
    line.strip_prefix("* ").or_else(|| line.strip_prefix("- "))
}

/// What the line being read continues.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    Nothing,
    /// A bullet: indented lines and blank lines between them.
    Bullet,
    /// A paragraph opening with bold text: every line up to a blank one.
    Paragraph,
}

/// One piece per top-level bullet and per paragraph opening with bold text, each under the
/// `## ` section it sits in.
fn bullets(markdown: &str) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::new();
    let mut section: Option<String> = None;
    let mut open = Open::Nothing;
    for (line, in_code) in fenced_lines(markdown) {
        let blank = line.trim().is_empty();
        let continues = match open {
            Open::Nothing => false,
            Open::Bullet => in_code || blank || line.starts_with(' '),
            Open::Paragraph => {
                in_code || !(blank || bullet_start(line).is_some() || line.starts_with('#'))
            }
        };
        if continues {
            out.last_mut().expect("open").body.push_str(&dedent(line));
            continue;
        }
        open = Open::Nothing;
        if in_code {
            continue;
        }
        let start = match (section_heading(line), bullet_start(line)) {
            (Some(heading), _) => {
                section = Some(heading.to_string());
                None
            }
            (None, Some(rest)) => Some((rest, Open::Bullet)),
            (None, None) if line.starts_with("**") => Some((line, Open::Paragraph)),
            (None, None) => None,
        };
        if let Some((rest, kind)) = start {
            let heading = section.clone().unwrap_or_default();
            out.push(Piece {
                section: section.clone(),
                name: None,
                title: bold_title(rest).unwrap_or(heading),
                body: format!("{rest}\n"),
            });
            open = kind;
        }
    }
    for piece in &mut out {
        piece.body = piece.body.trim_end().to_string();
    }
    out
}

/// A continuation line without the two spaces that put it under its bullet, with its newline.
fn dedent(line: &str) -> String {
    let line = line.strip_prefix("  ").unwrap_or(line.trim_start());
    format!("{line}\n")
}

/// The bold text opening a bullet (`**Title.**` or `**Title**`), without a final period;
/// none when the bullet does not open with bold text.
fn bold_title(rest: &str) -> Option<String> {
    let inner = rest.strip_prefix("**")?;
    let end = inner.find("**")?;
    let title = inner[..end].trim().trim_end_matches(['.', ':']).trim();
    (!title.is_empty()).then(|| title.to_string())
}

/// One piece per `## ` section, and one for the text before the first.
fn sections(markdown: &str) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::new();
    let mut doc_title = None;
    let mut preamble = String::new();
    for (line, in_code) in fenced_lines(markdown) {
        let heading = if in_code { None } else { section_heading(line) };
        if let Some(heading) = heading {
            out.push(Piece {
                section: None,
                name: None,
                title: heading.to_string(),
                body: String::new(),
            });
        } else if let Some(last) = out.last_mut() {
            last.body.push_str(line);
            last.body.push('\n');
        } else if let Some(title) = line.strip_prefix("# ").filter(|_| !in_code) {
            doc_title.get_or_insert_with(|| title.trim().to_string());
        } else {
            preamble.push_str(line);
            preamble.push('\n');
        }
    }
    if !preamble.trim().is_empty() {
        out.insert(
            0,
            Piece {
                section: None,
                name: Some("overview".to_string()),
                title: doc_title.unwrap_or_else(|| "Overview".to_string()),
                body: preamble,
            },
        );
    }
    for piece in &mut out {
        piece.body = piece.body.trim().to_string();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_lowercase_ascii_and_short() {
        assert_eq!(slug("§1 Names."), "1-names");
        assert_eq!(
            slug("`actor` and `message` in JSON bodies"),
            "actor-and-message-in-json-bodies"
        );
        assert_eq!(
            slug("Opening a root cold (issue 15)"),
            "opening-a-root-cold-issue-15"
        );
        let long = slug(&"word ".repeat(30));
        assert!(long.len() <= SLUG_MAX && !long.ends_with('-'), "{long}");
        assert_eq!(slug("§"), "untitled");
    }

    #[test]
    fn bullets_are_pages_under_their_section() {
        let md = "# D\n\nintro\n\n## Files API\n\n* **Write responses.** `PUT` answers\n  200 always.\n\n  More of it.\n* **ETag header** values are quoted.\n* plain bullet\n\nA paragraph.\n\n## Other\n\n* **Write responses.** again\n\n**S3** (a crate):\nits keys.\n\n* **Auth.** keys\n";
        let got = bullets(md);
        let titles: Vec<_> = got.iter().map(|p| p.title.as_str()).collect();
        assert_eq!(
            titles,
            [
                "Write responses",
                "ETag header",
                "Files API",
                "Write responses",
                "S3",
                "Auth"
            ]
        );
        assert_eq!(got[4].body, "**S3** (a crate):\nits keys.");
        assert_eq!(
            got[0].body,
            "**Write responses.** `PUT` answers\n200 always.\n\nMore of it."
        );
        assert_eq!(got[2].body, "plain bullet");
        assert_eq!(got[3].section.as_deref(), Some("Other"));
    }

    #[test]
    fn sections_ignore_headings_in_code() {
        let md = "# Tool\n\nWhat it is.\n\n## Setup\n\n```sh\n## not a heading\n```\n### Sub\ntext\n## Use\nmore\n";
        let got = sections(md);
        let titles: Vec<_> = got.iter().map(|p| p.title.as_str()).collect();
        assert_eq!(titles, ["Tool", "Setup", "Use"]);
        assert_eq!(got[0].name.as_deref(), Some("overview"));
        assert!(got[1].body.contains("## not a heading") && got[1].body.contains("### Sub"));
    }

    #[test]
    fn taken_paths_get_a_number() {
        let mut taken = HashSet::new();
        assert_eq!(unique(&mut taken, "a/b"), "a/b.md");
        assert_eq!(unique(&mut taken, "a/b"), "a/b-2.md");
        assert_eq!(unique(&mut taken, "a/b"), "a/b-3.md");
    }
}
