//! Integer text as Redis reads it, shared by the file format (which stores canonical integer
//! strings as `RDB_ENC_INT*`) and the command layer (which parses integer arguments).

/// Parses a signed 64-bit integer exactly as Redis' `string2ll`: optional `-`, no `+`, no
/// leading zeros (except `0` itself), no spaces, no overflow. `None` for anything else.
///
/// These are also the strings Redis stores `OBJECT ENCODING int` and writes as integer
/// encodings in RDB files.
///
/// # Examples
/// ```
/// use bitlens::num::parse_i64;
/// assert_eq!(parse_i64(b"-42"), Some(-42));
/// assert_eq!(parse_i64(b"042"), None);
/// assert_eq!(parse_i64(b"9223372036854775808"), None);
/// ```
pub fn parse_i64(s: &[u8]) -> Option<i64> {
    if s.is_empty() || s.len() > 20 {
        return None;
    }
    if s == b"0" {
        return Some(0);
    }
    let (neg, digits) = match s[0] {
        b'-' => (true, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() || !(b'1'..=b'9').contains(&digits[0]) {
        return None;
    }
    let mut v: u64 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add((c - b'0') as u64)?;
    }
    if neg {
        if v > (i64::MAX as u64) + 1 {
            None
        } else {
            Some((v as i64).wrapping_neg())
        }
    } else if v > i64::MAX as u64 {
        None
    } else {
        Some(v as i64)
    }
}
