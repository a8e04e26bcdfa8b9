//! quire-testkit: a seeded generator of realistic vaults (pages, assets, canvases, comments
//! and personal state) for the tests and benchmarks of every quire crate.
//!
//! ```
//! let spec = quire_testkit::VaultSpec::new(quire_testkit::seed_from_env(7), 200);
//! let vault = quire_testkit::generate(&spec);
//! assert_eq!(vault.pages().count(), 200);
//! ```
//!
//! The same [`VaultSpec`] gives byte-identical files on every machine: every choice comes
//! from a splitmix64 stream of the seed, dates count from a fixed day, and nothing iterates
//! a hash map. The layout of the vault is planned first (folders, page paths, headings,
//! block ids), so links can name headings and blocks that really exist.
//!
//! [`receiver`] is an HTTP receiver on loopback for webhook tests; [`servers`] starts
//! throwaway PostgreSQL, MariaDB and Redis servers for import tests.

use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::Path;

mod binary;
mod calendar;
pub mod fake_api;
pub mod fake_mongo;
mod json;
mod layout;
mod links;
mod page;
mod paths;
pub mod receiver;
mod rng;
pub mod servers;
mod sidecar;
mod words;

use rng::Rng;

/// Environment variable holding the seed that replays a failing case.
pub const SEED_VAR: &str = "QUIRE_TEST_SEED";

/// What to generate. Build one with [`VaultSpec::new`] and adjust fields; new fields may be
/// added, so the struct cannot be written as a literal outside this crate.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct VaultSpec {
    pub seed: u64,
    /// Number of markdown pages, hub included.
    pub pages: usize,
    /// Average number of links written per page (body and frontmatter). Each page gets
    /// between half and one and a half times this; hub backlinks come on top.
    pub links_per_page: usize,
    /// Deepest folder nesting; 0 puts every page at the root.
    pub folders_depth: usize,
    /// Files under `assets/`: one PDF (when there are at least two), the rest PNG images.
    pub assets: usize,
    /// `*.canvas.json` files whose file nodes reference pages.
    pub canvases: usize,
    /// Share of body links that point nowhere, in percent.
    pub broken_link_percent: u8,
    /// Share of pages with a `.quire/comments/<page path>.json`, in percent (rounded up).
    pub commented_percent: u8,
    /// When non-zero, one page (see [`GeneratedVault::hub`]) is linked from this many other
    /// pages (at most all of them), one link each in a rotation of every resolvable style.
    /// No other link, frontmatter value, canvas or code/comment decoy names the hub, so its
    /// backlinks are exactly these (comments and personal state may still list its path).
    pub hub_backlinks: usize,
}

impl VaultSpec {
    /// A realistic vault of `pages` pages: 10 links per page, folders nested up to 3 deep,
    /// one asset per 20 pages (at least 2), 2 canvases, 5 % broken links, comments on 5 %
    /// of pages, no hub.
    pub fn new(seed: u64, pages: usize) -> Self {
        VaultSpec {
            seed,
            pages,
            links_per_page: 10,
            folders_depth: 3,
            assets: (pages / 20).max(2),
            canvases: 2,
            broken_link_percent: 5,
            commented_percent: 5,
            hub_backlinks: 0,
        }
    }

    /// The same spec with a hub page linked from `backlinks` other pages.
    pub fn with_hub(mut self, backlinks: usize) -> Self {
        self.hub_backlinks = backlinks;
        self
    }
}

/// The ways a link is written. Every generated link is counted under exactly one of them
/// (see [`GeneratedVault::link_count`]); link-like text in code and HTML comments is not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LinkStyle {
    /// `[[name]]` — may be ambiguous when several pages share the name.
    WikiBare,
    /// `[[folder/name]]`, `[[/name]]`, `[[folder/name.md]]`.
    WikiPath,
    /// `[[./name]]`, `[[../folder/name]]`.
    WikiRelative,
    /// `[[name|alias]]`.
    WikiAlias,
    /// `[[name#Heading]]`.
    WikiHeading,
    /// `[[name#^blockid]]`.
    WikiBlock,
    /// `[[#Heading]]` of the page itself.
    WikiLocalHeading,
    /// `![[image.png]]`, `![[image.png|320]]`, `![[report.pdf]]`, `![[name]]`, `![[name#Heading]]`.
    WikiEmbed,
    /// `[[sleep log]]` for `Sleep Log.md`.
    WikiCaseMismatch,
    /// `[[Sleep-log]]` for `Sleep Log.md`, `[[meeting Notes]]` for `meeting-notes.md`.
    WikiSeparatorFuzzy,
    /// `[t](../folder/name.md)`, `[t](./name.md)`, spaces as `%20`.
    MarkdownRelative,
    /// `[t](/folder/name.md)`.
    MarkdownRooted,
    /// `[t](../folder/name)`.
    MarkdownNoExtension,
    /// `[t](<../folder/name with spaces.md>)`.
    MarkdownAngle,
    /// `[t](caf%C3%A9%20x.md)`: every byte outside the unreserved set encoded.
    MarkdownPercentEncoded,
    /// `[t](name.md "Title")`.
    MarkdownTitle,
    /// `[t][label]` with `[label]: dest` at the end of the page.
    MarkdownReference,
    /// `![alt](../assets/x.png)`, `![alt](/assets/x.png)`.
    MarkdownImage,
    /// `https://`, `mailto:` and `<https://…>` autolinks.
    External,
    /// A wiki or markdown link to a page or image that does not exist.
    Broken,
    /// `up: "[[name]]"` and items of `related:` in frontmatter.
    Frontmatter,
    /// A file node of a canvas.
    Canvas,
}

impl LinkStyle {
    pub const ALL: [LinkStyle; 22] = [
        LinkStyle::WikiBare,
        LinkStyle::WikiPath,
        LinkStyle::WikiRelative,
        LinkStyle::WikiAlias,
        LinkStyle::WikiHeading,
        LinkStyle::WikiBlock,
        LinkStyle::WikiLocalHeading,
        LinkStyle::WikiEmbed,
        LinkStyle::WikiCaseMismatch,
        LinkStyle::WikiSeparatorFuzzy,
        LinkStyle::MarkdownRelative,
        LinkStyle::MarkdownRooted,
        LinkStyle::MarkdownNoExtension,
        LinkStyle::MarkdownAngle,
        LinkStyle::MarkdownPercentEncoded,
        LinkStyle::MarkdownTitle,
        LinkStyle::MarkdownReference,
        LinkStyle::MarkdownImage,
        LinkStyle::External,
        LinkStyle::Broken,
        LinkStyle::Frontmatter,
        LinkStyle::Canvas,
    ];
}

/// Number of links written per style, indexed by `LinkStyle as usize`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct LinkCounts([usize; LinkStyle::ALL.len()]);

impl LinkCounts {
    pub(crate) fn add(&mut self, style: LinkStyle) {
        self.0[style as usize] += 1;
    }
}

/// One file of a generated vault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedFile {
    /// Root-relative, `/`-separated, NFC.
    pub path: String,
    pub content: Vec<u8>,
}

impl GeneratedFile {
    /// The content as text; `None` for binary assets.
    pub fn text(&self) -> Option<&str> {
        std::str::from_utf8(&self.content).ok()
    }

    /// Whether this is a page (a markdown file outside `.quire/`).
    pub fn is_page(&self) -> bool {
        self.path.ends_with(".md") && !self.path.starts_with(".quire/")
    }
}

/// The files of a generated vault, sorted by path (byte order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedVault {
    pub files: Vec<GeneratedFile>,
    hub: Option<String>,
    links: LinkCounts,
}

impl GeneratedVault {
    /// Writes every file below `dir`, creating folders as needed. Existing files with the
    /// same paths are overwritten; nothing else in `dir` is touched.
    pub fn write_to(&self, dir: &Path) -> io::Result<()> {
        let mut created: HashSet<&str> = HashSet::new();
        for file in &self.files {
            let folder = paths::folder_of(&file.path);
            if !folder.is_empty() && created.insert(folder) {
                fs::create_dir_all(dir.join(folder))?;
            }
            fs::write(dir.join(&file.path), &file.content)?;
        }
        Ok(())
    }

    /// Sum of the sizes of all files.
    pub fn total_bytes(&self) -> usize {
        self.files.iter().map(|file| file.content.len()).sum()
    }

    /// The markdown pages, in path order.
    pub fn pages(&self) -> impl Iterator<Item = &GeneratedFile> + '_ {
        self.files.iter().filter(|file| file.is_page())
    }

    /// Paths of the markdown pages, in path order.
    pub fn page_paths(&self) -> Vec<&str> {
        self.pages().map(|file| file.path.as_str()).collect()
    }

    /// The file at `path`, if generated.
    pub fn file(&self, path: &str) -> Option<&GeneratedFile> {
        self.files
            .binary_search_by(|file| file.path.as_str().cmp(path))
            .ok()
            .map(|index| &self.files[index])
    }

    /// Path of the hub page when [`VaultSpec::hub_backlinks`] was non-zero.
    pub fn hub(&self) -> Option<&str> {
        self.hub.as_deref()
    }

    /// How many links were written in `style` (as generated, before any resolution: an
    /// ambiguous or fuzzy link counts under its style, not as broken).
    pub fn link_count(&self, style: LinkStyle) -> usize {
        self.links.0[style as usize]
    }
}

/// Stream numbers of the generation steps after layout; pages use `PAGE_TEXT + index`.
const COMMENT_STREAM: u64 = 10;
const CANVAS_STREAM: u64 = 11;
const PERSONAL_STREAM: u64 = 12;
const ASSET_BYTES_STREAM: u64 = 13;
const PAGE_TEXT: u64 = 1 << 32;

/// Generates the vault `spec` describes. Deterministic: the same spec gives the same files.
pub fn generate(spec: &VaultSpec) -> GeneratedVault {
    let layout = layout::plan(spec);
    let mut links = LinkCounts::default();
    let mut files = Vec::with_capacity(spec.pages * 21 / 20 + spec.assets + spec.canvases + 4);

    let commented_count = (spec.pages * usize::from(spec.commented_percent)).div_ceil(100);
    let mut comment_rng = Rng::stream(spec.seed, COMMENT_STREAM);
    let mut commented = vec![false; spec.pages];
    for index in comment_rng.sample(spec.pages, commented_count) {
        commented[index] = true;
    }

    for (index, plan) in layout.pages.iter().enumerate() {
        let mut rng = Rng::stream(spec.seed, PAGE_TEXT + index as u64);
        let text = page::render(&layout, spec, index, &mut rng, &mut links);
        if commented[index] {
            let (path, json) = sidecar::comments(&plan.path, text.lines().count(), &mut rng);
            files.push(GeneratedFile {
                path,
                content: json.into_bytes(),
            });
        }
        files.push(GeneratedFile {
            path: plan.path.clone(),
            content: text.into_bytes(),
        });
    }

    let mut asset_rng = Rng::stream(spec.seed, ASSET_BYTES_STREAM);
    for asset in &layout.assets {
        let content = match asset.kind {
            layout::AssetKind::Png => {
                let rgb = [0, 1, 2].map(|_| asset_rng.below(256) as u8);
                binary::png(asset_rng.between(1, 4) as u32, rgb)
            }
            layout::AssetKind::Pdf => binary::pdf(asset.name()),
        };
        files.push(GeneratedFile {
            path: asset.path.clone(),
            content,
        });
    }

    let mut canvas_rng = Rng::stream(spec.seed, CANVAS_STREAM);
    let mut canvas_paths = HashSet::new();
    for _ in 0..spec.canvases {
        let (path, json) = sidecar::canvas(&layout, &mut canvas_rng, &mut links);
        // A repeated name replaces nothing: the canvas is dropped, keeping paths unique.
        if canvas_paths.insert(path.to_lowercase()) {
            files.push(GeneratedFile {
                path,
                content: json.into_bytes(),
            });
        }
    }

    let mut personal_rng = Rng::stream(spec.seed, PERSONAL_STREAM);
    for actor in &words::ACTORS[..2] {
        let (path, json) = sidecar::personal(&layout, actor, &mut personal_rng);
        files.push(GeneratedFile {
            path,
            content: json.into_bytes(),
        });
    }

    files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    GeneratedVault {
        files,
        hub: layout.hub.map(|hub| layout.pages[hub].path.clone()),
        links,
    }
}

/// The seed to use: `QUIRE_TEST_SEED` (decimal or `0x` hex) when set, else `default`.
/// Prints the seed to stderr, which the test harness shows for a failing test, so the case
/// can be replayed with `QUIRE_TEST_SEED=<seed> cargo test …`.
///
/// # Panics
/// When `QUIRE_TEST_SEED` is set but is not a `u64`: silently falling back would make a
/// replay run a different case.
pub fn seed_from_env(default: u64) -> u64 {
    let seed = match std::env::var_os(SEED_VAR) {
        None => default,
        Some(value) => {
            let text = value.to_string_lossy();
            if text.trim().is_empty() {
                default
            } else {
                parse_seed(&text).unwrap_or_else(|| {
                    panic!("{SEED_VAR}={text:?} is not a u64 (decimal or 0x-prefixed hex)")
                })
            }
        }
    };
    eprintln!("quire-testkit: seed {seed} (replay with {SEED_VAR}={seed})");
    seed
}

fn parse_seed(text: &str) -> Option<u64> {
    let text = text.trim();
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_seed_accepts_decimal_and_hex() {
        let cases = [
            ("42", Some(42)),
            (" 7 ", Some(7)),
            ("0x2a", Some(42)),
            ("0XFF", Some(255)),
            ("18446744073709551615", Some(u64::MAX)),
            ("-1", None),
            ("seed", None),
            ("0x", None),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_seed(text), expected, "{text:?}");
        }
    }

    #[test]
    fn link_style_all_is_in_declaration_order() {
        for (index, style) in LinkStyle::ALL.iter().enumerate() {
            assert_eq!(*style as usize, index);
        }
    }
}
