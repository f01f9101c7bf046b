//! Sorted sets: members (binary strings) with `f64` scores, ordered as Redis orders them
//! (by score, then by member bytes). GEO keys are sorted sets whose scores are 52-bit geohashes.

use std::collections::HashMap;

/// A Redis sorted set.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ZSet {
    /// Entries sorted by (score, member), as ZRANGE returns them.
    sorted: Vec<(f64, Vec<u8>)>,
    /// Member to score.
    scores: HashMap<Vec<u8>, f64>,
}

impl ZSet {
    /// Builds a set from (member, score) pairs; a repeated member keeps its last score.
    pub fn from_pairs<I: IntoIterator<Item = (Vec<u8>, f64)>>(pairs: I) -> Self {
        let mut scores = HashMap::new();
        for (m, s) in pairs {
            scores.insert(m, s);
        }
        let mut sorted: Vec<(f64, Vec<u8>)> = scores.iter().map(|(m, s)| (*s, m.clone())).collect();
        sorted.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
        ZSet { sorted, scores }
    }

    /// Number of members (ZCARD).
    pub fn len(&self) -> usize {
        self.sorted.len()
    }

    /// True when the set has no members.
    pub fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }

    /// The score of `member` (ZSCORE), if present.
    pub fn score(&self, member: &[u8]) -> Option<f64> {
        self.scores.get(member).copied()
    }

    /// Entries in Redis order: ascending score, ties by member bytes.
    pub fn sorted(&self) -> &[(f64, Vec<u8>)] {
        &self.sorted
    }

    /// Iterates (member, score) in Redis order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], f64)> {
        self.sorted.iter().map(|(s, m)| (m.as_slice(), *s))
    }
}
