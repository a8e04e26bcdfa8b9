//! Writing one link occurrence in a chosen style, from one page to a planned target.

use crate::layout::{title_case, AssetKind, Layout, PagePlan};
use crate::paths::{percent_encode, relative, Encoding};
use crate::rng::Rng;
use crate::words::{HEADINGS, WORDS};
use crate::{LinkCounts, LinkStyle};

/// A link as it goes into the body: the inline text, plus the reference definition that
/// belongs at the end of the page for reference-style links.
#[derive(Debug)]
pub(crate) struct Piece {
    pub(crate) text: String,
    pub(crate) definition: Option<String>,
}

impl Piece {
    fn inline(text: String) -> Self {
        Piece {
            text,
            definition: None,
        }
    }
}

/// Relative weights of the styles of ordinary (non-broken) body links, in percent.
const BODY_STYLES: &[(LinkStyle, u32)] = &[
    (LinkStyle::WikiBare, 21),
    (LinkStyle::WikiPath, 8),
    (LinkStyle::WikiRelative, 5),
    (LinkStyle::WikiAlias, 8),
    (LinkStyle::WikiHeading, 6),
    (LinkStyle::WikiBlock, 3),
    (LinkStyle::WikiLocalHeading, 3),
    (LinkStyle::WikiEmbed, 5),
    (LinkStyle::WikiCaseMismatch, 3),
    (LinkStyle::WikiSeparatorFuzzy, 3),
    (LinkStyle::MarkdownRelative, 8),
    (LinkStyle::MarkdownRooted, 4),
    (LinkStyle::MarkdownNoExtension, 3),
    (LinkStyle::MarkdownAngle, 3),
    (LinkStyle::MarkdownPercentEncoded, 3),
    (LinkStyle::MarkdownTitle, 3),
    (LinkStyle::MarkdownReference, 3),
    (LinkStyle::MarkdownImage, 3),
    (LinkStyle::External, 5),
];

/// Which page a link points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Aim {
    /// A page chosen by the style (same folder, popular page, or any).
    Chosen,
    /// This page (the hub).
    Fixed(usize),
}

/// Writes the links of one page, counting each by the style it was written in.
pub(crate) struct Linker<'a> {
    layout: &'a Layout,
    source: usize,
    counts: &'a mut LinkCounts,
    /// Numbers reference labels so they stay unique within the page.
    references: usize,
}

impl<'a> Linker<'a> {
    pub(crate) fn new(layout: &'a Layout, source: usize, counts: &'a mut LinkCounts) -> Self {
        Linker {
            layout,
            source,
            counts,
            references: 0,
        }
    }

    fn source_page(&self) -> &'a PagePlan {
        &self.layout.pages[self.source]
    }

    fn source_folder(&self) -> &'a str {
        &self.layout.folders[self.source_page().folder]
    }

    /// A body link: broken with `broken_percent` probability, else a weighted style.
    pub(crate) fn body_link(&mut self, rng: &mut Rng, broken_percent: u32) -> Piece {
        if rng.percent(broken_percent) {
            self.counts.add(LinkStyle::Broken);
            return self.broken(rng);
        }
        let style = rng.weighted_pick(BODY_STYLES);
        self.link(rng, style, Aim::Chosen)
    }

    /// A link in `style`, or in a simpler style when this vault cannot supply a suitable
    /// target (no assets, no page with spaces …). Counted under the style actually written.
    pub(crate) fn link(&mut self, rng: &mut Rng, style: LinkStyle, aim: Aim) -> Piece {
        for style in [style, LinkStyle::WikiBare] {
            if let Some(piece) = self.try_style(rng, style, aim) {
                self.counts.add(style);
                return piece;
            }
        }
        // Only an empty vault (or one holding nothing but the hub) gets here.
        self.counts.add(LinkStyle::External);
        Piece::inline(external(rng))
    }

    /// A wiki link for a frontmatter value (`up:`, `related:`), without the quotes.
    pub(crate) fn frontmatter_link(&mut self, rng: &mut Rng, aim: Aim) -> Option<String> {
        let target = self.target(rng, aim, None)?;
        self.counts.add(LinkStyle::Frontmatter);
        let page = &self.layout.pages[target];
        Some(match rng.below(4) {
            0 => format!("[[{}]]", page.path_without_extension()),
            1 => format!("[[{}|{}]]", page.stem(), page.title),
            _ => format!("[[{}]]", page.stem()),
        })
    }

    fn target(&self, rng: &mut Rng, aim: Aim, pool: Option<&[usize]>) -> Option<usize> {
        if let Aim::Fixed(page) = aim {
            return Some(page);
        }
        if let Some(pool) = pool {
            return (!pool.is_empty()).then(|| *rng.pick(pool));
        }
        let targets = &self.layout.pools.targets;
        if targets.is_empty() {
            return None;
        }
        let neighbours = &self.layout.folder_pages[self.source_page().folder];
        Some(match rng.below(100) {
            0..=24 if neighbours.len() > 1 => *rng.pick(neighbours),
            25..=39 => targets[rng.below(targets.len().div_ceil(50))],
            _ => *rng.pick(targets),
        })
    }

    fn try_style(&mut self, rng: &mut Rng, style: LinkStyle, aim: Aim) -> Option<Piece> {
        let pools = &self.layout.pools;
        let pages = &self.layout.pages;
        let text = match style {
            LinkStyle::WikiBare => {
                let page = &pages[self.target(rng, aim, None)?];
                format!("[[{}]]", page.stem())
            }
            LinkStyle::WikiPath => {
                let page = &pages[self.target(rng, aim, None)?];
                let path = if rng.percent(15) {
                    page.path.as_str()
                } else {
                    page.path_without_extension()
                };
                let root = if page.folder == 0 || rng.percent(15) {
                    "/"
                } else {
                    ""
                };
                format!("[[{root}{path}]]")
            }
            LinkStyle::WikiRelative => {
                let page = &pages[self.target(rng, aim, None)?];
                let path = relative(self.source_folder(), page.path_without_extension());
                let dot = if path.starts_with("../") { "" } else { "./" };
                format!("[[{dot}{path}]]")
            }
            LinkStyle::WikiAlias => {
                let page = &pages[self.target(rng, aim, None)?];
                let target = if rng.percent(70) {
                    page.stem()
                } else {
                    page.path_without_extension()
                };
                format!("[[{target}|{}]]", alias(rng, page))
            }
            LinkStyle::WikiHeading => {
                let page = &pages[self.target(rng, aim, None)?];
                let headings: Vec<&str> = page.headings().collect();
                format!("[[{}#{}]]", page.unambiguous_target(), rng.pick(&headings))
            }
            LinkStyle::WikiBlock => {
                let page = &pages[self.target(rng, aim, Some(&pools.blocked))?];
                format!(
                    "[[{}#^{}]]",
                    page.unambiguous_target(),
                    rng.pick(&page.blocks)
                )
            }
            LinkStyle::WikiLocalHeading => {
                if aim != Aim::Chosen {
                    return None;
                }
                let headings: Vec<&str> = self.source_page().headings().collect();
                format!("[[#{}]]", rng.pick(&headings))
            }
            LinkStyle::WikiEmbed => {
                let assets = &self.layout.assets;
                if aim == Aim::Chosen && !assets.is_empty() && rng.percent(65) {
                    // The one PDF is embedded more often than its share, as people do.
                    let asset = match assets.iter().find(|a| a.kind == AssetKind::Pdf) {
                        Some(pdf) if rng.percent(20) => pdf,
                        _ => rng.pick(assets),
                    };
                    let size = if asset.kind == AssetKind::Png && rng.percent(20) {
                        "|320"
                    } else {
                        ""
                    };
                    format!("![[{}{size}]]", asset.name())
                } else {
                    let page = &pages[self.target(rng, aim, None)?];
                    if rng.percent(30) {
                        let target = page.unambiguous_target();
                        format!("![[{target}#{}]]", page.sections[0])
                    } else {
                        format!("![[{}]]", page.stem())
                    }
                }
            }
            LinkStyle::WikiCaseMismatch => {
                let page = &pages[self.target(rng, aim, Some(&pools.cased))?];
                format!("[[{}]]", flip_case(page.stem()))
            }
            LinkStyle::WikiSeparatorFuzzy => {
                let page = &pages[self.target(rng, aim, Some(&pools.separated))?];
                format!("[[{}]]", fuzz_separators(page.stem()))
            }
            LinkStyle::MarkdownRelative => {
                let page = &pages[self.target(rng, aim, None)?];
                let mut dest = relative(self.source_folder(), &page.path);
                if !dest.starts_with("../") && rng.percent(20) {
                    dest.insert_str(0, "./");
                }
                let dest = percent_encode(&dest, Encoding::Minimal);
                format!("[{}]({dest})", link_text(rng, page))
            }
            LinkStyle::MarkdownRooted => {
                let page = &pages[self.target(rng, aim, None)?];
                let dest = percent_encode(&page.path, Encoding::Minimal);
                format!("[{}](/{dest})", link_text(rng, page))
            }
            LinkStyle::MarkdownNoExtension => {
                let page = &pages[self.target(rng, aim, None)?];
                let dest = relative(self.source_folder(), page.path_without_extension());
                let dest = percent_encode(&dest, Encoding::Minimal);
                format!("[{}]({dest})", link_text(rng, page))
            }
            LinkStyle::MarkdownAngle => {
                let page = &pages[self.target(rng, aim, Some(&pools.spaced))?];
                let dest = relative(self.source_folder(), &page.path);
                format!("[{}](<{dest}>)", link_text(rng, page))
            }
            LinkStyle::MarkdownPercentEncoded => {
                let pool = if !pools.unicode.is_empty() && rng.percent(50) {
                    &pools.unicode
                } else {
                    &pools.encodable
                };
                let page = &pages[self.target(rng, aim, Some(pool))?];
                let dest = relative(self.source_folder(), &page.path);
                let dest = percent_encode(&dest, Encoding::Full);
                format!("[{}]({dest})", link_text(rng, page))
            }
            LinkStyle::MarkdownTitle => {
                let page = &pages[self.target(rng, aim, None)?];
                let dest = relative(self.source_folder(), &page.path);
                let dest = percent_encode(&dest, Encoding::Minimal);
                format!("[{}]({dest} \"{}\")", link_text(rng, page), page.title)
            }
            LinkStyle::MarkdownReference => {
                let page = &pages[self.target(rng, aim, None)?];
                self.references += 1;
                let label = format!("{}-{}", rng.word(WORDS), self.references);
                let raw = relative(self.source_folder(), &page.path);
                let dest = if raw.contains(' ') && rng.percent(50) {
                    format!("<{raw}>")
                } else {
                    percent_encode(&raw, Encoding::Minimal)
                };
                let title = if rng.percent(25) {
                    format!(" \"{}\"", page.title)
                } else {
                    String::new()
                };
                return Some(Piece {
                    text: format!("[{}][{label}]", link_text(rng, page)),
                    definition: Some(format!("[{label}]: {dest}{title}")),
                });
            }
            LinkStyle::MarkdownImage => {
                if aim != Aim::Chosen || pools.images.is_empty() {
                    return None;
                }
                let image = self.layout.assets[*rng.pick(&pools.images)].path.as_str();
                let dest = if rng.percent(25) {
                    format!("/{image}")
                } else {
                    relative(self.source_folder(), image)
                };
                let alt = title_case(rng.word(WORDS));
                format!("![{alt}]({})", percent_encode(&dest, Encoding::Minimal))
            }
            LinkStyle::External => {
                if aim != Aim::Chosen {
                    return None;
                }
                external(rng)
            }
            LinkStyle::Broken | LinkStyle::Frontmatter | LinkStyle::Canvas => return None,
        };
        Some(Piece::inline(text))
    }

    /// A link that points nowhere. `missing` appears in no page or folder name, so not even
    /// the fuzzy wiki fallbacks find a target.
    fn broken(&self, rng: &mut Rng) -> Piece {
        let word = rng.word(WORDS);
        let number = rng.below(1000);
        let folder = rng.pick(&self.layout.folders);
        let text = match rng.below(5) {
            0 => format!("[[Missing {} {number}]]", title_case(word)),
            1 if folder.is_empty() => format!("[[/missing-{word}-{number}]]"),
            1 => format!("[[{folder}/missing-{word}-{number}]]"),
            2 => format!("[{}](missing-{word}-{number}.md)", title_case(word)),
            3 => format!("[{}](/missing/{word}-{number}.md)", title_case(word)),
            _ => format!("![[missing-{word}-{number}.png]]"),
        };
        Piece::inline(text)
    }
}

fn alias(rng: &mut Rng, page: &PagePlan) -> String {
    if rng.percent(50) {
        page.title.to_lowercase()
    } else {
        format!("{} {}", title_case(rng.word(WORDS)), rng.word(WORDS))
    }
}

fn link_text(rng: &mut Rng, page: &PagePlan) -> String {
    if rng.percent(60) {
        page.title.clone()
    } else {
        format!("{} {}", rng.word(HEADINGS), rng.word(WORDS))
    }
}

fn external(rng: &mut Rng) -> String {
    let word = rng.word(WORDS);
    match rng.below(5) {
        0 => format!("<https://example.com/{word}>"),
        1 => format!("[{}](mailto:{word}@example.org)", title_case(word)),
        2 => format!(
            "[{} docs](https://docs.example.org/{word}?page={})",
            title_case(word),
            rng.below(9) + 1
        ),
        _ => format!("[{}](https://example.com/{word}/)", title_case(word)),
    }
}

/// The stem with its case changed: lower-cased when it has capitals, else each word
/// capitalised (`Sleep Log` → `sleep log`, `meeting-notes` → `Meeting-Notes`).
pub(crate) fn flip_case(stem: &str) -> String {
    if stem.chars().any(char::is_uppercase) {
        stem.to_lowercase()
    } else {
        let mut out = String::with_capacity(stem.len());
        let mut word_start = true;
        for c in stem.chars() {
            if word_start {
                out.extend(c.to_uppercase());
            } else {
                out.push(c);
            }
            word_start = matches!(c, ' ' | '-' | '_');
        }
        out
    }
}

/// The stem with other separators and the case of later words changed
/// (`Sleep Log` → `Sleep-log`, `meeting-notes` → `meeting Notes`).
pub(crate) fn fuzz_separators(stem: &str) -> String {
    let replacement = if stem.contains(' ') { '-' } else { ' ' };
    let mut out = String::with_capacity(stem.len());
    let mut word_start = false;
    for c in stem.chars() {
        if matches!(c, ' ' | '-' | '_') {
            out.push(replacement);
            word_start = true;
        } else if word_start {
            if c.is_uppercase() {
                out.extend(c.to_lowercase());
            } else {
                out.extend(c.to_uppercase());
            }
            word_start = false;
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flip_case_changes_case_only() {
        let cases = [
            ("Sleep Log", "sleep log"),
            ("meeting-notes", "Meeting-Notes"),
            ("caf\u{e9}", "Caf\u{e9}"),
        ];
        for (stem, expected) in cases {
            assert_eq!(flip_case(stem), expected);
        }
    }

    #[test]
    fn fuzz_separators_swaps_separators_and_word_case() {
        let cases = [
            ("Sleep Log", "Sleep-log"),
            ("meeting-notes", "meeting Notes"),
            ("weekly_review", "weekly Review"),
        ];
        for (stem, expected) in cases {
            assert_eq!(fuzz_separators(stem), expected);
        }
    }
}
