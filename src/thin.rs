//! Thin owned buffers for the keyspace's values (issue 31).
//!
//! Every key's slot holds a [`crate::keyspace::Value`] of 16 bytes: a tag and one pointer, or
//! a short string inline. A value kept in its encoded bytes (a listpack, an intset, a loaded
//! string) therefore holds them behind one thin pointer, not a fat `Box<[u8]>`:
//! - [`Blob`]: one allocation holding a `u32` length and then the bytes (at most
//!   [`Blob::MAX_LEN`]), aligned to 8 so that its address has three free low bits.
//! - [`Tagged`]: one of seven kinds of [`Blob`] or a boxed `T` behind one pointer, the kind
//!   kept in those three low bits (a hash's listpack, ziplist, zipmap, ... or its table).
//!
//! Both own their allocation as a `Box` does: dropped with the value, deep-copied by `clone`.

use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;
use std::ptr::NonNull;

/// Bytes before a blob's data: its length, a native-endian `u32`.
const HEADER: usize = 4;
/// Alignment of every allocation behind a thin pointer: three free low bits.
const ALIGN: usize = 8;
/// The kind [`Tagged`] gives its boxed payload.
const BOXED: usize = ALIGN - 1;

/// Owned bytes behind one thin pointer (one word): the allocation holds the length (`u32`)
/// and then the bytes, so a blob of `n` bytes costs `n + 4` bytes of heap and its pointer.
pub struct Blob {
    ptr: NonNull<u8>,
}

// SAFETY: a `Blob` owns its bytes exclusively, as a `Box<[u8]>` does.
unsafe impl Send for Blob {}
// SAFETY: shared access only reads.
unsafe impl Sync for Blob {}

impl Blob {
    /// The longest blob, in bytes.
    pub const MAX_LEN: usize = u32::MAX as usize;

    /// A blob holding a copy of `bytes`; `None` past [`Blob::MAX_LEN`] bytes (or past what
    /// the target can address).
    pub fn new(bytes: &[u8]) -> Option<Blob> {
        let len = u32::try_from(bytes.len()).ok()?;
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
    ptr.as_ptr().cast::<u32>().read() as usize
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
        let layout = Self::layout(self.len()).expect("the layout it was made with");
        // SAFETY: allocated in `new` with this layout, owned by `self`.
        unsafe { dealloc(self.ptr.as_ptr(), layout) }
    }
}

impl Clone for Blob {
    fn clone(&self) -> Self {
        Blob::new(self).expect("the length of an existing blob")
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
            TaggedRef::Blob(k, b) => {
                Tagged::blob(k, Blob::new(b).expect("the length of an existing blob"))
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

    #[test]
    #[should_panic(expected = "out of range")]
    fn kind_seven_is_the_box() {
        let _ = Tagged::<u8>::blob(7, Blob::new(b"x").unwrap());
    }
}
