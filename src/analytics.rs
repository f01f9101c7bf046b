//! analytics (stub).
