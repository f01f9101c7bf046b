//! chart (stub).
