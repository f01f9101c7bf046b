//! GEO engine: the 52-bit geohash Redis stores as GEO scores ([`geohash`]), haversine
//! distances ([`distance`]) and the GEOSEARCH cell walk over a sorted set ([`search`]).
//! Free of command parsing; `command::geo` turns argv into calls here.

pub mod distance;
pub mod geohash;

pub use distance::distance_m;
pub use geohash::{decode, encode};
pub mod search;
