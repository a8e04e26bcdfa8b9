//! The vault's shape before any text is written: folders, page paths and their headings and
//! block ids, asset paths, the hub and which pages link to it.
//!
//! Planning everything first lets a link name a heading or block id of any page, and lets
//! each page's text be rendered from its own random stream.

use std::collections::{HashMap, HashSet};

use crate::rng::Rng;
use crate::words::{COMMON_NAMES, HEADINGS, TOP_FOLDERS, UNICODE_WORDS, WORDS};
use crate::{calendar, LinkStyle, VaultSpec};

/// Stem of the hub page. Its words appear in no word list, so the name is unique.
pub(crate) const HUB_STEM: &str = "Knowledge Hub";

/// Random-stream numbers; each planning step draws from its own stream.
const FOLDER_STREAM: u64 = 1;
const PAGE_STREAM: u64 = 2;
const ASSET_STREAM: u64 = 3;
const HUB_STREAM: u64 = 4;

/// How the page's title appears at the top of its body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TitleHeading {
    Atx,
    Setext,
    Absent,
}

/// One page as planned: where it lives and what its links may point at.
#[derive(Debug)]
pub(crate) struct PagePlan {
    pub(crate) path: String,
    /// Byte offset of the file name in `path`; names are looked at for nearly every link.
    name_start: usize,
    /// Index into [`Layout::folders`].
    pub(crate) folder: usize,
    pub(crate) title: String,
    pub(crate) title_heading: TitleHeading,
    pub(crate) sections: Vec<&'static str>,
    /// Block ids without the `^`.
    pub(crate) blocks: Vec<String>,
    /// Another page has the same stem, so a bare wiki link to this page is ambiguous.
    pub(crate) shared_stem: bool,
}

impl PagePlan {
    /// File name without folder.
    pub(crate) fn name(&self) -> &str {
        &self.path[self.name_start..]
    }

    /// File name without `.md`.
    pub(crate) fn stem(&self) -> &str {
        let name = self.name();
        &name[..name.len() - 3]
    }

    /// Root-relative path without `.md`.
    pub(crate) fn path_without_extension(&self) -> &str {
        &self.path[..self.path.len() - 3]
    }

    /// The shortest wiki target naming only this page: the stem when no other page shares
    /// it, else the root-relative path without `.md` (with a leading `/` at the root).
    pub(crate) fn unambiguous_target(&self) -> String {
        match (self.shared_stem, self.folder) {
            (false, _) => self.stem().to_owned(),
            (true, 0) => format!("/{}", self.path_without_extension()),
            (true, _) => self.path_without_extension().to_owned(),
        }
    }

    /// Every heading text a `#Heading` fragment may name.
    pub(crate) fn headings(&self) -> impl Iterator<Item = &str> {
        let title = (self.title_heading != TitleHeading::Absent).then_some(self.title.as_str());
        title.into_iter().chain(self.sections.iter().copied())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AssetKind {
    Png,
    Pdf,
}

#[derive(Debug)]
pub(crate) struct AssetPlan {
    pub(crate) path: String,
    pub(crate) kind: AssetKind,
}

impl AssetPlan {
    pub(crate) fn name(&self) -> &str {
        &self.path[self.path.rfind('/').map_or(0, |slash| slash + 1)..]
    }
}

/// Pages grouped by a property some link styles need. None holds the hub.
#[derive(Debug, Default)]
pub(crate) struct Pools {
    /// Every page except the hub: the ordinary link targets.
    pub(crate) targets: Vec<usize>,
    /// Stem contains a space (for `<dest with spaces>`).
    pub(crate) spaced: Vec<usize>,
    /// Stem contains a space, `-` or `_` (for separator-fuzzy wiki links).
    pub(crate) separated: Vec<usize>,
    /// Path contains a space or non-ASCII (for percent-encoded destinations).
    pub(crate) encodable: Vec<usize>,
    /// Path contains non-ASCII (percent-encoded destinations favour these).
    pub(crate) unicode: Vec<usize>,
    /// Stem has cased letters (for case-mismatched wiki links).
    pub(crate) cased: Vec<usize>,
    /// Page has block ids.
    pub(crate) blocked: Vec<usize>,
    /// PNG assets (indices into [`Layout::assets`]), for markdown images.
    pub(crate) images: Vec<usize>,
}

#[derive(Debug)]
pub(crate) struct Layout {
    /// Folder paths; index 0 is the root (`""`).
    pub(crate) folders: Vec<String>,
    pub(crate) pages: Vec<PagePlan>,
    pub(crate) assets: Vec<AssetPlan>,
    pub(crate) hub: Option<usize>,
    /// For each page, the style of its one link to the hub, if it is a hub backlink.
    pub(crate) hub_links: Vec<Option<LinkStyle>>,
    /// Non-hub pages of each folder.
    pub(crate) folder_pages: Vec<Vec<usize>>,
    pub(crate) pools: Pools,
}

/// The shape of a page name; early pages get fixed kinds so small vaults show every shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NameKind {
    TitleWords,
    Kebab,
    Snake,
    Unicode,
    Common(Option<&'static str>),
    Date,
    Numbered,
    Hub,
}

/// Page kinds forced for the first pages: spaces, kebab at the root, Unicode and two pairs
/// of duplicate names.
const FORCED_KINDS: &[(NameKind, Placement)] = &[
    (NameKind::TitleWords, Placement::Anywhere),
    (NameKind::Kebab, Placement::Root),
    (NameKind::Unicode, Placement::Anywhere),
    (NameKind::Common(Some("index")), Placement::Anywhere),
    (NameKind::Common(Some("index")), Placement::Anywhere),
    (NameKind::Common(Some("notes")), Placement::Anywhere),
    (NameKind::Common(Some("notes")), Placement::Anywhere),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Placement {
    Root,
    Anywhere,
}

/// The rotation of styles hub backlinks use; the bare name recurs as it does in real vaults.
const HUB_STYLES: &[LinkStyle] = &[
    LinkStyle::WikiBare,
    LinkStyle::WikiPath,
    LinkStyle::WikiRelative,
    LinkStyle::WikiBare,
    LinkStyle::WikiAlias,
    LinkStyle::WikiHeading,
    LinkStyle::MarkdownRelative,
    LinkStyle::WikiBare,
    LinkStyle::WikiBlock,
    LinkStyle::WikiEmbed,
    LinkStyle::MarkdownRooted,
    LinkStyle::WikiBare,
    LinkStyle::WikiCaseMismatch,
    LinkStyle::WikiSeparatorFuzzy,
    LinkStyle::MarkdownNoExtension,
    LinkStyle::MarkdownAngle,
    LinkStyle::MarkdownPercentEncoded,
    LinkStyle::MarkdownTitle,
    LinkStyle::MarkdownReference,
    LinkStyle::Frontmatter,
];

pub(crate) fn title_case(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Joins `count` random words with `separator`, title-casing them when asked.
fn words(rng: &mut Rng, count: usize, separator: &str, casing: Casing) -> String {
    let mut out = String::new();
    for i in 0..count {
        if i > 0 {
            out.push_str(separator);
        }
        let word = rng.word(WORDS);
        match casing {
            Casing::Title => out.push_str(&title_case(word)),
            Casing::Lower => out.push_str(word),
        }
    }
    out
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Casing {
    Title,
    Lower,
}

/// Claims `candidate` (compared case-insensitively, so no two paths differ only by case)
/// or returns false when taken.
fn claim(used: &mut HashSet<String>, candidate: &str) -> bool {
    used.insert(candidate.to_lowercase())
}

/// Makes `stem` unique in `folder` by appending a number, the way people do.
fn unique_stem(used: &mut HashSet<String>, folder: &str, stem: &str, extension: &str) -> String {
    let joiner = if stem.contains(' ') { " " } else { "-" };
    let mut n = 2;
    loop {
        let candidate = format!("{stem}{joiner}{n}");
        if claim(used, &join(folder, &format!("{candidate}{extension}"))) {
            return candidate;
        }
        n += 1;
    }
}

pub(crate) fn join(folder: &str, name: &str) -> String {
    if folder.is_empty() {
        name.to_owned()
    } else {
        format!("{folder}/{name}")
    }
}

fn plan_folders(spec: &VaultSpec) -> Vec<String> {
    let mut folders = vec![String::new()];
    if spec.folders_depth == 0 || spec.pages == 0 {
        return folders;
    }
    let mut rng = Rng::stream(spec.seed, FOLDER_STREAM);
    let target = (spec.pages / 8).clamp(4, 5000);
    // Folders that may still get children, with their depth.
    let mut open: Vec<(usize, usize)> = vec![(0, 0)];
    let mut used = HashSet::new();
    let mut next_top = 0;
    while folders.len() <= target {
        let slot = rng.below(open.len());
        let (parent, depth) = open[slot];
        let parent_path = folders[parent].clone();
        let name = if parent == 0 && next_top < TOP_FOLDERS.len() {
            next_top += 1;
            TOP_FOLDERS[next_top - 1].to_owned()
        } else {
            match rng.weighted(&[80, 8, 6, 6]) {
                0 => (rng.word(WORDS)).to_owned(),
                1 => words(&mut rng, 2, " ", Casing::Title),
                2 => title_case(rng.word(UNICODE_WORDS)),
                _ => words(&mut rng, 2, "-", Casing::Lower),
            }
        };
        let mut path = join(&parent_path, &name);
        if !claim(&mut used, &path) {
            path = join(
                &parent_path,
                &unique_stem(&mut used, &parent_path, &name, ""),
            );
        }
        folders.push(path);
        if depth + 1 < spec.folders_depth {
            open.push((folders.len() - 1, depth + 1));
        }
    }
    folders
}

fn page_stem(rng: &mut Rng, kind: NameKind) -> String {
    match kind {
        // Mostly two or three words: single words would make most bare links ambiguous
        // in large vaults.
        NameKind::TitleWords => {
            let count = 1 + rng.weighted(&[15, 55, 30]);
            words(rng, count, " ", Casing::Title)
        }
        NameKind::Kebab => {
            let count = 1 + rng.weighted(&[15, 55, 30]);
            words(rng, count, "-", Casing::Lower)
        }
        NameKind::Snake => words(rng, 2, "_", Casing::Lower),
        NameKind::Unicode => {
            let unicode = rng.word(UNICODE_WORDS);
            match rng.below(3) {
                0 => unicode.to_owned(),
                1 => format!("{} {}", title_case(unicode), title_case(rng.word(WORDS))),
                _ => format!("{unicode}-{}", rng.word(WORDS)),
            }
        }
        NameKind::Common(Some(name)) => name.to_owned(),
        NameKind::Common(None) => (rng.word(COMMON_NAMES)).to_owned(),
        NameKind::Date => calendar::date(rng.below(730)),
        NameKind::Numbered => format!("{} {}", title_case(rng.word(WORDS)), rng.between(1, 99)),
        NameKind::Hub => HUB_STEM.to_owned(),
    }
}

/// The title a person would give the page: separators become spaces, words capitalised.
fn title_of(stem: &str, kind: NameKind) -> String {
    match kind {
        NameKind::Kebab | NameKind::Snake | NameKind::Common(_) => stem
            .split(['-', '_'])
            .map(title_case)
            .collect::<Vec<_>>()
            .join(" "),
        _ => stem.to_owned(),
    }
}

fn random_kind(rng: &mut Rng) -> NameKind {
    const KINDS: [NameKind; 7] = [
        NameKind::TitleWords,
        NameKind::Kebab,
        NameKind::Snake,
        NameKind::Unicode,
        NameKind::Common(None),
        NameKind::Date,
        NameKind::Numbered,
    ];
    KINDS[rng.weighted(&[33, 32, 4, 7, 7, 7, 10])]
}

fn block_id(rng: &mut Rng) -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    (0..6).map(|_| char::from(*rng.pick(ALPHABET))).collect()
}

fn plan_pages(spec: &VaultSpec, folders: &[String], hub: Option<usize>) -> Vec<PagePlan> {
    let mut rng = Rng::stream(spec.seed, PAGE_STREAM);
    let mut used = HashSet::with_capacity(spec.pages);
    let mut pages = Vec::with_capacity(spec.pages);
    for index in 0..spec.pages {
        let (kind, placement) = if Some(index) == hub {
            (NameKind::Hub, Placement::Anywhere)
        } else if let Some(&forced) = FORCED_KINDS.get(index) {
            forced
        } else {
            (random_kind(&mut rng), Placement::Anywhere)
        };
        let pick_folder = |rng: &mut Rng| {
            if placement == Placement::Root || folders.len() == 1 || rng.percent(6) {
                0
            } else {
                1 + rng.below(folders.len() - 1)
            }
        };
        let mut folder = pick_folder(&mut rng);
        let mut stem = page_stem(&mut rng, kind);
        // A common name stays common: on a clash it moves to another folder first.
        // Other names draw new words first. Either way a number is the last resort.
        let mut attempts = 0;
        while !claim(&mut used, &join(&folders[folder], &format!("{stem}.md"))) {
            attempts += 1;
            if attempts > 12 {
                stem = unique_stem(&mut used, &folders[folder], &stem, ".md");
                break;
            }
            if matches!(kind, NameKind::Common(_) | NameKind::Hub) {
                folder = pick_folder(&mut rng);
            } else {
                stem = page_stem(&mut rng, kind);
            }
        }
        let title = title_of(&stem, kind);
        let title_heading = if kind == NameKind::Hub {
            TitleHeading::Atx
        } else {
            [
                TitleHeading::Atx,
                TitleHeading::Setext,
                TitleHeading::Absent,
            ][rng.weighted(&[75, 10, 15])]
        };
        let min_sections = if kind == NameKind::Hub { 2 } else { 1 };
        let section_count = rng.between(min_sections, 4);
        let sections = rng
            .sample(HEADINGS.len(), section_count)
            .into_iter()
            .map(|i| HEADINGS[i])
            .collect::<Vec<_>>();
        let block_count = if kind == NameKind::Hub || rng.percent(60) {
            rng.between(1, sections.len().min(3))
        } else {
            0
        };
        let mut blocks: Vec<String> = Vec::with_capacity(block_count);
        while blocks.len() < block_count {
            let id = block_id(&mut rng);
            if !blocks.contains(&id) {
                blocks.push(id);
            }
        }
        let path = join(&folders[folder], &format!("{stem}.md"));
        pages.push(PagePlan {
            name_start: path.len() - stem.len() - 3,
            path,
            folder,
            title,
            title_heading,
            sections,
            blocks,
            shared_stem: false,
        });
    }
    let mut stems: HashMap<&str, usize> = HashMap::with_capacity(pages.len());
    for page in &pages {
        *stems.entry(page.stem()).or_default() += 1;
    }
    let shared: Vec<bool> = pages.iter().map(|page| stems[page.stem()] > 1).collect();
    for (page, shared) in pages.iter_mut().zip(shared) {
        page.shared_stem = shared;
    }
    pages
}

fn plan_assets(spec: &VaultSpec) -> Vec<AssetPlan> {
    let mut rng = Rng::stream(spec.seed, ASSET_STREAM);
    let mut used = HashSet::new();
    let mut assets = Vec::with_capacity(spec.assets);
    for index in 0..spec.assets {
        let (name, kind) = if index == 0 && spec.assets >= 2 {
            (format!("{}-report.pdf", rng.word(WORDS)), AssetKind::Pdf)
        } else {
            let name = match rng.weighted(&[60, 20, 20]) {
                0 => format!("{}-{}.png", rng.word(WORDS), rng.between(1, 99)),
                1 => format!("Screen Shot {}.png", calendar::date(rng.below(730))),
                _ => format!("{} diagram.png", title_case(rng.word(WORDS))),
            };
            (name, AssetKind::Png)
        };
        let path = if claim(&mut used, &name) {
            format!("assets/{name}")
        } else {
            let (stem, extension) = name.split_at(name.rfind('.').unwrap_or(name.len()));
            format!(
                "assets/{}{extension}",
                unique_stem(&mut used, "", stem, extension)
            )
        };
        assets.push(AssetPlan { path, kind });
    }
    assets
}

fn plan_pools(pages: &[PagePlan], assets: &[AssetPlan], hub: Option<usize>) -> Pools {
    let mut pools = Pools {
        targets: Vec::with_capacity(pages.len()),
        images: (0..assets.len())
            .filter(|&i| assets[i].kind == AssetKind::Png)
            .collect(),
        ..Pools::default()
    };
    for (index, page) in pages.iter().enumerate() {
        if Some(index) == hub {
            continue;
        }
        let stem = page.stem();
        pools.targets.push(index);
        if stem.contains(' ') {
            pools.spaced.push(index);
        }
        if stem.contains([' ', '-', '_']) && stem.chars().any(char::is_alphabetic) {
            pools.separated.push(index);
        }
        if page.path.contains(' ') || !page.path.is_ascii() {
            pools.encodable.push(index);
        }
        if !page.path.is_ascii() {
            pools.unicode.push(index);
        }
        if stem.chars().any(|c| c.is_uppercase() || c.is_lowercase()) {
            pools.cased.push(index);
        }
        if !page.blocks.is_empty() {
            pools.blocked.push(index);
        }
    }
    pools
}

pub(crate) fn plan(spec: &VaultSpec) -> Layout {
    let mut hub_rng = Rng::stream(spec.seed, HUB_STREAM);
    let hub = (spec.hub_backlinks > 0 && spec.pages > 0).then(|| {
        if spec.pages > FORCED_KINDS.len() {
            FORCED_KINDS.len() + hub_rng.below(spec.pages - FORCED_KINDS.len())
        } else {
            spec.pages - 1
        }
    });
    let folders = plan_folders(spec);
    let pages = plan_pages(spec, &folders, hub);
    let assets = plan_assets(spec);
    let pools = plan_pools(&pages, &assets, hub);

    let mut hub_links = vec![None; pages.len()];
    if hub.is_some() {
        let sources = hub_rng.sample(pools.targets.len(), spec.hub_backlinks);
        for (rank, slot) in sources.into_iter().enumerate() {
            hub_links[pools.targets[slot]] = Some(HUB_STYLES[rank % HUB_STYLES.len()]);
        }
    }

    let mut folder_pages = vec![Vec::new(); folders.len()];
    for &index in &pools.targets {
        folder_pages[pages[index].folder].push(index);
    }
    Layout {
        folders,
        pages,
        assets,
        hub,
        hub_links,
        folder_pages,
        pools,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paths::folder_of;

    #[test]
    fn page_plans_agree_with_their_paths() {
        let layout = plan(&VaultSpec::new(17, 300).with_hub(10));
        for page in &layout.pages {
            assert_eq!(layout.folders[page.folder], folder_of(&page.path));
            assert_eq!(format!("{}.md", page.stem()), page.name());
            assert!(page.blocks.len() <= page.sections.len());
            assert!(page.headings().count() >= 1);
        }
        let hub = layout.hub.expect("hub");
        assert_eq!(layout.pages[hub].stem(), HUB_STEM);
        assert!(!layout.pools.targets.contains(&hub));
        assert_eq!(layout.hub_links.iter().flatten().count(), 10);
        assert_eq!(layout.hub_links[hub], None);
    }

    #[test]
    fn unambiguous_target_uses_a_path_only_for_shared_stems() {
        let layout = plan(&VaultSpec::new(17, 300));
        for page in &layout.pages {
            let target = page.unambiguous_target();
            let expected = match (page.shared_stem, page.folder) {
                (false, _) => page.stem().to_owned(),
                (true, 0) => format!("/{}", page.stem()),
                (true, _) => page.path_without_extension().to_owned(),
            };
            assert_eq!(target, expected);
        }
        assert!(layout.pages.iter().any(|page| page.shared_stem));
    }

    #[test]
    fn first_pages_have_the_forced_shapes() {
        let layout = plan(&VaultSpec::new(3, 50));
        let stems: Vec<&str> = layout.pages.iter().map(PagePlan::stem).collect();
        assert!(stems[0].contains(' '), "{}", stems[0]);
        assert_eq!(layout.pages[1].folder, 0);
        assert!(!stems[2].is_ascii(), "{}", stems[2]);
        assert_eq!(&stems[3..7], ["index", "index", "notes", "notes"]);
    }
}
