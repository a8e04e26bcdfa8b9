//! quire-syntax
