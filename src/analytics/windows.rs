//! Multi-key questions over sparse bitmaps without materialising them.
//!
//! The daily analytics ([`super::daily`]) take plain byte slices. A key stored sparse (4 KiB
//! pages, see [`crate::bitmap::sparse`]) would have to be expanded to its full length first: a
//! 50 MB day bitmap with a few thousand users becomes 50 MB, for every key of a 30-day chart.
//! Every daily question is a sum over bit offsets (each user counts in the histogram bucket,
//! cohort or window its own bits put it in) and all-zero bytes count nothing, so it can be
//! answered window by window: [`DayBitmaps::sum`] cuts the keys into aligned windows of
//! [`WINDOW`] bytes, skips the windows where no key has a stored page, hands the others to the
//! question as slices (dense keys borrowed, sparse ones expanded one window at a time) and adds
//! the partial answers. With no sparse key the question runs once over the whole keys.

use std::borrow::Cow;
use std::collections::BTreeSet;

use super::daily::{self, CohortRow, Engagement};
use super::AnalyticsError;
use crate::bitmap::sparse::PAGE;
use crate::keyspace::{Keyspace, Value};
use crate::string::RedisString;

/// Bytes per window (16 sparse pages, 512 Ki user ids).
pub const WINDOW: u64 = 16 * PAGE as u64;

/// The string values of a list of keys (a missing key is an empty day), ready for questions
/// that are sums over bit offsets.
#[derive(Debug, Clone)]
pub struct DayBitmaps<'a> {
    strings: Vec<Option<&'a RedisString>>,
}

/// A partial answer that adds up over disjoint ranges of user ids.
pub trait Additive {
    /// Adds `other` (the answer for another range of user ids) into `self`.
    fn add(&mut self, other: Self);
}

impl Additive for Vec<u64> {
    fn add(&mut self, other: Self) {
        for (a, b) in self.iter_mut().zip(other) {
            *a += b;
        }
    }
}

impl Additive for Vec<CohortRow> {
    fn add(&mut self, other: Self) {
        for (row, o) in self.iter_mut().zip(other) {
            row.size += o.size;
            for (r, x) in row.returned.iter_mut().zip(o.returned) {
                if let (Some(r), Some(x)) = (r.as_mut(), x) {
                    *r += x;
                }
            }
        }
    }
}

impl Additive for Engagement {
    fn add(&mut self, other: Self) {
        self.dau.add(other.dau);
        self.wau.add(other.wau);
        self.mau.add(other.mau);
        self.stickiness = daily::ratios(&self.dau, &self.mau);
    }
}

impl<'a> DayBitmaps<'a> {
    /// The values under `keys`, in order. Errors with [`AnalyticsError::WrongType`] naming the
    /// first key that holds something other than a string.
    pub fn load<K: AsRef<[u8]>>(ks: &'a Keyspace, keys: &[K]) -> Result<Self, AnalyticsError> {
        let strings = keys
            .iter()
            .map(|k| match ks.get(k.as_ref()) {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(s)),
                Some(_) => Err(AnalyticsError::WrongType {
                    key: k.as_ref().to_vec(),
                }),
            })
            .collect::<Result<_, _>>()?;
        Ok(DayBitmaps { strings })
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.strings.len()
    }

    /// True when there are no keys.
    pub fn is_empty(&self) -> bool {
        self.strings.is_empty()
    }

    /// [`daily::streak_histogram`] of the keys (`BITLENS.STREAKHIST`).
    pub fn streak_histogram(&self) -> Vec<u64> {
        self.sum(|k| daily::streak_histogram(k))
    }

    /// [`daily::dau`] of the keys (`BITLENS.DAU`).
    pub fn dau(&self) -> Vec<u64> {
        self.sum(|k| daily::dau(k))
    }

    /// [`daily::rolling_actives`] of the keys over `window` days (`BITLENS.ROLLING`).
    pub fn rolling_actives(&self, window: usize) -> Vec<u64> {
        self.sum(|k| daily::rolling_actives(k, window))
    }

    /// [`daily::stickiness`] of the keys over `window` days (`BITLENS.STICKINESS`).
    pub fn stickiness(&self, window: usize) -> Vec<f64> {
        daily::ratios(&self.dau(), &self.rolling_actives(window))
    }

    /// [`daily::engagement`] of the keys.
    pub fn engagement(&self) -> Engagement {
        self.sum(|k| daily::engagement(k))
    }

    /// [`daily::retention`] of the keys (`BITLENS.RETENTION`).
    pub fn retention(&self, lookback: usize, horizon: usize) -> Vec<CohortRow> {
        self.sum(|k| daily::retention(k, lookback, horizon))
    }

    /// Runs `question` (one of the slice functions of [`super::daily`]) over the keys and returns
    /// its answer. `question` must be a sum over bit offsets that counts nothing for zero bytes
    /// (true of every daily question); when a key is sparse it is called once per window that
    /// holds a set bit (never for none: then once with empty slices) and the answers are added.
    pub fn sum<T: Additive>(&self, mut question: impl FnMut(&[&[u8]]) -> T) -> T {
        if !self.strings.iter().flatten().any(|s| s.is_sparse()) {
            let dense: Vec<Cow<'_, [u8]>> = self
                .strings
                .iter()
                .map(|s| s.map_or(Cow::Borrowed(&[][..]), |s| s.as_bytes()))
                .collect();
            let slices: Vec<&[u8]> = dense.iter().map(|c| c.as_ref()).collect();
            return question(&slices);
        }
        let mut total: Option<T> = None;
        for w in self.windows() {
            let parts: Vec<Cow<'_, [u8]>> = self.strings.iter().map(|s| window(*s, w)).collect();
            let slices: Vec<&[u8]> = parts.iter().map(|c| c.as_ref()).collect();
            let part = question(&slices);
            match &mut total {
                None => total = Some(part),
                Some(t) => t.add(part),
            }
        }
        total.unwrap_or_else(|| question(&vec![&[][..]; self.strings.len()]))
    }

    /// Indexes of the windows holding any byte of a dense key or any stored page of a sparse
    /// one, ascending.
    fn windows(&self) -> BTreeSet<u64> {
        let per_window = WINDOW / PAGE as u64;
        let mut out = BTreeSet::new();
        for s in self.strings.iter().flatten() {
            match s.as_sparse() {
                Some(sp) => out.extend(sp.pages().map(|(p, _)| p / per_window)),
                None => out.extend(0..s.len().div_ceil(WINDOW)),
            }
        }
        out
    }
}

/// Bytes `[w·WINDOW, (w+1)·WINDOW)` of `s`, clamped to its length: borrowed from a dense
/// string, expanded from a sparse one (empty when it stores no page there).
fn window(s: Option<&RedisString>, w: u64) -> Cow<'_, [u8]> {
    let Some(s) = s else {
        return Cow::Borrowed(&[]);
    };
    let start = w * WINDOW;
    if start >= s.len() {
        return Cow::Borrowed(&[]);
    }
    let end = (start + WINDOW).min(s.len());
    match s.as_sparse() {
        None => match s.as_bytes() {
            Cow::Borrowed(b) => Cow::Borrowed(&b[start as usize..end as usize]),
            Cow::Owned(b) => Cow::Owned(b[start as usize..end as usize].to_vec()),
        },
        Some(sp) => {
            let first = start / PAGE as u64;
            let last = (end - 1) / PAGE as u64;
            if !sp.has_pages_in(first, last) {
                return Cow::Borrowed(&[]);
            }
            Cow::Owned(s.range(start, end - 1))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same days stored dense and sparse, with bits near window and page edges, keys of
    /// different lengths and a missing day.
    fn days(rng: &mut fastrand::Rng) -> (Keyspace, Keyspace, Vec<Vec<u8>>) {
        let (mut dense, mut sparse) = (Keyspace::new(), Keyspace::new());
        let mut names = Vec::new();
        let users = 12 * WINDOW * 8; // 12 windows
        for d in 0..9 {
            let name = format!("day:{d}").into_bytes();
            names.push(name.clone());
            if d == 4 {
                continue; // a missing key is an empty day
            }
            let len = users / 8 - rng.u64(..2 * WINDOW);
            let mut bits: Vec<u64> = Vec::new();
            // A few clusters of users (so most windows are empty), some right at edges.
            for _ in 0..2 {
                let at = rng.u64(..len * 8 - 5000);
                bits.extend((0..rng.u64(1..4000)).map(|i| at + i * rng.u64(1..3)));
            }
            bits.extend([0, WINDOW * 8 - 1, WINDOW * 8, len * 8 - 1]);
            bits.retain(|&b| b < len * 8);
            let mut bytes = vec![0u8; len as usize];
            for &b in &bits {
                bytes[(b / 8) as usize] |= 0x80 >> (b % 8);
            }
            let s = RedisString::from_sparse_bits(len, bits);
            assert!(s.is_sparse());
            dense.set(name.clone(), Value::String(RedisString::from_bytes(bytes)));
            // Day 7 stays dense in the "sparse" keyspace too: mixed inputs.
            let v = if d == 7 {
                dense.get(&name).unwrap().clone()
            } else {
                Value::String(s)
            };
            sparse.set(name, v);
        }
        (dense, sparse, names)
    }

    #[test]
    fn sparse_keys_answer_like_dense_ones() {
        let mut rng = fastrand::Rng::with_seed(20241130);
        for _ in 0..2 {
            let (dense, sparse, names) = days(&mut rng);
            let a = DayBitmaps::load(&dense, &names).unwrap();
            let b = DayBitmaps::load(&sparse, &names).unwrap();
            assert!(b.windows().len() < 12, "empty windows are skipped");
            let hist = a.streak_histogram();
            assert!(hist.iter().sum::<u64>() > 0);
            assert_eq!(hist, b.streak_histogram());
            assert_eq!(a.dau(), b.dau());
            assert_eq!(a.rolling_actives(3), b.rolling_actives(3));
            assert_eq!(a.stickiness(7), b.stickiness(7));
            assert_eq!(a.engagement(), b.engagement());
            assert_eq!(a.retention(2, 3), b.retention(2, 3));
            // And both equal the slice functions on fully materialised keys.
            let full: Vec<Vec<u8>> = names
                .iter()
                .map(|k| match dense.get(k) {
                    Some(Value::String(s)) => s.as_bytes().into_owned(),
                    _ => Vec::new(),
                })
                .collect();
            assert_eq!(hist, daily::streak_histogram(&full));
            assert_eq!(b.retention(1, 4), daily::retention(&full, 1, 4));
        }
    }

    #[test]
    fn empty_days_and_wrong_type() {
        let mut ks = Keyspace::new();
        let keys = [b"a".to_vec(), b"b".to_vec()];
        let d = DayBitmaps::load(&ks, &keys).unwrap();
        assert_eq!(d.streak_histogram(), vec![0, 0]);
        assert_eq!(d.retention(1, 1).len(), 1);
        ks.set(
            b"z",
            Value::String(RedisString::from_sparse_bits(1 << 20, [])),
        );
        let d = DayBitmaps::load(&ks, &[b"z".to_vec(), b"z".to_vec()]).unwrap();
        assert_eq!(d.dau(), vec![0, 0]);
        let z = crate::zset::ZSet::from_pairs(vec![(b"m".to_vec(), 1.0)]);
        ks.set(b"g", Value::zset(z));
        let e = DayBitmaps::load(&ks, &[b"a".to_vec(), b"g".to_vec()]).unwrap_err();
        assert!(e.to_string().contains("\"g\""), "{e}");
    }
}
