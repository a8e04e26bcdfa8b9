//! The word lists page names, folders, headings and filler text are built from.
//!
//! Non-ASCII entries are written as escapes so the source is unambiguously NFC (precomposed).
//! No list contains `knowledge`, `hub`, `missing`, `assets` or YAML keywords such as `yes`:
//! the hub page, broken links, the asset folder and unquoted frontmatter values rely on that.

/// Top-level folders of a typical personal vault, used before random words.
pub(crate) const TOP_FOLDERS: &[&str] = &[
    "projects",
    "areas",
    "resources",
    "archive",
    "journal",
    "people",
    "meetings",
    "inbox",
];

/// Lower-case ASCII words for names and filler text.
pub(crate) const WORDS: &[&str] = &[
    "alpha",
    "beta",
    "gamma",
    "delta",
    "orbit",
    "harbor",
    "garden",
    "health",
    "sleep",
    "log",
    "fitness",
    "budget",
    "travel",
    "reading",
    "writing",
    "research",
    "design",
    "roadmap",
    "meeting",
    "weekly",
    "monthly",
    "review",
    "planning",
    "retro",
    "kitchen",
    "recipes",
    "books",
    "movies",
    "music",
    "guitar",
    "running",
    "cycling",
    "hiking",
    "camping",
    "family",
    "friends",
    "career",
    "interview",
    "finance",
    "taxes",
    "invoice",
    "client",
    "vendor",
    "server",
    "database",
    "backup",
    "network",
    "security",
    "privacy",
    "cooking",
    "coffee",
    "tea",
    "ocean",
    "river",
    "mountain",
    "forest",
    "city",
    "village",
    "winter",
    "summer",
    "spring",
    "autumn",
    "morning",
    "evening",
    "launch",
    "sprint",
    "backlog",
    "feature",
    "bugfix",
    "release",
    "draft",
    "outline",
    "summary",
    "sketch",
    "lecture",
    "course",
    "thesis",
    "paper",
    "habit",
    "goal",
    "vision",
    "mission",
    "strategy",
    "metrics",
    "dashboard",
    "onboarding",
    "handbook",
    "policy",
    "contract",
    "lease",
    "apartment",
    "moving",
    "wedding",
    "birthday",
    "gift",
    "shopping",
    "groceries",
    "pantry",
    "workout",
    "yoga",
    "meditation",
    "therapy",
    "doctor",
    "dentist",
    "insurance",
    "vacation",
    "flight",
    "hotel",
    "visa",
    "language",
    "spanish",
    "german",
    "history",
    "physics",
    "chemistry",
    "biology",
    "poetry",
    "essay",
    "podcast",
    "newsletter",
    "blog",
    "photo",
    "camera",
    "drawing",
    "painting",
    "pottery",
    "woodwork",
    "bike",
    "repair",
    "plumbing",
    "solar",
    "compost",
    "bees",
    "orchard",
    "notes",
    "ideas",
    "plan",
    "checklist",
];

/// Names that recur in many folders, producing ambiguous bare wiki links.
pub(crate) const COMMON_NAMES: &[&str] = &[
    "index", "notes", "README", "todo", "ideas", "overview", "inbox",
];

/// NFC words with non-ASCII letters, for Unicode page and folder names.
pub(crate) const UNICODE_WORDS: &[&str] = &[
    "caf\u{e9}",
    "na\u{ef}ve",
    "r\u{e9}sum\u{e9}",
    "Z\u{fc}rich",
    "sm\u{f6}rg\u{e5}sbord",
    "pi\u{f1}ata",
    "fa\u{e7}ade",
    "\u{395}\u{3bb}\u{3bb}\u{3b7}\u{3bd}\u{3b9}\u{3ba}\u{3ac}",
    "\u{65e5}\u{672c}\u{8a9e}\u{30e1}\u{30e2}",
    "\u{41f}\u{440}\u{438}\u{432}\u{435}\u{442}",
    "cr\u{e8}me br\u{fb}l\u{e9}e",
    "S\u{e3}o Paulo",
    "Krak\u{f3}w",
    "\u{c6}r\u{f8}",
    "Stra\u{df}e",
];

/// Section headings. None contains `#`, `^`, `|`, `[` or `]`.
pub(crate) const HEADINGS: &[&str] = &[
    "Overview",
    "Background",
    "Goals",
    "Next Steps",
    "Open Questions",
    "Decisions",
    "Action Items",
    "References",
    "Timeline",
    "Risks",
    "Summary",
    "Log",
    "Details",
    "Follow-up",
    "Lessons Learned",
    "\u{dc}berblick",
    "Prochaines \u{e9}tapes",
];

/// Tags, inline (`#tag`) and in frontmatter lists.
pub(crate) const TAGS: &[&str] = &[
    "project",
    "idea",
    "todo",
    "status/active",
    "status/done",
    "health",
    "reading",
    "meeting",
    "review",
    "area/home",
    "caf\u{e9}",
];

/// Small words that make filler sentences read like prose.
pub(crate) const GLUE: &[&str] = &[
    "the", "and", "with", "for", "about", "from", "after", "before", "during", "our", "this",
    "next", "some", "every", "into",
];

/// Actors of comments and personal state.
pub(crate) const ACTORS: &[&str] = &["alice", "bob", "carol"];

/// Comment bodies.
pub(crate) const REMARKS: &[&str] = &[
    "Can we link this to the roadmap?",
    "This section is out of date.",
    "Great summary, thanks!",
    "Needs a source.",
    "Should this move to the archive?",
    "Typo in the second paragraph.",
    "Let's discuss on Monday.",
    "Merged the notes from the call \u{2014} please check.",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_avoid_reserved_names() {
        let reserved = [
            "knowledge",
            "hub",
            "missing",
            "assets",
            "yes",
            "no",
            "on",
            "off",
        ];
        for list in [WORDS, TOP_FOLDERS, COMMON_NAMES, UNICODE_WORDS, GLUE] {
            for word in list {
                assert!(!reserved.contains(&word.to_lowercase().as_str()), "{word}");
            }
        }
    }

    #[test]
    fn headings_avoid_link_syntax_characters() {
        for heading in HEADINGS {
            assert!(!heading.contains(['#', '^', '|', '[', ']']), "{heading}");
        }
    }
}
