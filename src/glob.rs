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

/// True when `s` matches the Redis glob `pattern`.
pub fn matches(pattern: &[u8], s: &[u8]) -> bool {
    match_from(pattern, s, 0)
}

fn match_from(mut p: &[u8], mut s: &[u8], depth: u32) -> bool {
    // Redis bounds recursion on pathological patterns; we do the same by collapsing stars.
    if depth > 1000 {
        return false;
    }
    while !p.is_empty() {
        match p[0] {
            b'*' => {
                while p.len() > 1 && p[1] == b'*' {
                    p = &p[1..];
                }
                if p.len() == 1 {
                    return true;
                }
                // A star followed by plain bytes only (`sign:*:202405`, `uv:*`): the rest must
                // be the subject's tail, found without trying every split.
                let rest = &p[1..];
                if !rest.iter().any(|b| SPECIAL.contains(b)) {
                    return s.ends_with(rest);
                }
                for i in 0..=s.len() {
                    if match_from(&p[1..], &s[i..], depth + 1) {
                        return true;
                    }
                }
                return false;
            }
            b'?' => {
                if s.is_empty() {
                    return false;
                }
                s = &s[1..];
                p = &p[1..];
            }
            b'[' => {
                if s.is_empty() {
                    return false;
                }
                let c = s[0];
                let mut i = 1;
                let negate = i < p.len() && p[i] == b'^';
                if negate {
                    i += 1;
                }
                let mut matched = false;
                loop {
                    if i >= p.len() {
                        // Unterminated class: Redis treats the end of pattern as the close.
                        i = p.len() - 1;
                        break;
                    }
                    if p[i] == b'\\' && i + 2 < p.len() {
                        i += 1;
                        if p[i] == c {
                            matched = true;
                        }
                    } else if p[i] == b']' {
                        break;
                    } else if i + 2 < p.len() && p[i + 1] == b'-' {
                        let (mut lo, mut hi) = (p[i], p[i + 2]);
                        if lo > hi {
                            std::mem::swap(&mut lo, &mut hi);
                        }
                        if c >= lo && c <= hi {
                            matched = true;
                        }
                        i += 2;
                    } else if p[i] == c {
                        matched = true;
                    }
                    i += 1;
                }
                if negate {
                    matched = !matched;
                }
                if !matched {
                    return false;
                }
                s = &s[1..];
                p = &p[i + 1..];
            }
            b'\\' if p.len() >= 2 => {
                if s.is_empty() || s[0] != p[1] {
                    return false;
                }
                s = &s[1..];
                p = &p[2..];
            }
            c => {
                if s.is_empty() || s[0] != c {
                    return false;
                }
                s = &s[1..];
                p = &p[1..];
            }
        }
    }
    s.is_empty()
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
