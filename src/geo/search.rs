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
//! A cell's quarter-cells are contiguous score sub-ranges too: [`search`] skips those wholly
//! outside the shape, and [`best_first`] answers ASC/DESC with COUNT by taking quarter-cells
//! nearest-first (or farthest-first) by a bound of their distance, reading only what can be
//! among the first `count` results.
//! BYPOLYGON (Valkey 9, as Valkey 9.1.2 answers it): the search centre is the mean of the
//! vertices' unit vectors on the sphere, the cells are those of a circle around it reaching the
//! farthest vertex, and a member is inside when the planar ray-casting test in (longitude,
//! latitude) degrees says so: edges are straight lines in degrees, not great circles, and a
//! point on a bottom or left edge counts while one on a top or right edge does not. Its
//! distance (WITHDIST, STOREDIST, ASC/DESC) is the haversine distance from that centre.
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
pub enum Shape<'a> {
    /// BYRADIUS: a circle of this radius.
    Radius(f64),
    /// BYBOX: a box this wide (east-west) and high (north-south).
    Box {
        /// East-west extent, metres.
        width: f64,
        /// North-south extent, metres.
        height: f64,
    },
    /// BYPOLYGON (Valkey 9): search around [`Polygon::centre`].
    Polygon(&'a Polygon),
}

/// A BYPOLYGON area: at least three (longitude, latitude) vertices in degrees, in the order
/// given, closed implicitly from the last back to the first.
#[derive(Debug, Clone, PartialEq)]
pub struct Polygon {
    vertices: Vec<(f64, f64)>,
    /// The search centre (lon, lat), degrees: the direction of the sum of the vertices' unit
    /// vectors (what Valkey 9.1.2's WITHDIST distances are measured from).
    pub centre: (f64, f64),
    /// Haversine distance (metres) from the centre to the farthest vertex: the radius of the
    /// circle whose cells are walked.
    pub radius: f64,
    /// Planar bounding box of the vertices: lon_min, lat_min, lon_max, lat_max (degrees).
    bbox: [f64; 4],
}

impl Polygon {
    /// Builds the polygon; `None` for fewer than three vertices.
    pub fn new(vertices: Vec<(f64, f64)>) -> Option<Polygon> {
        if vertices.len() < 3 {
            return None;
        }
        let (mut x, mut y, mut z) = (0.0f64, 0.0f64, 0.0f64);
        let mut bbox = [
            f64::INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NEG_INFINITY,
        ];
        for &(lon, lat) in &vertices {
            let (lo, la) = (lon.to_radians_redis(), lat.to_radians_redis());
            x += la.cos() * lo.cos();
            y += la.cos() * lo.sin();
            z += la.sin();
            bbox = [
                bbox[0].min(lon),
                bbox[1].min(lat),
                bbox[2].max(lon),
                bbox[3].max(lat),
            ];
        }
        // The sum, not divided by the count: only the direction matters, and the undivided
        // sum (then degrees, as every centre) gives Valkey 9.1.2's last digits (STOREDIST
        // prints 17).
        let centre = (
            y.atan2(x).to_degrees_redis(),
            z.atan2((x * x + y * y).sqrt()).to_degrees_redis(),
        );
        let radius = [
            (bbox[0], bbox[1]),
            (bbox[2], bbox[1]),
            (bbox[2], bbox[3]),
            (bbox[0], bbox[3]),
        ]
        .iter()
        .map(|&(lon, lat)| distance_m(centre.0, centre.1, lon, lat))
        .fold(0.0, f64::max);
        Some(Polygon {
            vertices,
            centre,
            radius,
            bbox,
        })
    }

    /// The planar ray-casting test in degrees: a horizontal ray east of the point crosses an
    /// edge when the edge's ends lie on either side of the point's latitude (one `>`, one
    /// not) and the crossing is strictly east of the point; an odd count is inside.
    pub fn contains(&self, lon: f64, lat: f64) -> bool {
        let v = &self.vertices;
        let mut inside = false;
        let mut j = v.len() - 1;
        for i in 0..v.len() {
            let (xi, yi) = v[i];
            let (xj, yj) = v[j];
            if (yi > lat) != (yj > lat) && lon < (xj - xi) * (lat - yi) / (yj - yi) + xi {
                inside = !inside;
            }
            j = i;
        }
        inside
    }

    /// Haversine distance (metres) from the centre to (lon, lat) degrees.
    pub fn distance(&self, lon: f64, lat: f64) -> f64 {
        distance_m(self.centre.0, self.centre.1, lon, lat)
    }

    /// True when no point of `area` can be inside: the area misses the vertices' planar
    /// bounding box.
    fn misses(&self, a: &geohash::Area) -> bool {
        let [lon_min, lat_min, lon_max, lat_max] = self.bbox;
        a.lon_max < lon_min || a.lon_min > lon_max || a.lat_max < lat_min || a.lat_min > lat_max
    }
}

/// One member found by a search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// Index of the member in `ZSet::sorted()`.
    pub index: usize,
    /// Distance from the centre in metres.
    pub dist: f64,
    /// The member's position (cell centre), degrees: longitude.
    pub lon: f64,
    /// Latitude, degrees.
    pub lat: f64,
    /// The member's score (its geohash).
    pub score: f64,
}

/// Sort order of a search reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Cell-walk order.
    None,
    /// ASC: nearest first.
    Asc,
    /// DESC: farthest first.
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
        Shape::Polygon(p) => (p.radius, p.radius),
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
    let [min_lon, min_lat, max_lon, max_lat] = match shape {
        // The vertices' planar bounds, not the circle's.
        Shape::Polygon(p) => p.bbox,
        _ => bounding_box(lon, lat, shape),
    };
    let range_m = match shape {
        Shape::Radius(r) => r,
        Shape::Box { width, height } => {
            ((width / 2.0) * (width / 2.0) + (height / 2.0) * (height / 2.0)).sqrt()
        }
        Shape::Polygon(p) => p.radius,
    };
    let mut step = estimate_step(range_m, lat);
    let at = |step: u8| geohash::encode_step(lon, lat, step, LAT_MAX).unwrap_or(Hash::ZERO);
    let mut centre = at(step);
    if centre.is_zero() {
        // A centre outside the GEO latitude range (a BYPOLYGON centroid near a pole): no
        // cell, an empty reply. Valkey 9.1.2's reply there is undefined: geohashEncode
        // refuses the centroid before it writes the hash, and the walk reads an
        // uninitialized GeoHashBits (seen answering nothing, and the whole world).
        return Vec::new();
    }
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
        Shape::Polygon(p) => p.contains(lon, lat).then(|| p.distance(lon, lat)),
    }
}

/// Finds the members of `zset` inside `shape` around (lon, lat), in cell-walk order. With
/// `limit > 0` (COUNT n ANY) the walk stops as soon as `limit` members were found.
///
/// Each cell is read in score order, as Redis reads it, but a sub-range whose quarter-cell lies
/// wholly outside the shape is skipped without decoding its members (that cannot change which
/// members are found nor their order).
pub fn search(zset: &ZSet, lon: f64, lat: f64, shape: Shape, limit: usize) -> Vec<Hit> {
    let sorted = zset.sorted();
    let mut walk = Walk {
        sorted,
        lon,
        lat,
        shape,
        limit,
        hits: Vec::new(),
    };
    for cell in cells(lon, lat, shape) {
        if limit > 0 && walk.hits.len() >= limit {
            break;
        }
        let (min, max) = cell.score_range();
        let lo = sorted.partition_point(|e| e.0 < min as f64);
        let hi = sorted.partition_point(|e| e.0 < max as f64);
        walk.visit(cell, lo, hi);
    }
    walk.hits
}

/// The state of one [`search`]: hits so far, in walk order.
struct Walk<'a> {
    sorted: &'a [(f64, crate::zset::Member)],
    lon: f64,
    lat: f64,
    shape: Shape<'a>,
    limit: usize,
    hits: Vec<Hit>,
}

impl Walk<'_> {
    fn full(&self) -> bool {
        self.limit > 0 && self.hits.len() >= self.limit
    }

    /// Visits `sorted[lo..hi]`, the members of cell `hash`, in score order.
    fn visit(&mut self, hash: Hash, lo: usize, hi: usize) {
        if lo >= hi || self.full() {
            return;
        }
        if hi - lo > LEAF && hash.step < STEP_MAX {
            if outside(
                self.lon,
                self.lat,
                self.shape,
                &geohash::area(hash, LAT_MAX),
            ) {
                return;
            }
            let mut start = lo;
            for child in children(hash) {
                let (_, max) = child.score_range();
                let end = start + self.sorted[start..hi].partition_point(|e| e.0 < max as f64);
                self.visit(child, start, end);
                start = end;
            }
            return;
        }
        for i in lo..hi {
            let score = self.sorted[i].0;
            let (plon, plat) = geohash::decode(geohash::score_bits(score));
            if let Some(dist) = within(self.lon, self.lat, self.shape, plon, plat) {
                self.hits.push(Hit {
                    index: i,
                    dist,
                    lon: plon,
                    lat: plat,
                    score,
                });
                if self.full() {
                    return;
                }
            }
        }
    }
}

/// Members read one by one rather than split further.
const LEAF: usize = 16;

/// The four quarter-cells of `hash` (one step finer), in score order.
fn children(hash: Hash) -> impl Iterator<Item = Hash> {
    (0..4u64).map(move |q| Hash {
        bits: (hash.bits << 2) | q,
        step: hash.step + 1,
    })
}

/// True when no point of `area` can be inside `shape` around (lon, lat) (conservative: a
/// margin covers floating-point rounding of the exact tests in `within`).
fn outside(lon: f64, lat: f64, shape: Shape, area: &geohash::Area) -> bool {
    match shape {
        Shape::Radius(r) => distance_lower_bound(lon, lat, area) > r,
        Shape::Box { width, height } => {
            let dlat = if lat < area.lat_min {
                area.lat_min - lat
            } else if lat > area.lat_max {
                lat - area.lat_max
            } else {
                0.0
            };
            if slack_down(EARTH_RADIUS_M * dlat.to_radians()) > height / 2.0 {
                return true;
            }
            // East-west distance at a point's own latitude: smallest where cos(latitude) is.
            let v = (lon_gap_min(lon, area).to_radians() / 2.0).sin();
            let d = 2.0 * EARTH_RADIUS_M * (cos_min(area) * v).min(1.0).asin();
            slack_down(d) > width / 2.0
        }
        Shape::Polygon(p) => p.misses(area),
    }
}

/// Lowers a distance bound (metres) so that rounding in the exact formula cannot undercut it.
fn slack_down(d: f64) -> f64 {
    d * (1.0 - 1e-9) - 1e-3
}

/// Raises a distance bound (metres) so that rounding in the exact formula cannot exceed it.
fn slack_up(d: f64) -> f64 {
    d * (1.0 + 1e-9) + 1e-3
}

/// The smallest longitude difference (degrees, 0..=180, across the antimeridian too) between
/// `lon` and a point of `area`.
fn lon_gap_min(lon: f64, a: &geohash::Area) -> f64 {
    if lon >= a.lon_min && lon <= a.lon_max {
        0.0
    } else {
        wrap_gap(lon, a.lon_min).min(wrap_gap(lon, a.lon_max))
    }
}

/// The largest longitude difference (degrees, 0..=180) between `lon` and a point of `area`.
fn lon_gap_max(lon: f64, a: &geohash::Area) -> f64 {
    // The antipodal meridian inside the cell gives 180.
    let anti = if lon <= 0.0 { lon + 180.0 } else { lon - 180.0 };
    if anti >= a.lon_min && anti <= a.lon_max {
        180.0
    } else {
        wrap_gap(lon, a.lon_min).max(wrap_gap(lon, a.lon_max))
    }
}

/// Longitude difference of two meridians in degrees, 0..=180.
fn wrap_gap(a: f64, b: f64) -> f64 {
    let d = (b - a).abs() % 360.0;
    d.min(360.0 - d)
}

/// cos(latitude) smallest over the cell (at its latitude farthest from the equator).
fn cos_min(a: &geohash::Area) -> f64 {
    a.lat_min
        .abs()
        .max(a.lat_max.abs())
        .min(90.0)
        .to_radians()
        .cos()
        .max(0.0)
}

/// cos(latitude) largest over the cell (at its latitude nearest the equator).
fn cos_max(a: &geohash::Area) -> f64 {
    if a.lat_min <= 0.0 && a.lat_max >= 0.0 {
        1.0
    } else {
        a.lat_min
            .abs()
            .min(a.lat_max.abs())
            .min(90.0)
            .to_radians()
            .cos()
    }
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

/// A lower bound (metres) of the haversine distance from (lon, lat) to any point of `area`,
/// slightly lowered so that floating-point rounding of the real distance can never undercut it.
fn distance_lower_bound(lon: f64, lat: f64, a: &geohash::Area) -> f64 {
    let dlat = if lat < a.lat_min {
        a.lat_min - lat
    } else if lat > a.lat_max {
        lat - a.lat_max
    } else {
        0.0
    };
    haversine_bound(lat, dlat, lon_gap_min(lon, a), cos_min(a), slack_down)
}

/// An upper bound (metres) of the haversine distance from (lon, lat) to any point of `area`,
/// slightly raised so that floating-point rounding of the real distance can never exceed it.
fn distance_upper_bound(lon: f64, lat: f64, a: &geohash::Area) -> f64 {
    let dlat = (lat - a.lat_min).abs().max((lat - a.lat_max).abs());
    haversine_bound(lat, dlat, lon_gap_max(lon, a), cos_max(a), slack_up)
}

/// The haversine distance for a latitude difference `dlat` and longitude difference `dlon`
/// (degrees, each at most 180) from latitude `lat`, with `cos_other` in place of the cosine of
/// the other point's latitude; `slack` moves the result away from rounding error. Each term of
/// the haversine grows with its argument, so extreme arguments give a bound.
fn haversine_bound(lat: f64, dlat: f64, dlon: f64, cos_other: f64, slack: fn(f64) -> f64) -> f64 {
    let u = (dlat.min(180.0).to_radians() / 2.0).sin();
    let v = (dlon.min(180.0).to_radians() / 2.0).sin();
    let h = u * u + lat.to_radians().cos().max(0.0) * cos_other * v * v;
    slack(2.0 * EARTH_RADIUS_M * h.clamp(0.0, 1.0).sqrt().asin()).max(0.0)
}

/// A sub-range of a visited cell, pending in the best-first walk.
struct Pending {
    /// The cell's distance bound, signed so that the best cell is the largest: minus the lower
    /// bound for ASC, the upper bound for DESC.
    key: f64,
    cell: usize,
    lo: usize,
    hi: usize,
    hash: Hash,
}

impl PartialEq for Pending {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == std::cmp::Ordering::Equal
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Pending {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.key.total_cmp(&o.key)
    }
}

/// A candidate in the best-first walk, ordered as the reply orders it: by `rank` (the distance
/// for ASC, minus the distance for DESC), then by its place in the cell walk (cell, then score
/// order), which is the order Redis' stable sort keeps for equal distances.
#[derive(Clone, Copy)]
struct Cand {
    hit: Hit,
    rank: f64,
    walk: (usize, usize),
}

impl PartialEq for Cand {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == std::cmp::Ordering::Equal
    }
}
impl Eq for Cand {}
impl PartialOrd for Cand {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Cand {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.rank.total_cmp(&o.rank).then(self.walk.cmp(&o.walk))
    }
}

/// The reply of `BYRADIUS|BYBOX … ASC|DESC COUNT k` (without ANY) computed best-first: the
/// visited cells are split into quarter-cells (each a contiguous score range), taken nearest
/// first for ASC (by a lower bound of their distance) or farthest first for DESC (by an upper
/// bound), and quarter-cells wholly outside the shape are dropped; only the parts that can
/// hold one of the k+1 first members are read, so the cost follows k rather than the number
/// of members in the shape. Returns the same hits, in the same order, as [`search`] followed
/// by [`sort_hits`] and a cut to k; `None` when that order is not determined by distance alone
/// (equal distances among the k+1 first, when the shape holds more than k members: Redis'
/// partial quicksort then decides), for [`Order::None`], or when a cell holds scores outside
/// the 52-bit range: the caller then takes the full path.
pub fn best_first(
    zset: &ZSet,
    lon: f64,
    lat: f64,
    shape: Shape,
    order: Order,
    k: usize,
) -> Option<Vec<Hit>> {
    use std::collections::BinaryHeap;
    if k == 0 || order == Order::None {
        return None;
    }
    let desc = order == Order::Desc;
    let key = |a: &geohash::Area| {
        if desc {
            distance_upper_bound(lon, lat, a)
        } else {
            -distance_lower_bound(lon, lat, a)
        }
    };
    let sorted = zset.sorted();
    let mut pending = BinaryHeap::new();
    for (cell, h) in cells(lon, lat, shape).into_iter().enumerate() {
        let (min, max) = h.score_range();
        if max > 1 << 52 {
            return None;
        }
        let lo = sorted.partition_point(|e| e.0 < min as f64);
        let hi = sorted.partition_point(|e| e.0 < max as f64);
        let area = geohash::area(h, LAT_MAX);
        if lo < hi && !outside(lon, lat, shape, &area) {
            pending.push(Pending {
                key: key(&area),
                cell,
                lo,
                hi,
                hash: h,
            });
        }
    }
    // The k+1 best candidates so far (max-heap: the worst on top).
    let mut best: BinaryHeap<Cand> = BinaryHeap::new();
    while let Some(p) = pending.pop() {
        if best.len() > k {
            // The worst kept candidate's rank against the cell's best possible rank.
            let worst = best.peek().map_or(f64::INFINITY, |c| c.rank);
            if -p.key > worst {
                break;
            }
        }
        if p.hi - p.lo <= LEAF || p.hash.step >= STEP_MAX {
            for (i, &(score, _)) in sorted.iter().enumerate().take(p.hi).skip(p.lo) {
                let (plon, plat) = geohash::decode(geohash::score_bits(score));
                let Some(dist) = within(lon, lat, shape, plon, plat) else {
                    continue;
                };
                let cand = Cand {
                    hit: Hit {
                        index: i,
                        dist,
                        lon: plon,
                        lat: plat,
                        score,
                    },
                    rank: if desc { -dist } else { dist },
                    walk: (p.cell, i),
                };
                if best.len() <= k {
                    best.push(cand);
                } else if best.peek().is_some_and(|w| cand < *w) {
                    best.pop();
                    best.push(cand);
                }
            }
            continue;
        }
        let mut lo = p.lo;
        for child in children(p.hash) {
            let (_, max) = child.score_range();
            let hi = lo + sorted[lo..p.hi].partition_point(|e| e.0 < max as f64);
            let area = geohash::area(child, LAT_MAX);
            if lo < hi && !outside(lon, lat, shape, &area) {
                pending.push(Pending {
                    key: key(&area),
                    cell: p.cell,
                    lo,
                    hi,
                    hash: child,
                });
            }
            lo = hi;
        }
    }
    let mut out: Vec<Cand> = best.into_vec();
    crate::sort::sort_by(&mut out, |a, b| a.cmp(b));
    let ambiguous = out.windows(2).any(|w| w[0].hit.dist == w[1].hit.dist);
    if out.len() > k && ambiguous {
        return None;
    }
    // With at most k hits (all of them found) ties keep the walk order, as Redis' stable
    // sort does; with more, distances are distinct and the first k are the answer.
    out.truncate(k);
    Some(out.into_iter().map(|c| c.hit).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_from_radius() {
        assert_eq!(estimate_step(0.0, 0.0), 26);
        assert_eq!(estimate_step(3000.0, 31.0), 12);
        assert_eq!(estimate_step(3000.0, 70.0), 11);
        assert_eq!(estimate_step(3000.0, -81.0), 10);
        assert_eq!(estimate_step(1e9, 0.0), 1);
    }

    /// A random point set around Shanghai with repeated coordinates (distance ties).
    fn random_set(st: &mut fastrand::Rng, n: usize) -> ZSet {
        let mut pairs: Vec<(Vec<u8>, f64)> = Vec::new();
        for i in 0..n {
            let (lon, lat) = if i % 7 == 3 && i > 10 {
                geohash::decode(pairs[i / 2].1 as u64)
            } else {
                (
                    121.47 + (st.f64() - 0.5) * 0.3,
                    31.23 + (st.f64() - 0.5) * 0.3,
                )
            };
            let score = geohash::encode(lon, lat).unwrap() as f64;
            pairs.push((format!("m{i}").into_bytes(), score));
        }
        ZSet::from_pairs(pairs)
    }

    /// What the full path answers: every hit, sorted as Redis sorts, cut to k.
    fn full_path(z: &ZSet, lon: f64, lat: f64, shape: Shape, order: Order, k: usize) -> Vec<Hit> {
        let mut full = search(z, lon, lat, shape, 0);
        let keep = full.len().min(k);
        sort_hits(&mut full, order, keep);
        full.truncate(keep);
        full
    }

    /// The walk without any pruning: each visited cell read member by member.
    fn unpruned(z: &ZSet, lon: f64, lat: f64, shape: Shape) -> Vec<Hit> {
        let mut hits = Vec::new();
        for cell in cells(lon, lat, shape) {
            let (min, max) = cell.score_range();
            for (i, (score, _)) in z.sorted().iter().enumerate() {
                if *score < min as f64 || *score >= max as f64 {
                    continue;
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
            }
        }
        hits
    }

    #[test]
    fn best_first_matches_full_search_and_sort() {
        let mut st = fastrand::Rng::with_seed(7);
        let mut fast_answers = [0usize; 2];
        for round in 0..36 {
            let z = random_set(&mut st, [50, 500, 3000][round % 3]);
            for q in 0..40 {
                let (lon, lat) = (
                    121.47 + (st.f64() - 0.5) * 0.3,
                    31.23 + (st.f64() - 0.5) * 0.3,
                );
                let shape = if q % 2 == 0 {
                    Shape::Radius(100.0 + st.f64() * 8000.0)
                } else {
                    Shape::Box {
                        width: 100.0 + st.f64() * 16000.0,
                        height: 100.0 + st.f64() * 16000.0,
                    }
                };
                let order = if (q / 2) % 2 == 0 {
                    Order::Asc
                } else {
                    Order::Desc
                };
                let k = 1 + (st.f64() * 60.0) as usize;
                let full = full_path(&z, lon, lat, shape, order, k);
                if let Some(fast) = best_first(&z, lon, lat, shape, order, k) {
                    assert_eq!(fast, full, "{shape:?} {order:?} k={k} at {lon},{lat}");
                    fast_answers[(order == Order::Desc) as usize] += 1;
                } else {
                    // Only ties may send the caller to the full path.
                    let mut d: Vec<f64> = search(&z, lon, lat, shape, 0)
                        .iter()
                        .map(|h| h.dist)
                        .collect();
                    assert!(d.len() > k);
                    d.sort_by(f64::total_cmp);
                    if order == Order::Desc {
                        d.reverse();
                    }
                    assert!(d.windows(2).take(k).any(|w| w[0] == w[1]));
                }
            }
        }
        // Most queries take the fast path, in both orders.
        assert!(fast_answers.iter().all(|&n| n > 400), "{fast_answers:?}");
    }

    #[test]
    fn pruned_walk_equals_unpruned_walk() {
        let mut st = fastrand::Rng::with_seed(11);
        for round in 0..12 {
            let z = random_set(&mut st, [500, 3000][round % 2]);
            for q in 0..30 {
                let (lon, lat) = (
                    121.47 + (st.f64() - 0.5) * 0.3,
                    31.23 + (st.f64() - 0.5) * 0.3,
                );
                let shape = if q % 2 == 0 {
                    Shape::Radius(50.0 + st.f64() * 6000.0)
                } else {
                    Shape::Box {
                        width: 50.0 + st.f64() * 12000.0,
                        height: 50.0 + st.f64() * 12000.0,
                    }
                };
                let all = unpruned(&z, lon, lat, shape);
                assert_eq!(
                    search(&z, lon, lat, shape, 0),
                    all,
                    "{shape:?} at {lon},{lat}"
                );
                let limit = 1 + (st.f64() * 40.0) as usize;
                let any = search(&z, lon, lat, shape, limit);
                assert_eq!(any, all[..all.len().min(limit)], "ANY {limit}");
            }
        }
    }
}

#[cfg(test)]
// The coordinates are Valkey's printed %.17g strings, kept verbatim.
#[allow(clippy::excessive_precision)]
mod polygon_tests {
    use super::*;

    /// Valkey 9.1.2: `GEOSEARCHSTORE d t1 BYPOLYGON 5 13.175290 38.912608 12.441514 39.294076
    /// 12.214472 40.203242 11.690169 39.426559 13.086260 37.990135 STOREDIST` stores member
    /// (12.90000110864639282, 38.99999918434559731) with score 3.7273948647128076e+4.
    #[test]
    fn centre_distance_as_valkey_9_1() {
        let p = Polygon::new(vec![
            (13.175290, 38.912608),
            (12.441514, 39.294076),
            (12.214472, 40.203242),
            (11.690169, 39.426559),
            (13.086260, 37.990135),
        ])
        .unwrap();
        assert_eq!(
            p.distance(12.90000110864639282, 38.99999918434559731),
            3.7273948647128076e+4
        );
        assert!(p.contains(12.90000110864639282, 38.99999918434559731));
        assert!(!p.contains(12.60000139474868774, 39.30000117660147652));
        // Near the pole: BYPOLYGON 3 -60.280165 -84.561784 -60.114734 -84.613960 -59.534301
        // -84.172066 STOREDIST stores (-59.99999910593032837, -84.45000064665407535) at
        // 376.3059316120513.
        let s = Polygon::new(vec![
            (-60.280165, -84.561784),
            (-60.114734, -84.613960),
            (-59.534301, -84.172066),
        ])
        .unwrap();
        assert_eq!(
            s.distance(-59.99999910593032837, -84.45000064665407535),
            376.3059316120513
        );
        // The unit square: (0.49999862909317017, 0.50000036325177888) at 2.0827370816248387.
        let q = Polygon::new(vec![(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]).unwrap();
        assert_eq!(
            q.distance(0.49999862909317017, 0.50000036325177888),
            2.0827370816248387
        );
        // Valkey 9.1.2: BYPOLYGON 3 121.496298 31.273101 121.459410 31.260010 121.500374
        // 31.180301 STOREDIST stores (121.49000018835067749, 31.25000052442617715) at
        // 1426.2670500548388 (from the undivided sum of the unit vectors).
        let t = Polygon::new(vec![
            (121.496298, 31.273101),
            (121.459410, 31.260010),
            (121.500374, 31.180301),
        ])
        .unwrap();
        assert_eq!(
            t.distance(121.49000018835067749, 31.25000052442617715),
            1426.2670500548388
        );
    }
}
