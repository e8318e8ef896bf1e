// SPDX-License-Identifier: GPL-2.0

//! C `list_head` lists of folios linked through `folio->lru`.
//!
//! mm code hands folios around on such lists; [`FolioList`] gives Rust
//! safe iteration and pop over one it has exclusive use of, and
//! [`ListHeadStorage`] a list head of its own on the stack, which C
//! functions can move folios to through [`FolioList::as_raw`].

use core::cell::UnsafeCell;
use core::marker::{PhantomData, PhantomPinned};
use core::mem::offset_of;
use core::pin::Pin;
use core::ptr::NonNull;
use kernel::bindings;

/// Offset of `lru` in `struct folio`.
const LRU_OFFSET: usize = offset_of!(
    bindings::folio,
    __bindgen_anon_1.__bindgen_anon_1.__bindgen_anon_1.lru
);

/// A folio on a [`FolioList`].
///
/// # Invariants
///
/// `0` points to a live folio.
#[derive(Clone, Copy)]
pub(crate) struct Folio(NonNull<bindings::folio>);

impl Folio {
    /// The folio whose `lru` field `entry` is.
    ///
    /// # Safety
    ///
    /// `entry` points to the `lru` field of a live folio.
    unsafe fn from_lru(entry: NonNull<bindings::list_head>) -> Self {
        // SAFETY: `entry` is the `lru` field of a folio, `LRU_OFFSET` bytes
        // into it, by the caller's promise; so the result is that folio,
        // not null.
        let folio = unsafe { NonNull::new_unchecked(entry.as_ptr().cast::<u8>().sub(LRU_OFFSET)) };
        // INVARIANT: the folio is live by the caller's promise.
        Self(folio.cast())
    }

    /// The folio, for C.
    pub(crate) fn as_ptr(self) -> *mut bindings::folio {
        self.0.as_ptr()
    }
}

/// A folio taken off its list, on none now, owned by whoever holds it.
///
/// # Invariants
///
/// The folio is live and on no list; its `lru` links to itself.
pub(crate) struct UnlinkedFolio(Folio);

impl UnlinkedFolio {
    /// The folio.
    pub(crate) fn folio(&self) -> Folio {
        self.0
    }

    /// The folio, for C.
    pub(crate) fn as_ptr(&self) -> *mut bindings::folio {
        self.0.as_ptr()
    }
}

/// Storage for a list head owned by Rust, pinned once a list uses it.
pub(crate) struct ListHeadStorage {
    head: UnsafeCell<bindings::list_head>,
    _pin: PhantomPinned,
}

impl ListHeadStorage {
    /// Storage for an empty list; [`FolioList::new_in`] initialises it.
    pub(crate) const fn new() -> Self {
        Self {
            head: UnsafeCell::new(bindings::list_head {
                next: core::ptr::null_mut(),
                prev: core::ptr::null_mut(),
            }),
            _pin: PhantomPinned,
        }
    }
}

/// A list of folios linked through `folio->lru`, used exclusively.
///
/// # Invariants
///
/// `head` points to an initialised `list_head`; every other entry of the
/// list is the `lru` field of a live folio; during `'a` nothing but this
/// value reads or changes the list or its entries' links.
pub(crate) struct FolioList<'a> {
    head: NonNull<bindings::list_head>,
    _p: PhantomData<&'a mut bindings::list_head>,
}

/// Points the two neighbours `prev` and `next` at each other.
///
/// # Safety
///
/// Both are entries of one list the caller has exclusive use of.
unsafe fn link(prev: NonNull<bindings::list_head>, next: NonNull<bindings::list_head>) {
    // SAFETY: both entries are valid and ours by the caller's promise.
    unsafe {
        (*prev.as_ptr()).next = next.as_ptr();
        (*next.as_ptr()).prev = prev.as_ptr();
    }
}

impl<'a> FolioList<'a> {
    /// Uses the C list at `head`.
    ///
    /// # Safety
    ///
    /// `head` is null or points to an initialised list of folios linked by
    /// `lru`, which nothing else reads or changes during `'a`.
    pub(crate) unsafe fn from_raw(head: *mut bindings::list_head) -> Option<Self> {
        // INVARIANT: by the caller's promise.
        NonNull::new(head).map(|head| Self {
            head,
            _p: PhantomData,
        })
    }

    /// A new empty list in `storage`.
    pub(crate) fn new_in(storage: Pin<&'a mut ListHeadStorage>) -> Self {
        let head = Pin::into_ref(storage).get_ref().head.get();
        // SAFETY: `head` points into the storage, which is pinned (it stays
        // where it is while the list links to it) and borrowed exclusively
        // for `'a`.
        unsafe {
            (*head).next = head;
            (*head).prev = head;
        }
        // INVARIANT: an empty, initialised list that only this value uses.
        Self {
            // SAFETY: `head` comes from a reference, so it is not null.
            head: unsafe { NonNull::new_unchecked(head) },
            _p: PhantomData,
        }
    }

    /// The list head, for C functions that move folios between lists.
    pub(crate) fn as_raw(&mut self) -> *mut bindings::list_head {
        self.head.as_ptr()
    }

    fn next_of(&self, entry: NonNull<bindings::list_head>) -> NonNull<bindings::list_head> {
        // SAFETY: `entry` is an entry of this list (head included), valid
        // by the type invariant; an initialised list has no null links.
        unsafe { NonNull::new_unchecked((*entry.as_ptr()).next) }
    }

    /// Whether the list holds no folio.
    pub(crate) fn is_empty(&self) -> bool {
        self.next_of(self.head) == self.head
    }

    /// Takes the first folio off the list.
    pub(crate) fn pop_front(&mut self) -> Option<UnlinkedFolio> {
        let entry = self.next_of(self.head);
        if entry == self.head {
            return None;
        }
        let next = self.next_of(entry);
        // SAFETY: `head`, `entry` and `next` are consecutive entries of
        // this list, which is ours (type invariant).
        unsafe {
            link(self.head, next);
            link(entry, entry);
        }
        // SAFETY: every entry but the head is the `lru` field of a live
        // folio (type invariant).
        let folio = unsafe { Folio::from_lru(entry) };
        // INVARIANT: unlinked above, its `lru` points to itself.
        Some(UnlinkedFolio(folio))
    }

    /// The folios of the list, first to last.
    pub(crate) fn iter(&self) -> Iter<'_> {
        Iter {
            head: self.head,
            next: self.next_of(self.head),
            _p: PhantomData,
        }
    }
}

/// Iterator over the folios of a [`FolioList`], which it borrows.
pub(crate) struct Iter<'a> {
    head: NonNull<bindings::list_head>,
    next: NonNull<bindings::list_head>,
    _p: PhantomData<&'a bindings::list_head>,
}

impl Iterator for Iter<'_> {
    type Item = Folio;

    fn next(&mut self) -> Option<Folio> {
        if self.next == self.head {
            return None;
        }
        let entry = self.next;
        // SAFETY: the list is borrowed, so unchanged, and `entry` is one of
        // its entries, valid with non-null links.
        self.next = unsafe { NonNull::new_unchecked((*entry.as_ptr()).next) };
        // SAFETY: every entry but the head is the `lru` field of a live
        // folio (invariant of the borrowed list).
        Some(unsafe { Folio::from_lru(entry) })
    }
}
