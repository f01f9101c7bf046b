//! Built-in demo data set (stub).
