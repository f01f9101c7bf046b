//! User ids that are strings, mapped to bit offsets the way the applications that write the
//! bitmaps map them.
//!
//! The state-statistics guide's sign-in example (seed 000, `getIndexFromUserId`) keys a user's
//! bit by `Math.abs(userId.hashCode())` in Java. Java's `String.hashCode` is
//! `s[0]·31^(n−1) + … + s[n−1]` over the string's **UTF-16 code units**, in wrapping 32-bit
//! arithmetic, and `Math.abs` of `Integer.MIN_VALUE` is `Integer.MIN_VALUE` itself (the one
//! negative result, which no SETBIT could have written).

/// Java's `String.hashCode()` of `id` (Java Language Specification, `java.lang.String`): the
/// UTF-16 code units of `id`, folded as `h = 31·h + unit` with 32-bit wrap-around.
pub fn java_string_hash(id: &str) -> i32 {
    id.encode_utf16().fold(0i32, |h, unit| {
        h.wrapping_mul(31).wrapping_add(i32::from(unit))
    })
}

/// The bit offset `Math.abs(id.hashCode())` gives in Java (`java.lang.Math.abs(int)`), or
/// `None` for the one id class whose hash is `Integer.MIN_VALUE`, where Java's result stays
/// negative (-2147483648) and is no bit offset.
pub fn java_abs_hash_offset(id: &str) -> Option<u64> {
    let h = java_string_hash(id);
    (h != i32::MIN).then(|| u64::from(h.unsigned_abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values printed by `System.out.println(s.hashCode())` on OpenJDK; they are also the
    /// textbook examples of the JLS formula (`"hello".hashCode() == 99162322`).
    #[test]
    fn hashes_are_javas() {
        assert_eq!(java_string_hash(""), 0);
        assert_eq!(java_string_hash("a"), 97);
        assert_eq!(java_string_hash("hello"), 99_162_322);
        // Overflowing strings wrap: "polygenelubricants" is the classic Integer.MIN_VALUE hash.
        assert_eq!(java_string_hash("polygenelubricants"), i32::MIN);
        assert_eq!(java_abs_hash_offset("polygenelubricants"), None);
        assert_eq!(java_string_hash("hello world"), 1_794_106_052);
        // The well-known collision of two-letter strings.
        assert_eq!(java_string_hash("Aa"), 2112);
        assert_eq!(java_string_hash("BB"), 2112);
        // Outside the BMP: two UTF-16 units (a surrogate pair), not one code point.
        assert_eq!(java_string_hash("😀"), 0xD83D * 31 + 0xDE00);
        assert_eq!(
            java_abs_hash_offset("hello"),
            Some(99_162_322),
            "positive hashes map to themselves"
        );
    }
}
