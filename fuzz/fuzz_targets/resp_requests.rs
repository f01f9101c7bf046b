//! `bitlens resp`'s request reader (`bitlens::server::request::Parser`) on any bytes, fed in
//! reads of any size: the same requests (or the same protocol error) as fed at once, and the
//! bytes it holds never more than it was given. (Inputs stay under the 64 KiB line limits,
//! where the reads' sizes may rightly decide: libFuzzer's max_len is the largest seed's, 40 KB.)
#![no_main]
use bitlens::server::request::{Parsed, Parser};
use libfuzzer_sys::fuzz_target;

/// Every request (and the error ending them) of `data` fed in reads of `step` bytes.
fn read_all(data: &[u8], step: usize, authenticated: bool) -> Vec<Parsed> {
    let mut p = Parser::new(1 << 20);
    let mut out = Vec::new();
    for chunk in data.chunks(step.max(1)) {
        p.extend(chunk);
        loop {
            match p.next(authenticated) {
                Parsed::Incomplete => break,
                Parsed::Error(e) => {
                    out.push(Parsed::Error(e));
                    return out;
                }
                r => out.push(r),
            }
        }
        assert!(p.pending() <= data.len());
    }
    out
}

fuzz_target!(|input: &[u8]| {
    let Some((&head, data)) = input.split_first() else {
        return;
    };
    let authenticated = head & 0x80 == 0;
    let whole = read_all(data, data.len(), authenticated);
    assert_eq!(whole, read_all(data, usize::from(head & 0x7f) + 1, authenticated));
    // (Byte by byte on small inputs: a 40 KB one would take 40,000 reads a run.)
    if data.len() <= 4096 {
        assert_eq!(whole, read_all(data, 1, authenticated));
    }
});
