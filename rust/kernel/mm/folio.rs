// SPDX-License-Identifier: GPL-2.0

//! Folios.
//!
//! C header: [`include/linux/mm_types.h`](srctree/include/linux/mm_types.h)
//!
//! A [`Folio`] is only ever used by reference: it is the C `struct folio`,
//! which C owns. Who may do what with a folio depends on how it is held:
//!
//! - [`OwnedFolio`]: allocated here, holding the folio's only reference;
//!   dropping it frees the folio.
//! - [`UnlinkedFolio`]: a folio mm code hands over without a reference
//!   (hugetlb folios taken off the pool, for instance), on no list; whoever
//!   holds it must pass it on (to C, or onto a
//!   [`FolioList`](super::folio_list::FolioList)).
//!
//! Both are [`ListFolio`]s: a [`FolioList`](super::folio_list::FolioList)
//! of them links them through `folio->lru`, which their holder owns.

use crate::{
    alloc::{AllocError, Flags},
    bindings,
    page::PAGE_SHIFT,
    types::Opaque,
};
use core::{ops::Deref, ptr::NonNull};

/// A folio: one or 2^order physically contiguous pages, managed as one.
///
/// Only ever used by reference, `&Folio` standing for a `struct folio *`
/// that C keeps live for the reference's lifetime.
///
/// # Invariants
///
/// A `&Folio` points to a live `struct folio` (allocated, not freed) for
/// its whole lifetime.
///
/// # Examples
///
/// ```
/// use kernel::mm::folio::{Folio, OwnedFolio};
///
/// let owned = OwnedFolio::alloc(GFP_KERNEL, 2)?;
/// let folio: &Folio = &owned;
/// assert_eq!(folio.order(), 2);
/// assert_eq!(folio.nr_pages(), 4);
/// # Ok::<(), Error>(())
/// ```
#[repr(transparent)]
pub struct Folio(Opaque<bindings::folio>);

impl Folio {
    /// The folio `ptr` points to, borrowed for `'a`.
    ///
    /// # Safety
    ///
    /// `ptr` points to a `struct folio` that stays live during `'a`.
    ///
    /// # Examples
    ///
    /// ```
    /// use kernel::mm::folio::{Folio, OwnedFolio};
    ///
    /// let owned = OwnedFolio::alloc(GFP_KERNEL, 1)?;
    /// // SAFETY: `owned` keeps the folio live while `folio` is used.
    /// let folio = unsafe { Folio::from_raw(owned.as_ptr()) };
    /// assert_eq!(folio.order(), 1);
    /// assert!(core::ptr::eq(folio, &*owned));
    /// # Ok::<(), Error>(())
    /// ```
    pub unsafe fn from_raw<'a>(ptr: *mut bindings::folio) -> &'a Self {
        // SAFETY: `Folio` is a transparent wrapper of `struct folio`, and
        // the caller keeps the folio live during `'a`.
        // INVARIANT: live during `'a`, by the caller's promise.
        unsafe { &*ptr.cast::<Self>() }
    }

    /// The folio, for C.
    ///
    /// # Examples
    ///
    /// C, given the pointer, finds this folio (here: its order, which
    /// differs between the two):
    ///
    /// ```
    /// use kernel::{bindings, mm::folio::OwnedFolio};
    ///
    /// let small = OwnedFolio::alloc(GFP_KERNEL, 1)?;
    /// let large = OwnedFolio::alloc(GFP_KERNEL, 3)?;
    /// // SAFETY: `small` and `large` keep their folios live.
    /// let orders = unsafe {
    ///     (bindings::folio_order(small.as_ptr()), bindings::folio_order(large.as_ptr()))
    /// };
    /// assert_eq!(orders, (1, 3));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn as_ptr(&self) -> *mut bindings::folio {
        self.0.get()
    }

    /// The number of references to the folio (C: `folio_ref_count()`).
    ///
    /// # Examples
    ///
    /// ```
    /// use kernel::{bindings, mm::folio::OwnedFolio};
    ///
    /// let owned = OwnedFolio::alloc(GFP_KERNEL, 0)?;
    /// assert_eq!(owned.ref_count(), 1);
    /// // SAFETY: the folio is live; the reference taken here is put below.
    /// unsafe { bindings::folio_get(owned.as_ptr()) };
    /// assert_eq!(owned.ref_count(), 2);
    /// // SAFETY: puts the reference taken above; `owned` keeps its own.
    /// unsafe { bindings::folio_put(owned.as_ptr()) };
    /// assert_eq!(owned.ref_count(), 1);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn ref_count(&self) -> i32 {
        // SAFETY: the folio is live (type invariant).
        unsafe { bindings::folio_ref_count(self.as_ptr()) }
    }

    /// The order of the folio: it spans 2^order pages (C: `folio_order()`).
    ///
    /// # Examples
    ///
    /// ```
    /// use kernel::mm::folio::OwnedFolio;
    ///
    /// for order in 0..4 {
    ///     assert_eq!(OwnedFolio::alloc(GFP_KERNEL, order)?.order(), order);
    /// }
    /// # Ok::<(), Error>(())
    /// ```
    pub fn order(&self) -> u32 {
        // SAFETY: the folio is live (type invariant).
        unsafe { bindings::folio_order(self.as_ptr()) }
    }

    /// The number of pages of the folio (C: `folio_nr_pages()`).
    ///
    /// # Examples
    ///
    /// ```
    /// use kernel::mm::folio::OwnedFolio;
    ///
    /// assert_eq!(OwnedFolio::alloc(GFP_KERNEL, 0)?.nr_pages(), 1);
    /// assert_eq!(OwnedFolio::alloc(GFP_KERNEL, 3)?.nr_pages(), 8);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn nr_pages(&self) -> usize {
        1 << self.order()
    }

    /// The size of the folio in bytes (C: `folio_size()`).
    ///
    /// # Examples
    ///
    /// ```
    /// use kernel::{mm::folio::OwnedFolio, page::PAGE_SIZE};
    ///
    /// assert_eq!(OwnedFolio::alloc(GFP_KERNEL, 2)?.size(), 4 * PAGE_SIZE);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn size(&self) -> usize {
        self.nr_pages() << PAGE_SHIFT
    }
}

/// A way of holding a folio off every list that a
/// [`FolioList`](super::folio_list::FolioList) can keep.
///
/// The list takes the folio over with [`ListFolio::into_raw`] and links it
/// through its `lru` field; it gives it back with [`ListFolio::from_raw`].
///
/// # Safety
///
/// While a value exists, its folio is live, on no list, and its holder
/// alone uses the folio's `lru` field. [`ListFolio::into_raw`] hands over
/// that right with the folio; [`ListFolio::from_raw`] on what it returned
/// gives back the same kind of holding of the same folio.
///
/// # Examples
///
/// ```
/// use kernel::mm::folio::{ListFolio, OwnedFolio};
///
/// let folio = OwnedFolio::alloc(GFP_KERNEL, 0)?;
/// let ptr = folio.as_ptr();
/// let raw = folio.into_raw();
/// assert_eq!(raw.as_ptr(), ptr);
/// // SAFETY: `raw` comes from `OwnedFolio::into_raw` just above.
/// let folio = unsafe { OwnedFolio::from_raw(raw) };
/// assert_eq!(folio.as_ptr(), ptr);
/// # Ok::<(), Error>(())
/// ```
pub unsafe trait ListFolio: Deref<Target = Folio> + Sized {
    /// Gives up the holding, keeping the folio live for whoever takes it.
    ///
    /// # Examples
    ///
    /// See [`ListFolio`].
    fn into_raw(self) -> NonNull<bindings::folio>;

    /// Takes back a holding given up by [`ListFolio::into_raw`].
    ///
    /// # Safety
    ///
    /// The caller hands over `folio`, live, on no list, held the way this
    /// type holds folios: for example, returned by `into_raw` of this type
    /// and not taken back since.
    ///
    /// # Examples
    ///
    /// See [`ListFolio`].
    unsafe fn from_raw(folio: NonNull<bindings::folio>) -> Self;
}

/// A folio mm code handed over without a reference, on no list.
///
/// The kernel moves many folios this way: hugetlb folios taken off the
/// pool have no reference at all, and whoever took them must free them or
/// put them back. An `UnlinkedFolio` has no destructor: it must be passed
/// on, to C through [`ListFolio::into_raw`] or onto a
/// [`FolioList`](super::folio_list::FolioList).
///
/// # Invariants
///
/// `0` points to a live folio on no list; its holder alone uses its `lru`.
///
/// # Examples
///
/// ```
/// use kernel::mm::folio::{ListFolio, OwnedFolio, UnlinkedFolio};
///
/// let ptr = OwnedFolio::alloc(GFP_KERNEL, 1)?.into_raw();
/// // SAFETY: a live folio, on no list, handed over with its reference.
/// let folio = unsafe { UnlinkedFolio::from_c(ptr.as_ptr()) }.ok_or(EINVAL)?;
/// assert_eq!(folio.order(), 1);
/// let ptr = folio.into_raw();
/// // SAFETY: the folio still has the reference `OwnedFolio::into_raw` kept,
/// // and is on no list: held the way `OwnedFolio` holds folios.
/// drop(unsafe { OwnedFolio::from_raw(ptr) });
/// # Ok::<(), Error>(())
/// ```
pub struct UnlinkedFolio(NonNull<Folio>);

impl UnlinkedFolio {
    /// Takes over the folio `ptr` points to, or `None` for a null pointer.
    ///
    /// # Safety
    ///
    /// `ptr` is null or points to a live folio on no list, whose `lru`
    /// nothing else uses and which the caller hands over: whoever ends up
    /// with the `UnlinkedFolio` decides what becomes of the folio.
    ///
    /// # Examples
    ///
    /// ```
    /// use kernel::mm::folio::UnlinkedFolio;
    ///
    /// // SAFETY: a null pointer.
    /// assert!(unsafe { UnlinkedFolio::from_c(core::ptr::null_mut()) }.is_none());
    /// ```
    pub unsafe fn from_c(ptr: *mut bindings::folio) -> Option<Self> {
        // INVARIANT: by the caller's promise.
        NonNull::new(ptr.cast::<Folio>()).map(Self)
    }
}

impl Deref for UnlinkedFolio {
    type Target = Folio;

    fn deref(&self) -> &Folio {
        // SAFETY: the folio is live while this value exists (type
        // invariant), and the reference cannot outlive the value.
        unsafe { self.0.as_ref() }
    }
}

// SAFETY: the holder owns the folio's `lru` and nothing else of it, as the
// type invariant says; `into_raw` and `from_raw` hand exactly that over.
unsafe impl ListFolio for UnlinkedFolio {
    fn into_raw(self) -> NonNull<bindings::folio> {
        self.0.cast()
    }

    unsafe fn from_raw(folio: NonNull<bindings::folio>) -> Self {
        // INVARIANT: handed over, live and on no list, by the caller's
        // promise.
        Self(folio.cast())
    }
}

/// A folio allocated by Rust, holding its only reference.
///
/// Dropping it puts that reference, which frees the folio.
///
/// # Invariants
///
/// `0` points to a live folio allocated by [`OwnedFolio::alloc`], on no
/// list; this value owns one reference to it and alone uses its `lru`.
///
/// # Examples
///
/// ```
/// use kernel::mm::folio::OwnedFolio;
///
/// let a = OwnedFolio::alloc(GFP_KERNEL, 0)?;
/// let b = OwnedFolio::alloc(GFP_KERNEL, 0)?;
/// assert_ne!(a.as_ptr(), b.as_ptr());
/// # Ok::<(), Error>(())
/// ```
///
/// Dropping it puts its reference, seen here through a second one:
///
/// ```
/// use kernel::{bindings, mm::folio::{Folio, OwnedFolio}};
///
/// let owned = OwnedFolio::alloc(GFP_KERNEL, 0)?;
/// let ptr = owned.as_ptr();
/// // SAFETY: the folio is live; the reference taken here is put below.
/// unsafe { bindings::folio_get(ptr) };
/// assert_eq!(owned.ref_count(), 2);
/// drop(owned);
/// {
///     // SAFETY: the reference taken above keeps the folio live in this block.
///     let folio = unsafe { Folio::from_raw(ptr) };
///     assert_eq!(folio.ref_count(), 1);
/// }
/// // SAFETY: puts the reference taken above, the last one: frees the folio.
/// unsafe { bindings::folio_put(ptr) };
/// # Ok::<(), Error>(())
/// ```
pub struct OwnedFolio(NonNull<Folio>);

// SAFETY: a folio has no affinity to the task or CPU that allocated it, and
// the only reference is this value's, so it may be moved and freed anywhere.
unsafe impl Send for OwnedFolio {}

// SAFETY: `&OwnedFolio` only reads through `&Folio`, whose methods call C
// functions that may run concurrently.
unsafe impl Sync for OwnedFolio {}

impl OwnedFolio {
    /// Allocates a folio of 2^`order` pages (C: `folio_alloc()`).
    ///
    /// # Examples
    ///
    /// With `__GFP_ZERO` every byte reads zero.  A folio of the same order
    /// is dirtied and freed first: the next allocation on this CPU most
    /// often gets the same pages back (the per-cpu free lists are LIFO), so
    /// the zeroing is seen on memory that was not zero.
    ///
    /// ```
    /// use kernel::{bindings, mm::folio::OwnedFolio};
    ///
    /// let dirty = OwnedFolio::alloc(GFP_KERNEL, 2)?;
    /// // SAFETY: the folio is live and ours alone; a folio of `GFP_KERNEL`
    /// // is in the direct map, at `folio_address()`, `size()` bytes long.
    /// unsafe {
    ///     let p = bindings::folio_address(dirty.as_ptr()).cast::<u8>();
    ///     core::ptr::write_bytes(p, 0xa5, dirty.size());
    /// }
    /// drop(dirty);
    ///
    /// let folio = OwnedFolio::alloc(GFP_KERNEL | __GFP_ZERO, 2)?;
    /// assert_eq!(folio.nr_pages(), 4);
    /// // SAFETY: as above; `folio` outlives the slice.
    /// let bytes = unsafe {
    ///     let p = bindings::folio_address(folio.as_ptr()).cast::<u8>();
    ///     core::slice::from_raw_parts(p, folio.size())
    /// };
    /// assert!(bytes.iter().all(|&b| b == 0));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn alloc(flags: Flags, order: u32) -> Result<Self, AllocError> {
        // SAFETY: may sleep, depending on `flags`; always safe to call.
        let folio = unsafe { bindings::folio_alloc(flags.as_raw(), order) };
        // INVARIANT: a new folio, on no list, whose one reference is ours.
        NonNull::new(folio.cast::<Folio>())
            .map(Self)
            .ok_or(AllocError)
    }
}

impl Deref for OwnedFolio {
    type Target = Folio;

    fn deref(&self) -> &Folio {
        // SAFETY: the folio is live while this value holds its reference
        // (type invariant), and the reference cannot outlive the value.
        unsafe { self.0.as_ref() }
    }
}

impl Drop for OwnedFolio {
    fn drop(&mut self) {
        // SAFETY: this value owns a reference to the live folio (type
        // invariant) and puts it once, here.
        unsafe { bindings::folio_put(self.as_ptr()) };
    }
}

// SAFETY: `into_raw` keeps the reference for `from_raw`, which takes it
// back; the folio stays live in between, and its `lru` is the holder's.
unsafe impl ListFolio for OwnedFolio {
    fn into_raw(self) -> NonNull<bindings::folio> {
        let folio = self.0.cast();
        core::mem::forget(self);
        folio
    }

    unsafe fn from_raw(folio: NonNull<bindings::folio>) -> Self {
        // INVARIANT: handed over with a reference (the caller's promise:
        // held the way `OwnedFolio` holds folios), live and on no list.
        Self(folio.cast())
    }
}
