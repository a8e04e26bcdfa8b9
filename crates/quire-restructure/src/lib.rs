//! quire-restructure
