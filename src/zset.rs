//! Sorted sets: members (binary strings) with `f64` scores, ordered as Redis orders them
//! (by score, then by member bytes). GEO keys are sorted sets whose scores are 52-bit geohashes.
//!
//! Layout: one vector of (score, member) in Redis order (ranges and GEO cell ranges are binary
//! searches in it) and an open-addressing hash index of positions in that vector for member
//! lookups (ZSCORE, GEOPOS). Building is one hashing pass and one sort: O(n log n), with no
//! copy of the member bytes.

/// A Redis sorted set.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ZSet {
    /// Entries sorted by (score, member), as ZRANGE returns them.
    sorted: Vec<(f64, Vec<u8>)>,
    /// Member index: hash tag and position in `sorted` (`EMPTY` = free slot); length a power
    /// of two, at most half full.
    slots: Vec<u64>,
}

/// A free slot of the member index. A used slot holds the high 32 bits of the member's hash
/// (so most probes compare no bytes) above its position in `sorted`.
const EMPTY: u64 = u64::MAX;

/// A fast 64-bit hash of member bytes (multiply-rotate over 8-byte words, then a final mix).
fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h.rotate_left(5) ^ w).wrapping_mul(K);
    }
    let mut tail = [0u8; 8];
    let rest = chunks.remainder();
    tail[..rest.len()].copy_from_slice(rest);
    h = (h.rotate_left(5) ^ u64::from_le_bytes(tail)).wrapping_mul(K);
    h ^= h >> 29;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^ (h >> 32)
}

/// Finds the slot of `member` (or the free slot where it would go) and the slot tag to store.
fn probe<'a>(slots: &[u64], member: &[u8], at: impl Fn(usize) -> &'a [u8]) -> (usize, u64) {
    let mask = slots.len() - 1;
    let h = hash(member);
    let tag = h & 0xffff_ffff_0000_0000;
    let mut i = h as usize & mask;
    loop {
        let s = slots[i];
        if s == EMPTY || (s & 0xffff_ffff_0000_0000 == tag && at(s as u32 as usize) == member) {
            return (i, tag);
        }
        i = (i + 1) & mask;
    }
}

/// An index table with room for `n` entries at most half full.
fn table_for(n: usize) -> Vec<u64> {
    vec![EMPTY; (n * 2).next_power_of_two().max(8)]
}

impl ZSet {
    /// Builds a set from (member, score) pairs; a repeated member keeps its last score.
    /// O(n log n); at most `u32::MAX` members.
    pub fn from_pairs<I: IntoIterator<Item = (Vec<u8>, f64)>>(pairs: I) -> Self {
        let mut items: Vec<(f64, Vec<u8>, u32)> = pairs
            .into_iter()
            .enumerate()
            .map(|(i, (m, s))| (s, m, i as u32))
            .collect();
        // Index every member by its input position; earlier copies of a repeated member
        // (rare: snapshots never hold any) are marked dead.
        let mut slots = table_for(items.len());
        let mut dead = Vec::new();
        for i in 0..items.len() {
            let (slot, tag) = probe(&slots, &items[i].1, |p| &items[p].1);
            if slots[slot] != EMPTY {
                dead.push(slots[slot] as u32);
            }
            slots[slot] = tag | i as u64;
        }
        if !dead.is_empty() {
            dead.sort_unstable();
            items.retain(|it| dead.binary_search(&it.2).is_err());
        }
        // Members are now distinct, so an unstable sort gives the one Redis order. -0 and 0
        // compare equal (ties by member), as in Redis; the order stays total with NaN.
        let key = |s: f64| if s == 0.0 { 0.0 } else { s };
        items.sort_unstable_by(|a, b| key(a.0).total_cmp(&key(b.0)).then_with(|| a.1.cmp(&b.1)));
        // Re-point the index from input positions to sorted positions (a repeated member's
        // slot already holds its last copy, so dead copies are not in the index).
        let mut sorted_pos = vec![u32::MAX; items.len() + dead.len()];
        for (pos, it) in items.iter().enumerate() {
            sorted_pos[it.2 as usize] = pos as u32;
        }
        for s in slots.iter_mut().filter(|s| **s != EMPTY) {
            let pos = sorted_pos[*s as u32 as usize];
            *s = if pos == u32::MAX {
                EMPTY
            } else {
                (*s & 0xffff_ffff_0000_0000) | pos as u64
            };
        }
        ZSet {
            sorted: items.into_iter().map(|(s, m, _)| (s, m)).collect(),
            slots,
        }
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
        self.position(member).map(|i| self.sorted[i].0)
    }

    /// The position of `member` in [`ZSet::sorted`] (its ZRANK), if present.
    pub fn position(&self, member: &[u8]) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let (slot, _) = probe(&self.slots, member, |p| &self.sorted[p].1);
        let s = self.slots[slot];
        (s != EMPTY).then_some(s as u32 as usize)
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
        assert_eq!(z.score(b"b"), Some(1.0));
        assert_eq!(z.score(b"zz"), None);
        assert_eq!(z.position(b"c"), Some(0));
        assert_eq!(z.len(), 3);
        assert_eq!(ZSet::default().score(b"a"), None);
    }

    #[test]
    fn many_members_and_repeats() {
        let n = 20_000;
        let pairs = (0..n).map(|i| (format!("m{}", i % 15_000).into_bytes(), i as f64));
        let z = ZSet::from_pairs(pairs);
        assert_eq!(z.len(), 15_000);
        // The last score of each member wins.
        assert_eq!(z.score(b"m0"), Some(15_000.0));
        assert_eq!(z.score(b"m4999"), Some(19_999.0));
        assert_eq!(z.score(b"m5000"), Some(5_000.0));
        assert!(z.sorted().windows(2).all(|w| w[0].0 <= w[1].0));
        for (i, (s, m)) in z.sorted().iter().enumerate() {
            assert_eq!(z.position(m), Some(i));
            assert_eq!(z.score(m), Some(*s));
        }
    }
}
