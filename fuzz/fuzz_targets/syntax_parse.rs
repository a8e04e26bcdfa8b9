//! Fuzz target `syntax_parse`: see `quire_fuzz::targets::syntax`.
#![cfg_attr(all(fuzzing, not(feature = "afl")), no_main)]

quire_fuzz::target!(quire_fuzz::targets::syntax::TARGET);
