//! Great-circle distances as Redis computes them: the haversine formula on a sphere of radius
//! 6372797.560856 m, with the same shortcut for equal longitudes and the same order of
//! floating-point operations (so 4-decimal replies match).

/// Earth radius Redis uses (metres).
pub const EARTH_RADIUS_M: f64 = 6372797.560856;

/// Degrees to radians.
fn rad(deg: f64) -> f64 {
    deg * (std::f64::consts::PI / 180.0)
}

/// Distance in metres along a meridian between two latitudes (degrees).
pub fn lat_distance_m(lat1: f64, lat2: f64) -> f64 {
    EARTH_RADIUS_M * (rad(lat2) - rad(lat1)).abs()
}

/// Haversine distance in metres between (lon1, lat1) and (lon2, lat2), degrees, as GEODIST.
pub fn distance_m(lon1: f64, lat1: f64, lon2: f64, lat2: f64) -> f64 {
    let v = ((rad(lon2) - rad(lon1)) / 2.0).sin();
    if v == 0.0 {
        return lat_distance_m(lat1, lat2);
    }
    let (r1, r2) = (rad(lat1), rad(lat2));
    let u = ((r2 - r1) / 2.0).sin();
    let a = u * u + r1.cos() * r2.cos() * v * v;
    2.0 * EARTH_RADIUS_M * a.sqrt().asin()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn palermo_catania() {
        // Redis docs: GEODIST Sicily Palermo Catania → "166274.1516" (cell centres).
        let (a, b) = (
            crate::geo::decode(crate::geo::encode(13.361389, 38.115556).unwrap()),
            crate::geo::decode(crate::geo::encode(15.087269, 37.502669).unwrap()),
        );
        assert_eq!(
            format!("{:.4}", distance_m(a.0, a.1, b.0, b.1)),
            "166274.1516"
        );
        assert_eq!(distance_m(1.0, 10.0, 1.0, 11.0), lat_distance_m(10.0, 11.0));
    }
}
