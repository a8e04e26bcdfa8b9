//! Fuzz target `mcp_args`: see `quire_fuzz::targets::mcp`.
#![cfg_attr(all(fuzzing, not(feature = "afl")), no_main)]

quire_fuzz::target!(quire_fuzz::targets::mcp::TARGET);
