//! RedisBloom's t-digest (`TDIS-TYPE`, encoding version 0; the merging t-digest of
//! RedisBloom's t-digest-c).
//!
//! Fields in order: compression, min, max (doubles); capacity, merged node count, unmerged
//! node count, total compressions (signed); merged weight, unmerged weight (doubles); then
//! the merged centroids' means (doubles) followed by their weights (doubles holding
//! integers). The module compresses before saving, so every centroid is merged.
//!
//! The estimators ([`TDigest::quantiles`], [`TDigest::cdf`], [`TDigest::trimmed_mean`]) follow
//! t-digest-c's definitions: singleton centroids hold their whole weight at their mean, the
//! first and last samples are known to be exactly `min` and `max`, and between two centroid
//! means the cumulative weight is interpolated linearly.
//!
//! Writes (as RedisBloom 2.8.2's t-digest-c 0.4): a digest of compression `c` holds up to
//! `6c + 10` nodes. TDIGEST.ADD appends an unmerged node (weight 1) after compressing when
//! the nodes fill `cap - 1`. Compressing sorts all nodes by mean (t-digest-c's quicksort
//! with the middle element as pivot, so equal means keep its order) and merges neighbours
//! left to right while `w · c / (2π · W · ln W)` stays at most `q(1 - q)` at both ends of the
//! merged centroid (`W` the total weight, `q` the quantile before / after it); a digest of
//! total weight at most 1 is only sorted. CDF, QUANTILE, TRIMMED_MEAN (and RANK / BYRANK
//! when they interpolate) compress first, so they change the stored state, as on the server;
//! MIN, MAX and INFO do not.

use super::{FieldError, Fields};

/// A t-digest with its merged centroids. Two digests are equal when every field is the same
/// bit for bit (a file may store a NaN mean, which must still equal itself).
#[derive(Debug, Clone)]
pub struct TDigest {
    /// The compression parameter (TDIGEST.INFO Compression).
    pub compression: f64,
    /// Smallest observation (TDIGEST.MIN; as stored when the digest is empty).
    pub min: f64,
    /// Largest observation (TDIGEST.MAX; as stored when the digest is empty).
    pub max: f64,
    /// Centroid capacity (TDIGEST.INFO Capacity).
    pub cap: i64,
    /// Centroids not yet merged (TDIGEST.INFO Unmerged nodes).
    pub unmerged_nodes: i64,
    /// Compressions done so far (TDIGEST.INFO Total compressions).
    pub total_compressions: i64,
    /// Weight of the merged centroids (TDIGEST.INFO Merged weight).
    pub merged_weight: i64,
    /// Weight of the unmerged ones (TDIGEST.INFO Unmerged weight).
    pub unmerged_weight: i64,
    /// Centroid means, ascending.
    pub means: Vec<f64>,
    /// Centroid weights.
    pub weights: Vec<i64>,
    /// Nodes added since the last compression, `(mean, weight)` in insertion order (never
    /// in a file: the module compresses before saving).
    pub unmerged: Vec<(f64, i64)>,
}

impl PartialEq for TDigest {
    fn eq(&self, o: &Self) -> bool {
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
        let unmerged = |v: &[(f64, i64)]| {
            v.iter()
                .map(|(m, w)| (m.to_bits(), *w))
                .collect::<Vec<(u64, i64)>>()
        };
        (
            self.compression.to_bits(),
            self.min.to_bits(),
            self.max.to_bits(),
        ) == (o.compression.to_bits(), o.min.to_bits(), o.max.to_bits())
            && (
                self.cap,
                self.unmerged_nodes,
                self.total_compressions,
                self.merged_weight,
                self.unmerged_weight,
            ) == (
                o.cap,
                o.unmerged_nodes,
                o.total_compressions,
                o.merged_weight,
                o.unmerged_weight,
            )
            && bits(&self.means) == bits(&o.means)
            && self.weights == o.weights
            && unmerged(&self.unmerged) == unmerged(&o.unmerged)
    }
}

/// Why a t-digest write failed (`ERR T-Digest: overflow detected`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Overflow;

/// t-digest-c's quicksort of parallel arrays (pivot: the middle element, moved to the end;
/// Lomuto partition on `<`), with an explicit stack instead of recursion.
fn td_sort(means: &mut [f64], weights: &mut [i64]) {
    if means.len() < 2 {
        return;
    }
    let mut todo = vec![(0usize, means.len() - 1)];
    while let Some((start, end)) = todo.pop() {
        if start >= end {
            continue;
        }
        if end - start == 1 {
            if means[start] > means[end] {
                means.swap(start, end);
                weights.swap(start, end);
            }
            continue;
        }
        let pivot_at = (start + end) / 2;
        let pivot = means[pivot_at];
        means.swap(pivot_at, end);
        weights.swap(pivot_at, end);
        let mut i = start; // the next slot for a smaller element
        for j in start..end {
            if means[j] < pivot {
                means.swap(i, j);
                weights.swap(i, j);
                i += 1;
            }
        }
        means.swap(i, end);
        weights.swap(i, end);
        if i > start {
            todo.push((start, i - 1));
        }
        todo.push((i + 1, end));
    }
}

/// t-digest-c's overflow test on the weights it is about to use.
fn overflows(unmerged: f64, total: f64) -> bool {
    unmerged == f64::INFINITY
        || total == f64::INFINITY
        || 2.0 * std::f64::consts::PI * total * total.ln() == f64::INFINITY
}

fn weighted_average(x1: f64, w1: f64, x2: f64, w2: f64) -> f64 {
    let (x1, w1, x2, w2) = if x1 <= x2 {
        (x1, w1, x2, w2)
    } else {
        (x2, w2, x1, w1)
    };
    let x = (x1 * w1 + x2 * w2) / (w1 + w2);
    let lo = if x < x2 { x } else { x2 };
    if x1 > lo {
        x1
    } else {
        lo
    }
}

impl TDigest {
    /// An empty digest of `compression` (TDIGEST.CREATE; positive, checked by the caller);
    /// `Err` with the byte size past [`super::MAX_ALLOC_BYTES`] (the module allocates the
    /// `6c + 10` nodes of 16 bytes up front).
    pub fn new(compression: i64) -> Result<TDigest, u64> {
        let cap = (compression as u64).saturating_mul(6).saturating_add(10);
        let bytes = cap.saturating_mul(16);
        if bytes > super::MAX_ALLOC_BYTES {
            return Err(bytes);
        }
        let mut t = TDigest {
            compression: compression as f64,
            min: 0.0,
            max: 0.0,
            cap: cap as i64,
            unmerged_nodes: 0,
            total_compressions: 0,
            merged_weight: 0,
            unmerged_weight: 0,
            means: Vec::new(),
            weights: Vec::new(),
            unmerged: Vec::new(),
        };
        t.reset();
        Ok(t)
    }

    /// Empties the digest (TDIGEST.RESET): min `f64::MAX`, max `-f64::MAX`, no nodes.
    pub fn reset(&mut self) {
        self.min = f64::MAX;
        self.max = -f64::MAX;
        self.means.clear();
        self.weights.clear();
        self.unmerged.clear();
        self.unmerged_nodes = 0;
        self.merged_weight = 0;
        self.unmerged_weight = 0;
        self.total_compressions = 0;
    }

    fn nodes(&self) -> i64 {
        (self.means.len() as i64).saturating_add(self.unmerged_nodes)
    }

    /// Adds `weight` observations of `mean` (td_add).
    pub fn add(&mut self, mean: f64, weight: i64) -> Result<(), Overflow> {
        if self.nodes() >= self.cap.saturating_sub(1) {
            self.compress()?;
        }
        if self.nodes() >= self.cap {
            return Err(Overflow);
        }
        let unmerged = self.unmerged_weight.checked_add(weight).ok_or(Overflow)?;
        let total = unmerged.checked_add(self.merged_weight).ok_or(Overflow)?;
        if overflows(unmerged as f64, total as f64) {
            return Err(Overflow);
        }
        if mean < self.min {
            self.min = mean;
        }
        if mean > self.max {
            self.max = mean;
        }
        self.unmerged.push((mean, weight));
        self.unmerged_nodes = self.unmerged_nodes.saturating_add(1);
        self.unmerged_weight = unmerged;
        Ok(())
    }

    /// Merges the unmerged nodes into the centroids (td_compress; see the module header).
    pub fn compress(&mut self) -> Result<(), Overflow> {
        if self.unmerged_nodes == 0 {
            return Ok(());
        }
        // A file's unmerged count without node data: the module's nodes are zeroed there.
        let bound = self.cap.clamp(0, (super::MAX_ALLOC_BYTES / 16) as i64);
        let missing = (self
            .unmerged_nodes
            .saturating_sub(self.unmerged.len() as i64))
        .clamp(0, bound);
        self.unmerged.extend((0..missing).map(|_| (0.0, 0)));
        let mut means = std::mem::take(&mut self.means);
        let mut weights = std::mem::take(&mut self.weights);
        means.extend(self.unmerged.iter().map(|n| n.0));
        weights.extend(self.unmerged.iter().map(|n| n.1));
        td_sort(&mut means, &mut weights);
        let total = self.merged_weight as f64 + self.unmerged_weight as f64;
        let normalizer = self.compression / (2.0 * std::f64::consts::PI * total * total.ln());
        if overflows(self.unmerged_weight as f64, total)
            || total > 1.0 && normalizer == f64::INFINITY
        {
            self.restore(means, weights);
            return Err(Overflow);
        }
        if total <= 1.0 {
            self.restore(means, weights);
            return Ok(());
        }
        let mut cur = 0;
        let mut so_far = 0.0;
        for i in 1..means.len() {
            let proposed = weights[cur] as f64 + weights[i] as f64;
            let z = proposed * normalizer;
            let q0 = so_far / total;
            let q2 = (so_far + proposed) / total;
            if z <= q0 * (1.0 - q0) && z <= q2 * (1.0 - q2) {
                weights[cur] = weights[cur].wrapping_add(weights[i]);
                let delta = means[i] - means[cur];
                means[cur] += delta * weights[i] as f64 / weights[cur] as f64;
            } else {
                so_far += weights[cur] as f64;
                cur += 1;
                weights[cur] = weights[i];
                means[cur] = means[i];
            }
        }
        means.truncate(cur + 1);
        weights.truncate(cur + 1);
        self.means = means;
        self.weights = weights;
        self.unmerged.clear();
        self.merged_weight = total as i64;
        self.unmerged_nodes = 0;
        self.unmerged_weight = 0;
        self.total_compressions = self.total_compressions.wrapping_add(1);
        Ok(())
    }

    /// Puts sorted nodes back when compression stops early: the merged ones first, the rest
    /// unmerged (as the module leaves its sorted node array).
    fn restore(&mut self, means: Vec<f64>, weights: Vec<i64>) {
        let merged = means.len() - self.unmerged.len();
        self.unmerged = means[merged..]
            .iter()
            .copied()
            .zip(weights[merged..].iter().copied())
            .collect();
        self.means = means[..merged].to_vec();
        self.weights = weights[..merged].to_vec();
    }

    /// Adds every node of `from` (compressing both first), as td_merge.
    pub fn merge_from(&mut self, from: &mut TDigest) -> Result<(), Overflow> {
        self.compress()?;
        from.compress()?;
        let nodes: Vec<(f64, i64)> = from
            .means
            .iter()
            .copied()
            .zip(from.weights.iter().copied())
            .chain(from.unmerged.iter().copied())
            .collect();
        for (m, w) in nodes {
            self.add(m, w)?;
        }
        Ok(())
    }

    /// Decodes the fields of a `TDIS-TYPE` value.
    pub fn decode(mut f: Fields<'_>) -> Result<TDigest, FieldError> {
        let compression = f.double("compression")?;
        let min = f.double("min")?;
        let max = f.double("max")?;
        let cap = f.signed("capacity")?;
        let merged = f.signed("merged node count")?;
        let unmerged_nodes = f.signed("unmerged node count")?;
        let total_compressions = f.signed("total compressions")?;
        let merged_weight = f.double("merged weight")? as i64;
        let unmerged_weight = f.double("unmerged weight")? as i64;
        if merged < 0 || merged > cap || merged as u64 > (f.remaining() / 2) as u64 {
            return Err(f.err(format!("merged node count {merged} is out of range")));
        }
        let mut means = Vec::with_capacity(merged as usize);
        for _ in 0..merged {
            means.push(f.double("centroid mean")?);
        }
        let mut weights = Vec::with_capacity(merged as usize);
        for _ in 0..merged {
            weights.push(f.double("centroid weight")? as i64);
        }
        f.finish()?;
        Ok(TDigest {
            compression,
            min,
            max,
            cap,
            unmerged_nodes,
            total_compressions,
            merged_weight,
            unmerged_weight,
            means,
            weights,
            unmerged: Vec::new(),
        })
    }

    /// The module's memory figure (TDIGEST.INFO Memory usage, RedisBloom 2.8.2): 8 bytes plus
    /// 16 per centroid of capacity (recorded: 9768 for capacity 610).
    pub fn memory(&self) -> u64 {
        (self.cap.max(0) as u64)
            .saturating_mul(16)
            .saturating_add(8)
    }

    /// Total weight of the observations.
    pub fn size(&self) -> i64 {
        self.merged_weight.wrapping_add(self.unmerged_weight)
    }

    /// The fraction of observations at most `val` (half of those equal), NaN when empty.
    pub fn cdf(&self, val: f64) -> f64 {
        let n = self.means.len();
        if n == 0 {
            return f64::NAN;
        }
        if val < self.min {
            return 0.0;
        }
        if val > self.max {
            return 1.0;
        }
        if n == 1 {
            let width = self.max - self.min;
            return if val - self.min <= width {
                0.5
            } else {
                (val - self.min) / width
            };
        }
        let total = self.merged_weight as f64;
        let (m0, w0) = (self.means[0], self.weights[0] as f64);
        if val < m0 {
            let width = m0 - self.min;
            return if width > 0.0 {
                if val == self.min {
                    0.5 / total
                } else {
                    (1.0 + (val - self.min) / width * (w0 / 2.0 - 1.0)) / total
                }
            } else {
                0.0
            };
        }
        let (ml, wl) = (self.means[n - 1], self.weights[n - 1] as f64);
        if val > ml {
            let width = self.max - ml;
            return if width > 0.0 {
                if val == self.max {
                    1.0 - 0.5 / total
                } else {
                    1.0 - (1.0 + (self.max - val) / width * (wl / 2.0 - 1.0)) / total
                }
            } else {
                1.0
            };
        }
        let mut so_far = 0.0;
        let mut it = 0;
        while it < n - 1 {
            let (m, w) = (self.means[it], self.weights[it] as f64);
            let (mn, wn) = (self.means[it + 1], self.weights[it + 1] as f64);
            if m == val {
                let mut dw = 0.0;
                while it < n && self.means[it] == val {
                    dw += self.weights[it] as f64;
                    it += 1;
                }
                return (so_far + dw / 2.0) / total;
            } else if m <= val && val < mn {
                if mn - m > 0.0 {
                    let (mut left_ex, mut right_ex) = (0.0, 0.0);
                    if w == 1.0 {
                        if wn == 1.0 {
                            return (so_far + 1.0) / total;
                        }
                        left_ex = 0.5;
                    } else if wn == 1.0 {
                        right_ex = 0.5;
                    }
                    let dw = (w + wn) / 2.0;
                    let dw_ns = dw - left_ex - right_ex;
                    let base = so_far + w / 2.0 + left_ex;
                    return (base + dw_ns * (val - m) / (mn - m)) / total;
                }
                return (so_far + (w + wn) / 2.0) / total;
            }
            so_far += w;
            it += 1;
        }
        1.0 - 0.5 / total
    }

    /// The value at cumulative weight `index`, continuing a scan at `(so_far, pos)`.
    fn value_at(&self, index: f64, so_far: &mut f64, pos: &mut usize) -> f64 {
        let n = self.means.len();
        let total = self.merged_weight as f64;
        let w0 = self.weights[0] as f64;
        if w0 > 1.0 && index < w0 / 2.0 {
            return self.min + (index - 1.0) / (w0 / 2.0 - 1.0) * (self.means[0] - self.min);
        }
        if index > total - 1.0 {
            return self.max;
        }
        let (ml, wl) = (self.means[n - 1], self.weights[n - 1] as f64);
        if wl > 1.0 && total - index <= wl / 2.0 {
            return self.max - (total - index - 1.0) / (wl / 2.0 - 1.0) * (self.max - ml);
        }
        while *pos < n - 1 {
            let i = *pos;
            let (m, w) = (self.means[i], self.weights[i] as f64);
            let (mn, wn) = (self.means[i + 1], self.weights[i + 1] as f64);
            let dw = (w + wn) / 2.0;
            if *so_far + dw > index {
                let mut left_unit = 0.0;
                if w == 1.0 {
                    if index - *so_far < 0.5 {
                        return m;
                    }
                    left_unit = 0.5;
                }
                let mut right_unit = 0.0;
                if wn == 1.0 {
                    if *so_far + dw - index <= 0.5 {
                        return mn;
                    }
                    right_unit = 0.5;
                }
                let z1 = index - *so_far - left_unit;
                let z2 = *so_far + dw - index - right_unit;
                return weighted_average(m, z2, mn, z1);
            }
            *so_far += dw;
            *pos += 1;
        }
        let z1 = index - total - wl / 2.0;
        let z2 = wl / 2.0 - z1;
        weighted_average(ml, z1, self.max, z2)
    }

    /// One quantile (`q` in [0, 1]), NaN when empty (td_quantile).
    pub fn quantile(&self, q: f64) -> f64 {
        if !(0.0..=1.0).contains(&q) || self.means.is_empty() {
            return f64::NAN;
        }
        if self.means.len() == 1 {
            return self.means[0];
        }
        let index = q * self.merged_weight as f64;
        if index < 1.0 {
            return self.min;
        }
        let mut so_far = self.weights[0] as f64 / 2.0;
        self.value_at(index, &mut so_far, &mut 0)
    }

    /// Quantiles of an ascending run `qs`, scanned once (td_quantiles: no `index < 1` shortcut).
    pub fn quantiles(&self, qs: &[f64]) -> Vec<f64> {
        match self.means.len() {
            0 => vec![f64::NAN; qs.len()],
            1 => qs
                .iter()
                .map(|q| {
                    if (0.0..=1.0).contains(q) {
                        self.means[0]
                    } else {
                        f64::NAN
                    }
                })
                .collect(),
            _ => {
                let mut so_far = self.weights[0] as f64 / 2.0;
                let mut pos = 0;
                qs.iter()
                    .map(|q| self.value_at(q * self.merged_weight as f64, &mut so_far, &mut pos))
                    .collect()
            }
        }
    }

    /// The mean of the observations between the `low` and `high` quantile cuts.
    pub fn trimmed_mean(&self, low: f64, high: f64) -> f64 {
        if self.means.is_empty() || !(0.0..=1.0).contains(&low) || !(0.0..=1.0).contains(&high) {
            return f64::NAN;
        }
        if self.means.len() == 1 {
            return self.means[0];
        }
        let total = self.merged_weight as f64;
        let left = (total * low).floor();
        let right = (total * high).ceil();
        let (mut done, mut sum, mut count) = (0.0, 0.0, 0.0);
        for (m, w) in self.means.iter().zip(&self.weights) {
            let w = *w as f64;
            let mut add = w;
            add -= (left - done).max(0.0).min(add);
            add = (right - done).max(0.0).min(add);
            done += w;
            sum += m * add;
            count += add;
            if done >= right {
                break;
            }
        }
        sum / count
    }
}
