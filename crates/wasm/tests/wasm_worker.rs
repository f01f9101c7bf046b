//! `Engine.loadRdbs` of a `Blob` inside a dedicated Web Worker (headless Chromium through
//! wasm-bindgen-test-runner): `cargo test --release --target wasm32-unknown-unknown -p bitlens
//! --test wasm_worker`.
//!
//! The test builds an RDB file as a `Blob` of many small parts (so the file itself lives in
//! the browser, never in wasm memory): one long, mostly-zero bitmap stored raw (half the
//! file), four as long mostly-zero bitmaps stored LZF-compressed, dense 1 MiB bitmaps, dense
//! HyperLogLogs and GEO sets. It then checks how much the wasm memory
//! (`WebAssembly.Memory`, which never shrinks) grows while loading: well under the file size
//! when the patterns select only the GEO sets, at most 1.2 × the file size when everything
//! is loaded. The file is about 96 MiB; set `BITLENS_WORKER_MB` at build time for another
//! size (e.g. 1024 to measure a 1 GiB snapshot).
#![cfg(target_arch = "wasm32")]

use bitlens_wasm::Engine;
use js_sys::{Array, Object, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_dedicated_worker);

static CRC: crc::Crc<u64> = crc::Crc::<u64>::new(&crc::CRC_64_REDIS);

/// An RDB file assembled as `Blob` parts, with its CRC-64 kept running.
struct BlobRdb {
    parts: Array,
    digest: crc::Digest<'static, u64>,
    len: u64,
}

impl BlobRdb {
    fn new() -> Self {
        let mut b = BlobRdb {
            parts: Array::new(),
            digest: CRC.digest(),
            len: 0,
        };
        b.put(b"REDIS0011");
        b.put(&[0xFE, 0]); // SELECTDB 0
        b
    }

    fn put(&mut self, bytes: &[u8]) {
        self.digest.update(bytes);
        self.len += bytes.len() as u64;
        self.parts.push(&Uint8Array::from(bytes));
    }

    fn len_field(n: u64) -> Vec<u8> {
        if n < 64 {
            vec![n as u8]
        } else if n < 16384 {
            vec![0x40 | (n >> 8) as u8, n as u8]
        } else if n <= u32::MAX as u64 {
            let mut v = vec![0x80];
            v.extend_from_slice(&(n as u32).to_be_bytes());
            v
        } else {
            let mut v = vec![0x81];
            v.extend_from_slice(&n.to_be_bytes());
            v
        }
    }

    fn string(key: &[u8]) -> Vec<u8> {
        let mut v = Self::len_field(key.len() as u64);
        v.extend_from_slice(key);
        v
    }

    /// A raw string key whose value is produced piece by piece.
    fn raw_key(&mut self, key: &[u8], len: u64, mut piece: impl FnMut(u64, &mut [u8])) {
        let mut head = vec![0u8];
        head.extend(Self::string(key));
        head.extend(Self::len_field(len));
        self.put(&head);
        let mut at = 0;
        let mut buf = vec![0u8; 1 << 20];
        while at < len {
            let n = (len - at).min(buf.len() as u64) as usize;
            buf[..n].fill(0);
            piece(at, &mut buf[..n]);
            self.put(&buf[..n]);
            at += n as u64;
        }
    }

    fn lzf_key(&mut self, key: &[u8], ulen: u64, data: &[u8]) {
        let mut v = vec![0u8];
        v.extend(Self::string(key));
        v.push(0xC3);
        v.extend(Self::len_field(data.len() as u64));
        v.extend(Self::len_field(ulen));
        self.put(&v);
        self.put(data);
    }

    fn zset_key(&mut self, key: &[u8], members: &[(Vec<u8>, f64)]) {
        let mut v = vec![5u8];
        v.extend(Self::string(key));
        v.extend(Self::len_field(members.len() as u64));
        for (m, s) in members {
            v.extend(Self::string(m));
            v.extend_from_slice(&s.to_le_bytes());
        }
        self.put(&v);
    }

    fn finish(mut self) -> (web_sys::Blob, u64) {
        self.put(&[0xFF]);
        let crc = self.digest.clone().finalize();
        self.put(&crc.to_le_bytes());
        let blob = web_sys::Blob::new_with_u8_array_sequence(&self.parts).unwrap();
        (blob, self.len)
    }
}

/// LZF data for `ulen` bytes that are zero except 0xFF at the sorted `ones` offsets: a
/// literal zero, then back-references of up to 264 bytes at distance 1.
fn lzf_sparse(ulen: u64, ones: &[u64]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut pos = 0u64;
    let zeros = |out: &mut Vec<u8>, mut n: u64| {
        if n == 0 {
            return;
        }
        out.extend_from_slice(&[0, 0]); // literal run of one zero byte
        n -= 1;
        while n >= 3 {
            let l = n.min(264);
            let k = l - 2;
            if k < 7 {
                out.extend_from_slice(&[(k as u8) << 5, 0]);
            } else {
                out.extend_from_slice(&[0xE0, (k - 7) as u8, 0]);
            }
            n -= l;
        }
        for _ in 0..n {
            out.extend_from_slice(&[0, 0]);
        }
    };
    for &o in ones {
        zeros(&mut out, o - pos);
        out.extend_from_slice(&[0, 0xFF]);
        pos = o + 1;
    }
    zeros(&mut out, ulen - pos);
    out
}

/// What the generated file holds, to check the loaded values against.
struct Expect {
    keys: u64,
    geo_keys: u64,
    raw_sparse_bits: u64,
    lzf_bits: u64,
    /// Register histogram of `hll:0`, unpacked here bit by bit.
    hll0_histogram: Vec<f64>,
}

/// The histogram of the 16,384 six-bit registers of a dense HLL (packed least significant
/// bit first), computed naively.
fn naive_histogram(h: &[u8]) -> Vec<f64> {
    let body = &h[16..];
    let mut hist = vec![0f64; 64];
    for i in 0..16384 {
        let mut v = 0;
        for b in 0..6 {
            let bit = 6 * i + b;
            v |= ((body[bit / 8] >> (bit % 8)) & 1) << b;
        }
        hist[v as usize] += 1.0;
    }
    hist
}

fn build(mb: u64) -> (web_sys::Blob, u64, Expect) {
    let mib = 1u64 << 20;
    let mut f = BlobRdb::new();
    let mut rng = fastrand::Rng::with_seed(0x2545_F491_4F6C_DD1D);
    // Half the file: one mostly-zero bitmap stored raw, a byte 0x01 every 4 MiB.
    let raw_len = mb * mib / 2;
    f.raw_key(b"bm:raw", raw_len, |at, buf| {
        for (i, b) in buf.iter_mut().enumerate() {
            if (at + i as u64) % (4 * mib) == 4095 {
                *b = 1;
            }
        }
    });
    let raw_sparse_bits = raw_len.div_ceil(4 * mib);
    // Four mostly-zero bitmaps of the same length, LZF-compressed (0xFF every 8 MiB).
    let ones: Vec<u64> = (0..raw_len).step_by(8 << 20).map(|o| o + 77).collect();
    let lzf = lzf_sparse(raw_len, &ones);
    for i in 0..4 {
        f.lzf_key(format!("bm:lzf:{i}").as_bytes(), raw_len, &lzf);
    }
    drop(lzf);
    // ~30 %: dense 1 MiB bitmaps (noise, stored raw).
    let dense = (mb * 3 / 10).max(1);
    for i in 0..dense {
        f.raw_key(format!("bm:dense:{i}").as_bytes(), mib, |_, buf| {
            for c in buf.chunks_mut(8) {
                let r = rng.u64(..).to_le_bytes();
                c.copy_from_slice(&r[..c.len()]);
            }
        });
    }
    // ~12 %: dense HyperLogLogs (12,304 bytes, registers at random, cache invalid).
    let hlls = mb * mib * 12 / 100 / 12_304;
    let mut hll0_histogram = Vec::new();
    for i in 0..hlls {
        let mut h = vec![0u8; 12_304];
        h[..4].copy_from_slice(b"HYLL");
        h[15] = 0x80;
        for c in h[16..].chunks_mut(8) {
            let r = (rng.u64(..) & 0x0303_0303_0303_0303).to_le_bytes();
            c.copy_from_slice(&r[..c.len()]);
        }
        if i == 0 {
            hll0_histogram = naive_histogram(&h);
        }
        let mut v = vec![0u8];
        v.extend(BlobRdb::string(format!("hll:{i}").as_bytes()));
        v.extend(BlobRdb::len_field(h.len() as u64));
        v.extend_from_slice(&h);
        f.put(&v);
    }
    // GEO sets: 100 × 500 members.
    for i in 0..100 {
        let members: Vec<(Vec<u8>, f64)> = (0..500)
            .map(|j| {
                let lon = -180.0 + rng.u32(0..36_000) as f64 / 100.0;
                let lat = -85.0 + rng.u32(0..17_000) as f64 / 100.0;
                (
                    format!("shop{j}").into_bytes(),
                    bitlens::geo::encode(lon, lat).unwrap() as f64,
                )
            })
            .collect();
        f.zset_key(format!("geo:{i}").as_bytes(), &members);
    }
    let (blob, len) = f.finish();
    let expect = Expect {
        keys: 1 + 4 + dense + hlls + 100,
        geo_keys: 100,
        raw_sparse_bits,
        lzf_bits: ones.len() as u64 * 8,
        hll0_histogram,
    };
    (blob, len, expect)
}

fn memory_bytes() -> f64 {
    let mem: js_sys::WebAssembly::Memory = wasm_bindgen::memory().dyn_into().unwrap();
    mem.buffer()
        .dyn_into::<js_sys::ArrayBuffer>()
        .unwrap()
        .byte_length() as f64
}

/// An options object of `pairs`, as an engine method's typed options argument.
fn options<T: tsify::Tsify>(pairs: &[(&str, JsValue)]) -> Option<tsify::Ts<T>> {
    let o = Object::new();
    for (k, v) in pairs {
        Reflect::set(&o, &JsValue::from_str(k), v).unwrap();
    }
    Some(tsify::Ts::new_unchecked(o.into()))
}

fn number(v: JsValue) -> f64 {
    v.as_f64().expect("a number")
}

#[wasm_bindgen_test]
fn blob_load_memory_stays_below_file_size() {
    let mb: u64 = option_env!("BITLENS_WORKER_MB")
        .and_then(|s| s.parse().ok())
        .unwrap_or(96);
    let (blob, file_len, expect) = build(mb);
    let file = file_len as f64;
    let base = memory_bytes();

    // Only the GEO sets: everything else is skipped without being materialised.
    let mut e = Engine::new();
    let pats: Array = [JsValue::from_str("geo:*")].into_iter().collect();
    let calls = Array::new();
    let cb = js_sys::Function::new_with_args("d, t", "this.push(d);").bind0(&calls);
    let n = e
        .load_rdbs(
            Array::of1(&blob),
            None,
            options(&[("patterns", pats.into()), ("onProgress", cb.into())]),
        )
        .unwrap();
    assert_eq!(n, expect.geo_keys as f64);
    assert_eq!(number(calls.get(calls.length() - 1)), file);
    assert!(calls.length() as f64 >= file / (1 << 20) as f64 * 0.5);
    let filtered = memory_bytes();
    // Progress went through the whole file, in order.
    let done: Vec<f64> = calls.iter().map(number).collect();
    assert!(done.windows(2).all(|w| w[0] < w[1]));

    // Everything.
    let n = e.load_rdbs(Array::of1(&blob), None, None).unwrap();
    assert_eq!(n, expect.keys as f64);
    let all = memory_bytes();
    console_log!(
        "{}",
        format!(
            "file {:.1} MiB; wasm memory: {:.1} MiB before, {:.1} MiB after a geo:* load \
             (+{:.1}), {:.1} MiB after loading everything (+{:.1}, {:.2} x file)",
            file / 1048576.0,
            base / 1048576.0,
            filtered / 1048576.0,
            (filtered - base) / 1048576.0,
            all / 1048576.0,
            (all - base) / 1048576.0,
            (all - base) / file
        )
    );
    assert!(
        filtered - base < file / 4.0,
        "filtered load grew memory by {} for a {file}-byte file",
        filtered - base
    );
    assert!(
        all - base <= 1.2 * file,
        "full load grew memory by {} for a {file}-byte file",
        all - base
    );

    // The values are right.
    let count = |e: &mut Engine, k: &str| {
        number(
            e.command(
                &[JsValue::from_str("BITCOUNT"), JsValue::from_str(k)]
                    .into_iter()
                    .collect::<Array>(),
            )
            .unwrap(),
        )
    };
    assert_eq!(count(&mut e, "bm:raw"), expect.raw_sparse_bits as f64);
    assert_eq!(count(&mut e, "bm:lzf:3"), expect.lzf_bits as f64);
    let strlen = e
        .command(
            &["STRLEN", "bm:lzf:0"]
                .iter()
                .map(|s| JsValue::from_str(s))
                .collect::<Array>(),
        )
        .unwrap();
    assert_eq!(number(strlen), (mb << 20) as f64 / 2.0);
    let d = e.key_detail(JsValue::from_str("hll:0"), None).unwrap();
    let hist: Array = Reflect::get(&d, &"registerHistogram".into())
        .unwrap()
        .dyn_into()
        .unwrap();
    let hist: Vec<f64> = hist.iter().map(number).collect();
    assert_eq!(hist.iter().sum::<f64>(), 16384.0);
    assert_eq!(hist, expect.hll0_histogram);
}

#[wasm_bindgen_test]
fn blob_load_errors_name_offsets() {
    let mut f = BlobRdb::new();
    f.raw_key(b"k", 10, |_, buf| buf.fill(7));
    let (blob, len) = f.finish();
    let cut = blob.slice_with_f64_and_f64(0.0, (len - 12) as f64).unwrap();
    let mut e = Engine::new();
    let err: JsValue = e
        .load_rdbs(Array::of1(&cut), None, None)
        .unwrap_err()
        .into();
    let msg: String = err.dyn_into::<js_sys::Error>().unwrap().message().into();
    assert!(msg.contains("at byte offset"), "{msg}");
    assert!(msg.contains("\"k\""), "{msg}");
    assert_eq!(
        e.load_rdbs(Array::of1(&blob), Some(0.0), None).unwrap(),
        1.0
    );
}
