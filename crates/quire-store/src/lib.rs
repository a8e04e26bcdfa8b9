//! quire-store
