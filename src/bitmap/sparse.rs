//! Paged representation of very sparse bitmaps (filled in by the storage work).
