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

/// Formats a score as Redis 7.0 prints doubles in RESP2 replies (ZSCORE, ZRANGE WITHSCORES):
/// C's `%.17g` (17 significant digits, trailing zeros trimmed, exponent form below 1e-4 and
/// from 1e17), and `inf` / `-inf`.
pub fn format_score(x: f64) -> String {
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x.is_nan() {
        return "nan".into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    // 17 significant digits, exactly rounded: d.dddddddddddddddde±X.
    let sci = format!("{:.16e}", x);
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..17).contains(&exp) {
        let mant = trim_fraction(mant);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mant}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (16 - exp) as usize;
        trim_fraction(&format!("{:.*}", decimals, x)).to_string()
    }
}

/// Drops trailing zeros after a decimal point, and the point itself when nothing is left.
fn trim_fraction(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_print_like_percent_17g() {
        assert_eq!(format_score(3471579339700058.0), "3471579339700058");
        assert_eq!(format_score(1e20), "1e+20");
        assert_eq!(format_score(1.5), "1.5");
        assert_eq!(format_score(-1.0), "-1");
        assert_eq!(format_score(0.1), "0.10000000000000001");
        assert_eq!(format_score(0.0001), "0.0001");
        assert_eq!(format_score(0.00001), "1.0000000000000001e-05");
        assert_eq!(format_score(1e16), "10000000000000000");
        assert_eq!(format_score(1e17), "1e+17");
        assert_eq!(format_score(f64::NEG_INFINITY), "-inf");
    }

    #[test]
    fn from_pairs_orders_by_score_then_member() {
        let z = ZSet::from_pairs(vec![
            (b"b".to_vec(), 1.0),
            (b"a".to_vec(), 1.0),
            (b"c".to_vec(), 0.5),
            (b"a".to_vec(), 2.0),
        ]);
        let order: Vec<&[u8]> = z.iter().map(|(m, _)| m).collect();
        assert_eq!(order, vec![&b"c"[..], b"b", b"a"]);
        assert_eq!(z.score(b"a"), Some(2.0));
        assert_eq!(z.len(), 3);
    }
}
