// SPDX-License-Identifier: GPL-2.0

//! C `list_head` lists of folios linked through `folio->lru`.
//!
//! C header: [`include/linux/list.h`](srctree/include/linux/list.h)
//!
//! mm code hands folios around on such lists (the hugetlb pool, folios
//! isolated for migration or reclaim, a batch to free). [`FolioList`] is
//! the exclusive use of one: iteration, push, pop, and the raw head for C
//! functions that move folios between lists. The list is either C's
//! ([`FolioList::from_raw`]) or Rust's, in a pinned [`ListHeadStorage`]
//! ([`FolioList::new_in`]), which frees what is still on it when dropped.
//!
//! The kernel crate's own [`List`](crate::list::List) links Rust objects
//! through a field they embed; folios are C objects linked through `lru`,
//! so they get a list of their own.

use super::folio::{Folio, ListFolio};
use crate::bindings;
use core::{
    cell::UnsafeCell,
    marker::{PhantomData, PhantomPinned},
    mem::offset_of,
    pin::Pin,
    ptr::NonNull,
};

/// Offset of `lru` in `struct folio`.
const LRU_OFFSET: usize = offset_of!(
    bindings::folio,
    __bindgen_anon_1.__bindgen_anon_1.__bindgen_anon_1.lru
);

/// The `lru` field of `folio`.
fn lru_of(folio: NonNull<bindings::folio>) -> NonNull<bindings::list_head> {
    // SAFETY: `lru` is `LRU_OFFSET` bytes into a folio, so the result is
    // inside the same object, not null.
    unsafe { NonNull::new_unchecked(folio.as_ptr().cast::<u8>().add(LRU_OFFSET).cast()) }
}

/// The folio whose `lru` field is `entry`.
///
/// # Safety
///
/// `entry` is the `lru` field of a folio.
unsafe fn folio_of(entry: NonNull<bindings::list_head>) -> NonNull<bindings::folio> {
    // SAFETY: `entry` is `LRU_OFFSET` bytes into a folio (the caller's
    // promise), so the result is the start of that folio, not null.
    unsafe { NonNull::new_unchecked(entry.as_ptr().cast::<u8>().sub(LRU_OFFSET).cast()) }
}

/// Points the neighbours `prev` and `next` at each other.
///
/// # Safety
///
/// Both are valid entries (or heads) the caller has exclusive use of.
unsafe fn link(prev: NonNull<bindings::list_head>, next: NonNull<bindings::list_head>) {
    // SAFETY: both are valid and ours, by the caller's promise.
    unsafe {
        (*prev.as_ptr()).next = next.as_ptr();
        (*next.as_ptr()).prev = prev.as_ptr();
    }
}

/// Storage for a list head owned by Rust, pinned once a list uses it.
///
/// Dropping it drops every folio still on the list (an [`OwnedFolio`] is
/// freed then), so a list in Rust storage never outlives its head.
///
/// [`OwnedFolio`]: super::folio::OwnedFolio
///
/// # Invariants
///
/// `head` is all null until a [`FolioList`] initialises it; from then on
/// it is the head of a list of `T`s.
///
/// # Examples
///
/// ```
/// use core::pin::pin;
/// use kernel::{
///     bindings,
///     mm::{folio::{Folio, OwnedFolio}, folio_list::{FolioList, ListHeadStorage}},
/// };
///
/// let folio = OwnedFolio::alloc(GFP_KERNEL, 0)?;
/// let ptr = folio.as_ptr();
/// // SAFETY: the folio is live; the reference taken here (to watch the
/// // list's) is put below.
/// unsafe { bindings::folio_get(ptr) };
/// {
///     let mut storage = pin!(ListHeadStorage::<OwnedFolio>::new());
///     let mut list = FolioList::new_in(storage.as_mut());
///     list.push_back(folio);
///     // The list ends here; the storage keeps the folio ...
///     let list = FolioList::new_in(storage.as_mut());
///     assert!(!list.is_empty());
///     // SAFETY: the reference taken above keeps the folio live.
///     assert_eq!(unsafe { Folio::from_raw(ptr) }.ref_count(), 2);
/// }
/// // ... and drops it when it goes out of scope: its reference is put.
/// // SAFETY: the reference taken above keeps the folio live.
/// assert_eq!(unsafe { Folio::from_raw(ptr) }.ref_count(), 1);
/// // SAFETY: puts the reference taken above, the last one.
/// unsafe { bindings::folio_put(ptr) };
/// # Ok::<(), Error>(())
/// ```
pub struct ListHeadStorage<T: ListFolio> {
    head: UnsafeCell<bindings::list_head>,
    _p: PhantomData<T>,
    _pin: PhantomPinned,
}

impl<T: ListFolio> ListHeadStorage<T> {
    /// Storage for an empty list; [`FolioList::new_in`] initialises it.
    ///
    /// # Examples
    ///
    /// See [`ListHeadStorage`].
    pub const fn new() -> Self {
        // INVARIANT: all null, not in use yet.
        Self {
            head: UnsafeCell::new(bindings::list_head {
                next: core::ptr::null_mut(),
                prev: core::ptr::null_mut(),
            }),
            _p: PhantomData,
            _pin: PhantomPinned,
        }
    }
}

impl<T: ListFolio> Default for ListHeadStorage<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: ListFolio> Drop for ListHeadStorage<T> {
    fn drop(&mut self) {
        let head = self.head.get();
        // SAFETY: no `FolioList` borrows the storage any more (it is being
        // dropped), so its head is ours to read.
        if unsafe { (*head).next }.is_null() {
            return;
        }
        // SAFETY: an initialised head of a list of `T`s (type invariant),
        // ours until the end of this function.
        if let Some(mut list) = unsafe { FolioList::<T>::from_raw(head) } {
            while let Some(folio) = list.pop_front() {
                drop(folio);
            }
        }
    }
}

/// A list of folios linked through `folio->lru`, used exclusively.
///
/// # Invariants
///
/// `head` points to an initialised `list_head`; every other entry of the
/// list is the `lru` field of a folio the list holds as a `T` (taken over
/// with [`ListFolio::into_raw`]); during `'a` nothing but this value reads
/// or changes the list or its entries' links.
///
/// # Examples
///
/// Build a list of folios, walk it, and take them off in order:
///
/// ```
/// use core::pin::pin;
/// use kernel::mm::{folio::OwnedFolio, folio_list::{FolioList, ListHeadStorage}};
///
/// let storage = pin!(ListHeadStorage::new());
/// let mut list = FolioList::new_in(storage);
/// for order in [0, 2, 1] {
///     list.push_back(OwnedFolio::alloc(GFP_KERNEL, order)?);
/// }
/// let orders: [u32; 3] = core::array::from_fn(|i| list.iter().nth(i).map_or(9, |f| f.order()));
/// assert_eq!(orders, [0, 2, 1]);
/// assert_eq!(list.iter().map(|f| f.nr_pages()).sum::<usize>(), 7);
///
/// assert_eq!(list.pop_front().map(|f| f.order()), Some(0));
/// assert_eq!(list.pop_front().map(|f| f.order()), Some(2));
/// assert_eq!(list.pop_front().map(|f| f.order()), Some(1));
/// assert!(list.pop_front().is_none());
/// assert!(list.is_empty());
/// # Ok::<(), Error>(())
/// ```
pub struct FolioList<'a, T: ListFolio> {
    head: NonNull<bindings::list_head>,
    _p: PhantomData<(&'a mut bindings::list_head, T)>,
}

impl<'a, T: ListFolio> FolioList<'a, T> {
    /// Uses the C list at `head`, or `None` for a null pointer.
    ///
    /// # Safety
    ///
    /// `head` is null or points to an initialised list whose entries are
    /// the `lru` fields of folios held as `T`s, handed over to the
    /// `FolioList`; nothing else reads or changes the list during `'a`.
    ///
    /// # Examples
    ///
    /// A list C gives (here: built by Rust, then used through its head):
    ///
    /// ```
    /// use core::pin::pin;
    /// use kernel::mm::{folio::OwnedFolio, folio_list::{FolioList, ListHeadStorage}};
    ///
    /// let storage = pin!(ListHeadStorage::new());
    /// let mut rust_list = FolioList::new_in(storage);
    /// rust_list.push_back(OwnedFolio::alloc(GFP_KERNEL, 0)?);
    /// let head = rust_list.as_raw();
    /// // SAFETY: a list of `OwnedFolio`s, not used by `rust_list` while
    /// // `c_list` is.
    /// let mut c_list = unsafe { FolioList::<OwnedFolio>::from_raw(head) }.ok_or(EINVAL)?;
    /// assert!(c_list.pop_front().is_some());
    /// assert!(rust_list.is_empty());
    /// # Ok::<(), Error>(())
    /// ```
    pub unsafe fn from_raw(head: *mut bindings::list_head) -> Option<Self> {
        // INVARIANT: by the caller's promise.
        NonNull::new(head).map(|head| Self {
            head,
            _p: PhantomData,
        })
    }

    /// The list in `storage`: empty the first time, and what the last list
    /// in the same storage left on it after that.
    ///
    /// # Examples
    ///
    /// ```
    /// use core::pin::pin;
    /// use kernel::mm::{folio::OwnedFolio, folio_list::{FolioList, ListHeadStorage}};
    ///
    /// let storage = pin!(ListHeadStorage::new());
    /// let list = FolioList::<OwnedFolio>::new_in(storage);
    /// assert!(list.is_empty());
    /// ```
    pub fn new_in(storage: Pin<&'a mut ListHeadStorage<T>>) -> Self {
        let head = Pin::into_ref(storage).get_ref().head.get();
        // SAFETY: `head` points into the storage, which is pinned (it stays
        // where it is while folios link to it) and borrowed exclusively for
        // `'a`.
        unsafe {
            if (*head).next.is_null() {
                (*head).next = head;
                (*head).prev = head;
            }
        }
        // INVARIANT: an initialised list of `T`s (the storage's invariant),
        // used by this value only during `'a`.
        Self {
            // SAFETY: `head` comes from a reference, so it is not null.
            head: unsafe { NonNull::new_unchecked(head) },
            _p: PhantomData,
        }
    }

    /// The list head, for C functions that move folios between lists.
    ///
    /// Whatever C puts on the list must be held as a `T`.
    ///
    /// # Examples
    ///
    /// See [`FolioList::from_raw`].
    pub fn as_raw(&mut self) -> *mut bindings::list_head {
        self.head.as_ptr()
    }

    fn next_of(&self, entry: NonNull<bindings::list_head>) -> NonNull<bindings::list_head> {
        // SAFETY: `entry` is an entry of this list (head included), valid
        // by the type invariant; an initialised list has no null links.
        unsafe { NonNull::new_unchecked((*entry.as_ptr()).next) }
    }

    /// Whether the list holds no folio (C: `list_empty()`).
    ///
    /// # Examples
    ///
    /// ```
    /// use core::pin::pin;
    /// use kernel::mm::{folio::OwnedFolio, folio_list::{FolioList, ListHeadStorage}};
    ///
    /// let storage = pin!(ListHeadStorage::new());
    /// let mut list = FolioList::new_in(storage);
    /// assert!(list.is_empty());
    /// list.push_back(OwnedFolio::alloc(GFP_KERNEL, 0)?);
    /// assert!(!list.is_empty());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.next_of(self.head) == self.head
    }

    /// Puts a folio at the end of the list (C: `list_add_tail()`).
    ///
    /// # Examples
    ///
    /// Move folios from one list to another:
    ///
    /// ```
    /// use core::pin::pin;
    /// use kernel::mm::{folio::OwnedFolio, folio_list::{FolioList, ListHeadStorage}};
    ///
    /// let storage_from = pin!(ListHeadStorage::new());
    /// let mut from = FolioList::new_in(storage_from);
    /// let storage_to = pin!(ListHeadStorage::new());
    /// let mut to = FolioList::new_in(storage_to);
    /// from.push_back(OwnedFolio::alloc(GFP_KERNEL, 1)?);
    /// from.push_back(OwnedFolio::alloc(GFP_KERNEL, 0)?);
    /// while let Some(folio) = from.pop_front() {
    ///     to.push_back(folio);
    /// }
    /// assert!(from.is_empty());
    /// assert_eq!(to.iter().map(|f| f.order()).sum::<u32>(), 1);
    /// assert_eq!(to.iter().next().map(|f| f.order()), Some(1));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn push_back(&mut self, folio: T) {
        let entry = lru_of(folio.into_raw());
        // SAFETY: `head` and its last entry are this list's, the folio's
        // `lru` was handed over with it (on no list): linking it in keeps
        // every entry's links consistent.
        unsafe {
            let last = NonNull::new_unchecked((*self.head.as_ptr()).prev);
            link(last, entry);
            link(entry, self.head);
        }
        // INVARIANT: the new entry is the `lru` of a folio held as a `T`.
    }

    /// Takes the first folio off the list (C: `list_del_init()` of the
    /// first entry).
    ///
    /// # Examples
    ///
    /// ```
    /// use core::pin::pin;
    /// use kernel::mm::{folio::OwnedFolio, folio_list::{FolioList, ListHeadStorage}};
    ///
    /// let storage = pin!(ListHeadStorage::new());
    /// let mut list = FolioList::new_in(storage);
    /// assert!(list.pop_front().is_none());
    /// let folio = OwnedFolio::alloc(GFP_KERNEL, 0)?;
    /// let ptr = folio.as_ptr();
    /// list.push_back(folio);
    /// assert_eq!(list.pop_front().map(|f| f.as_ptr()), Some(ptr));
    /// assert!(list.is_empty());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn pop_front(&mut self) -> Option<T> {
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
        // SAFETY: every entry but the head is the `lru` field of a folio
        // held as a `T` (type invariant), now unlinked: on no list.
        Some(unsafe { T::from_raw(folio_of(entry)) })
    }

    /// Takes every folio off the list, first to last (C:
    /// `list_for_each_entry_safe()` over a list given up as a whole).
    ///
    /// The list reads as empty from the start; the folios are handed out
    /// one by one without relinking each: a folio comes out with stale
    /// links in its `lru`, as after C's `__list_del_entry()`, and the drain
    /// never reads it again.  Folios not yet handed out when the [`Drain`]
    /// is dropped go back on the list, in order.
    ///
    /// # Examples
    ///
    /// ```
    /// use core::pin::pin;
    /// use kernel::mm::{folio::OwnedFolio, folio_list::{FolioList, ListHeadStorage}};
    ///
    /// let storage = pin!(ListHeadStorage::new());
    /// let mut list = FolioList::new_in(storage);
    /// for order in [2, 0, 1, 3] {
    ///     list.push_back(OwnedFolio::alloc(GFP_KERNEL, order)?);
    /// }
    /// // Stop after two: the other two stay on the list.
    /// let mut drain = list.drain();
    /// assert_eq!(drain.next().map(|f| f.order()), Some(2));
    /// assert_eq!(drain.next().map(|f| f.order()), Some(0));
    /// drop(drain);
    /// assert_eq!(list.iter().map(|f| f.order()).sum::<u32>(), 4);
    /// list.push_back(OwnedFolio::alloc(GFP_KERNEL, 4)?);
    /// // To the end: the rest, in order, and the list is empty.
    /// let mut rest = list.drain();
    /// assert_eq!(rest.next().map(|f| f.order()), Some(1));
    /// assert_eq!(rest.next().map(|f| f.order()), Some(3));
    /// assert_eq!(rest.next().map(|f| f.order()), Some(4));
    /// assert!(rest.next().is_none());
    /// drop(rest);
    /// assert!(list.is_empty());
    /// assert_eq!(list.drain().count(), 0);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn drain(&mut self) -> Drain<'_, T> {
        let first = self.next_of(self.head);
        // SAFETY: `head` is this list's initialised head (type invariant),
        // so its `prev` is an entry of the list, not null.
        let last = unsafe { NonNull::new_unchecked((*self.head.as_ptr()).prev) };
        // SAFETY: the head is ours; the entries from `first` to `last` stay
        // linked to each other, `last` still leading to the head.
        unsafe { link(self.head, self.head) };
        // INVARIANT: `first` starts the chain cut off the empty head.
        Drain {
            head: self.head,
            next: first,
            last,
            _p: PhantomData,
        }
    }

    /// The folios of the list, first to last (C: `list_for_each_entry()`).
    ///
    /// # Examples
    ///
    /// ```
    /// use core::pin::pin;
    /// use kernel::mm::{folio::OwnedFolio, folio_list::{FolioList, ListHeadStorage}};
    ///
    /// let storage = pin!(ListHeadStorage::new());
    /// let mut list = FolioList::new_in(storage);
    /// assert_eq!(list.iter().count(), 0);
    /// for order in 0..3 {
    ///     list.push_back(OwnedFolio::alloc(GFP_KERNEL, order)?);
    /// }
    /// assert_eq!(list.iter().count(), 3);
    /// assert!(list.iter().zip(0..).all(|(folio, order)| folio.order() == order));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            head: self.head,
            next: self.next_of(self.head),
            _p: PhantomData,
        }
    }
}

/// Iterator over the folios of a [`FolioList`], which it borrows.
///
/// # Invariants
///
/// `head` is the head of a list borrowed for `'a`, so unchanged, and
/// `next` one of its entries.
///
/// # Examples
///
/// See [`FolioList::iter`].
pub struct Iter<'a> {
    head: NonNull<bindings::list_head>,
    next: NonNull<bindings::list_head>,
    _p: PhantomData<&'a bindings::list_head>,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a Folio;

    fn next(&mut self) -> Option<&'a Folio> {
        if self.next == self.head {
            return None;
        }
        let entry = self.next;
        // SAFETY: `entry` is an entry of the borrowed list (type invariant),
        // valid, with non-null links.
        // INVARIANT: its successor is an entry of the same list.
        self.next = unsafe { NonNull::new_unchecked((*entry.as_ptr()).next) };
        // SAFETY: every entry but the head is the `lru` field of a folio the
        // list holds, live while the list is borrowed for `'a`.
        Some(unsafe { Folio::from_raw(folio_of(entry).as_ptr()) })
    }
}

/// The folios of a [`FolioList`] being taken off it: see
/// [`FolioList::drain`].
///
/// # Invariants
///
/// `head` is the head of a list borrowed mutably for `'a`; it is empty
/// while the `Drain` lives, and `next` is the head or the first entry not
/// handed out of a chain whose entries are the `lru` fields of folios held
/// as `T`s, linked by `next` to each other up to `last`, whose `next` is
/// `head`.
///
/// # Examples
///
/// See [`FolioList::drain`].
pub struct Drain<'a, T: ListFolio> {
    head: NonNull<bindings::list_head>,
    next: NonNull<bindings::list_head>,
    last: NonNull<bindings::list_head>,
    _p: PhantomData<(&'a mut bindings::list_head, T)>,
}

impl<T: ListFolio> Iterator for Drain<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        if self.next == self.head {
            return None;
        }
        let entry = self.next;
        // SAFETY: `entry` is an entry of the chain not handed out yet (type
        // invariant), valid, its `next` the following entry or the head.
        // INVARIANT: the rest of the chain starts there.
        self.next = unsafe { NonNull::new_unchecked((*entry.as_ptr()).next) };
        // SAFETY: `entry` is the `lru` field of a folio held as a `T` (type
        // invariant); the empty head does not reach it and the drain, which
        // alone reached it, moved past it: it is on no list.
        Some(unsafe { T::from_raw(folio_of(entry)) })
    }
}

impl<T: ListFolio> Drop for Drain<'_, T> {
    fn drop(&mut self) {
        if self.next == self.head {
            return;
        }
        // SAFETY: the head (empty) and the rest of the chain, from `next`
        // to `last`, are ours (type invariant): linking them back makes the
        // list hold exactly the folios not handed out.
        unsafe {
            link(self.head, self.next);
            link(self.last, self.head);
        }
    }
}
