//! Argument parsing shared by all command families, with Redis' exact rules and error texts.

use crate::reply::Reply;

/// `ERR value is not an integer or out of range`.
pub fn not_integer() -> Reply {
    Reply::err("ERR value is not an integer or out of range")
}

pub use crate::num::parse_i64;

/// Parses an integer argument or returns Redis' `not an integer` error reply.
pub fn int_arg(s: &[u8]) -> Result<i64, Reply> {
    parse_i64(s).ok_or_else(not_integer)
}

/// Case-insensitive comparison of an argument with an ASCII keyword.
pub fn is(arg: &[u8], keyword: &str) -> bool {
    arg.eq_ignore_ascii_case(keyword.as_bytes())
}

/// `ERR value is not a valid float`.
pub fn not_float() -> Reply {
    Reply::err("ERR value is not a valid float")
}

/// Parses a double as Redis' `getDoubleFromObject` (C `strtod` on the whole argument): decimal
/// or `0x` hexadecimal forms, `inf`/`infinity`; rejected are empty strings, leading or trailing
/// spaces, NaN, overflow to ±inf and underflow of a non-zero literal to 0.
pub fn parse_f64(s: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(s).ok()?;
    let body = text.strip_prefix(['+', '-']).unwrap_or(text);
    let neg = text.starts_with('-');
    if body.is_empty() || !body.as_bytes()[0].is_ascii_alphanumeric() && body.as_bytes()[0] != b'.'
    {
        return None;
    }
    let lower = body.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" {
        return Some(if neg {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
    }
    let v = if let Some(hex) = lower.strip_prefix("0x") {
        parse_hex_float(hex)?
    } else {
        if !lower
            .bytes()
            .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'+' | b'-'))
        {
            return None;
        }
        let v: f64 = lower.parse().ok()?;
        let mantissa = lower.split('e').next().unwrap_or("");
        if v == 0.0 && mantissa.bytes().any(|c| (b'1'..=b'9').contains(&c)) {
            return None; // underflow (ERANGE with a zero result)
        }
        v
    };
    if v.is_infinite() {
        return None; // overflow (ERANGE with HUGE_VAL)
    }
    Some(if neg { -v } else { v })
}

/// The digits after `0x` of a C hexadecimal float: hex digits, an optional point, an
/// optional binary exponent `p[+-]N`.
fn parse_hex_float(s: &str) -> Option<f64> {
    let (mant, exp) = match s.split_once('p') {
        Some((m, e)) => (m, Some(e)),
        None => (s, None),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut v = 0f64;
    for c in int.chars() {
        v = v * 16.0 + c.to_digit(16)? as f64;
    }
    let mut scale = 1.0 / 16.0;
    for c in frac.chars() {
        v += c.to_digit(16)? as f64 * scale;
        scale /= 16.0;
    }
    if let Some(e) = exp {
        let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
        if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let e: i32 = e.parse().unwrap_or(if e.starts_with('-') {
            -100_000
        } else {
            100_000
        });
        v *= 2f64.powi(e.clamp(-100_000, 100_000));
        if v == 0.0 && (int.bytes().chain(frac.bytes()).any(|c| c != b'0')) {
            return None;
        }
    }
    Some(v)
}

/// Parses a float argument or returns Redis' `not a valid float` error reply.
pub fn float_arg(s: &[u8]) -> Result<f64, Reply> {
    parse_f64(s).ok_or_else(not_float)
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

    #[test]
    fn strtod_rules() {
        assert_eq!(parse_f64(b"1.5"), Some(1.5));
        assert_eq!(parse_f64(b"-.5e1"), Some(-5.0));
        assert_eq!(parse_f64(b"inf"), Some(f64::INFINITY));
        assert_eq!(parse_f64(b"-Infinity"), Some(f64::NEG_INFINITY));
        assert_eq!(parse_f64(b"0x10"), Some(16.0));
        assert_eq!(parse_f64(b"0x1.8p1"), Some(3.0));
        assert_eq!(parse_f64(b"1e-310").map(|v| v > 0.0), Some(true));
        for bad in [
            &b""[..],
            b" 1",
            b"1 ",
            b"nan",
            b"1e400",
            b"1e-400",
            b"abc",
            b"1e",
            b"--1",
            b"+-1",
            b".",
        ] {
            assert_eq!(parse_f64(bad), None, "{:?}", bad);
        }
    }
}
