//! quire-testkit
