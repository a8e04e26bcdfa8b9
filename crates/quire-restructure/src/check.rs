//! Destination checks (DECISIONS §4): portable names, collisions with what exists after
//! the manifest (a destination the same manifest vacates is free), one file per destination.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use quire_vault::{spelled, DiskNames, PagePath, Vault};
use unicode_normalization::UnicodeNormalization;

use crate::model::{Conflict, ConflictCode};
use crate::select::Selected;

const MAX_COMPONENT_BYTES: usize = 255;
const MAX_PATH_BYTES: usize = 1024;

/// A selected file whose destination passed every check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Accepted {
    pub(crate) from: PagePath,
    pub(crate) to: PagePath,
}

/// The paths of the root after the manifest, as far as names go. Files are the sorted
/// before-list minus `vacated` plus the destinations, asked rather than copied; only the
/// folders, and the lowercased paths that some destination shares, are collected.
pub(crate) struct AfterNames<'a> {
    before: &'a [PagePath],
    vacated: &'a BTreeSet<PagePath>,
    added: BTreeSet<PagePath>,
    folders: HashSet<String>,
    lower_files: HashMap<String, Vec<PagePath>>,
    lower_folders: HashMap<String, Vec<String>>,
}

impl<'a> AfterNames<'a> {
    /// Files of `before` (sorted) minus `vacated`, plus the planned destinations.
    pub(crate) fn new<'d>(
        before: &'a [PagePath],
        vacated: &'a BTreeSet<PagePath>,
        destinations: impl Iterator<Item = &'d PagePath>,
    ) -> AfterNames<'a> {
        let mut names = AfterNames {
            before,
            vacated,
            added: BTreeSet::new(),
            folders: HashSet::new(),
            lower_files: HashMap::new(),
            lower_folders: HashMap::new(),
        };
        let mut fresh = Vec::new();
        for path in destinations {
            // Destinations are what the checks ask about, so only their keys are kept.
            names
                .lower_files
                .entry(path.as_str().to_lowercase())
                .or_default();
            if !names.in_before(path.as_str()) && names.added.insert(path.clone()) {
                fresh.push(path.clone());
            }
        }
        let mut lower = String::new();
        let mut last_folder = None;
        let kept = before.iter().filter(|p| !vacated.contains(*p));
        for path in kept.chain(fresh.iter()) {
            lower.clear();
            if path.as_str().is_ascii() {
                lower.extend(path.as_str().chars().map(|c| c.to_ascii_lowercase()));
            } else {
                lower.push_str(&path.as_str().to_lowercase());
            }
            if let Some(same) = names.lower_files.get_mut(lower.as_str()) {
                same.push(path.clone());
            }
            // Files come mostly folder by folder, so most share the previous one's folder.
            if last_folder != Some(path.folder()) {
                names.add_folders(path.folder());
                last_folder = Some(path.folder());
            }
        }
        names
    }

    fn add_folders(&mut self, mut folder: &str) {
        while !folder.is_empty() && !self.folders.contains(folder) {
            self.folders.insert(folder.to_owned());
            self.lower_folders
                .entry(folder.to_lowercase())
                .or_default()
                .push(folder.to_owned());
            folder = folder.rfind('/').map_or("", |i| &folder[..i]);
        }
    }

    fn in_before(&self, path: &str) -> bool {
        match self
            .before
            .binary_search_by(|probe| probe.as_str().cmp(path))
        {
            Ok(i) => !self.vacated.contains(&self.before[i]),
            Err(_) => false,
        }
    }

    /// Is there a file at `path` after the manifest?
    pub(crate) fn is_file(&self, path: &str) -> bool {
        self.in_before(path) || self.added.contains(path)
    }

    pub(crate) fn is_folder(&self, path: &str) -> bool {
        self.folders.contains(path)
    }
}

/// Checks every selected destination. Returns the accepted moves and the conflicts;
/// `before` holds the files as they are now, `vacated` the paths the manifest frees.
/// A file selected twice is reported by the caller, not here.
pub(crate) fn check(
    selected: &[Selected],
    before: &Vault,
    names: &DiskNames,
    vacated: &BTreeSet<PagePath>,
    after: &AfterNames,
) -> (Vec<Accepted>, Vec<Conflict>) {
    let mut accepted = Vec::new();
    let mut conflicts = Vec::new();
    let mut taken: BTreeMap<PagePath, PagePath> = BTreeMap::new();
    for item in selected {
        let conflict = |code: ConflictCode, detail: String, with: Option<String>| Conflict {
            path: item.to.clone(),
            detail,
            from: Some(item.from.to_string()),
            with,
            code,
        };
        if let Some((code, detail)) = name_problem(&item.to, item.from.is_page()) {
            conflicts.push(conflict(code, detail, None));
            continue;
        }
        let Ok(to) = PagePath::new(&item.to) else {
            conflicts.push(conflict(
                ConflictCode::EmptyName,
                "the destination is not a usable path".into(),
                None,
            ));
            continue;
        };
        if let Some(first) = taken.get(&to) {
            conflicts.push(conflict(
                ConflictCode::ManyToOne,
                format!("`{first}` goes to the same destination"),
                Some(first.to_string()),
            ));
            continue;
        }
        taken.insert(to.clone(), item.from.clone());
        if let Some((code, detail, with)) = normalization(&to, names, vacated)
            .or_else(|| collision(&item.from, &item.to, &to, before, vacated, after))
        {
            conflicts.push(conflict(code, detail, with));
            continue;
        }
        accepted.push(Accepted {
            from: item.from.clone(),
            to,
        });
    }
    (accepted, conflicts)
}

/// A destination that would give a file a name differing from another file's only by
/// Unicode normalization: a file shadowed there (whatever the manifest vacates, it stays), or
/// a file named there in another normalization that stays put. Writing such a destination
/// would address the existing file; the plan says so instead.
fn normalization(
    to: &PagePath,
    names: &DiskNames,
    vacated: &BTreeSet<PagePath>,
) -> Option<(ConflictCode, String, Option<String>)> {
    if let Some(shadowed) = names.shadowed.iter().find(|s| s.path == *to) {
        return Some((
            ConflictCode::CaseOrNormalization,
            format!(
                "`{to}` differs only by Unicode normalization from `{}`, a file kept on disk \
                 that no path addresses",
                spelled(&shadowed.disk)
            ),
            Some(shadowed.disk.clone()),
        ));
    }
    match names.non_nfc.get(to) {
        Some(disk) if !vacated.contains(to) => Some((
            ConflictCode::CaseOrNormalization,
            format!(
                "`{to}` is the existing file `{}`, named on disk in another Unicode \
                 normalization",
                spelled(disk)
            ),
            Some(to.to_string()),
        )),
        _ => None,
    }
}

/// Collisions of a well-formed destination with the files and folders after the manifest.
fn collision(
    from: &PagePath,
    raw: &str,
    to: &PagePath,
    before: &Vault,
    vacated: &BTreeSet<PagePath>,
    after: &AfterNames,
) -> Option<(ConflictCode, String, Option<String>)> {
    if before.contains(to) && !vacated.contains(to) && to != from {
        return Some((
            ConflictCode::Exists,
            format!("`{to}` already exists"),
            Some(to.to_string()),
        ));
    }
    let nfc_raw: String = raw.nfc().collect();
    if nfc_raw != raw && before.contains(to) {
        return Some((
            ConflictCode::CaseOrNormalization,
            format!("`{raw}` is `{to}` in another Unicode normalization"),
            Some(to.to_string()),
        ));
    }
    if let Some(others) = after.lower_files.get(&to.as_str().to_lowercase()) {
        if let Some(other) = others.iter().find(|other| *other != to && *other != from) {
            return Some((
                ConflictCode::CaseOrNormalization,
                format!("`{to}` differs from `{other}` only by case"),
                Some(other.to_string()),
            ));
        }
    }
    let mut folder = to.folder();
    while !folder.is_empty() {
        if after.is_file(folder) {
            return Some((
                ConflictCode::ParentIsFile,
                format!("`{folder}` is a file, it cannot hold `{to}`"),
                Some(folder.to_owned()),
            ));
        }
        if let Some(others) = after.lower_folders.get(&folder.to_lowercase()) {
            if let Some(other) = others.iter().find(|other| *other != folder) {
                return Some((
                    ConflictCode::CaseOrNormalization,
                    format!("folder `{folder}` differs from folder `{other}` only by case"),
                    Some(other.clone()),
                ));
            }
        }
        folder = folder.rfind('/').map_or("", |i| &folder[..i]);
    }
    if after.is_folder(to.as_str()) {
        return Some((
            ConflictCode::IsFolder,
            format!("`{to}` is a folder"),
            Some(format!("{to}/")),
        ));
    }
    None
}

/// Problems of the name itself, before looking at other files.
fn name_problem(raw: &str, page: bool) -> Option<(ConflictCode, String)> {
    if raw.is_empty() || raw.ends_with('/') || raw.split('/').any(str::is_empty) {
        return Some((
            ConflictCode::EmptyName,
            "the destination has an empty name or folder".into(),
        ));
    }
    if raw.len() > MAX_PATH_BYTES {
        return Some((
            ConflictCode::TooLong,
            format!(
                "the path is {} bytes; the limit is {MAX_PATH_BYTES}",
                raw.len()
            ),
        ));
    }
    let components: Vec<&str> = raw.split('/').collect();
    let last = components.len() - 1;
    for (i, part) in components.iter().enumerate() {
        if *part == "." || *part == ".." {
            return Some((
                ConflictCode::ForbiddenChars,
                format!("`{part}` may not be a path component"),
            ));
        }
        if part.len() > MAX_COMPONENT_BYTES {
            return Some((
                ConflictCode::TooLong,
                format!(
                    "`{part}` is {} bytes; the limit is {MAX_COMPONENT_BYTES}",
                    part.len()
                ),
            ));
        }
        if let Some(c) = part
            .chars()
            .find(|c| c.is_control() || matches!(c, '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|'))
        {
            return Some((
                ConflictCode::ForbiddenChars,
                format!("`{part}` contains the forbidden character {c:?}"),
            ));
        }
        if page && i == last {
            if let Some(c) = part
                .chars()
                .find(|c| matches!(c, '#' | '^' | '[' | ']' | '|'))
            {
                return Some((
                    ConflictCode::ForbiddenChars,
                    format!("page name `{part}` contains {c:?}, which links cannot name"),
                ));
            }
        }
        if is_device_name(part) {
            return Some((
                ConflictCode::ForbiddenChars,
                format!("`{part}` is a reserved device name on Windows"),
            ));
        }
        if part.ends_with('.') || part.ends_with(' ') {
            return Some((
                ConflictCode::TrailingDotOrSpace,
                format!("`{part}` ends with a dot or a space"),
            ));
        }
    }
    let name = components[last];
    if page && name.len() == ".md".len() {
        return Some((ConflictCode::EmptyName, "the page name is empty".into()));
    }
    if name.starts_with(' ') {
        return Some((
            ConflictCode::TrailingDotOrSpace,
            format!("`{name}` starts with a space"),
        ));
    }
    None
}

/// `CON`, `PRN`, `AUX`, `NUL`, `COM1`–`COM9`, `LPT1`–`LPT9`, with or without extension.
fn is_device_name(component: &str) -> bool {
    let stem = component.split('.').next().unwrap_or(component);
    let upper = stem.trim_end().to_ascii_uppercase();
    match upper.as_str() {
        "CON" | "PRN" | "AUX" | "NUL" => true,
        _ => {
            let b = upper.as_bytes();
            b.len() == 4
                && (upper.starts_with("COM") || upper.starts_with("LPT"))
                && (b'1'..=b'9').contains(&b[3])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_problems_have_their_codes() {
        let cases: &[(&str, bool, Option<ConflictCode>)] = &[
            ("notes/a.md", true, None),
            ("notes/a:b.md", true, Some(ConflictCode::ForbiddenChars)),
            ("notes/a#b.md", true, Some(ConflictCode::ForbiddenChars)),
            ("assets/a#b.png", false, None),
            ("notes/CON.md", true, Some(ConflictCode::ForbiddenChars)),
            ("notes/com1", false, Some(ConflictCode::ForbiddenChars)),
            ("notes/a..md", true, None),
            ("notes./a.md", true, Some(ConflictCode::TrailingDotOrSpace)),
            ("notes/a ", false, Some(ConflictCode::TrailingDotOrSpace)),
            ("notes//a.md", true, Some(ConflictCode::EmptyName)),
            ("notes/.md", true, Some(ConflictCode::EmptyName)),
            ("../a.md", true, Some(ConflictCode::ForbiddenChars)),
        ];
        for (raw, page, want) in cases {
            assert_eq!(name_problem(raw, *page).map(|p| p.0), *want, "{raw}");
        }
        let long = format!("{}.md", "x".repeat(300));
        assert_eq!(
            name_problem(&long, true).map(|p| p.0),
            Some(ConflictCode::TooLong)
        );
    }
}
