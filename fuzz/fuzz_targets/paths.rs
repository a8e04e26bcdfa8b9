//! Fuzz target `paths`: see `quire_fuzz::targets::paths`.
#![cfg_attr(all(fuzzing, not(feature = "afl")), no_main)]

quire_fuzz::target!(quire_fuzz::targets::paths::TARGET);
