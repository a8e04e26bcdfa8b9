//! Fuzz target `lsp_frames`: see `quire_fuzz::targets::lsp`.
#![cfg_attr(all(fuzzing, not(feature = "afl")), no_main)]

quire_fuzz::target!(quire_fuzz::targets::lsp::FRAMES);
