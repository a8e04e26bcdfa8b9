//! Fuzz target `dql`: see `quire_fuzz::targets::query`.
#![cfg_attr(all(fuzzing, not(feature = "afl")), no_main)]

quire_fuzz::target!(quire_fuzz::targets::query::DQL);
