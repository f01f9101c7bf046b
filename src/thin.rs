//! Thin owned buffers for the keyspace's values (issue 31).
//!
//! Every key's slot holds a [`crate::keyspace::Value`] of 16 bytes: a tag and one pointer, or
//! a short string inline. A value kept in its encoded bytes (a listpack, an intset, a loaded
//! string) therefore holds them behind one thin pointer, not a fat `Box<[u8]>`:
//! - [`Blob`]: one allocation holding a `u32` length and then the bytes (at most
//!   [`Blob::MAX_LEN`]), aligned to 8 so that its address has three free low bits.
//! - [`Tagged`]: one of seven kinds of [`Blob`] or a boxed `T` behind one pointer, the kind
//!   kept in those three low bits (a hash's listpack, ziplist, zipmap, ... or its table).
//! - [`Lazy`]: a [`Tagged`] blob that becomes its boxed payload on the first read (a small
//!   sorted set's listpack, until a command reads the set).
//!
//! A blob owns its bytes as a `Box` does, read-only: dropped with the value. It has its own
//! allocation, or, when built inside an [`arena_scope`] (a snapshot load) and at most
//! [`ARENA_MAX`] bytes long, a place in a shared 64 KiB arena chunk:
//! - a chunk starts with a count of references (the blobs in it, and the thread's builder
//!   while it fills the chunk); the last blob dropped frees the chunk;
//! - an arena blob's `u32` header holds [`IN_ARENA`], its length (12 bits, at most
//!   [`ARENA_MAX`]) and its offset in the chunk in units of 8 bytes (13 bits), so that
//!   dropping it finds the chunk's count; its bytes follow;
//! - blobs are laid one after the other (8-byte aligned), so a loaded snapshot's many small
//!   listpacks, intsets and strings cost their bytes and 4–11 bytes each, with no allocator
//!   header or rounding per value, and one allocation per 64 KiB (issue 31);
//! - `clone` of an arena blob takes one more reference on its chunk (no copy).
//!
//! Writes never change a blob's bytes: a written value moves into its own buffer (see
//! [`crate::string`], [`crate::set`], ...), so a snapshot's untouched values stay packed.

use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::cell::RefCell;
use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;
use std::ptr::NonNull;
use std::sync::atomic::{fence, AtomicPtr, AtomicU32, Ordering};

/// Bytes before a blob's data: its length, a native-endian `u32` (high bit: [`IN_ARENA`]).
const HEADER: usize = 4;
/// Alignment of every allocation behind a thin pointer: three free low bits.
const ALIGN: usize = 8;
/// The kind [`Tagged`] gives its boxed payload.
const BOXED: usize = ALIGN - 1;
/// The length word's flag for a blob inside an arena chunk.
const IN_ARENA: u32 = 1 << 31;
/// Bytes of one arena chunk.
const CHUNK: usize = 64 * 1024;
/// Offset of the first blob in a chunk: after the chunk's count (`u32`), aligned to 8.
const CHUNK_FIRST: usize = 8;
/// Bits of an arena blob's header holding its length.
const ARENA_LEN_BITS: u32 = 12;
/// The longest blob laid in an arena chunk; longer ones get their own allocation.
pub const ARENA_MAX: usize = 2048;
// An arena blob's header holds its length and its offset / 8 below the flag.
const _: () = assert!(ARENA_MAX < 1 << ARENA_LEN_BITS);
const _: () = assert!((CHUNK / ALIGN) << ARENA_LEN_BITS < IN_ARENA as usize);

/// Owned bytes behind one thin pointer (one word): the allocation holds the length (`u32`)
/// and then the bytes, so a blob of `n` bytes costs `n + 4` bytes of heap and its pointer
/// (`n + 8`, rounded to 8, in an arena chunk).
pub struct Blob {
    ptr: NonNull<u8>,
}

// SAFETY: a `Blob` owns its bytes exclusively, as a `Box<[u8]>` does.
unsafe impl Send for Blob {}
// SAFETY: shared access only reads.
unsafe impl Sync for Blob {}

impl Blob {
    /// The longest blob, in bytes (2 GiB − 1: the length word's high bit is a flag).
    pub const MAX_LEN: usize = (IN_ARENA - 1) as usize;

    /// A blob holding a copy of `bytes`; `None` past [`Blob::MAX_LEN`] bytes (or past what
    /// the target can address). Inside an [`arena_scope`], a blob of at most [`ARENA_MAX`]
    /// bytes is laid in the thread's arena chunk.
    #[inline(never)]
    pub fn new(bytes: &[u8]) -> Option<Blob> {
        if bytes.len() <= ARENA_MAX {
            if let Some(b) = arena_blob(bytes) {
                return Some(b);
            }
        }
        Self::heap(bytes)
    }

    /// A blob in its own allocation; `None` past [`Blob::MAX_LEN`] bytes.
    fn heap(bytes: &[u8]) -> Option<Blob> {
        let len = u32::try_from(bytes.len()).ok().filter(|&l| l < IN_ARENA)?;
        let layout = Self::layout(bytes.len())?;
        // SAFETY: the layout's size is at least HEADER, so not zero.
        let ptr =
            NonNull::new(unsafe { alloc(layout) }).unwrap_or_else(|| handle_alloc_error(layout));
        // SAFETY: the allocation is aligned to 8 and holds HEADER + len bytes.
        unsafe {
            ptr.as_ptr().cast::<u32>().write(len);
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), ptr.as_ptr().add(HEADER), bytes.len());
        }
        Some(Blob { ptr })
    }

    fn layout(len: usize) -> Option<Layout> {
        Layout::from_size_align(HEADER.checked_add(len)?, ALIGN).ok()
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        // SAFETY: `ptr` is a live allocation starting with the length.
        unsafe { header_len(self.ptr) }
    }

    /// True when the blob holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: as `header_len`; the bytes live as long as `self`.
        unsafe { blob_bytes(self.ptr) }
    }

    /// The allocation, no longer owned by a `Blob` (see [`Blob::from_raw`]).
    fn into_raw(self) -> NonNull<u8> {
        let ptr = self.ptr;
        std::mem::forget(self);
        ptr
    }

    /// Owns again an allocation given by [`Blob::into_raw`].
    ///
    /// # Safety
    /// `ptr` came from `into_raw` and no other `Blob` owns it.
    unsafe fn from_raw(ptr: NonNull<u8>) -> Blob {
        Blob { ptr }
    }
}

/// The length stored at the start of a blob's allocation.
///
/// # Safety
/// `ptr` is a live blob allocation.
unsafe fn header_len(ptr: NonNull<u8>) -> usize {
    let word = ptr.as_ptr().cast::<u32>().read();
    if word & IN_ARENA == 0 {
        word as usize
    } else {
        (word & ((1 << ARENA_LEN_BITS) - 1)) as usize
    }
}

/// The arena chunk holding a blob, or `None` for a blob with its own allocation.
///
/// # Safety
/// `ptr` is a live blob allocation.
unsafe fn chunk_of(ptr: NonNull<u8>) -> Option<NonNull<u8>> {
    let word = ptr.as_ptr().cast::<u32>().read();
    if word & IN_ARENA == 0 {
        return None;
    }
    let offset = ((word & !IN_ARENA) >> ARENA_LEN_BITS) as usize * ALIGN;
    Some(ptr.sub(offset))
}

/// A chunk's count of references.
///
/// # Safety
/// `chunk` is a live arena chunk.
unsafe fn chunk_count<'a>(chunk: NonNull<u8>) -> &'a AtomicU32 {
    chunk.cast::<AtomicU32>().as_ref()
}

fn chunk_layout() -> Layout {
    Layout::from_size_align(CHUNK, ALIGN).expect("a valid constant layout")
}

/// Drops one reference to `chunk`, freeing it with the last (as `Arc` does). Not inlined
/// into every value's drop (the wasm module's size).
///
/// # Safety
/// The caller owns one reference to the live `chunk`, and gives it up.
#[inline(never)]
unsafe fn release(chunk: NonNull<u8>) {
    if chunk_count(chunk).fetch_sub(1, Ordering::Release) == 1 {
        fence(Ordering::Acquire);
        dealloc(chunk.as_ptr(), chunk_layout());
    }
}

/// One more reference to `chunk`; `false` (nothing taken) when its count is already huge
/// (the caller copies instead).
///
/// # Safety
/// The caller holds a reference to the live `chunk`.
unsafe fn retain(chunk: NonNull<u8>) -> bool {
    let count = chunk_count(chunk);
    if count.fetch_add(1, Ordering::Relaxed) >= u32::MAX / 2 {
        count.fetch_sub(1, Ordering::Relaxed);
        return false;
    }
    true
}

/// The thread's arena: whether a scope is open, and the chunk being filled.
struct Arena {
    /// Open [`ArenaScope`]s on this thread.
    depth: u32,
    /// The chunk being filled (the builder holds one reference to it) and the offset of the
    /// next blob pointer in it.
    chunk: Option<(NonNull<u8>, usize)>,
}

impl Drop for Arena {
    fn drop(&mut self) {
        if let Some((chunk, _)) = self.chunk.take() {
            // SAFETY: the builder's reference, given up with the thread.
            unsafe { release(chunk) }
        }
    }
}

thread_local! {
    static ARENA: RefCell<Arena> = const { RefCell::new(Arena { depth: 0, chunk: None }) };
}

/// While alive, blobs of at most [`ARENA_MAX`] bytes that this thread builds are laid in
/// shared arena chunks (see the module header). Open one around the building of a
/// snapshot's values; scopes nest. The chunk being filled stays with the thread after the
/// scope closes, for the next load on it (at most 64 KiB per thread).
pub struct ArenaScope {
    /// Bound to the thread whose count it raised.
    _thread: PhantomData<*const ()>,
}

/// Opens an [`ArenaScope`] on this thread.
pub fn arena_scope() -> ArenaScope {
    ARENA.with(|a| a.borrow_mut().depth += 1);
    ArenaScope {
        _thread: PhantomData,
    }
}

impl Drop for ArenaScope {
    fn drop(&mut self) {
        // A thread's arena is gone only after its scopes (they live on its stack).
        let _ = ARENA.try_with(|a| a.borrow_mut().depth -= 1);
    }
}

/// `bytes` as a blob in this thread's arena chunk, or `None` when no scope is open. Not
/// inlined: it is one call per loaded value, and the engine's wasm module is held to a size.
#[inline(never)]
fn arena_blob(bytes: &[u8]) -> Option<Blob> {
    ARENA
        .try_with(|a| {
            let mut a = a.borrow_mut();
            if a.depth == 0 {
                return None;
            }
            let need = HEADER + bytes.len();
            let (chunk, at) = match a.chunk {
                Some((chunk, at)) if at + need <= CHUNK => (chunk, at),
                _ => {
                    let layout = chunk_layout();
                    // SAFETY: the layout is not zero-sized.
                    let chunk = NonNull::new(unsafe { alloc(layout) })
                        .unwrap_or_else(|| handle_alloc_error(layout));
                    // SAFETY: a fresh chunk, aligned to 8; the builder's reference.
                    unsafe { chunk.cast::<AtomicU32>().write(AtomicU32::new(1)) };
                    if let Some((old, _)) = a.chunk.replace((chunk, CHUNK_FIRST)) {
                        // SAFETY: the builder's reference to the full chunk.
                        unsafe { release(old) }
                    }
                    (chunk, CHUNK_FIRST)
                }
            };
            // SAFETY: `at` is aligned to 8, at least CHUNK_FIRST, and `at + need` fits the
            // chunk, so the header and the bytes are inside it and
            // unused; the builder's reference keeps the chunk alive while the count grows.
            unsafe {
                let ptr = chunk.add(at);
                let slot = (at / ALIGN) as u32;
                ptr.as_ptr()
                    .cast::<u32>()
                    .write(IN_ARENA | slot << ARENA_LEN_BITS | bytes.len() as u32);
                std::ptr::copy_nonoverlapping(
                    bytes.as_ptr(),
                    ptr.as_ptr().add(HEADER),
                    bytes.len(),
                );
                chunk_count(chunk).fetch_add(1, Ordering::Relaxed);
                a.chunk = Some((chunk, (at + need).next_multiple_of(ALIGN)));
                Some(Blob { ptr })
            }
        })
        .ok()
        .flatten()
}

/// The bytes of a blob's allocation, borrowed for as long as the caller's owner lives.
///
/// # Safety
/// `ptr` is a live blob allocation that outlives `'a` and is not written meanwhile.
unsafe fn blob_bytes<'a>(ptr: NonNull<u8>) -> &'a [u8] {
    std::slice::from_raw_parts(ptr.as_ptr().add(HEADER), header_len(ptr))
}

impl Drop for Blob {
    fn drop(&mut self) {
        // SAFETY: `ptr` is this blob's live allocation, given up here.
        unsafe { free_blob(self.ptr) }
    }
}

/// Frees a blob: gives up its chunk reference, or its own allocation. One call, not
/// inlined into every value's drop (the wasm module's size).
///
/// # Safety
/// `ptr` is a live blob allocation owned by the caller, who gives it up.
#[inline(never)]
unsafe fn free_blob(ptr: NonNull<u8>) {
    if let Some(chunk) = chunk_of(ptr) {
        return release(chunk);
    }
    let layout = Blob::layout(header_len(ptr)).expect("the layout it was made with");
    dealloc(ptr.as_ptr(), layout)
}

impl Clone for Blob {
    /// The same bytes: one more reference to an arena blob's chunk, else a copy.
    #[inline(never)]
    fn clone(&self) -> Self {
        // SAFETY: `ptr` is this blob's live allocation, and holds a reference to its chunk.
        if let Some(chunk) = unsafe { chunk_of(self.ptr) } {
            if unsafe { retain(chunk) } {
                return Blob { ptr: self.ptr };
            }
        }
        Blob::heap(self).expect("the length of an existing blob")
    }
}

impl Deref for Blob {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl PartialEq for Blob {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Blob {}

impl fmt::Debug for Blob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_slice(), f)
    }
}

/// A boxed payload aligned to [`ALIGN`], so that its address has the tag bits free on every
/// target (wasm32 aligns most structs to 4).
#[repr(align(8))]
struct Aligned<T>(T);

/// One of seven kinds (`0..7`) of [`Blob`], or a boxed `T`, behind one pointer whose low
/// three bits say which.
pub struct Tagged<T> {
    raw: NonNull<u8>,
    _owns: PhantomData<Box<T>>,
}

// SAFETY: a `Tagged<T>` owns a `Blob` (Send + Sync) or a `Box<T>`.
unsafe impl<T: Send> Send for Tagged<T> {}
// SAFETY: as above; shared access only reads.
unsafe impl<T: Sync> Sync for Tagged<T> {}

/// What a [`Tagged`] holds, borrowed.
#[derive(Debug)]
pub enum TaggedRef<'a, T> {
    /// A blob of the given kind (`0..7`).
    Blob(u8, &'a [u8]),
    /// The boxed payload.
    Boxed(&'a T),
}

/// What a [`Tagged`] holds, owned.
#[derive(Debug)]
pub enum TaggedOwned<T> {
    /// A blob of the given kind (`0..7`).
    Blob(u8, Blob),
    /// The payload.
    Boxed(Box<T>),
}

impl<T> Tagged<T> {
    /// The number of blob kinds: kinds are `0..KINDS`.
    pub const KINDS: u8 = BOXED as u8;

    /// A blob of `kind`; panics when `kind` is not below [`Tagged::KINDS`] (a caller's bug).
    pub fn blob(kind: u8, blob: Blob) -> Self {
        assert!(kind < Self::KINDS, "blob kind out of range");
        let raw = blob.into_raw();
        Tagged {
            raw: raw.map_addr(|a| a | kind as usize),
            _owns: PhantomData,
        }
    }

    /// The payload, boxed.
    pub fn boxed(value: T) -> Self {
        let raw = NonNull::from(Box::leak(Box::new(Aligned(value)))).cast::<u8>();
        Tagged {
            raw: raw.map_addr(|a| a | BOXED),
            _owns: PhantomData,
        }
    }

    fn kind(&self) -> usize {
        self.raw.addr().get() & BOXED
    }

    /// The allocation's address, the tag cleared (an address aligned to 8, so not zero).
    fn untagged(&self) -> NonNull<u8> {
        self.raw
            .map_addr(|a| std::num::NonZeroUsize::new(a.get() & !BOXED).unwrap_or(a))
    }

    /// What is held.
    pub fn get(&self) -> TaggedRef<'_, T> {
        let p = self.untagged();
        match self.kind() {
            // SAFETY: kind BOXED: `p` is the live `Box<Aligned<T>>` this value owns.
            BOXED => TaggedRef::Boxed(unsafe { &p.cast::<Aligned<T>>().as_ref().0 }),
            // SAFETY: any other kind: `p` is the live blob this value owns.
            k => TaggedRef::Blob(k as u8, unsafe { blob_bytes(p) }),
        }
    }

    /// The boxed payload, mutably; `None` for a blob (blobs are read-only).
    pub fn boxed_mut(&mut self) -> Option<&mut T> {
        let p = self.untagged();
        // SAFETY: kind BOXED: `p` is the live box this value owns, borrowed through `&mut self`.
        (self.kind() == BOXED).then(|| unsafe { &mut p.cast::<Aligned<T>>().as_mut().0 })
    }

    /// What is held, owned.
    pub fn into_inner(self) -> TaggedOwned<T> {
        let (p, kind) = (self.untagged(), self.kind());
        std::mem::forget(self);
        match kind {
            // SAFETY: ownership moves out of the forgotten `self`.
            BOXED => {
                let b = unsafe { Box::from_raw(p.cast::<Aligned<T>>().as_ptr()) };
                TaggedOwned::Boxed(Box::new(b.0))
            }
            // SAFETY: as above.
            k => TaggedOwned::Blob(k as u8, unsafe { Blob::from_raw(p) }),
        }
    }
}

impl<T> Drop for Tagged<T> {
    fn drop(&mut self) {
        let p = self.untagged();
        match self.kind() {
            // SAFETY: this value owns the box; it is dropped once, here.
            BOXED => drop(unsafe { Box::from_raw(p.cast::<Aligned<T>>().as_ptr()) }),
            // SAFETY: this value owns the blob; it is dropped once, here.
            _ => drop(unsafe { Blob::from_raw(p) }),
        }
    }
}

impl<T: Clone> Clone for Tagged<T> {
    fn clone(&self) -> Self {
        match self.get() {
            TaggedRef::Blob(k, _) => {
                // SAFETY: the blob this value owns, borrowed (not dropped) to clone it.
                let blob = std::mem::ManuallyDrop::new(unsafe { Blob::from_raw(self.untagged()) });
                Tagged::blob(k, Blob::clone(&blob))
            }
            TaggedRef::Boxed(t) => Tagged::boxed(t.clone()),
        }
    }
}

/// Equal when both hold blobs of the same kind and bytes, or equal payloads.
impl<T: PartialEq> PartialEq for Tagged<T> {
    fn eq(&self, other: &Self) -> bool {
        match (self.get(), other.get()) {
            (TaggedRef::Blob(k, a), TaggedRef::Blob(l, b)) => k == l && a == b,
            (TaggedRef::Boxed(a), TaggedRef::Boxed(b)) => a == b,
            _ => false,
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for Tagged<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.get().fmt(f)
    }
}

/// A payload [`Lazy`] builds from its blob on first read.
///
/// # Safety
/// - `from_thin` takes a blob that [`Lazy`] still points at (and gives to readers of
///   [`Lazy::peek_blob`]): the payload keeps that blob alive and unmoved, and never releases
///   or replaces it through `&self`, until the payload is dropped or mutably borrowed;
/// - `into_thin` gives back the very blob `from_thin` took;
/// - neither should unwind, nor the payload's destructor (an unwind there aborts the process:
///   the blob would be freed while another owner still points at it).
pub unsafe trait FromBlob: Sized {
    /// The payload of a blob of `kind` (`0..7`), owning it.
    fn from_thin(kind: u8, blob: Blob) -> Self;
    /// The blob [`FromBlob::from_thin`] took, the rest of the payload dropped.
    fn into_thin(self) -> Blob;
}

/// Aborts the process if dropped: armed around code that must not unwind while two owners
/// point at one blob (see [`FromBlob`]); defused with `mem::forget` once past it.
struct AbortOnUnwind;

impl Drop for AbortOnUnwind {
    fn drop(&mut self) {
        std::process::abort();
    }
}

/// One of seven kinds (`0..7`) of [`Blob`] that turns into a boxed `T` on its first read,
/// behind one pointer whose low three bits say which (as [`Tagged`]). A loaded snapshot's
/// small sorted sets stay one word and their blob until read (no struct allocation each,
/// issue 31); a read through `&self` builds the payload around the blob and swaps it in
/// atomically, so that concurrent readers agree on one payload (the loser of a race gives
/// the blob back and frees only its own box). Dereferences to the payload.
pub struct Lazy<T: FromBlob> {
    raw: AtomicPtr<u8>,
    /// Owns a `T` (drop check), and is invariant in it, as `OnceLock<T>` (a shared read
    /// writes a `T`).
    _owns: PhantomData<Owns<T>>,
}

/// What a [`Lazy<T>`] owns for the type system: a boxed `T`, invariantly.
type Owns<T> = (Box<T>, fn(T) -> T);

// SAFETY: a `Lazy<T>` owns a `Blob` (Send + Sync) or a `Box<T>`; the swap is atomic.
unsafe impl<T: FromBlob + Send> Send for Lazy<T> {}
// SAFETY: as above; shared access builds the payload at most once (compare-exchange).
unsafe impl<T: FromBlob + Send + Sync> Sync for Lazy<T> {}

/// The address of a tagged pointer's allocation (tag cleared).
fn untag(raw: *mut u8) -> *mut u8 {
    raw.map_addr(|a| a & !BOXED)
}

impl<T: FromBlob> Lazy<T> {
    /// A blob of `kind`; panics when `kind` is not below [`Tagged::KINDS`] (a caller's bug).
    pub fn blob(kind: u8, blob: Blob) -> Self {
        assert!((kind as usize) < BOXED, "blob kind out of range");
        Lazy {
            raw: AtomicPtr::new(blob.into_raw().as_ptr().map_addr(|a| a | kind as usize)),
            _owns: PhantomData,
        }
    }

    /// The payload, boxed.
    pub fn boxed(value: T) -> Self {
        Lazy {
            raw: AtomicPtr::new(Self::tag_box(value)),
            _owns: PhantomData,
        }
    }

    fn tag_box(value: T) -> *mut u8 {
        Box::into_raw(Box::new(Aligned(value)))
            .cast::<u8>()
            .map_addr(|a| a | BOXED)
    }

    /// The payload behind a boxed tagged pointer.
    ///
    /// # Safety
    /// `raw` is this value's pointer, tagged [`BOXED`].
    unsafe fn payload<'a>(raw: *mut u8) -> &'a T {
        &(*untag(raw).cast::<Aligned<T>>()).0
    }

    /// The blob and its kind, when not read yet (nothing built).
    pub fn peek_blob(&self) -> Option<(u8, &[u8])> {
        let raw = self.raw.load(Ordering::Acquire);
        let kind = raw.addr() & BOXED;
        // SAFETY: a blob kind: the live blob this value owns (it lives until `self` drops,
        // also when a read moves it into the payload).
        (kind != BOXED).then(|| {
            (kind as u8, unsafe {
                blob_bytes(NonNull::new_unchecked(untag(raw)))
            })
        })
    }

    /// True once the payload is built (always for [`Lazy::boxed`]).
    pub fn is_built(&self) -> bool {
        self.raw.load(Ordering::Acquire).addr() & BOXED == BOXED
    }

    /// The payload, built from the blob on the first read. Not inlined into every read of
    /// a sorted set or list (the wasm module's size).
    #[inline(never)]
    pub fn get(&self) -> &T {
        let raw = self.raw.load(Ordering::Acquire);
        if raw.addr() & BOXED == BOXED {
            // SAFETY: boxed: the live payload this value owns, borrowed through `&self`.
            return unsafe { Self::payload(raw) };
        }
        self.build(raw)
    }

    #[cold]
    #[inline(never)]
    fn build(&self, raw: *mut u8) -> &T {
        let kind = (raw.addr() & BOXED) as u8;
        // SAFETY: the blob this value owns; the payload takes it over if the swap wins.
        let blob = unsafe { Blob::from_raw(NonNull::new_unchecked(untag(raw))) };
        let guard = AbortOnUnwind;
        let mine = Self::tag_box(T::from_thin(kind, blob));
        std::mem::forget(guard);
        match self
            .raw
            .compare_exchange(raw, mine, Ordering::AcqRel, Ordering::Acquire)
        {
            // SAFETY: the payload just installed; it lives until `self` drops.
            Ok(_) => unsafe { Self::payload(mine) },
            Err(theirs) => {
                // Another thread built it first; its payload owns the blob, so this one
                // gives the blob back unowned and frees only its own box.
                // SAFETY: `mine` was never shared.
                let lost = unsafe { Box::from_raw(untag(mine).cast::<Aligned<T>>()) };
                let guard = AbortOnUnwind;
                std::mem::forget(lost.0.into_thin());
                std::mem::forget(guard);
                // SAFETY: only a blob turns into a payload, so `theirs` is boxed.
                unsafe { Self::payload(theirs) }
            }
        }
    }

    /// The payload, mutably (built from the blob first if needed).
    pub fn get_mut(&mut self) -> &mut T {
        let raw = *self.raw.get_mut();
        if raw.addr() & BOXED != BOXED {
            let kind = (raw.addr() & BOXED) as u8;
            // SAFETY: the blob this value owns, moved into the payload.
            let blob = unsafe { Blob::from_raw(NonNull::new_unchecked(untag(raw))) };
            let guard = AbortOnUnwind;
            *self.raw.get_mut() = Self::tag_box(T::from_thin(kind, blob));
            std::mem::forget(guard);
        }
        // SAFETY: boxed now: the payload this value owns, borrowed through `&mut self`.
        unsafe { &mut (*untag(*self.raw.get_mut()).cast::<Aligned<T>>()).0 }
    }
}

impl<T: FromBlob> Deref for Lazy<T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.get()
    }
}

impl<T: FromBlob> std::ops::DerefMut for Lazy<T> {
    fn deref_mut(&mut self) -> &mut T {
        self.get_mut()
    }
}

impl<T: FromBlob> Drop for Lazy<T> {
    #[inline(never)]
    fn drop(&mut self) {
        let raw = *self.raw.get_mut();
        let p = untag(raw);
        if raw.addr() & BOXED == BOXED {
            // SAFETY: this value owns the box; it is dropped once, here.
            drop(unsafe { Box::from_raw(p.cast::<Aligned<T>>()) });
        } else {
            // SAFETY: this value owns the blob; it is dropped once, here.
            drop(unsafe { Blob::from_raw(NonNull::new_unchecked(p)) });
        }
    }
}

impl<T: FromBlob + Clone> Clone for Lazy<T> {
    fn clone(&self) -> Self {
        let raw = self.raw.load(Ordering::Acquire);
        if raw.addr() & BOXED == BOXED {
            return Lazy::boxed(self.get().clone());
        }
        // SAFETY: the blob this value owns, borrowed (not dropped) to clone it.
        let blob = std::mem::ManuallyDrop::new(unsafe {
            Blob::from_raw(NonNull::new_unchecked(untag(raw)))
        });
        Lazy::blob((raw.addr() & BOXED) as u8, Blob::clone(&blob))
    }
}

/// Equal when the payloads are (both built first).
impl<T: FromBlob + PartialEq> PartialEq for Lazy<T> {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl<T: FromBlob + fmt::Debug> fmt::Debug for Lazy<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.get().fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blobs_hold_their_bytes() {
        for n in [0usize, 1, 3, 4, 7, 8, 100, 4096] {
            let bytes: Vec<u8> = (0..n).map(|i| i as u8).collect();
            let b = Blob::new(&bytes).unwrap();
            assert_eq!(b.len(), n);
            assert_eq!(&*b, &bytes[..]);
            let c = b.clone();
            drop(b);
            assert_eq!(&*c, &bytes[..]);
        }
        assert_eq!(std::mem::size_of::<Blob>(), std::mem::size_of::<usize>());
        assert_eq!(
            std::mem::size_of::<Option<Blob>>(),
            std::mem::size_of::<usize>()
        );
    }

    #[test]
    fn tagged_keeps_kind_and_payload() {
        for kind in 0..Tagged::<Vec<u8>>::KINDS {
            let t: Tagged<Vec<u8>> = Tagged::blob(kind, Blob::new(&[kind, 9]).unwrap());
            match t.clone().get() {
                TaggedRef::Blob(k, b) => assert_eq!((k, b), (kind, &[kind, 9][..])),
                TaggedRef::Boxed(_) => panic!("a blob"),
            }
            match t.into_inner() {
                TaggedOwned::Blob(k, b) => assert_eq!((k, &*b), (kind, &[kind, 9][..])),
                TaggedOwned::Boxed(_) => panic!("a blob"),
            }
        }
        let mut t = Tagged::boxed(vec![1u8, 2]);
        t.boxed_mut().unwrap().push(3);
        let c = t.clone();
        assert!(matches!(c.get(), TaggedRef::Boxed(v) if v == &[1, 2, 3]));
        assert!(matches!(t.into_inner(), TaggedOwned::Boxed(v) if *v == [1, 2, 3]));
        assert_eq!(
            std::mem::size_of::<Tagged<Vec<u8>>>(),
            std::mem::size_of::<usize>()
        );
    }

    /// Blobs of every length up to past ARENA_MAX, built in a scope (most in arena chunks,
    /// across many chunks), cloned, and dropped in a shuffled order, some on another thread;
    /// Miri checks that each chunk is freed once, after its last blob.
    #[test]
    fn arena_blobs_share_chunks_and_free_them_with_the_last() {
        let n = if cfg!(miri) { 300 } else { 3000 };
        let bytes = |i: usize| -> Vec<u8> {
            (0..(i * 7) % (ARENA_MAX + 40))
                .map(|j| (i + j) as u8)
                .collect()
        };
        let mut blobs = {
            let _scope = arena_scope();
            let _nested = arena_scope();
            (0..n)
                .map(|i| Blob::new(&bytes(i)).unwrap())
                .collect::<Vec<_>>()
        };
        let in_arena = |b: &Blob| unsafe { chunk_of(b.ptr) }.is_some();
        assert!(blobs.iter().all(|b| in_arena(b) == (b.len() <= ARENA_MAX)));
        let chunks: std::collections::BTreeSet<usize> = blobs
            .iter()
            .filter_map(|b| unsafe { chunk_of(b.ptr) }.map(|c| c.addr().get()))
            .collect();
        assert!(chunks.len() > 1 || cfg!(miri), "{} chunks", chunks.len());
        // Outside the scope, new blobs have their own allocation.
        assert!(!in_arena(&Blob::new(b"after").unwrap()));
        let clones: Vec<Blob> = blobs.iter().step_by(3).cloned().collect();
        for (c, b) in clones.iter().zip(blobs.iter().step_by(3)) {
            assert_eq!(c.ptr == b.ptr, in_arena(b));
        }
        // Drop in a scrambled order, half on another thread.
        let mut order: Vec<usize> = (0..n).map(|i| (i * 7919) % n).collect();
        order.dedup();
        let mut taken: Vec<Option<Blob>> = blobs.drain(..).map(Some).collect();
        let other: Vec<Blob> = order
            .iter()
            .step_by(2)
            .filter_map(|&i| taken[i].take())
            .collect();
        std::thread::spawn(move || drop(other)).join().unwrap();
        for (k, c) in clones.iter().enumerate() {
            assert_eq!(&**c, &bytes(k * 3)[..]);
        }
        drop(taken);
        let t: Tagged<u8> = {
            let _scope = arena_scope();
            Tagged::blob(2, Blob::new(b"tagged").unwrap())
        };
        let u = t.clone();
        drop(t);
        assert!(matches!(u.get(), TaggedRef::Blob(2, b"tagged")));
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn kind_seven_is_the_box() {
        let _ = Tagged::<u8>::blob(7, Blob::new(b"x").unwrap());
    }

    /// A payload that records its blob's kind and bytes, and how many were built.
    #[derive(Debug, Clone, PartialEq)]
    struct Built {
        kind: u8,
        blob: Blob,
    }

    static BUILT: AtomicU32 = AtomicU32::new(0);

    // SAFETY: `from_thin` cannot panic; `into_thin` gives back the blob it kept.
    unsafe impl FromBlob for Built {
        fn from_thin(kind: u8, blob: Blob) -> Built {
            BUILT.fetch_add(1, Ordering::Relaxed);
            Built { kind, blob }
        }
        fn into_thin(self) -> Blob {
            self.blob
        }
    }

    /// A `Lazy` stays a blob until read, then every reader (on 8 threads at once) sees the
    /// one payload holding the same bytes; clones, `get_mut` and drops of read and unread
    /// values free each allocation once (Miri checks the race's loser frees only its box).
    #[test]
    fn lazy_blobs_build_one_payload_on_first_read() {
        let _scope = arena_scope();
        for n in [3usize, 40, 3000] {
            let bytes: Vec<u8> = (0..n).map(|i| (i * 7) as u8).collect();
            let lazy = Lazy::<Built>::blob(5, Blob::new(&bytes).unwrap());
            assert_eq!(lazy.peek_blob(), Some((5, &bytes[..])));
            let unread = lazy.clone();
            let seen: Vec<usize> = std::thread::scope(|s| {
                let handles: Vec<_> = (0..8)
                    .map(|_| {
                        s.spawn(|| {
                            let p = lazy.get();
                            assert_eq!((p.kind, &p.blob[..]), (5, &bytes[..]));
                            p as *const Built as usize
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).collect()
            });
            assert!(
                seen.iter().all(|&p| p == seen[0]),
                "one payload for every reader"
            );
            assert_eq!(lazy.peek_blob(), None);
            assert_eq!(lazy, unread.clone());
            let mut read = lazy.clone();
            read.get_mut().kind = 6;
            assert_eq!(read.kind, 6);
            let mut other = unread.clone();
            assert_eq!(other.get_mut().kind, 5);
            drop((lazy, other));
            assert_eq!(unread.peek_blob(), Some((5, &bytes[..])));
            assert_eq!(&unread.blob[..], &bytes[..]);
        }
        assert!(BUILT.load(Ordering::Relaxed) >= 9);
        let boxed = Lazy::boxed(Built {
            kind: 1,
            blob: Blob::new(b"abc").unwrap(),
        });
        assert_eq!(boxed.peek_blob(), None);
        assert_eq!(&boxed.clone().blob[..], b"abc");
    }
}
