//! MurmurHash64A (Austin Appleby's 64-bit MurmurHash2 variant), the hash Redis feeds its
//! HyperLogLog with. Input words are read little-endian, as Redis does on x86-64 and ARM.

const M: u64 = 0xc6a4_a793_5bd1_e995;
const R: u32 = 47;

/// MurmurHash64A of `data` with `seed` (Redis' HLL uses seed `0xadc83b19`). Written with
/// indexed loads and `while` loops so that it compiles to the same loop at every opt level
/// (PFADD hashes every element with it).
#[inline]
pub fn murmur64a(data: &[u8], seed: u64) -> u64 {
    // Redis passes the length as a C `int`; lengths past 2^31 never reach us.
    let mut h = seed ^ (data.len() as u64).wrapping_mul(M);
    let words = data.len() / 8;
    let mut i = 0;
    while i < words {
        let mut k = le64(&data[i * 8..i * 8 + 8]);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h ^= k;
        h = h.wrapping_mul(M);
        i += 1;
    }
    let tail = &data[words * 8..];
    if !tail.is_empty() {
        // Tail byte i is xored in at bit 8i: the zero-padded little-endian word.
        let mut w = 0u64;
        let mut j = 0;
        while j < tail.len() {
            w |= (tail[j] as u64) << (8 * j);
            j += 1;
        }
        h ^= w;
        h = h.wrapping_mul(M);
    }
    h ^= h >> R;
    h = h.wrapping_mul(M);
    h ^= h >> R;
    h
}

/// The little-endian word of an 8-byte slice (one load once bounds checks fold).
#[inline(always)]
fn le64(s: &[u8]) -> u64 {
    let s = &s[..8];
    s[0] as u64
        | (s[1] as u64) << 8
        | (s[2] as u64) << 16
        | (s[3] as u64) << 24
        | (s[4] as u64) << 32
        | (s[5] as u64) << 40
        | (s[6] as u64) << 48
        | (s[7] as u64) << 56
}
