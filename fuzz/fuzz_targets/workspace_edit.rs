//! Fuzz target `workspace_edit`: see `quire_fuzz::targets::workspace_edit`.
#![cfg_attr(all(fuzzing, not(feature = "afl")), no_main)]

quire_fuzz::target!(quire_fuzz::targets::workspace_edit::TARGET);
