//! HyperLogLog strings as loaded from snapshots: validation, PFCOUNT (read-only and caching),
//! register unpacking and unions.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = bitlens::hll::validate(data);
    let a = bitlens::hll::count_readonly(data);
    let mut m = data.to_vec();
    let b = bitlens::hll::count(&mut m);
    assert_eq!(a.is_ok(), b.is_ok());
    let _ = bitlens::hll::registers(data);
    let _ = bitlens::hll::union_count(&[data, data]);
});
