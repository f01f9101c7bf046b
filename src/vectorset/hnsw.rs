//! Search over a loaded vector set's HNSW graph with Redis 8.0.2's own algorithm and float
//! arithmetic (`modules/vector-sets/hnsw.c`), so that answers without `TRUTH` match the
//! server's approximate ones too.
//!
//! Distances are `1 − dot product` of normalized vectors in f32 (two accumulators over blocks
//! of 8 components, the rest into the first), on int8 quanta scaled by both ranges (clamped to
//! 0..=2), or `2 · differing bits / dim` for binary sets. The query is normalized (sum of
//! squares by blocks of 4, `sqrtf`) and quantized like a stored vector. The priority queues
//! are hnsw.c's sorted arrays (worst first; equal distances pop last-pushed first; a full
//! queue drops the newcomer on a tie), candidates capped at 256. Search descends the levels
//! greedily (ef 1) from the entry point, then explores level 0 with ef, optionally filtering
//! results while still expanding through nodes that fail the filter, with an effort bound.

use super::{Quant, VectorSet, Vectors};

/// Candidates kept per level search (hnsw.c `HNSW_MAX_CANDIDATES`).
const MAX_CANDIDATES: u32 = 256;

/// A query vector prepared as hnsw.c `hnsw_init_tmp_node` prepares it.
pub enum Query {
    /// Normalized fp32 components.
    F32(Vec<f32>),
    /// int8 quanta and their range.
    Q8(Vec<i8>, f32),
    /// Sign bits.
    Bin(Vec<u64>),
}

/// L2-normalizes `x` in place as hnsw.c `hnsw_normalize_vector` (left unchanged when all
/// zero); returns the norm.
pub fn normalize(x: &mut [f32]) -> Option<f32> {
    let mut l2 = 0f32;
    let mut i = 0;
    while i + 3 < x.len() {
        l2 += x[i] * x[i] + x[i + 1] * x[i + 1] + x[i + 2] * x[i + 2] + x[i + 3] * x[i + 3];
        i += 4;
    }
    while i < x.len() {
        l2 += x[i] * x[i];
        i += 1;
    }
    if l2 == 0.0 {
        return None;
    }
    let l2 = l2.sqrt();
    for v in x.iter_mut() {
        *v /= l2;
    }
    Some(l2)
}

/// int8 quantization (hnsw.c `quantize_to_q8`): the quanta and the range (largest |x|).
pub fn quantize_q8(x: &[f32]) -> (Vec<i8>, f32) {
    let mut max_abs = 0f32;
    for &v in x {
        if v > max_abs {
            max_abs = v;
        }
        if -v > max_abs {
            max_abs = -v;
        }
    }
    if max_abs == 0.0 {
        return (vec![0; x.len()], 0.0);
    }
    let scale = 127.0f32 / max_abs;
    (
        x.iter().map(|&v| (v * scale).round() as i8).collect(),
        max_abs,
    )
}

/// Binary quantization (hnsw.c `quantize_to_bin`): bit set for a positive component.
pub fn quantize_bin(x: &[f32]) -> Vec<u64> {
    let mut out = vec![0u64; x.len().div_ceil(64)];
    for (j, &v) in x.iter().enumerate() {
        if v > 0.0 {
            out[j / 64] |= 1u64 << (j % 64);
        }
    }
    out
}

impl Query {
    /// The query for raw vector `v` (not yet normalized) against a set quantized as `quant`.
    pub fn new(mut v: Vec<f32>, quant: Quant) -> Query {
        normalize(&mut v);
        match quant {
            Quant::F32 => Query::F32(v),
            Quant::Q8 => {
                let (q, r) = quantize_q8(&v);
                Query::Q8(q, r)
            }
            Quant::Bin => Query::Bin(quantize_bin(&v)),
        }
    }
}

/// hnsw.c `vectors_distance_float`.
pub fn distance_f32(x: &[f32], y: &[f32]) -> f32 {
    let (mut dot0, mut dot1) = (0f32, 0f32);
    let dim = x.len().min(y.len());
    let mut i = 0;
    while i + 7 < dim {
        dot0 += x[i] * y[i] + x[i + 1] * y[i + 1] + x[i + 2] * y[i + 2] + x[i + 3] * y[i + 3];
        dot1 +=
            x[i + 4] * y[i + 4] + x[i + 5] * y[i + 5] + x[i + 6] * y[i + 6] + x[i + 7] * y[i + 7];
        i += 8;
    }
    while i < dim {
        dot0 += x[i] * y[i];
        i += 1;
    }
    1.0 - (dot0 + dot1)
}

/// hnsw.c `vectors_distance_q8`.
pub fn distance_q8(x: &[i8], y: &[i8], range_a: f32, range_b: f32) -> f32 {
    if range_a == 0.0 || range_b == 0.0 {
        return 1.0;
    }
    let scale = (range_a / 127.0) * (range_b / 127.0);
    let (mut dot0, mut dot1) = (0i32, 0i32);
    let dim = x.len().min(y.len());
    let p = |i: usize| (x[i] as i32).wrapping_mul(y[i] as i32);
    let mut i = 0;
    while i + 7 < dim {
        dot0 = dot0.wrapping_add(
            p(i).wrapping_add(p(i + 1))
                .wrapping_add(p(i + 2))
                .wrapping_add(p(i + 3)),
        );
        dot1 = dot1.wrapping_add(
            p(i + 4)
                .wrapping_add(p(i + 5))
                .wrapping_add(p(i + 6))
                .wrapping_add(p(i + 7)),
        );
        i += 8;
    }
    while i < dim {
        dot0 = dot0.wrapping_add(p(i));
        i += 1;
    }
    let dotf = dot0.wrapping_add(dot1) as f32 * scale;
    // Clamped to [0, 2] (a NaN stays NaN, as the C comparisons leave it).
    (1.0 - dotf).clamp(0.0, 2.0)
}

/// hnsw.c `vectors_distance_bin`.
pub fn distance_bin(x: &[u64], y: &[u64], dim: u32) -> f32 {
    let opposite: u32 = x.iter().zip(y).map(|(a, b)| (a ^ b).count_ones()).sum();
    opposite as f32 * 2.0 / dim as f32
}

impl VectorSet {
    fn q8_of(&self, i: u32) -> &[i8] {
        let d = self.dim as usize;
        match &self.vectors {
            Vectors::Q8(v) => &v[i as usize * d..(i as usize + 1) * d],
            _ => &[],
        }
    }

    fn f32_of(&self, i: u32) -> &[f32] {
        let d = self.dim as usize;
        match &self.vectors {
            Vectors::F32(v) => &v[i as usize * d..(i as usize + 1) * d],
            _ => &[],
        }
    }

    fn bin_of(&self, i: u32) -> &[u64] {
        let w = (self.dim as usize).div_ceil(64);
        match &self.vectors {
            Vectors::Bin(v) => &v[i as usize * w..(i as usize + 1) * w],
            _ => &[],
        }
    }

    /// Distance between two stored nodes (hnsw.c `hnsw_distance`).
    pub fn node_distance(&self, a: u32, b: u32) -> f32 {
        match self.quant {
            Quant::F32 => distance_f32(self.f32_of(a), self.f32_of(b)),
            Quant::Q8 => distance_q8(
                self.q8_of(a),
                self.q8_of(b),
                self.nodes[a as usize].range,
                self.nodes[b as usize].range,
            ),
            Quant::Bin => distance_bin(self.bin_of(a), self.bin_of(b), self.dim),
        }
    }

    /// Distance between a query and a stored node.
    pub fn query_distance(&self, q: &Query, b: u32) -> f32 {
        match q {
            Query::F32(x) => distance_f32(x, self.f32_of(b)),
            Query::Q8(x, r) => distance_q8(x, self.q8_of(b), *r, self.nodes[b as usize].range),
            Query::Bin(x) => distance_bin(x, self.bin_of(b), self.dim),
        }
    }

    fn links(&self, node: u32, layer: u32) -> &[u32] {
        self.nodes[node as usize]
            .layers
            .get(layer as usize)
            .map_or(&[], |l| &l.links)
    }
}

/// hnsw.c's `pqueue`: items sorted from the worst (index 0) to the best (last), holding at
/// most `cap`.
struct Pq {
    items: Vec<(u32, f32)>,
    cap: u32,
}

impl Pq {
    fn new(cap: u32, hint: usize) -> Pq {
        Pq {
            items: Vec::with_capacity((cap as usize).min(hint)),
            cap,
        }
    }

    fn len(&self) -> u32 {
        self.items.len() as u32
    }

    fn push(&mut self, node: u32, d: f32) {
        if self.len() < self.cap {
            let mut i = self.items.len();
            while i > 0 && self.items[i - 1].1 < d {
                i -= 1;
            }
            self.items.insert(i, (node, d));
        } else {
            if self.cap == 0 || d >= self.items[0].1 {
                return;
            }
            let mut i = 0;
            while i + 1 < self.items.len() && self.items[i + 1].1 > d {
                self.items[i] = self.items[i + 1];
                i += 1;
            }
            self.items[i] = (node, d);
        }
    }

    fn pop(&mut self) -> Option<(u32, f32)> {
        self.items.pop()
    }

    fn max_distance(&self) -> f32 {
        self.items.first().map_or(f32::INFINITY, |x| x.1)
    }

    /// Best first.
    fn into_best_first(self) -> impl Iterator<Item = (u32, f32)> {
        self.items.into_iter().rev()
    }
}

/// A filter on node indexes (the VSIM `FILTER` expression on a node's attribute).
pub type Filter<'a> = &'a dyn Fn(u32) -> bool;

struct Visited {
    epoch: Vec<u32>,
    current: u32,
}

impl VectorSet {
    #[allow(clippy::too_many_arguments)]
    fn search_layer(
        &self,
        q: &Query,
        entry: u32,
        ef: u32,
        layer: u32,
        visited: &mut Visited,
        filter: Option<Filter<'_>>,
        max_candidates: u32,
    ) -> Pq {
        visited.current += 1;
        let epoch = visited.current;
        let hint = self.nodes.len() + 1;
        let mut candidates = Pq::new(MAX_CANDIDATES, hint);
        let mut results = Pq::new(ef, hint);
        let mut evaluated = 1u32;
        let d = self.query_distance(q, entry);
        candidates.push(entry, d);
        if filter.is_none_or(|f| f(entry)) {
            results.push(entry, d);
        }
        visited.epoch[entry as usize] = epoch;
        while candidates.len() > 0 {
            if filter.is_some() && max_candidates != 0 && evaluated >= max_candidates {
                break;
            }
            let (current, cur_dist) = candidates.pop().expect("non-empty");
            evaluated = evaluated.wrapping_add(1);
            let furthest = results.max_distance();
            if results.len() >= ef && cur_dist > furthest {
                break;
            }
            for &nb in self.links(current, layer) {
                if visited.epoch[nb as usize] == epoch {
                    continue;
                }
                visited.epoch[nb as usize] = epoch;
                let nd = self.query_distance(q, nb);
                let furthest = results.max_distance();
                match filter {
                    None => {
                        if nd < furthest || results.len() < ef {
                            candidates.push(nb, nd);
                            results.push(nb, nd);
                        }
                    }
                    Some(f) => {
                        if nd < furthest || candidates.len() < ef {
                            candidates.push(nb, nd);
                        }
                        if f(nb) && (nd < furthest || results.len() < ef) {
                            results.push(nb, nd);
                        }
                    }
                }
            }
        }
        results
    }

    /// Approximate nearest neighbours of `q` (hnsw.c `hnsw_search_with_filter` with `k`
    /// results): `(node index, distance)` best first, at most `k`. `max_candidates` bounds the
    /// level-0 effort when filtering (0: unbounded).
    pub fn search(
        &self,
        q: &Query,
        k: u32,
        filter: Option<Filter<'_>>,
        max_candidates: u32,
    ) -> Vec<(u32, f32)> {
        if k == 0 || self.nodes.is_empty() {
            return Vec::new();
        }
        let mut visited = Visited {
            epoch: vec![0; self.nodes.len()],
            current: 0,
        };
        let mut ep = self.entry;
        for lc in (1..=self.max_level).rev() {
            let r = self.search_layer(q, ep, 1, lc, &mut visited, None, 0);
            if let Some(&(best, _)) = r.items.last() {
                ep = best;
            }
        }
        let r = self.search_layer(q, ep, k, 0, &mut visited, filter, max_candidates);
        r.into_best_first().take(k as usize).collect()
    }

    /// Exact nearest neighbours by a linear scan in node-list order (hnsw.c
    /// `hnsw_ground_truth_with_filter`, VSIM `TRUTH`).
    pub fn ground_truth(&self, q: &Query, k: u32, filter: Option<Filter<'_>>) -> Vec<(u32, f32)> {
        if k == 0 {
            return Vec::new();
        }
        let mut results = Pq::new(k, self.nodes.len() + 1);
        for i in self.list_order() {
            if filter.is_some_and(|f| !f(i)) {
                continue;
            }
            results.push(i, self.query_distance(q, i));
        }
        results.into_best_first().take(k as usize).collect()
    }

    /// A random node as hnsw.c `hnsw_random_node` walks to one: a random descent from the entry
    /// point, then `⌊3·log2(n + 1)⌋` random steps on level 0. `rand` returns a value in
    /// `0..bound`.
    pub fn random_node(&self, rand: &mut dyn FnMut(u32) -> u32) -> Option<u32> {
        if self.nodes.is_empty() {
            return None;
        }
        let mut cur = self.entry;
        for level in (1..=self.max_level).rev() {
            let l = self.links(cur, level);
            if l.is_empty() {
                continue;
            }
            cur = l[rand(l.len() as u32) as usize];
        }
        let walks = ((self.nodes.len() as f64 + 1.0).log2() * 3.0) as u32;
        for _ in 0..walks {
            let l = self.links(cur, 0);
            if l.is_empty() {
                return Some(cur);
            }
            cur = l[rand(l.len() as u32) as usize];
        }
        Some(cur)
    }
}
