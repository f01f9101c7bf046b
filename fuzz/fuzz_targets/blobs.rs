//! The embedded-blob decoders: listpack, ziplist, intset, zipmap.
#![no_main]
use bitlens::rdb::{intset, listpack, ziplist, zipmap};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(items) = listpack(data) {
        for i in items {
            let _ = i.to_vec();
            let _ = i.to_score();
        }
    }
    let _ = ziplist(data);
    let _ = intset(data);
    let _ = zipmap(data);
});
