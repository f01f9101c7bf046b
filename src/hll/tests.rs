//! Unit tests of the HLL engine. Expected bytes and counts marked "Redis 7.0.15" were
//! recorded from a real redis-server (the differential test in crates/difftest checks
//! thousands more against a live server).

use super::*;

fn els(prefix: &str, n: usize) -> Vec<Vec<u8>> {
    (1..=n)
        .map(|i| format!("{prefix}{i}").into_bytes())
        .collect()
}

fn refs(v: &[Vec<u8>]) -> Vec<&[u8]> {
    v.iter().map(|e| e.as_slice()).collect()
}

/// Registers computed straight from the definition (max run length per index).
fn model(elements: &[&[u8]]) -> Box<Registers> {
    let mut r = Registers::boxed();
    for e in elements {
        let (i, c) = hash_element(e);
        r.0[i] = r.0[i].max(c);
    }
    r
}

#[test]
fn pfadd_new_key_matches_redis_bytes() {
    // Redis 7.0.15: PFADD k a b c; GET k.
    let mut h = Vec::new();
    assert_eq!(pfadd(&mut h, &[b"a", b"b", b"c"]), Ok(true));
    let mut want = b"HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80".to_vec();
    want.extend_from_slice(b"`\xf3\x80P\xb1\x84K\xfb\x80BZ");
    assert_eq!(h, want);
    // PFCOUNT then writes the cache: bytes 8..15 = 3, valid.
    assert_eq!(count(&mut h), Ok(3));
    assert_eq!(&h[8..16], &[3, 0, 0, 0, 0, 0, 0, 0]);
    // Adding present elements changes nothing and keeps the cache valid.
    assert_eq!(pfadd(&mut h, &[b"a", b"c"]), Ok(false));
    assert!(cache_valid(&h));
}

#[test]
fn pfadd_without_elements_creates_empty_with_invalid_cache() {
    // Redis 7.0.15: PFADD e -> 1; GET e = HYLL 01 .. 80 7f ff.
    let mut h = Vec::new();
    assert_eq!(pfadd(&mut h, &[]), Ok(true));
    assert_eq!(
        h,
        b"HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff".to_vec()
    );
    assert_eq!(pfadd(&mut h, &[]), Ok(false));
    assert_eq!(count(&mut h), Ok(0));
}

#[test]
fn sparse_and_dense_registers_follow_the_model() {
    // Redis 7.0.15: 300 PFADDs of el:1..el:300 give a 693-byte sparse string, count 303;
    // 2000 PFADDs of "el:i i" give a dense string, count 4015.
    let sp = els("el:", 300);
    let mut h = Vec::new();
    for e in &sp {
        pfadd(&mut h, &[e]).unwrap();
    }
    assert_eq!(h.len(), 693);
    assert_eq!(validate(&h), Ok(Encoding::Sparse));
    assert_eq!(registers(&h).unwrap().0, model(&refs(&sp)).0);
    assert_eq!(count(&mut h), Ok(303));

    let mut all = Vec::new();
    let mut d = Vec::new();
    for i in 1..=2000 {
        let pair = [format!("el:{i}").into_bytes(), i.to_string().into_bytes()];
        pfadd(&mut d, &refs(&pair)).unwrap();
        all.extend(pair);
    }
    assert_eq!(validate(&d), Ok(Encoding::Dense));
    assert_eq!(registers(&d).unwrap().0, model(&refs(&all)).0);
    assert_eq!(count(&mut d), Ok(4015));
    // Union of both = union of the element sets.
    let mut both = refs(&all);
    both.extend(refs(&sp));
    let u = union_count(&[&h, &d]).unwrap();
    assert_eq!(u, model(&both).estimate());
    assert_eq!(u, 4015, "Redis 7.0.15: PFCOUNT sp big");
}

#[test]
fn promotion_threshold_is_configurable() {
    let e = els("x", 500);
    let mut small = Vec::new();
    pfadd_with_limit(&mut small, &refs(&e), 200).unwrap();
    assert_eq!(validate(&small), Ok(Encoding::Dense));
    let mut big = Vec::new();
    pfadd_with_limit(&mut big, &refs(&e), 100_000).unwrap();
    assert_eq!(validate(&big), Ok(Encoding::Sparse));
    assert_eq!(registers(&small).unwrap().0, registers(&big).unwrap().0);
    // Sparse strings never exceed the limit.
    let mut h = Vec::new();
    for x in &e {
        pfadd_with_limit(&mut h, &[x], 700).unwrap();
        if validate(&h) == Ok(Encoding::Sparse) {
            assert!(h.len() <= 700);
        }
    }
}

#[test]
fn pfmerge_keeps_sparse_and_equals_the_union() {
    let a = els("a", 200);
    let b = els("b", 150);
    let (mut ha, mut hb) = (Vec::new(), Vec::new());
    pfadd(&mut ha, &refs(&a)).unwrap();
    pfadd(&mut hb, &refs(&b)).unwrap();
    let mut dest = Vec::new();
    pfmerge(&mut dest, &[&ha, &hb]).unwrap();
    assert_eq!(validate(&dest), Ok(Encoding::Sparse));
    assert!(!cache_valid(&dest));
    let mut ab = refs(&a);
    ab.extend(refs(&b));
    assert_eq!(registers(&dest).unwrap().0, model(&ab).0);
    // Merging into an existing destination keeps its registers.
    let mut d2 = ha.clone();
    pfmerge(&mut d2, &[&hb]).unwrap();
    assert_eq!(registers(&d2).unwrap().0, model(&ab).0);
    // A dense input makes the destination dense.
    let mut hd = Vec::new();
    pfadd(&mut hd, &refs(&els("d", 5000))).unwrap();
    let mut d3 = Vec::new();
    pfmerge(&mut d3, &[&ha, &hd]).unwrap();
    assert_eq!(validate(&d3), Ok(Encoding::Dense));
    assert_eq!(count(&mut d3).unwrap(), union_count(&[&ha, &hd]).unwrap());
}

#[test]
fn validation_and_corruption_errors() {
    assert_eq!(validate(b"HYLL"), Err(HllError::NotHll));
    assert_eq!(validate(b"hello world, not an hll"), Err(HllError::NotHll));
    let mut bad_enc = new_sparse();
    bad_enc[4] = 2;
    assert_eq!(validate(&bad_enc), Err(HllError::NotHll));
    let mut dense_short = new_sparse();
    dense_short[4] = 0;
    assert_eq!(validate(&dense_short), Err(HllError::NotHll));
    // Sparse opcodes summing to fewer registers: corrupt once the registers are read.
    let mut c = new_sparse();
    c[16] = 0x7e;
    c[15] = 0x80;
    assert_eq!(count(&mut c), Err(HllError::Corrupt));
    assert_eq!(union_count(&[&c]), Err(HllError::Corrupt));
    // A valid cache is trusted even over a corrupt body, as in Redis.
    c[15] = 0;
    c[8] = 42;
    assert_eq!(count(&mut c), Ok(42));
    assert_eq!(
        HllError::Corrupt.to_string(),
        "INVALIDOBJ Corrupted HLL object detected"
    );
}

#[test]
fn corrupt_strings_never_panic() {
    let mut base = Vec::new();
    pfadd(&mut base, &refs(&els("q", 120))).unwrap();
    let mut rng = fastrand::Rng::with_seed(0x1234_5678_9abc_def0);
    let mut next = || rng.u64(..);
    for _ in 0..3000 {
        let mut s = base.clone();
        match next() % 3 {
            0 => {
                let n = (next() as usize) % s.len();
                s.truncate(n.max(16));
            }
            1 => {
                for _ in 0..4 {
                    let i = 16 + (next() as usize) % (s.len() - 16);
                    s[i] = next() as u8;
                }
            }
            _ => {
                let i = 16 + (next() as usize) % (s.len() - 16);
                s.insert(i, next() as u8);
            }
        }
        s[15] |= 0x80;
        let _ = count(&mut s.clone());
        let _ = union_count(&[&s, &base]);
        let _ = pfadd(&mut s.clone(), &[b"zz", b"yy", b"xx"]);
        let mut d = s.clone();
        let _ = pfmerge(&mut d, &[&base]);
    }
}

#[test]
fn estimate_overflow_matches_redis() {
    // Redis 7.0.15: a dense HLL with every register at 63 (or 51) answers PFCOUNT with
    // -9223372036854775808 and leaves bytes 8..15 = 00 .. 00 80 (cache still invalid).
    for v in [63u8, 51] {
        let mut regs = Registers::boxed();
        regs.0.fill(v);
        let mut h = b"HYLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80".to_vec();
        h.resize(DENSE_SIZE, 0);
        dense::pack(&regs, &mut h[HDR..]);
        assert_eq!(count(&mut h), Ok(1 << 63));
        assert_eq!(&h[8..16], &[0, 0, 0, 0, 0, 0, 0, 0x80]);
        assert!(!cache_valid(&h));
        assert_eq!(union_count(&[&h, &h]), Ok(1 << 63));
    }
    // One register at 60, the rest 0: values above 51 are left out of the sum; Redis says 1.
    let mut regs = Registers::boxed();
    regs.0[16383] = 60;
    assert_eq!(regs.estimate(), 1);
}
