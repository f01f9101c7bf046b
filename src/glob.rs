//! Glob-style pattern matching with Redis' rules (KEYS, SCAN MATCH, snapshot patterns):
//! `*` any run of bytes, `?` one byte, `[abc]`, `[^abc]`, `[a-z]` classes, `\x` a literal `x`.
//! Matching is on bytes, case-sensitive.

/// The bytes that mean something in a pattern: `*`, `?`, `[`, `]` and `\\`.
const SPECIAL: &[u8] = b"*?[]\\";

/// Appends `b` to `out` as pattern bytes that match only `b` (a `\\` before each of `*`, `?`, `[`, `]`, `\\`).
pub fn push_escaped(out: &mut Vec<u8>, b: u8) {
    if SPECIAL.contains(&b) {
        out.push(b'\\');
    }
    out.push(b);
}

/// `key` as a pattern that matches `key` only (each of `*`, `?`, `[`, `]`, `\\` escaped by a
/// `\\`): the inverse of [`literal`], `literal(&escape(k)) == Some(k)`.
pub fn escape(key: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(key.len());
    for &b in key {
        push_escaped(&mut out, b);
    }
    out
}

/// The one key name `pattern` matches when it has no `*`, `?` or `[` (each `\\x` read as a
/// literal `x`), else `None`: such a pattern needs no SCAN, the key can be read by name.
/// A trailing lone `\\` is taken literally, as [`matches()`] does.
pub fn literal(pattern: &[u8]) -> Option<Vec<u8>> {
    let (prefix, whole) = unescaped_prefix(pattern);
    whole.then_some(prefix)
}

/// The literal bytes `pattern` starts with, up to its first unescaped `*`, `?` or `[` (each
/// `\\x` read as `x`, a trailing lone `\\` taken literally).
pub fn literal_prefix(pattern: &[u8]) -> Vec<u8> {
    unescaped_prefix(pattern).0
}

/// ([`literal_prefix`], whether it is the whole pattern).
fn unescaped_prefix(pattern: &[u8]) -> (Vec<u8>, bool) {
    let mut out = Vec::with_capacity(pattern.len());
    let mut i = 0;
    while i < pattern.len() {
        match pattern[i] {
            b'*' | b'?' | b'[' => return (out, false),
            b'\\' if i + 1 < pattern.len() => {
                out.push(pattern[i + 1]);
                i += 2;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    (out, true)
}

/// Star groups past which a match fails, as Redis bounds its recursion (`nesting > 1000`):
/// the 1,002nd star is never reached, and the 1,001st matches only as the pattern's end or
/// before plain bytes.
const MAX_STARS: usize = 1001;

/// True when `s` matches the Redis glob `pattern`.
///
/// Time is O(|pattern| × |s|) with no allocation: the textbook backtracking to the last star
/// (every token other than `*` matches exactly one byte, so only the last star's split needs
/// to move), where a matcher that tries every split at every star is exponential
/// (`*a*a*a…b` against `aaaa…`). A star followed by plain bytes only (`sign:*:202405`)
/// matches by the subject's tail.
pub fn matches(pattern: &[u8], s: &[u8]) -> bool {
    let p = pattern;
    let (mut pi, mut si) = (0usize, 0usize);
    // The last star: the pattern index after it, and where its run of bytes now ends.
    let mut star: Option<(usize, usize)> = None;
    let mut stars = 0usize;
    loop {
        if pi < p.len() {
            if p[pi] == b'*' {
                while pi + 1 < p.len() && p[pi + 1] == b'*' {
                    pi += 1;
                }
                stars += 1;
                let rest = &p[pi + 1..];
                if rest.is_empty() {
                    return stars <= MAX_STARS;
                }
                let plain = !rest.iter().any(|b| SPECIAL.contains(b));
                if stars > MAX_STARS || (stars == MAX_STARS && !plain) {
                    return false;
                }
                if plain {
                    return s.len() - si >= rest.len() && s.ends_with(rest);
                }
                pi += 1;
                star = Some((pi, si));
                continue;
            }
            if si < s.len() {
                let (ok, next) = one(p, pi, s[si]);
                if ok {
                    pi = next;
                    si += 1;
                    continue;
                }
            }
        } else if si == s.len() {
            return true;
        }
        // A mismatch: the last star takes one more byte, or there is no match.
        match star {
            Some((after, run_end)) if run_end < s.len() => {
                star = Some((after, run_end + 1));
                pi = after;
                si = run_end + 1;
            }
            _ => return false,
        }
    }
}

/// Whether the one-byte token at `p[i]` (not `*`) matches `c`, and the index after it.
/// `?` any byte; `[…]` a class (`^` negates, `a-z` a range either way round, `\x` a literal
/// `x`; an unterminated class ends with the pattern); `\x` a literal `x` (a trailing lone
/// `\` is itself); any other byte itself.
fn one(p: &[u8], i: usize, c: u8) -> (bool, usize) {
    match p[i] {
        b'?' => (true, i + 1),
        b'[' => {
            let q = &p[i..];
            let mut j = 1;
            let negate = j < q.len() && q[j] == b'^';
            if negate {
                j += 1;
            }
            let mut matched = false;
            loop {
                if j >= q.len() {
                    // Unterminated class: Redis treats the end of pattern as the close.
                    j = q.len() - 1;
                    break;
                }
                if q[j] == b'\\' && j + 2 < q.len() {
                    j += 1;
                    if q[j] == c {
                        matched = true;
                    }
                } else if q[j] == b']' {
                    break;
                } else if j + 2 < q.len() && q[j + 1] == b'-' {
                    let (mut lo, mut hi) = (q[j], q[j + 2]);
                    if lo > hi {
                        std::mem::swap(&mut lo, &mut hi);
                    }
                    if c >= lo && c <= hi {
                        matched = true;
                    }
                    j += 2;
                } else if q[j] == c {
                    matched = true;
                }
                j += 1;
            }
            (matched != negate, i + j + 1)
        }
        b'\\' if i + 1 < p.len() => (p[i + 1] == c, i + 2),
        b => (b == c, i + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::{escape, literal, matches};

    #[test]
    fn escaped_keys_match_only_themselves() {
        for k in ["plain", "a*b", "[x]?", "back\\slash", "end\\", "*", ""].map(str::as_bytes) {
            let p = escape(k);
            assert_eq!(literal(&p).as_deref(), Some(k), "{p:?}");
            assert!(matches(&p, k), "{p:?} must match {k:?}");
        }
        assert_eq!(escape(b"a*b[c]?d\\"), b"a\\*b\\[c\\]\\?d\\\\");
        assert!(!matches(&escape(b"a*"), b"abc"));
    }

    #[test]
    fn literal_patterns_name_one_key() {
        for (p, k) in [
            (&b"sign:1:202405"[..], &b"sign:1:202405"[..]),
            (b"a\\*b", b"a*b"),
            (b"\\[x\\]\\?", b"[x]?"),
            (b"end\\", b"end\\"),
            (b"", b""),
        ] {
            assert_eq!(literal(p).as_deref(), Some(k), "{p:?}");
            assert!(matches(p, k), "{p:?} must match {k:?}");
        }
        for p in [&b"a*"[..], b"h?llo", b"[ab]", b"x\\\\*"] {
            assert_eq!(literal(p), None, "{p:?}");
        }
    }

    #[test]
    fn redis_glob_rules() {
        assert!(matches(b"*", b""));
        assert!(matches(b"stats:active:*", b"stats:active:20240501"));
        assert!(!matches(b"stats:active:*", b"stats:act"));
        assert!(matches(b"h?llo", b"hello"));
        assert!(!matches(b"h?llo", b"hllo"));
        assert!(matches(b"h[ae]llo", b"hallo"));
        assert!(!matches(b"h[^e]llo", b"hello"));
        assert!(matches(b"h[a-b]llo", b"hbllo"));
        assert!(matches(b"h[b-a]llo", b"hallo"));
        assert!(matches(b"a\\*b", b"a*b"));
        assert!(!matches(b"a\\*b", b"axb"));
        assert!(matches(b"sign:*:202405", b"sign:1001:202405"));
        assert!(!matches(b"sign:*:202405", b"sign:1001:202406"));
        assert!(
            !matches(b"ab*ba", b"aba"),
            "the tail may not overlap the head"
        );
    }

    /// The recursive matcher this module had (every split tried at every star, with the
    /// recursion bound of [`super::MAX_STARS`]), kept as the reference: exponential on
    /// `*a*a*a…b`, exact on small inputs.
    fn recursive(mut p: &[u8], mut s: &[u8], depth: u32) -> bool {
        if depth > 1000 {
            return false;
        }
        while !p.is_empty() {
            if p[0] == b'*' {
                while p.len() > 1 && p[1] == b'*' {
                    p = &p[1..];
                }
                if p.len() == 1 {
                    return true;
                }
                let rest = &p[1..];
                if !rest.iter().any(|b| super::SPECIAL.contains(b)) {
                    return s.ends_with(rest) && s.len() >= rest.len();
                }
                return (0..=s.len()).any(|i| recursive(rest, &s[i..], depth + 1));
            }
            if s.is_empty() {
                return false;
            }
            let (ok, next) = super::one(p, 0, s[0]);
            if !ok {
                return false;
            }
            p = &p[next..];
            s = &s[1..];
        }
        s.is_empty()
    }

    #[test]
    fn classes_escapes_and_stars_match_as_the_recursive_matcher() {
        let mut rng = fastrand::Rng::with_seed(0x9106);
        for _ in 0..100_000 {
            let p: Vec<u8> = (0..rng.usize(0..9))
                .map(|_| b"ab*?[]^-\\"[rng.usize(0..9)])
                .collect();
            let s: Vec<u8> = (0..rng.usize(0..9))
                .map(|_| b"ab-]^*\\"[rng.usize(0..7)])
                .collect();
            assert_eq!(matches(&p, &s), recursive(&p, &s, 0), "{p:?} {s:?}");
        }
    }

    #[test]
    fn many_stars_are_polynomial_and_bounded_as_redis() {
        // Exponential for a matcher that tries every split: answered at once here.
        let s = vec![b'a'; 60];
        let p: Vec<u8> = b"*a".repeat(12).into_iter().chain(*b"b").collect();
        assert!(!matches(&p, &s));
        let p: Vec<u8> = b"*?".repeat(10).into_iter().chain(*b"*x").collect();
        assert!(!matches(&p, &[b'y'; 5000]));
        assert!(matches(&p, &[b'x'; 5000]));
        // Past 1,001 star groups a match fails (Redis' recursion bound); the 1,001st may
        // end the pattern or precede plain bytes.
        let stars = |n: usize, tail: &[u8]| -> Vec<u8> {
            b"*a"
                .repeat(n - 1)
                .into_iter()
                .chain(*b"*")
                .chain(tail.iter().copied())
                .collect()
        };
        let subject = vec![b'a'; 1500];
        assert!(matches(&stars(1001, b""), &subject));
        assert!(matches(&stars(1001, b"a"), &subject));
        assert!(!matches(&stars(1001, b"?"), &subject));
        assert!(!matches(&stars(1002, b""), &subject));
    }

    /// The textbook matcher for `*`, `?` and plain bytes: every split tried.
    fn naive(p: &[u8], s: &[u8]) -> bool {
        match (p.first(), s.first()) {
            (None, _) => s.is_empty(),
            (Some(b'*'), _) => (0..=s.len()).any(|i| naive(&p[1..], &s[i..])),
            (Some(_), None) => false,
            (Some(b'?'), Some(_)) => naive(&p[1..], &s[1..]),
            (Some(c), Some(d)) => c == d && naive(&p[1..], &s[1..]),
        }
    }

    #[test]
    fn stars_and_plain_tails_match_as_every_split_would() {
        let mut rng = fastrand::Rng::with_seed(0x61_0b);
        for _ in 0..20_000 {
            let p: Vec<u8> = (0..rng.usize(0..7))
                .map(|_| b"ab:*?"[rng.usize(0..5)])
                .collect();
            let s: Vec<u8> = (0..rng.usize(0..9))
                .map(|_| b"ab:"[rng.usize(0..3)])
                .collect();
            assert_eq!(matches(&p, &s), naive(&p, &s), "{p:?} {s:?}");
        }
    }
}
