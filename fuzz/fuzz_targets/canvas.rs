//! Fuzz target `canvas`: see `quire_fuzz::targets::canvas`.
#![cfg_attr(all(fuzzing, not(feature = "afl")), no_main)]

quire_fuzz::target!(quire_fuzz::targets::canvas::TARGET);
