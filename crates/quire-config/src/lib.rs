//! quire-config
