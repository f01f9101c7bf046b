//! GEO engine (stub): 52-bit geohash, haversine distance, GEOSEARCH cell walk.
