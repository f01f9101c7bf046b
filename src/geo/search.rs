//! GEOSEARCH over a sorted set without scanning it.
//!
//! The search centre is hashed at a step chosen from the radius (coarser for large radii and
//! near the poles); the centre cell and its eight neighbours (wrapping at the antimeridian),
//! with the step lowered once when a neighbour does not reach the bounding box and the
//! neighbours lying wholly outside the bounding box dropped, are visited in the fixed order
//! centre, N, S, E, W, NE, NW, SE, SW. Each cell is a contiguous score range `[min, max)` of
//! the sorted set, found by binary search; its members are tested against the shape (circle:
//! haversine distance; box: north-south distance, then east-west distance at the member's
//! latitude) in score order. This order is what an unsorted reply and `COUNT n ANY` show.
//! ASC/DESC sort by distance: a stable sort for a full reply, and the Bentley–McIlroy partial
//! quicksort (only the first `count` places ordered) when COUNT cuts the reply, so that ties
//! come out in the same order as Redis.

use super::distance::{distance_m, lat_distance_m, EARTH_RADIUS_M};
use super::geohash::{self, Hash, LAT_MAX, STEP_MAX};
use crate::zset::ZSet;

/// Half the Earth's circumference in the Mercator projection (metres), used to pick a step.
const MERCATOR_MAX: f64 = 20037726.37;

/// The search area; sizes in metres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// BYRADIUS: a circle of this radius.
    Radius(f64),
    /// BYBOX: a box this wide (east-west) and high (north-south).
    Box { width: f64, height: f64 },
}

/// One member found by a search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// Index of the member in `ZSet::sorted()`.
    pub index: usize,
    /// Distance from the centre in metres.
    pub dist: f64,
    /// The member's position (cell centre), degrees.
    pub lon: f64,
    pub lat: f64,
    /// The member's score (its geohash).
    pub score: f64,
}

/// Sort order of a search reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Cell-walk order.
    None,
    Asc,
    Desc,
}

/// The step (bits per axis) Redis picks for a search of `range_m` metres around latitude `lat`.
pub fn estimate_step(range_m: f64, lat: f64) -> u8 {
    if range_m == 0.0 {
        return STEP_MAX;
    }
    let mut step: i32 = 1;
    let mut r = range_m;
    while r < MERCATOR_MAX {
        r *= 2.0;
        step += 1;
    }
    step -= 2;
    if !(-66.0..=66.0).contains(&lat) {
        step -= 1;
        if !(-80.0..=80.0).contains(&lat) {
            step -= 1;
        }
    }
    step.clamp(1, STEP_MAX as i32) as u8
}

/// The bounding box (lon_min, lat_min, lon_max, lat_max) in degrees of a shape around a centre.
fn bounding_box(lon: f64, lat: f64, shape: Shape) -> [f64; 4] {
    let (half_w, half_h) = match shape {
        Shape::Radius(r) => (r, r),
        Shape::Box { width, height } => (width / 2.0, height / 2.0),
    };
    let lat_delta = (half_h / EARTH_RADIUS_M).to_degrees_redis();
    let lon_delta_top =
        (half_w / EARTH_RADIUS_M / (lat + lat_delta).to_radians_redis().cos()).to_degrees_redis();
    let lon_delta_bottom =
        (half_w / EARTH_RADIUS_M / (lat - lat_delta).to_radians_redis().cos()).to_degrees_redis();
    let lon_delta = if lat < 0.0 {
        lon_delta_bottom
    } else {
        lon_delta_top
    };
    [
        lon - lon_delta,
        lat - lat_delta,
        lon + lon_delta,
        lat + lat_delta,
    ]
}

/// Degree/radian conversions with the same rounding as Redis (multiply by π/180 or 180/π).
trait RedisAngle {
    fn to_radians_redis(self) -> f64;
    fn to_degrees_redis(self) -> f64;
}

impl RedisAngle for f64 {
    fn to_radians_redis(self) -> f64 {
        self * (std::f64::consts::PI / 180.0)
    }
    fn to_degrees_redis(self) -> f64 {
        self / (std::f64::consts::PI / 180.0)
    }
}

/// The cells a search visits, in visiting order (excluded and repeated cells already dropped).
pub fn cells(lon: f64, lat: f64, shape: Shape) -> Vec<Hash> {
    let [min_lon, min_lat, max_lon, max_lat] = bounding_box(lon, lat, shape);
    let range_m = match shape {
        Shape::Radius(r) => r,
        Shape::Box { width, height } => {
            ((width / 2.0) * (width / 2.0) + (height / 2.0) * (height / 2.0)).sqrt()
        }
    };
    let mut step = estimate_step(range_m, lat);
    let at = |step: u8| geohash::encode_step(lon, lat, step, LAT_MAX).unwrap_or(Hash::ZERO);
    let mut centre = at(step);
    let side = |h: Hash, dx: i8, dy: i8| geohash::area(geohash::neighbour(h, dx, dy), LAT_MAX);
    let too_coarse = side(centre, 0, 1).lat_max < max_lat
        || side(centre, 0, -1).lat_min > min_lat
        || side(centre, 1, 0).lon_max < max_lon
        || side(centre, -1, 0).lon_min > min_lon;
    if step > 1 && too_coarse {
        step -= 1;
        centre = at(step);
    }
    // Visiting order: centre, N, S, E, W, NE, NW, SE, SW.
    const MOVES: [(i8, i8); 9] = [
        (0, 0),
        (0, 1),
        (0, -1),
        (1, 0),
        (-1, 0),
        (1, 1),
        (-1, 1),
        (1, -1),
        (-1, -1),
    ];
    let mut list: Vec<Hash> = MOVES
        .iter()
        .map(|&(dx, dy)| geohash::neighbour(centre, dx, dy))
        .collect();
    if step >= 2 {
        let a = geohash::area(centre, LAT_MAX);
        for (i, &(dx, dy)) in MOVES.iter().enumerate() {
            if (dy < 0 && a.lat_min < min_lat)
                || (dy > 0 && a.lat_max > max_lat)
                || (dx < 0 && a.lon_min < min_lon)
                || (dx > 0 && a.lon_max > max_lon)
            {
                list[i] = Hash::ZERO;
            }
        }
    }
    let mut out = Vec::with_capacity(9);
    let mut last: Option<usize> = None;
    for (i, h) in list.iter().enumerate() {
        if h.is_zero() {
            continue;
        }
        // A cell equal to the previously visited one (huge radii) is skipped; the centre
        // itself is never used for that comparison.
        if let Some(l) = last {
            if l != 0 && list[l] == *h {
                continue;
            }
        }
        out.push(*h);
        last = Some(i);
    }
    out
}

/// Tests a point against the shape; returns its distance from the centre in metres.
fn within(clon: f64, clat: f64, shape: Shape, lon: f64, lat: f64) -> Option<f64> {
    match shape {
        Shape::Radius(r) => {
            let d = distance_m(clon, clat, lon, lat);
            (d <= r).then_some(d)
        }
        Shape::Box { width, height } => {
            if lat_distance_m(lat, clat) > height / 2.0 {
                return None;
            }
            if distance_m(lon, lat, clon, lat) > width / 2.0 {
                return None;
            }
            Some(distance_m(clon, clat, lon, lat))
        }
    }
}

/// Finds the members of `zset` inside `shape` around (lon, lat), in cell-walk order. With
/// `limit > 0` (COUNT n ANY) the walk stops as soon as `limit` members were found.
pub fn search(zset: &ZSet, lon: f64, lat: f64, shape: Shape, limit: usize) -> Vec<Hit> {
    let sorted = zset.sorted();
    let mut hits = Vec::new();
    for cell in cells(lon, lat, shape) {
        if limit > 0 && hits.len() >= limit {
            break;
        }
        let (min, max) = cell.score_range();
        let (min, max) = (min as f64, max as f64);
        let start = sorted.partition_point(|e| e.0 < min);
        for (i, (score, _)) in sorted.iter().enumerate().skip(start) {
            if *score >= max {
                break;
            }
            let (plon, plat) = geohash::decode(geohash::score_bits(*score));
            if let Some(dist) = within(lon, lat, shape, plon, plat) {
                hits.push(Hit {
                    index: i,
                    dist,
                    lon: plon,
                    lat: plat,
                    score: *score,
                });
            }
            if limit > 0 && hits.len() >= limit {
                break;
            }
        }
    }
    hits
}

/// Orders hits by distance as Redis does; only the first `keep` places need to be right.
pub fn sort_hits(hits: &mut [Hit], order: Order, keep: usize) {
    let cmp = |a: &Hit, b: &Hit| -> i32 {
        let c = if a.dist > b.dist {
            1
        } else if a.dist == b.dist {
            0
        } else {
            -1
        };
        if order == Order::Desc {
            -c
        } else {
            c
        }
    };
    match order {
        Order::None => {}
        _ if keep >= hits.len() => hits.sort_by(|a, b| cmp(a, b).cmp(&0)),
        _ if keep > 0 => {
            let n = hits.len();
            partial_quicksort(hits, 0, n, 0, keep - 1, &cmp)
        }
        _ => {}
    }
}

/// Bentley–McIlroy three-way quicksort of `a[base..base + n]` that only recurses into the parts
/// overlapping the index range `[lo, hi]` (a partial sort: those places end up right).
fn partial_quicksort<T: Copy>(
    a: &mut [T],
    mut base: usize,
    mut n: usize,
    lo: usize,
    hi: usize,
    cmp: &dyn Fn(&T, &T) -> i32,
) {
    let overlaps = |start: usize, len: usize| !(hi < start || lo >= start + len);
    loop {
        let s = &mut a[base..base + n];
        if n < 7 {
            for m in 1..n {
                let mut l = m;
                while l > 0 && cmp(&s[l - 1], &s[l]) > 0 {
                    s.swap(l, l - 1);
                    l -= 1;
                }
            }
            return;
        }
        let med3 = |s: &[T], a: usize, b: usize, c: usize| -> usize {
            if cmp(&s[a], &s[b]) < 0 {
                if cmp(&s[b], &s[c]) < 0 {
                    b
                } else if cmp(&s[a], &s[c]) < 0 {
                    c
                } else {
                    a
                }
            } else if cmp(&s[b], &s[c]) > 0 {
                b
            } else if cmp(&s[a], &s[c]) < 0 {
                a
            } else {
                c
            }
        };
        let mut pm = n / 2;
        if n > 7 {
            let mut pl = 0;
            let mut pn = n - 1;
            if n > 40 {
                let d = n / 8;
                pl = med3(s, pl, pl + d, pl + 2 * d);
                pm = med3(s, pm - d, pm, pm + d);
                pn = med3(s, pn - 2 * d, pn - d, pn);
            }
            pm = med3(s, pl, pm, pn);
        }
        s.swap(0, pm);
        let (mut pa, mut pb) = (1usize, 1usize);
        // pc and pd are kept one past the classic positions so they never go below zero.
        let (mut pc, mut pd) = (n, n);
        loop {
            while pb < pc {
                let c = cmp(&s[pb], &s[0]);
                if c > 0 {
                    break;
                }
                if c == 0 {
                    s.swap(pa, pb);
                    pa += 1;
                }
                pb += 1;
            }
            while pb < pc {
                let c = cmp(&s[pc - 1], &s[0]);
                if c < 0 {
                    break;
                }
                if c == 0 {
                    s.swap(pc - 1, pd - 1);
                    pd -= 1;
                }
                pc -= 1;
            }
            if pb >= pc {
                break;
            }
            s.swap(pb, pc - 1);
            pb += 1;
            pc -= 1;
        }
        let r = pa.min(pb - pa);
        vec_swap(s, 0, pb - r, r);
        let r = (pd - pc).min(n - pd);
        vec_swap(s, pb, n - r, r);
        let left = pb - pa;
        let right = pd - pc;
        if left > 1 && overlaps(base, left) {
            partial_quicksort(a, base, left, lo, hi, cmp);
        }
        if right > 1 && overlaps(base + n - right, right) {
            base += n - right;
            n = right;
            continue;
        }
        return;
    }
}

fn vec_swap<T>(s: &mut [T], a: usize, b: usize, n: usize) {
    for i in 0..n {
        s.swap(a + i, b + i);
    }
}
