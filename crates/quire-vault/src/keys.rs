//! Which links can reach a set of files: the folded name keys of those files, asked of every
//! link of the vault (a plan's affected links, a page's backlinks).

use std::collections::HashSet;

use crate::{fold_name, PagePath};
use quire_syntax::Link;

/// Folded name keys of the files whose links can change, with a bit set of their quick
/// hashes so that the scan over every link of the vault rarely needs to fold a name.
pub struct NameKeys {
    exact: HashSet<String>,
    quick: Vec<u64>,
}

impl Default for NameKeys {
    fn default() -> Self {
        NameKeys::new()
    }
}

impl NameKeys {
    const QUICK_BITS: usize = 1 << 16;

    pub fn new() -> NameKeys {
        NameKeys {
            exact: HashSet::new(),
            quick: vec![0; Self::QUICK_BITS / 64],
        }
    }

    /// True when no path was added: no link can change.
    pub fn is_empty(&self) -> bool {
        self.exact.is_empty()
    }

    /// Adds the keys of `path`: its name, and for a page its stem.
    pub fn add(&mut self, path: &PagePath) {
        self.insert(path.name());
        if path.is_page() {
            self.insert(path.stem());
        }
    }

    fn insert(&mut self, name: &str) {
        let mut key = String::with_capacity(name.len());
        fold_name(name, |c| key.push(c));
        if let Some(hash) = quick_hash(&key) {
            let bit = Self::bit(hash);
            self.quick[bit / 64] |= 1 << (bit % 64);
        }
        self.exact.insert(key);
    }

    fn bit(hash: u64) -> usize {
        ((hash ^ (hash >> 32)) as usize) % Self::QUICK_BITS
    }

    /// Could this link's resolution involve a file with one of these keys? Every file a
    /// wiki or markdown target can reach carries its last segment, folded, as its name or
    /// stem. `buffer` is scratch space, so that checking every link of the vault allocates
    /// nothing.
    pub fn may_reach(&self, link: &Link, buffer: &mut String) -> bool {
        let target = link.target.trim();
        if target.is_empty() {
            return false;
        }
        let last = target.rsplit('/').next().unwrap_or(target);
        // An ASCII name folds to ASCII, and folding a folded key changes nothing, so a
        // clear bit proves the key absent.
        if let Some(hash) = quick_hash(last) {
            let bit = Self::bit(hash);
            if self.quick[bit / 64] & (1 << (bit % 64)) == 0 {
                return false;
            }
        }
        buffer.clear();
        fold_name(last, |c| buffer.push(c));
        self.exact.contains(buffer.as_str())
    }
}

/// FNV-1a of the folded form of an ASCII name, computed without building it; `None` for
/// other names.
fn quick_hash(name: &str) -> Option<u64> {
    if !name.is_ascii() {
        return None;
    }
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    fold_name(name, |c| {
        hash ^= u64::from(c);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    });
    Some(hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(target: &str) -> Link {
        let mut links = quire_syntax::parse(&format!("[[{target}]]")).links;
        assert_eq!(links.len(), 1, "{target}");
        links.remove(0)
    }

    #[test]
    fn links_whose_last_segment_folds_to_a_key_may_reach() {
        let mut keys = NameKeys::new();
        keys.add(&PagePath::new("a/My Note.md").unwrap());
        keys.add(&PagePath::new("Ärger.md").unwrap());
        let mut buffer = String::new();
        for target in [
            "my note",
            "x/MY__NOTE",
            "My Note.md",
            " my-note ",
            "A\u{308}rger",
        ] {
            assert!(keys.may_reach(&link(target), &mut buffer), "{target}");
        }
        for target in ["my notes", "note", "My Note/x"] {
            assert!(!keys.may_reach(&link(target), &mut buffer), "{target}");
        }
    }
}
