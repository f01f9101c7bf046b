//! The CRC-64 of RDB files and DUMP payloads: the Jones polynomial `0xad93d23594c935a9`,
//! reflected, initial value 0, no final xor (the catalogue's `CRC-64/REDIS`, check value
//! `0xe9c6d914c4b8d9ca` for `"123456789"`). This is the one implementation every reader,
//! writer and detector of the crate calls ([`crc64`], [`Crc64`]).
//!
//! Algorithm: slice-by-8 tables (8 × 256 words, built at compile time) run on four
//! independent lanes at once, so the four table-lookup chains overlap in the CPU instead of
//! waiting on each other. Input is cut into blocks of 4 lanes × `LANE` bytes; each lane's
//! CRC is computed from zero and the lanes are joined with the CRC's linearity:
//! `crc(A ‖ B) = crc(A) · x^(8·|B|) mod P  ⊕  crc(B)` (for initial value 0 and no final xor),
//! the multiplication done in GF(2)\[x\] / P with the constant `x^(8·LANE) mod P` computed at
//! compile time. Short inputs (under one block) use plain slice-by-8.
//!
//! Native targets (x86_64, aarch64, …) hand inputs of [`FOLD_MIN`] bytes and more to the
//! `crc-fast` crate, which folds 128 bytes a step with carry-less multiplication
//! (PCLMULQDQ / VPCLMULQDQ / PMULL, detected at run time, its own table fallback elsewhere):
//! the same CRC-64/REDIS at memory speed. wasm32 has no carry-less multiply, so it keeps the
//! 4-lane tables (and the bundle keeps no second implementation).

/// The reflected Jones polynomial (bit i = coefficient of x^(63-i)).
const POLY: u64 = 0x95ac_9329_ac4b_c9b5;

/// Bytes per lane of one 4-lane block (4 × 8 KiB = 32 KiB blocks).
const LANE: usize = 8192;

/// Slice-by-8 tables: `T[0]` is the byte-at-a-time table, `T[k][b]` advances `T[k-1][b]` by
/// one zero byte. Built on first use rather than stored (16 KiB less in the wasm bundle).
type Tables = [[u64; 256]; 8];

fn t() -> &'static Tables {
    static T: std::sync::OnceLock<Box<Tables>> = std::sync::OnceLock::new();
    T.get_or_init(|| Box::new(tables()))
}

const fn tables() -> Tables {
    let mut t = [[0u64; 256]; 8];
    let mut b = 0;
    while b < 256 {
        let mut c = b as u64;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 == 1 { (c >> 1) ^ POLY } else { c >> 1 };
            k += 1;
        }
        t[0][b] = c;
        b += 1;
    }
    let mut k = 1;
    while k < 8 {
        let mut b = 0;
        while b < 256 {
            let prev = t[k - 1][b];
            t[k][b] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
            b += 1;
        }
        k += 1;
    }
    t
}

/// `a · b mod P` in the reflected representation (bit 63 = the constant term).
const fn mulmod(a: u64, b: u64) -> u64 {
    let mut r = 0u64;
    let mut i = 0;
    // Horner over b's coefficients from x^63 (bit 0) down to x^0 (bit 63).
    while i < 64 {
        r = if r & 1 == 1 { (r >> 1) ^ POLY } else { r >> 1 };
        if (b >> i) & 1 == 1 {
            r ^= a;
        }
        i += 1;
    }
    r
}

/// `x^(8·n) mod P` (reflected), by square and multiply.
const fn xpow8(n: u64) -> u64 {
    // x^8 in the reflected representation: coefficient of x^8 is bit 63 - 8.
    let mut base = 1u64 << (63 - 8);
    let mut r = 1u64 << 63; // 1
    let mut e = n;
    while e > 0 {
        if e & 1 == 1 {
            r = mulmod(r, base);
        }
        base = mulmod(base, base);
        e >>= 1;
    }
    r
}

/// `x^(8·LANE) mod P`: shifts a lane's CRC past the next lane.
const SHIFT_LANE: u64 = xpow8(LANE as u64);

/// Slice-by-8 update of the (non-inverted) register `crc` with `bytes`.
#[inline]
fn update_slice8(t: &Tables, mut crc: u64, bytes: &[u8]) -> u64 {
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        crc = step8(t, crc, w);
    }
    for &b in words.remainder() {
        crc = (crc >> 8) ^ t[0][((crc ^ b as u64) & 0xff) as usize];
    }
    crc
}

/// One 8-byte step of slice-by-8.
#[inline(always)]
fn step8(t: &Tables, crc: u64, w: &[u8]) -> u64 {
    let v = crc ^ u64::from_le_bytes(w.try_into().expect("8 bytes"));
    t[7][(v & 0xff) as usize]
        ^ t[6][((v >> 8) & 0xff) as usize]
        ^ t[5][((v >> 16) & 0xff) as usize]
        ^ t[4][((v >> 24) & 0xff) as usize]
        ^ t[3][((v >> 32) & 0xff) as usize]
        ^ t[2][((v >> 40) & 0xff) as usize]
        ^ t[1][((v >> 48) & 0xff) as usize]
        ^ t[0][(v >> 56) as usize]
}

/// Inputs from this many bytes on go to `crc-fast`'s carry-less-multiply folding on native
/// targets; shorter ones stay on the tables, where its per-call dispatch would cost more
/// than the bytes.
#[cfg(not(target_arch = "wasm32"))]
pub const FOLD_MIN: usize = 256;

/// Updates the register `crc` with `bytes` (native: `crc-fast` from [`FOLD_MIN`] bytes on).
pub(crate) fn update(crc: u64, bytes: &[u8]) -> u64 {
    #[cfg(not(target_arch = "wasm32"))]
    if bytes.len() >= FOLD_MIN {
        // CRC-64/REDIS is reflected with init 0 and no final xor: the register is the CRC,
        // so a running CRC continues as the digest's initial state.
        let mut d = crc_fast::Digest::new_with_init_state(crc_fast::CrcAlgorithm::Crc64Redis, crc);
        d.update(bytes);
        return d.finalize();
    }
    update_tables(crc, bytes)
}

/// The running CRC `crc` continued over `bytes` on the 4-lane slice-by-8 tables alone (what
/// wasm32 always runs): whole 4-lane blocks, then slice-by-8.
pub fn update_tables(mut crc: u64, bytes: &[u8]) -> u64 {
    if bytes.is_empty() {
        return crc;
    }
    let t = t();
    let mut blocks = bytes.chunks_exact(4 * LANE);
    for block in &mut blocks {
        let (l0, rest) = block.split_at(LANE);
        let (l1, rest) = rest.split_at(LANE);
        let (l2, l3) = rest.split_at(LANE);
        let (mut c0, mut c1, mut c2, mut c3) = (crc, 0u64, 0u64, 0u64);
        let mut i = 0;
        while i < LANE {
            c0 = step8(t, c0, &l0[i..i + 8]);
            c1 = step8(t, c1, &l1[i..i + 8]);
            c2 = step8(t, c2, &l2[i..i + 8]);
            c3 = step8(t, c3, &l3[i..i + 8]);
            i += 8;
        }
        crc = mulmod(c0, SHIFT_LANE) ^ c1;
        crc = mulmod(crc, SHIFT_LANE) ^ c2;
        crc = mulmod(crc, SHIFT_LANE) ^ c3;
    }
    update_slice8(t, crc, blocks.remainder())
}

/// The CRC-64 (as Redis RDB files and DUMP payloads carry it) of `bytes`.
pub fn crc64(bytes: &[u8]) -> u64 {
    update(0, bytes)
}

/// A running [`crc64`] over bytes given in pieces: `Crc64::new()`, [`Crc64::update`] any
/// number of times, [`Crc64::finalize`] (which does not consume, so a reader can ask for the
/// CRC so far and go on).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Crc64 {
    state: u64,
}

impl Crc64 {
    /// The CRC of no bytes (0).
    pub fn new() -> Self {
        Crc64 { state: 0 }
    }

    /// Adds `bytes` after those already hashed.
    pub fn update(&mut self, bytes: &[u8]) {
        self.state = update(self.state, bytes);
    }

    /// The CRC-64 of every byte given so far.
    pub fn finalize(&self) -> u64 {
        self.state
    }
}

/// The crate's CRC-64 engine in the shape the readers use: `CRC64.checksum(bytes)`,
/// `CRC64.digest()`.
#[derive(Debug, Clone, Copy)]
pub struct Crc64Engine;

impl Crc64Engine {
    /// [`crc64`] of `bytes`.
    pub fn checksum(&self, bytes: &[u8]) -> u64 {
        crc64(bytes)
    }

    /// A fresh running [`Crc64`].
    pub fn digest(&self) -> Crc64 {
        Crc64::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `crc` crate's CRC-64/REDIS, as an independent reference.
    fn reference(bytes: &[u8]) -> u64 {
        crc::Crc::<u64>::new(&crc::CRC_64_REDIS).checksum(bytes)
    }

    #[test]
    fn check_value_of_the_catalogue() {
        // CRC-64/REDIS check value (RevEng catalogue; also the `crc` crate's `check`).
        assert_eq!(crc64(b"123456789"), 0xe9c6_d914_c4b8_d9ca);
        assert_eq!(crc64(b""), 0);
    }

    #[test]
    fn matches_the_reference_at_every_shape() {
        let mut rng = fastrand::Rng::with_seed(7);
        let data: Vec<u8> = (0..3 * 4 * LANE + 777).map(|_| rng.u8(..)).collect();
        for n in [
            0,
            1,
            7,
            8,
            9,
            63,
            4 * LANE - 1,
            4 * LANE,
            4 * LANE + 1,
            2 * 4 * LANE + 13,
            data.len(),
        ] {
            assert_eq!(crc64(&data[..n]), reference(&data[..n]), "len {n}");
        }
    }

    #[test]
    fn tables_and_folding_agree_from_any_register() {
        // Native: crc-fast from FOLD_MIN bytes on; the tables below it. Both continue a
        // running CRC (the register is the CRC itself).
        let mut rng = fastrand::Rng::with_seed(3);
        let data: Vec<u8> = (0..3 * 4 * LANE + 999).map(|_| rng.u8(..)).collect();
        for n in [255, 256, 257, 1000, 4 * LANE + 5, data.len()] {
            let start = rng.u64(..);
            assert_eq!(
                update(start, &data[..n]),
                update_tables(start, &data[..n]),
                "len {n}"
            );
            assert_eq!(update(0, &data[..n]), reference(&data[..n]), "len {n}");
        }
    }

    #[test]
    fn running_digest_equals_one_shot_whatever_the_pieces() {
        let mut rng = fastrand::Rng::with_seed(11);
        let data: Vec<u8> = (0..5 * 4 * LANE + 3).map(|_| rng.u8(..)).collect();
        for piece in [1usize, 5, 4096, 4 * LANE - 3, 4 * LANE, 100_000] {
            let mut d = CRC64_TEST.digest();
            for c in data.chunks(piece) {
                d.update(c);
            }
            assert_eq!(d.finalize(), reference(&data), "pieces of {piece}");
        }
    }

    const CRC64_TEST: Crc64Engine = Crc64Engine;

    #[test]
    fn shift_constant_is_x_to_the_lane_bits() {
        // Multiplying by x one bit at a time gives the same constant.
        let mut r = 1u64 << 63;
        for _ in 0..8 * LANE {
            r = if r & 1 == 1 { (r >> 1) ^ POLY } else { r >> 1 };
        }
        assert_eq!(r, SHIFT_LANE);
    }
}
