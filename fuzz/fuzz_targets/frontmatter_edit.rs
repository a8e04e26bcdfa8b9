//! Fuzz target `frontmatter_edit`: see `quire_fuzz::targets::frontmatter_edit`.
#![cfg_attr(all(fuzzing, not(feature = "afl")), no_main)]

quire_fuzz::target!(quire_fuzz::targets::frontmatter_edit::TARGET);
