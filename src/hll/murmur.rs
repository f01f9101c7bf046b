//! MurmurHash64A (Austin Appleby's 64-bit MurmurHash2 variant), the hash Redis feeds its
//! HyperLogLog with. Input words are read little-endian, as Redis does on x86-64 and ARM.

const M: u64 = 0xc6a4_a793_5bd1_e995;
const R: u32 = 47;

/// MurmurHash64A of `data` with `seed` (Redis' HLL uses seed `0xadc83b19`).
#[inline]
pub fn murmur64a(data: &[u8], seed: u64) -> u64 {
    // Redis passes the length as a C `int`; lengths past 2^31 never reach us.
    let mut h = seed ^ (data.len() as u64).wrapping_mul(M);
    let mut words = data.chunks_exact(8);
    for w in &mut words {
        let mut k = u64::from_le_bytes(w.try_into().expect("8-byte chunk"));
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h ^= k;
        h = h.wrapping_mul(M);
    }
    let tail = words.remainder();
    if !tail.is_empty() {
        // Tail byte i is xored in at bit 8i: the zero-padded little-endian word.
        let mut w = [0u8; 8];
        w[..tail.len()].copy_from_slice(tail);
        h ^= u64::from_le_bytes(w);
        h = h.wrapping_mul(M);
    }
    h ^= h >> R;
    h = h.wrapping_mul(M);
    h ^= h >> R;
    h
}
