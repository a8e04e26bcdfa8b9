//! quire-service
