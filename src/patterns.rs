//! Group patterns that are exact: pasted into `KEYS`, a row's pattern matches exactly the keys
//! counted in that row, no more, no fewer.
//!
//! A key's candidate pattern keeps its bytes (glob-escaping `*`, `?`, `[`, `]` and `\`) and
//! replaces each variable part by `*`: a `:`-separated segment that is a number or a date
//! (`20240501`, `2024-05-01`), except a month `YYYYMM` in the last segment; digit runs inside
//! other segments (`user42` → `user*`). A candidate shared by one key only is that key,
//! escaped (so `utf8` stays `utf8` and a key named `*` is `\*`). Then each wildcard pattern
//! absorbs every group whose keys it all matches (`bm:int:*` takes `bm:int:big`); a group it
//! matches only in part is split into its keys, each its own exact pattern, which are then
//! absorbed one by one. What remains partitions the keys and every pattern matches exactly its
//! own group (checked against [`crate::glob::matches`], the matcher of `KEYS`).
//!
//! Used by `bitlens inspect` (its per-pattern rows) and by [`crate::report`] (the panel's
//! memory view): one grouping for both.

use crate::glob::{matches, push_escaped};

/// `key` as a glob pattern matching only itself ([`crate::glob::escape`]).
pub use crate::glob::escape as exact;

/// The candidate pattern of a key (see the module docs).
pub fn candidate(key: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(key.len());
    let last = key.split(|&b| b == b':').count() - 1;
    for (i, seg) in key.split(|&b| b == b':').enumerate() {
        if i > 0 {
            out.push(b':');
        }
        let all_digits = !seg.is_empty() && seg.iter().all(u8::is_ascii_digit);
        let is_month = all_digits
            && i == last
            && i > 0
            && seg.len() == 6
            && matches!(&seg[..2], b"19" | b"20")
            && matches!((seg[4] - b'0') * 10 + (seg[5] - b'0'), 1..=12);
        let is_date = !seg.is_empty()
            && seg
                .iter()
                .all(|b| b.is_ascii_digit() || b"-_/.".contains(b))
            && seg.iter().filter(|b| b.is_ascii_digit()).count() >= 6
            && seg.first().is_some_and(u8::is_ascii_digit);
        if is_month {
            out.extend_from_slice(seg);
        } else if all_digits || is_date {
            out.push(b'*');
        } else {
            let mut in_digits = false;
            for &b in seg {
                if b.is_ascii_digit() {
                    if !in_digits {
                        out.push(b'*');
                    }
                    in_digits = true;
                } else {
                    push_escaped(&mut out, b);
                    in_digits = false;
                }
            }
        }
    }
    out
}

fn has_wildcard(pattern: &[u8]) -> bool {
    crate::glob::literal(pattern).is_none()
}

/// Groups `keys` (one database's, distinct) into exact patterns: `(pattern, indices of the
/// keys in its row)`, every key in exactly one row (see the module docs).
pub fn group(keys: &[&[u8]]) -> Vec<(Vec<u8>, Vec<usize>)> {
    use std::collections::HashMap;
    // Keys sorted, so that the keys a pattern can match form one range (its literal prefix).
    let mut order: Vec<usize> = (0..keys.len()).collect();
    crate::sort::sort_by(&mut order, |&a, &b| keys[a].cmp(keys[b]));
    let mut by_candidate: HashMap<Vec<u8>, Vec<usize>> = HashMap::new();
    for (i, k) in keys.iter().enumerate() {
        by_candidate.entry(candidate(k)).or_default().push(i);
    }
    let mut groups: Vec<Option<(Vec<u8>, Vec<usize>)>> = Vec::new();
    let mut group_of = vec![0usize; keys.len()];
    for (pat, members) in by_candidate {
        let pat = if members.len() == 1 {
            exact(keys[members[0]])
        } else {
            pat
        };
        for &m in &members {
            group_of[m] = groups.len();
        }
        groups.push(Some((pat, members)));
    }
    // Most general first: fewer literal bytes before the first wildcard.
    let mut queue: Vec<usize> = (0..groups.len())
        .filter(|&g| has_wildcard(&groups[g].as_ref().unwrap().0))
        .collect();
    crate::sort::sort_by_key(&mut queue, |&g| {
        let p = &groups[g].as_ref().unwrap().0;
        (crate::glob::literal_prefix(p).len(), p.clone())
    });
    for g in queue {
        let Some((pat, _)) = groups[g].clone() else {
            continue;
        };
        let prefix = crate::glob::literal_prefix(&pat);
        let start = order.partition_point(|&i| keys[i] < prefix.as_slice());
        let hits: Vec<usize> = order[start..]
            .iter()
            .take_while(|&&i| keys[i].starts_with(&prefix))
            .copied()
            .filter(|&i| group_of[i] != g && matches(&pat, keys[i]))
            .collect();
        for k in hits {
            let h = group_of[k];
            if h == g {
                continue; // already moved in by an earlier hit
            }
            let (hpat, hmembers) = groups[h].take().unwrap();
            let all = hmembers.iter().all(|&m| matches(&pat, keys[m]));
            if all {
                for &m in &hmembers {
                    group_of[m] = g;
                }
                groups[g].as_mut().unwrap().1.extend(hmembers);
            } else {
                // Split: the keys `pat` matches join it, the others get exact patterns.
                let _ = hpat;
                for m in hmembers {
                    if matches(&pat, keys[m]) {
                        group_of[m] = g;
                        groups[g].as_mut().unwrap().1.push(m);
                    } else {
                        group_of[m] = groups.len();
                        groups.push(Some((exact(keys[m]), vec![m])));
                    }
                }
            }
        }
    }
    // A split may leave a wildcard group whose members an exact key elsewhere now shadows:
    // no, exact patterns match only themselves, and every wildcard took all it matches.
    groups.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates() {
        let p = |k: &str| String::from_utf8(candidate(k.as_bytes())).unwrap();
        assert_eq!(p("stats:active:20240501"), "stats:active:*");
        assert_eq!(p("sign:1001635:202405"), "sign:*:202405");
        assert_eq!(p("uv:page:index:2024-05-01"), "uv:page:index:*");
        assert_eq!(p("user42:x7y"), "user*:x*y");
        assert_eq!(p("a*b?"), "a\\*b\\?");
    }

    #[test]
    fn groups_are_exact() {
        let names = [
            "bm:int:1",
            "bm:int:2",
            "bm:int:3",
            "bm:int:big",
            "bm:int:neg",
            "utf8",
            "*",
            "a?",
            "ab",
            "x:1:y",
            "x:2:y",
            "x:2:z",
            "x:10",
        ];
        let keys: Vec<&[u8]> = names.iter().map(|s| s.as_bytes()).collect();
        let groups = group(&keys);
        let mut seen = vec![0; keys.len()];
        for (pat, members) in &groups {
            let matched: Vec<usize> = (0..keys.len()).filter(|&i| matches(pat, keys[i])).collect();
            let mut m = members.clone();
            m.sort();
            assert_eq!(matched, m, "{}", String::from_utf8_lossy(pat));
            for &i in members {
                seen[i] += 1;
            }
        }
        assert!(seen.iter().all(|&n| n == 1));
        let pats: Vec<String> = groups
            .iter()
            .map(|g| String::from_utf8_lossy(&g.0).into_owned())
            .collect();
        assert!(pats.contains(&"utf8".to_string()), "{pats:?}");
        assert!(pats.contains(&"\\*".to_string()), "{pats:?}");
        assert!(pats.contains(&"bm:int:*".to_string()), "{pats:?}");
    }
}
