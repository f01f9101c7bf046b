//! inspect (stub).
