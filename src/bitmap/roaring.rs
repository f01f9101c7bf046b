//! Portable Roaring serialization format import/export (filled in by the storage work).
