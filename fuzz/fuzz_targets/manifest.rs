//! Fuzz target `manifest`: see `quire_fuzz::targets::manifest`.
#![cfg_attr(all(fuzzing, not(feature = "afl")), no_main)]

quire_fuzz::target!(quire_fuzz::targets::manifest::TARGET);
