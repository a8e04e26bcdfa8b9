//! quire-http
