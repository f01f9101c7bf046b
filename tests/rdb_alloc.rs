//! Issue 54: a load allocates for the bytes a file really holds, not for the lengths it
//! claims. A counting allocator records the largest single allocation while a hostile file
//! loads (this test binary's own global allocator; the tests take turns).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use bitlens::rdb::{load_rdb, LoadOptions, RdbErrorKind, RdbFeeder};

/// The system allocator, noting the largest block asked for since the last [`reset`].
struct Largest;

static LARGEST: AtomicUsize = AtomicUsize::new(0);
static TURN: Mutex<()> = Mutex::new(());

unsafe impl GlobalAlloc for Largest {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.fetch_max(new_size, Ordering::Relaxed);
        System.realloc(ptr, layout, new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOC: Largest = Largest;

/// Runs `f` alone and returns the largest single allocation it made.
fn largest_allocation(f: impl FnOnce()) -> usize {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    LARGEST.store(0, Ordering::Relaxed);
    f();
    LARGEST.load(Ordering::Relaxed)
}

fn len32(n: usize) -> Vec<u8> {
    let mut v = vec![0x80];
    v.extend_from_slice(&(n as u32).to_be_bytes());
    v
}

fn no_limit() -> LoadOptions {
    LoadOptions {
        max_value_bytes: u64::MAX,
        verify_checksum: false,
        ..LoadOptions::default()
    }
}

/// A list element whose LZF header claims 1 GiB (12.2 MB of data, a possible ratio) but
/// whose data is corrupt at its third byte: refused as corrupt, with no buffer of the claimed
/// size allocated first (the output grows as it is decoded).
#[test]
fn an_lzf_claim_is_not_allocated_before_it_is_decoded() {
    let ulen = 1usize << 30;
    let clen = ulen / 88 + 1;
    let mut data = vec![0u8; clen];
    // One literal byte, then a back-reference reaching 100 bytes back: corrupt.
    data[..4].copy_from_slice(&[0x00, b'a', 0x20, 99]);
    let mut f = b"REDIS0011".to_vec();
    f.extend_from_slice(&[0xFE, 0, 0x01, 1, b'l', 1, 0xC3]); // a list "l" of one element
    f.extend(len32(clen));
    f.extend(len32(ulen));
    f.extend_from_slice(&data);
    f.push(0xFF);
    f.extend_from_slice(&[0; 8]);
    let largest = largest_allocation(|| {
        let e = load_rdb(&f, &no_limit()).unwrap_err();
        assert_eq!(e.kind, RdbErrorKind::Corrupt, "{e}");
        assert!(e.to_string().contains("back-reference"), "{e}");
    });
    assert!(largest < 16 << 20, "largest allocation {largest} bytes");
}

/// A raw string of a download of no announced length claiming 64 MiB, of which 24 MiB
/// (dense, not zero) arrive before the download ends: truncated, and the string being built
/// never held more than the bytes that came (it was allocated at 64 MiB once a quarter of
/// its pages held data).
#[test]
fn a_streamed_raw_string_grows_with_its_bytes() {
    let claim = 64usize << 20;
    let mut f = b"REDIS0011".to_vec();
    f.extend_from_slice(&[0xFE, 0, 0x00, 3]);
    f.extend_from_slice(b"big");
    f.extend(len32(claim));
    let largest = largest_allocation(|| {
        let mut feeder = RdbFeeder::load(no_limit());
        feeder.push(&f).unwrap();
        let piece = vec![0x5Au8; 1 << 20];
        for _ in 0..24 {
            feeder.push(&piece).unwrap();
        }
        let e = feeder.finish_snapshot().unwrap_err();
        assert_eq!(e.kind, RdbErrorKind::Truncated, "{e}");
        assert_eq!(e.key.as_deref(), Some(&b"big"[..]));
    });
    assert!(largest < 40 << 20, "largest allocation {largest} bytes");
}
