//! Whole RDB files: the reader (checksum off, so mutated files get past the trailer check and
//! reach every value decoder), the pattern filter, and the inspect report. The chunked
//! reader (a bounded window refilled from a source that returns short reads of random
//! sizes, seeded from the input) must return exactly what the slice reader returns: the same
//! snapshot, or the same error at the same offset. Each input is also read under the other
//! family's header (Redis <-> Valkey), and through content detection. Decoding on several
//! threads (`LoadOptions::threads`) must give the one-thread result, from a slice and from
//! windows. A loaded snapshot then takes in-session writes (SETBIT, BITFIELD SET, PFADD,
//! BITOP into a new key, DEL) on the compact keyspace, whose counts must stay consistent; a
//! sorted set kept as its stored blob reads back the member count it was loaded with.
#![no_main]
use bitlens::rdb::{load_rdb, load_rdb_chunked, ChunkSource, LoadOptions, RdbError, Snapshot};
use libfuzzer_sys::fuzz_target;

/// A source that hands out at most a random number of bytes per read.
struct Jittery<'a> {
    data: &'a [u8],
    rng: u64,
    max_read: u64,
}

impl ChunkSource for Jittery<'_> {
    fn len(&self) -> u64 {
        self.data.len() as u64
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        let start = (offset as usize).min(self.data.len());
        let n = buf
            .len()
            .min(self.data.len() - start)
            .min(1 + (self.rng % self.max_read) as usize);
        buf[..n].copy_from_slice(&self.data[start..start + n]);
        Ok(n)
    }
}

fn same(slice: &Result<Snapshot, RdbError>, chunked: &Result<Snapshot, RdbError>, what: &str) {
    match (slice, chunked) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.entries(), b.entries(), "{what}");
            assert_eq!((a.version, &a.aux), (b.version, &b.aux), "{what}");
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "{what}"),
        _ => panic!("{what}: slice {slice:?} vs chunked {chunked:?}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let opts = LoadOptions {
        loader: None,
        verify_checksum: false,
        patterns: Vec::new(),
        db: None,
        threads: 1,
        skip_values: false,
        parallel_record_bytes: 0,
        max_value_bytes: bitlens::rdb::DEFAULT_MAX_VALUE_BYTES,
    };
    let all = load_rdb(data, &opts);
    let filtered = LoadOptions {
        loader: None,
        verify_checksum: false,
        patterns: vec![b"s*".to_vec()],
        db: Some(0),
        threads: 1,
        skip_values: false,
        parallel_record_bytes: 0,
        max_value_bytes: bitlens::rdb::DEFAULT_MAX_VALUE_BYTES,
    };
    let some = load_rdb(data, &filtered);
    let checked = LoadOptions::default();
    let crc = load_rdb(data, &checked);
    // Window sizes and read lengths from a hash of the input (FNV-1a).
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in data {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    let h = h | 1;
    let chunk = 1 + (h % if h & 2 == 0 { 64 } else { 4096 }) as usize;
    let mut src = Jittery {
        data,
        rng: h,
        max_read: 1 + (h >> 20) % 300,
    };
    let progress = &mut |_, _| Ok(());
    same(&all, &load_rdb_chunked(&mut src, chunk, &opts, progress), "all");
    // Decoded on several threads (the parallel reader's batches): the same snapshot or error,
    // from the slice and from windows.
    for threads in [2, 5] {
        let par = LoadOptions {
            threads,
            ..opts.clone()
        };
        same(&all, &load_rdb(data, &par), "threads");
        same(&all, &load_rdb_chunked(&mut src, chunk, &par, progress), "threads, windows");
        let par_some = LoadOptions {
            threads,
            ..filtered.clone()
        };
        same(&some, &load_rdb(data, &par_some), "threads, filtered");
    }
    same(&some, &load_rdb_chunked(&mut src, chunk, &filtered, progress), "filtered");
    // The default sharing rule (small records kept on the reading thread, the records after
    // them read one by one for a while): the same again.
    let adaptive = LoadOptions {
        threads: 3,
        parallel_record_bytes: LoadOptions::default().parallel_record_bytes,
        ..opts.clone()
    };
    same(&all, &load_rdb(data, &adaptive), "threads, small records kept");
    same(&all, &load_rdb_chunked(&mut src, chunk, &adaptive, progress), "threads, small records kept, windows");
    // Names only (no value decoded): a file that loads lists the same keys; a file the names
    // pass refuses is refused by the full load too, at that record or an earlier one.
    let mut records = 0usize;
    let full = bitlens::rdb::visit_rdb(data, &opts, |_| {
        records += 1;
        Ok(())
    });
    for threads in [1, 3] {
        let names = LoadOptions {
            skip_values: true,
            threads,
            ..opts.clone()
        };
        let mut listed = 0usize;
        let r = bitlens::rdb::visit_rdb(data, &names, |rec| {
            assert!(rec.value.is_none());
            listed += 1;
            Ok(())
        });
        match (&full, r) {
            (Ok(_), Ok(_)) => assert_eq!(listed, records),
            (Ok(_), Err(e)) => panic!("names pass refused a loadable file: {e}"),
            (Err(a), Err(e)) => assert!(a.offset <= e.offset, "{a} after {e}"),
            (Err(_), Ok(_)) => {}
        }
    }
    same(&crc, &load_rdb_chunked(&mut src, chunk, &checked, progress), "checksum");
    // The memory estimate never panics on any value that loads, under the writer's profile
    // and Valkey 8.1's and 9's layouts (their own hash tables), nor does the allocator
    // inference.
    if let Ok(snap) = &all {
        let profile = bitlens::dialect::Profile::for_snapshot(&snap.aux, snap.version);
        let valkey = |name| bitlens::dialect::Profile::from_name(name).expect("a profile");
        let models = [profile, valkey("valkey-8.1"), valkey("valkey-9.0")]
            .map(|p| bitlens_views::memory::Model::new(p, bitlens_views::memory::Allocator::Libc));
        let _ = bitlens_views::memory::infer_allocator(snap);
        for (_, key, entry) in snap.entries() {
            let expiring = entry.expire_at_ms.is_some();
            for model in &models {
                let _ = model.estimate_with_expiry(key, &entry.value, expiring);
            }
            // A sorted set kept as its stored blob decodes, on first read, to the count it
            // was loaded with.
            if let bitlens::keyspace::Value::ZSet(z) = &entry.value {
                assert_eq!(z.len(), z.sorted().len(), "ZCARD of a kept blob");
            }
        }
    }
    // In-session writes on the loaded keyspace: values move out of their compact form, keys
    // come and go; the key count follows the replies.
    if let Ok(mut snap) = all.clone() {
        for ks in snap.databases.values_mut() {
            let keys: Vec<Vec<u8>> = ks.iter_all().map(|(k, _)| k.to_vec()).take(32).collect();
            let mut expected = ks.iter_all().count() as isize;
            // Runs a command that writes `target` only, following the key count.
            let mut run = |ks: &mut bitlens::keyspace::Keyspace, target: &[u8], args: &[&[u8]]| {
                let had = ks.entry_any(target).is_some() as isize;
                let argv: Vec<Vec<u8>> = args.iter().map(|x| x.to_vec()).collect();
                let _ = bitlens::execute(ks, &argv);
                expected += ks.entry_any(target).is_some() as isize - had;
            };
            for (i, key) in keys.iter().enumerate() {
                run(ks, key, &[b"SETBIT", key, b"77", b"1"]);
                run(ks, key, &[b"BITFIELD", key, b"SET", b"u8", b"3", b"200"]);
                run(ks, key, &[b"PFADD", key, b"member"]);
                run(ks, key, &[b"BITCOUNT", key]);
                let mut dst = key.clone();
                dst.extend_from_slice(b"\xff:bitop");
                run(ks, &dst, &[b"BITOP", b"OR", &dst, key]);
                if i % 2 == 0 {
                    run(ks, key, &[b"DEL", key]);
                    assert!(ks.entry_any(key).is_none(), "DEL left the key");
                }
            }
            assert_eq!(ks.iter_all().count() as isize, expected, "key count after writes");
        }
    }
    // Content detection and the header peek never panic; a file that loads is an RDB file.
    let id = bitlens::rdb::identify(data);
    if all.is_ok() {
        assert_eq!(id.kind(), "rdb");
    }
    // The same records under the other family's header: Redis-seeded inputs reach Valkey's
    // table (type 22 = RDB_TYPE_HASH_2, opcode 243 = RDB_OPCODE_SLOT_IMPORT) and back.
    if data.len() >= 9 {
        let other: &[u8] = if data.starts_with(b"VALKEY") {
            b"REDIS0012"
        } else {
            b"VALKEY080"
        };
        let mut m = other.to_vec();
        m.extend_from_slice(&data[9..]);
        let flipped = load_rdb(&m, &opts);
        let mut src = Jittery {
            data: &m,
            rng: h,
            max_read: 1 + (h >> 20) % 300,
        };
        same(&flipped, &load_rdb_chunked(&mut src, chunk, &opts, progress), "flipped");
    }
});
