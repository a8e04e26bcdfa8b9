//! Fuzz target `frontmatter`: see `quire_fuzz::targets::frontmatter`.
#![cfg_attr(all(fuzzing, not(feature = "afl")), no_main)]

quire_fuzz::target!(quire_fuzz::targets::frontmatter::TARGET);
