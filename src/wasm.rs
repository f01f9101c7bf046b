//! JavaScript API (stub).
