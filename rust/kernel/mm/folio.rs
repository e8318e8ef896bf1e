// SPDX-License-Identifier: GPL-2.0

//! Folios.
//!
//! C header: [`include/linux/mm_types.h`](srctree/include/linux/mm_types.h)
//!
//! A [`Folio`] is the C `struct folio`, which C owns and counts references
//! to: Rust holds one as [`ARef<Folio>`] (a counted reference, put when
//! dropped) or borrows one as `&Folio` while a reference is held.  Folios
//! whose count is frozen at zero (hugetlb's pool folios, for one) are not
//! `Folio`s: code that handles them has a type of its own for them.
//!
//! A counted reference does not give the use of the folio's `lru` field:
//! other holders may have the folio on a list of their own.  An
//! [`OwnedFolio`] is a counted reference that does: the folio is on no list
//! and only its holder links it, so it is a [`ListFolio`], which a
//! [`FolioList`](super::folio_list::FolioList) can keep.

use crate::{
    alloc::Flags,
    bindings,
    error::{code::*, Result},
    page::PAGE_SHIFT,
    types::{ARef, AlwaysRefCounted, Opaque},
};
use core::{ops::Deref, ptr::NonNull};

/// The largest order a folio can have (C: `MAX_PAGE_ORDER`).
pub const MAX_PAGE_ORDER: u32 = bindings::MMRUST_MAX_PAGE_ORDER;

/// A folio: one or 2^order physically contiguous pages, managed as one.
///
/// Used by reference, `&Folio` standing for a `struct folio *` on which a
/// reference is held for the reference's lifetime, or held as an
/// [`ARef<Folio>`], which counts a reference to it.
///
/// # Invariants
///
/// A `&Folio` points to a live `struct folio` (allocated, not freed) whose
/// reference count stays above zero for its whole lifetime, managed by
/// `folio_get()`/`folio_put()`.
///
/// # Examples
///
/// ```
/// use kernel::{mm::folio::{Folio, OwnedFolio}, types::ARef};
///
/// let owned = OwnedFolio::alloc(GFP_KERNEL, 2)?;
/// let folio: &Folio = &owned;
/// assert_eq!(folio.order(), 2);
/// assert_eq!(folio.nr_pages(), 4);
/// // A second counted reference, put when it is dropped.
/// let second: ARef<Folio> = ARef::from(folio);
/// assert_eq!(second.ref_count(), 2);
/// drop(second);
/// assert_eq!(owned.ref_count(), 1);
/// # Ok::<(), Error>(())
/// ```
#[repr(transparent)]
pub struct Folio(Opaque<bindings::folio>);

// SAFETY: a folio has no affinity to the task or CPU that holds it: C takes
// and puts references to it, and frees it, from any context, so an
// `ARef<Folio>` may move to another thread.
unsafe impl Send for Folio {}

// SAFETY: `&Folio` only reads the folio through C functions
// (`folio_ref_count()`, `folio_order()`) and takes references with the
// atomic `folio_get()`, all of which may run concurrently on one folio.
unsafe impl Sync for Folio {}

// SAFETY: `folio_get()` and `folio_put()` count references to the folio,
// which stays live until the last one is put; a `Folio` always has a
// counted reference (type invariant), so taking one more is allowed.
unsafe impl AlwaysRefCounted for Folio {
    #[inline]
    fn inc_ref(&self) {
        // SAFETY: the folio is live (type invariant), so a reference to it
        // can be taken.
        unsafe { bindings::folio_get(self.as_ptr()) };
    }

    #[inline]
    unsafe fn dec_ref(obj: NonNull<Self>) {
        // SAFETY: the caller owns a reference to the folio, put once here.
        unsafe { bindings::folio_put(obj.cast::<bindings::folio>().as_ptr()) };
    }
}

impl Folio {
    /// The folio `ptr` points to, borrowed for `'a`.
    ///
    /// # Safety
    ///
    /// `ptr` points to a `struct folio` on which a reference is held during
    /// `'a` (its count stays above zero).
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
    /// // A borrow: no reference is taken (and none put when it ends).
    /// assert_eq!(folio.ref_count(), 1);
    /// # Ok::<(), Error>(())
    /// ```
    #[inline]
    pub unsafe fn from_raw<'a>(ptr: *mut bindings::folio) -> &'a Self {
        // SAFETY: `Folio` is a transparent wrapper of `struct folio`, and
        // the caller keeps the folio live during `'a`.
        // INVARIANT: live and counted during `'a`, by the caller's promise.
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
    #[inline]
    pub fn as_ptr(&self) -> *mut bindings::folio {
        self.0.get()
    }

    /// The number of references to the folio (C: `folio_ref_count()`).
    ///
    /// # Examples
    ///
    /// ```
    /// use kernel::{mm::folio::{Folio, OwnedFolio}, types::ARef};
    ///
    /// let owned = OwnedFolio::alloc(GFP_KERNEL, 0)?;
    /// assert_eq!(owned.ref_count(), 1);
    /// let more: [ARef<Folio>; 2] = [ARef::from(&*owned), ARef::from(&*owned)];
    /// assert_eq!(owned.ref_count(), 3);
    /// drop(more);
    /// assert_eq!(owned.ref_count(), 1);
    /// # Ok::<(), Error>(())
    /// ```
    #[inline]
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
    #[inline]
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
    #[inline]
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
    #[inline]
    pub fn size(&self) -> usize {
        self.nr_pages() << PAGE_SHIFT
    }
}

/// A way of holding a folio off every list that a
/// [`FolioList`](super::folio_list::FolioList) can keep.
///
/// The list takes the folio over with [`ListFolio::into_raw`] and links it
/// through its `lru` field; it gives it back with [`ListFolio::from_raw`],
/// and lends it out meanwhile as [`ListFolio::borrow_raw`] says: a counted
/// holding lends a [`Folio`], an uncounted one a type of its own.
///
/// # Safety
///
/// While a value exists, its folio is live, on no list, and its holder
/// alone uses the folio's `lru` field. [`ListFolio::into_raw`] hands over
/// that right with the folio; [`ListFolio::from_raw`] on what it returned
/// gives back the same kind of holding of the same folio, and
/// [`ListFolio::borrow_raw`] on it the reference `Deref` would give.
///
/// # Examples
///
/// The reference goes with the raw folio and comes back with it, seen
/// through a second reference:
///
/// ```
/// use kernel::{
///     mm::folio::{Folio, ListFolio, OwnedFolio},
///     types::ARef,
/// };
///
/// let folio = OwnedFolio::alloc(GFP_KERNEL, 0)?;
/// let watch: ARef<Folio> = ARef::from(&*folio);
/// let raw = folio.into_raw();
/// // Not put by `into_raw`: still the holding's and the watch's.
/// assert_eq!(watch.ref_count(), 2);
/// // SAFETY: `raw` comes from `OwnedFolio::into_raw` just above.
/// let folio = unsafe { OwnedFolio::from_raw(raw) };
/// // Not taken again by `from_raw` either, and put once when dropped.
/// assert_eq!(watch.ref_count(), 2);
/// drop(folio);
/// assert_eq!(watch.ref_count(), 1);
/// # Ok::<(), Error>(())
/// ```
pub unsafe trait ListFolio: Deref + Sized {
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

    /// What a holding of `folio` derefs to, borrowed for `'a` without
    /// taking the folio over: what a list lends out of the folios it holds.
    ///
    /// # Safety
    ///
    /// `folio` is held the way this type holds folios (by a list, for
    /// example) for all of `'a`.
    ///
    /// # Examples
    ///
    /// ```
    /// use kernel::mm::folio::{ListFolio, OwnedFolio};
    ///
    /// let folio = OwnedFolio::alloc(GFP_KERNEL, 3)?;
    /// let raw = folio.into_raw();
    /// // SAFETY: `raw` is held as an `OwnedFolio` until taken back below.
    /// assert_eq!(unsafe { OwnedFolio::borrow_raw(raw) }.order(), 3);
    /// // SAFETY: `raw` comes from `OwnedFolio::into_raw` above.
    /// drop(unsafe { OwnedFolio::from_raw(raw) });
    /// # Ok::<(), Error>(())
    /// ```
    unsafe fn borrow_raw<'a>(folio: NonNull<bindings::folio>) -> &'a Self::Target;
}

/// A counted reference to a folio on no list, whose `lru` only its holder
/// uses: what [`OwnedFolio::alloc`] returns, and what a
/// [`FolioList`](super::folio_list::FolioList) of them keeps.
///
/// Dropping it puts its reference, which frees the folio if it was the
/// last. [`From`] turns it into a plain [`ARef<Folio>`], which gives up the
/// use of `lru`; there is no way back but [`ListFolio::from_raw`], whose
/// caller promises it.
///
/// # Invariants
///
/// `0` counts a reference to a live folio that is on no list, whose `lru`
/// field nothing but this value uses.
///
/// # Examples
///
/// ```
/// use kernel::{
///     mm::folio::{Folio, OwnedFolio},
///     types::ARef,
/// };
///
/// // Two allocations are two folios: a reference taken on one is not on
/// // the other.
/// let a = OwnedFolio::alloc(GFP_KERNEL, 0)?;
/// let b = OwnedFolio::alloc(GFP_KERNEL, 0)?;
/// let watch: ARef<Folio> = ARef::from(&*a);
/// assert_eq!((a.ref_count(), b.ref_count()), (2, 1));
/// drop(watch);
/// # Ok::<(), Error>(())
/// ```
///
/// Dropping it puts its reference, seen here through a second one:
///
/// ```
/// use kernel::{mm::folio::{Folio, OwnedFolio}, types::ARef};
///
/// let owned = OwnedFolio::alloc(GFP_KERNEL, 0)?;
/// let watch: ARef<Folio> = ARef::from(&*owned);
/// assert_eq!(watch.ref_count(), 2);
/// drop(owned);
/// assert_eq!(watch.ref_count(), 1);
/// # Ok::<(), Error>(())
/// ```
pub struct OwnedFolio(ARef<Folio>);

impl OwnedFolio {
    /// Allocates a folio of 2^`order` pages (C: `folio_alloc()`).
    ///
    /// Returns `EINVAL` for an order above [`MAX_PAGE_ORDER`], without
    /// asking the allocator (which would warn), and `ENOMEM` when there is
    /// no memory.
    ///
    /// # Examples
    ///
    /// ```
    /// use kernel::mm::folio::{OwnedFolio, MAX_PAGE_ORDER};
    ///
    /// assert_eq!(OwnedFolio::alloc(GFP_KERNEL, MAX_PAGE_ORDER + 1).err(), Some(EINVAL));
    /// assert_eq!(OwnedFolio::alloc(GFP_KERNEL, u32::MAX).err(), Some(EINVAL));
    /// assert_eq!(OwnedFolio::alloc(GFP_KERNEL, 1)?.order(), 1);
    /// # Ok::<(), Error>(())
    /// ```
    ///
    /// With `__GFP_ZERO` every byte reads zero, also on pages that were
    /// dirty when freed.  A folio of the same order is dirtied and freed
    /// first, a hundred times: the next allocation on this CPU most often
    /// gets the same pages back (the per-cpu free lists are LIFO), and the
    /// test requires that it did at least once.  (With `init_on_free=1`
    /// freed pages are zero anyway; the boots without it are the test.)
    ///
    /// ```
    /// use kernel::{bindings, mm::folio::OwnedFolio};
    ///
    /// let mut reused = 0;
    /// for _ in 0..100 {
    ///     let dirty = OwnedFolio::alloc(GFP_KERNEL, 2)?;
    ///     // SAFETY: the folio is live and ours alone; a folio of
    ///     // `GFP_KERNEL` is in the direct map, at `folio_address()`,
    ///     // `size()` bytes long.
    ///     unsafe {
    ///         let p = bindings::folio_address(dirty.as_ptr()).cast::<u8>();
    ///         core::ptr::write_bytes(p, 0xa5, dirty.size());
    ///     }
    ///     let was = dirty.as_ptr();
    ///     drop(dirty);
    ///
    ///     let folio = OwnedFolio::alloc(GFP_KERNEL | __GFP_ZERO, 2)?;
    ///     assert_eq!(folio.nr_pages(), 4);
    ///     // SAFETY: as above; `folio` outlives the slice.
    ///     let bytes = unsafe {
    ///         let p = bindings::folio_address(folio.as_ptr()).cast::<u8>();
    ///         core::slice::from_raw_parts(p, folio.size())
    ///     };
    ///     assert!(bytes.iter().all(|&b| b == 0));
    ///     reused += usize::from(core::ptr::eq(folio.as_ptr(), was));
    /// }
    /// // The dirtied pages came back at least once.
    /// assert!(reused > 0);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn alloc(flags: Flags, order: u32) -> Result<Self> {
        if order > MAX_PAGE_ORDER {
            return Err(EINVAL);
        }
        // SAFETY: may sleep, depending on `flags`; the order is one the
        // allocator serves.
        let folio = unsafe { bindings::folio_alloc(flags.as_raw(), order) };
        let folio = NonNull::new(folio.cast::<Folio>()).ok_or(ENOMEM)?;
        // SAFETY: a new folio comes with one reference, handed over here.
        // INVARIANT: a new folio is on no list; its `lru` is ours.
        Ok(Self(unsafe { ARef::from_raw(folio) }))
    }
}

impl Deref for OwnedFolio {
    type Target = Folio;

    #[inline]
    fn deref(&self) -> &Folio {
        &self.0
    }
}

impl From<OwnedFolio> for ARef<Folio> {
    /// Keeps the reference, giving up the use of `lru`.
    ///
    /// # Examples
    ///
    /// ```
    /// use kernel::{mm::folio::{Folio, OwnedFolio}, types::ARef};
    ///
    /// let owned = OwnedFolio::alloc(GFP_KERNEL, 1)?;
    /// let ptr = owned.as_ptr();
    /// let shared: ARef<Folio> = owned.into();
    /// assert_eq!((shared.as_ptr(), shared.ref_count()), (ptr, 1));
    /// # Ok::<(), Error>(())
    /// ```
    #[inline]
    fn from(folio: OwnedFolio) -> Self {
        folio.0
    }
}

// SAFETY: `into_raw` keeps the reference for `from_raw`, which takes it
// back; the folio stays live in between, and its `lru` is the holder's.
unsafe impl ListFolio for OwnedFolio {
    #[inline]
    fn into_raw(self) -> NonNull<bindings::folio> {
        ARef::into_raw(self.0).cast()
    }

    #[inline]
    unsafe fn from_raw(folio: NonNull<bindings::folio>) -> Self {
        // SAFETY: handed over with a reference (the caller's promise: held
        // the way `OwnedFolio` holds folios).
        // INVARIANT: live, on no list, its `lru` ours, by the same promise.
        Self(unsafe { ARef::from_raw(folio.cast()) })
    }

    #[inline]
    unsafe fn borrow_raw<'a>(folio: NonNull<bindings::folio>) -> &'a Folio {
        // SAFETY: held as an `OwnedFolio` during `'a` (the caller's
        // promise), which counts a reference to it.
        unsafe { Folio::from_raw(folio.as_ptr()) }
    }
}
