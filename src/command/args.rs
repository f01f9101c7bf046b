//! Argument parsing shared by all command families, with Redis' exact rules and error texts.

use crate::reply::Reply;

/// `ERR value is not an integer or out of range`.
pub fn not_integer() -> Reply {
    Reply::err("ERR value is not an integer or out of range")
}

/// Parses a signed 64-bit integer exactly as Redis' `string2ll`: optional `-`, no `+`, no
/// leading zeros (except `0` itself), no spaces, no overflow.
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

/// Parses an integer argument or returns Redis' `not an integer` error reply.
pub fn int_arg(s: &[u8]) -> Result<i64, Reply> {
    parse_i64(s).ok_or_else(not_integer)
}

/// Case-insensitive comparison of an argument with an ASCII keyword.
pub fn is(arg: &[u8], keyword: &str) -> bool {
    arg.eq_ignore_ascii_case(keyword.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string2ll_rules() {
        assert_eq!(parse_i64(b"0"), Some(0));
        assert_eq!(parse_i64(b"-1"), Some(-1));
        assert_eq!(parse_i64(b"9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_i64(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_i64(b"9223372036854775808"), None);
        for bad in [&b""[..], b"-", b"+1", b"01", b"-0", b" 1", b"1 ", b"1a"] {
            assert_eq!(parse_i64(bad), None, "{:?}", bad);
        }
    }
}
