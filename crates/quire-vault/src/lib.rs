//! quire-vault
