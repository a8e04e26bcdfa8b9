//! Fuzz target `script_lines`: see `quire_fuzz::targets::script`.
#![cfg_attr(all(fuzzing, not(feature = "afl")), no_main)]

quire_fuzz::target!(quire_fuzz::targets::script::TARGET);
