// SPDX-License-Identifier: GPL-2.0

//! C `list_head` lists of folios linked through `folio->lru`.
//!
//! C header: [`include/linux/list.h`](srctree/include/linux/list.h)
//!
//! mm code hands folios around on such lists (the hugetlb pool, folios
//! isolated for migration or reclaim, a batch to free). [`FolioList`] is
//! the exclusive use of one: iteration, push, pop, drain, and the raw head
//! for C functions that move folios between lists. The list is either C's
//! ([`FolioList::from_raw`]) or Rust's, in a pinned [`ListHeadStorage`]
//! ([`FolioList::new_in`]), which drops what is still on it when dropped.
//!
//! Links are made and undone by the kernel's own list functions
//! (`INIT_LIST_HEAD()`, `list_add_tail()`, `list_del_init()`, through
//! `rust/helpers/list.c`), so `CONFIG_LIST_HARDENED` and `CONFIG_DEBUG_LIST`
//! check a Rust list as they check C's. The one exception is the per-folio
//! step of [`FolioList::drain`], see there.
//!
//! The kernel crate's own [`List`](crate::list::List) links Rust objects
//! through a field they embed; folios are C objects linked through `lru`,
//! so they get a list of their own.

use super::folio::ListFolio;
use crate::{bindings, init::PinInit, pin_init, types::Opaque};
use core::{marker::PhantomData, pin::Pin, ptr::NonNull};
use macros::{pin_data, pinned_drop};

/// Offset of `lru` in `struct folio`, by its typed field: `lru` is a member
/// of anonymous unions, which bindgen names by position.
const LRU_OFFSET: usize = core::mem::offset_of!(
    bindings::folio,
    __bindgen_anon_1.__bindgen_anon_1.__bindgen_anon_1.lru
);

// The field reached above is C's `folio->lru` (the C compiler's
// `offsetof(struct folio, lru)`), not another member that bindgen numbered
// the same way: a `struct folio` that moves `lru` fails the build here.
const _: () = assert!(LRU_OFFSET == bindings::MMRUST_FOLIO_LRU_OFFSET);

/// The `lru` field of `folio`.
///
/// # Safety
///
/// `folio` points to a `struct folio`.
#[inline(always)]
unsafe fn lru_of(folio: NonNull<bindings::folio>) -> NonNull<bindings::list_head> {
    // SAFETY: `folio` points to a folio (the caller's promise); the place
    // of its `lru` field is only named, not read, and is inside it, so not
    // null. The field's type is `list_head`, checked by the compiler.
    unsafe {
        NonNull::new_unchecked(core::ptr::addr_of_mut!(
            (*folio.as_ptr())
                .__bindgen_anon_1
                .__bindgen_anon_1
                .__bindgen_anon_1
                .lru
        ))
    }
}

/// The folio whose `lru` field is `entry`.
///
/// # Safety
///
/// `entry` is the `lru` field of a folio.
#[inline(always)]
unsafe fn folio_of(entry: NonNull<bindings::list_head>) -> NonNull<bindings::folio> {
    // SAFETY: `entry` is `LRU_OFFSET` bytes into a folio (the caller's
    // promise), so the result is the start of that folio, not null.
    unsafe { NonNull::new_unchecked(entry.as_ptr().cast::<u8>().sub(LRU_OFFSET).cast()) }
}

/// The entry after `entry` (C: `entry->next`).
///
/// # Safety
///
/// `entry` is an entry (or the head) of an initialised list that the
/// caller may read.
#[inline(always)]
unsafe fn next_of(entry: NonNull<bindings::list_head>) -> NonNull<bindings::list_head> {
    // SAFETY: `entry` is valid to read (the caller's promise), and an
    // initialised list has no null links.
    unsafe { NonNull::new_unchecked((*entry.as_ptr()).next) }
}

/// Storage for a list head owned by Rust, initialised empty
/// (`INIT_LIST_HEAD()`) in place, and pinned: folios link to it.
///
/// Dropping it drops every folio still on the list (an [`OwnedFolio`] puts
/// its reference then), so a list in Rust storage never outlives its head.
/// A holding without a destructor (an uncounted pool folio) is lost then:
/// users of such holdings empty their lists first.
///
/// [`OwnedFolio`]: super::folio::OwnedFolio
///
/// # Invariants
///
/// `head` is the initialised head of a list of `T`s: every entry but the
/// head is the `lru` field of a folio held as a `T`.
///
/// # Examples
///
/// ```
/// use kernel::{
///     mm::{folio::{Folio, OwnedFolio}, folio_list::{FolioList, ListHeadStorage}},
///     stack_pin_init,
///     types::ARef,
/// };
///
/// let folio = OwnedFolio::alloc(GFP_KERNEL, 0)?;
/// // A second reference, to watch the list's.
/// let watch: ARef<Folio> = ARef::from(&*folio);
/// {
///     stack_pin_init!(let storage = ListHeadStorage::<OwnedFolio>::new());
///     let mut list = FolioList::new_in(storage.as_mut());
///     list.push_back(folio);
///     // The list ends here; the storage keeps the folio ...
///     let list = FolioList::new_in(storage.as_mut());
///     assert!(!list.is_empty());
///     assert_eq!(watch.ref_count(), 2);
/// }
/// // ... and drops it when it goes out of scope: its reference is put.
/// assert_eq!(watch.ref_count(), 1);
/// # Ok::<(), Error>(())
/// ```
#[pin_data(PinnedDrop)]
pub struct ListHeadStorage<T: ListFolio> {
    #[pin]
    head: Opaque<bindings::list_head>,
    _p: PhantomData<T>,
}

impl<T: ListFolio> ListHeadStorage<T> {
    /// Storage for an empty list, initialised in place: use it with
    /// `stack_pin_init!` or in a pinned structure.
    ///
    /// # Examples
    ///
    /// See [`ListHeadStorage`].
    pub fn new() -> impl PinInit<Self> {
        // INVARIANT: `INIT_LIST_HEAD()` makes the head of an empty list.
        pin_init!(Self {
            // SAFETY: `slot` is the head's place, valid for writes, which
            // `INIT_LIST_HEAD()` only writes.
            head <- Opaque::ffi_init(|slot| unsafe { bindings::INIT_LIST_HEAD(slot) }),
            _p: PhantomData,
        })
    }

    #[inline]
    fn head(&self) -> NonNull<bindings::list_head> {
        // SAFETY: `Opaque::get` points into `self`, so it is not null.
        unsafe { NonNull::new_unchecked(self.head.get()) }
    }
}

#[pinned_drop]
impl<T: ListFolio> PinnedDrop for ListHeadStorage<T> {
    fn drop(self: Pin<&mut Self>) {
        // SAFETY: an initialised head of a list of `T`s (type invariant);
        // no `FolioList` borrows the storage any more (it is being
        // dropped), so the list is ours until the end of this function.
        let mut list = unsafe { FolioList::<T>::from_head(self.head()) };
        while let Some(folio) = list.pop_front() {
            drop(folio);
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
/// use kernel::{
///     mm::{folio::OwnedFolio, folio_list::{FolioList, ListHeadStorage}},
///     stack_pin_init,
/// };
///
/// stack_pin_init!(let storage = ListHeadStorage::new());
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
    /// use kernel::{
    ///     mm::{folio::OwnedFolio, folio_list::{FolioList, ListHeadStorage}},
    ///     stack_pin_init,
    /// };
    ///
    /// stack_pin_init!(let storage = ListHeadStorage::new());
    /// let mut rust_list = FolioList::new_in(storage);
    /// rust_list.push_back(OwnedFolio::alloc(GFP_KERNEL, 0)?);
    /// let head = rust_list.as_ptr();
    /// // SAFETY: a list of `OwnedFolio`s, not used by `rust_list` while
    /// // `c_list` is.
    /// let mut c_list = unsafe { FolioList::<OwnedFolio>::from_raw(head) }.ok_or(EINVAL)?;
    /// assert!(c_list.pop_front().is_some());
    /// assert!(rust_list.is_empty());
    /// # Ok::<(), Error>(())
    /// ```
    #[inline]
    pub unsafe fn from_raw(head: *mut bindings::list_head) -> Option<Self> {
        let head = NonNull::new(head)?;
        // SAFETY: by the caller's promise.
        Some(unsafe { Self::from_head(head) })
    }

    /// Uses the list at `head`.
    ///
    /// # Safety
    ///
    /// As for [`FolioList::from_raw`], `head` not null.
    #[inline]
    unsafe fn from_head(head: NonNull<bindings::list_head>) -> Self {
        // INVARIANT: by the caller's promise.
        Self {
            head,
            _p: PhantomData,
        }
    }

    /// The list in `storage`: empty the first time, and what the last list
    /// in the same storage left on it after that.
    ///
    /// # Examples
    ///
    /// ```
    /// use kernel::{
    ///     mm::{folio::OwnedFolio, folio_list::{FolioList, ListHeadStorage}},
    ///     stack_pin_init,
    /// };
    ///
    /// stack_pin_init!(let storage = ListHeadStorage::new());
    /// let list = FolioList::<OwnedFolio>::new_in(storage);
    /// assert!(list.is_empty());
    /// ```
    #[inline]
    pub fn new_in(storage: Pin<&'a mut ListHeadStorage<T>>) -> Self {
        // SAFETY: the storage holds an initialised list of `T`s (its type
        // invariant); it is pinned (it stays where it is while folios link
        // to it) and borrowed exclusively for `'a`.
        unsafe { Self::from_head(storage.head()) }
    }

    /// The list head, for C functions that move folios between lists.
    ///
    /// Whatever C puts on the list must be held as a `T`.
    ///
    /// # Examples
    ///
    /// See [`FolioList::from_raw`].
    #[inline]
    pub fn as_ptr(&mut self) -> *mut bindings::list_head {
        self.head.as_ptr()
    }

    /// Whether the list holds no folio (C: `list_empty()`).
    ///
    /// # Examples
    ///
    /// ```
    /// use kernel::{
    ///     mm::{folio::OwnedFolio, folio_list::{FolioList, ListHeadStorage}},
    ///     stack_pin_init,
    /// };
    ///
    /// stack_pin_init!(let storage = ListHeadStorage::new());
    /// let mut list = FolioList::new_in(storage);
    /// assert!(list.is_empty());
    /// list.push_back(OwnedFolio::alloc(GFP_KERNEL, 0)?);
    /// assert!(!list.is_empty());
    /// # Ok::<(), Error>(())
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        // SAFETY: `head` is an initialised list head (type invariant).
        unsafe { bindings::list_empty(self.head.as_ptr()) }
    }

    /// Puts a folio at the end of the list (C: `list_add_tail()`).
    ///
    /// With `CONFIG_LIST_HARDENED` or `CONFIG_DEBUG_LIST`, an add onto a
    /// list whose links are found corrupted is reported and refused: the
    /// folio is then on no list and its holding is lost (leaked), as a C
    /// caller's would be.
    ///
    /// # Examples
    ///
    /// Move folios from one list to another:
    ///
    /// ```
    /// use kernel::{
    ///     mm::{folio::OwnedFolio, folio_list::{FolioList, ListHeadStorage}},
    ///     stack_pin_init,
    /// };
    ///
    /// stack_pin_init!(let storage_from = ListHeadStorage::new());
    /// let mut from = FolioList::new_in(storage_from);
    /// stack_pin_init!(let storage_to = ListHeadStorage::new());
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
        // SAFETY: the folio is live and was handed over with the use of its
        // `lru` (`ListFolio`).
        let entry = unsafe { lru_of(folio.into_raw()) };
        // SAFETY: `head` is this list's initialised head (type invariant)
        // and `entry` is on no list: `list_add_tail()` links it last,
        // checking the neighbours' links under CONFIG_DEBUG_LIST.
        unsafe { bindings::list_add_tail(entry.as_ptr(), self.head.as_ptr()) };
        // INVARIANT: the new entry is the `lru` of a folio held as a `T`.
    }

    /// Takes the first folio off the list (C: `list_del_init()` of the
    /// first entry): it comes out with its `lru` empty, on no list.
    ///
    /// An unlink refused by `CONFIG_LIST_HARDENED` or `CONFIG_DEBUG_LIST`
    /// (corrupted links) ends the list: `None`, then and after, with a
    /// `WARN`; the folios still linked are leaked, never handed out twice.
    ///
    /// # Examples
    ///
    /// ```
    /// use kernel::{
    ///     mm::{folio::OwnedFolio, folio_list::{FolioList, ListHeadStorage}},
    ///     stack_pin_init,
    /// };
    ///
    /// stack_pin_init!(let storage = ListHeadStorage::new());
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
        if self.is_empty() {
            return None;
        }
        // SAFETY: the head is this list's (type invariant).
        let entry = unsafe { next_of(self.head) };
        // SAFETY: `entry` is the first entry of this list, which is ours:
        // `list_del_init()` unlinks it, checking its neighbours' links
        // under CONFIG_DEBUG_LIST, and makes it an empty list of its own.
        unsafe { bindings::list_del_init(entry.as_ptr()) };
        // An unlink the list checks refused (corrupted links: they report
        // it) leaves `entry` first, though re-initialised; so does an
        // unchecked one of an entry whose `next` led to itself.  Handing it
        // out would hand it out again on the next pop: a second `T` for
        // one holding.
        // SAFETY: the head is this list's (type invariant).
        if unsafe { next_of(self.head) } == entry {
            self.abandon();
            return None;
        }
        // SAFETY: every entry but the head is the `lru` field of a folio
        // held as a `T` (type invariant), now unlinked: on no list.
        Some(unsafe { T::from_raw(folio_of(entry)) })
    }

    /// Gives up a list whose links were found corrupted: reports it (a
    /// `WARN`) and empties the head, so that nothing more is handed out and
    /// every loop over the list ends.  The folios still linked are lost
    /// (leaked), as their holdings cannot be told apart from the corruption
    /// any more; a leak is recoverable, a folio handed out twice is not.
    #[cold]
    fn abandon(&mut self) {
        // SAFETY: the head is this list's (type invariant); the helper only
        // prints its address.
        unsafe { bindings::folio_list_corrupted(self.head.as_ptr()) };
        // SAFETY: the head is this list's, which is ours; `INIT_LIST_HEAD()`
        // only writes it.
        // INVARIANT: an empty list holds no folio.
        unsafe { bindings::INIT_LIST_HEAD(self.head.as_ptr()) };
    }

    /// Takes every folio off the list, first to last.
    ///
    /// The list reads as empty from the start: its head leaves the chain of
    /// folios at once, with one `list_del_init()` of the head, checked as
    /// any unlink. Each folio then comes out with its `lru` re-initialised
    /// (`INIT_LIST_HEAD()`), on no list. Folios not yet handed out when the
    /// [`Drain`] is dropped go back on the list, in order, with
    /// `list_add_tail()`.
    ///
    /// The per-folio step is the hugetlb bulk free's, where one more call
    /// per folio is measurable (about 0.05 %:
    /// `Documentation/mm/mmrust/hugetlb-bulk-free.rst`): it is written here, the two marked stores
    /// of `INIT_LIST_HEAD()`. It checks nothing, like C's
    /// `list_for_each_entry_safe()` over a list cut off its head; the chain
    /// it walks is no list's any more. One compare guards it: an entry whose
    /// `next` leads back to itself (not to the first entry) would be handed
    /// out again and again, so the drain hands it out once, reports the
    /// list with a `WARN` and hands out nothing more; the folios past it
    /// (none reachable) are leaked. A longer loop that does not pass the
    /// first entry is not seen, as by C's walk.
    ///
    /// If the list checks (`CONFIG_LIST_HARDENED`, `CONFIG_DEBUG_LIST`)
    /// refuse the unlink of the head (corrupted links, which they report),
    /// the drain hands out nothing and the list ends, as for
    /// [`FolioList::pop_front`]. The verdict is the list code's own
    /// (`__list_del_entry_valid()`), asked before anything is read through
    /// the links it found corrupted.
    ///
    /// # Examples
    ///
    /// ```
    /// use kernel::{
    ///     mm::{folio::OwnedFolio, folio_list::{FolioList, ListHeadStorage}},
    ///     stack_pin_init,
    /// };
    ///
    /// stack_pin_init!(let storage = ListHeadStorage::new());
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
    ///
    /// One folio, and a drain dropped before it hands out anything:
    ///
    /// ```
    /// use kernel::{
    ///     mm::{folio::OwnedFolio, folio_list::{FolioList, ListHeadStorage}},
    ///     stack_pin_init,
    /// };
    ///
    /// stack_pin_init!(let storage = ListHeadStorage::new());
    /// let mut list = FolioList::new_in(storage);
    /// list.push_back(OwnedFolio::alloc(GFP_KERNEL, 2)?);
    /// drop(list.drain());
    /// assert_eq!(list.iter().map(|f| f.order()).sum::<u32>(), 2);
    /// let mut drain = list.drain();
    /// assert_eq!(drain.next().map(|f| f.order()), Some(2));
    /// assert!(drain.next().is_none());
    /// drop(drain);
    /// assert!(list.is_empty());
    /// # Ok::<(), Error>(())
    /// ```
    ///
    /// A drained folio is on no list: it can go on another one at once.
    ///
    /// ```
    /// use kernel::{
    ///     mm::{folio::OwnedFolio, folio_list::{FolioList, ListHeadStorage}},
    ///     stack_pin_init,
    /// };
    ///
    /// stack_pin_init!(let storage = ListHeadStorage::new());
    /// let mut list = FolioList::new_in(storage);
    /// stack_pin_init!(let other_storage = ListHeadStorage::new());
    /// let mut other = FolioList::new_in(other_storage);
    /// for order in [1, 2] {
    ///     list.push_back(OwnedFolio::alloc(GFP_KERNEL, order)?);
    /// }
    /// for folio in list.drain() {
    ///     other.push_back(folio);
    /// }
    /// assert!(list.is_empty());
    /// assert_eq!(other.iter().map(|f| f.order()).sum::<u32>(), 3);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn drain(&mut self) -> Drain<'_, T> {
        if self.is_empty() {
            // INVARIANT: nothing to hand out.
            return Drain {
                head: self.head,
                first: self.head,
                next: None,
                _p: PhantomData,
            };
        }
        // SAFETY: the head is this list's (type invariant).
        let first = unsafe { next_of(self.head) };
        // SAFETY: the head is this list's: `list_del_init_valid()` takes it
        // out of the ring of entries, which stays linked in order, the last
        // entry leading back to the first, and leaves the head an empty
        // list. It returns false if the list checks refused the unlink
        // (the head was still re-initialised): the ring then still leads to
        // the head, and walking it would take the head for a folio.
        let unlinked = unsafe { bindings::list_del_init_valid(self.head.as_ptr()) };
        if !unlinked {
            self.abandon();
            // INVARIANT: nothing to hand out.
            return Drain {
                head: self.head,
                first,
                next: None,
                _p: PhantomData,
            };
        }
        // INVARIANT: the ring starts at `first`, none handed out yet.
        Drain {
            head: self.head,
            first,
            next: Some(first),
            _p: PhantomData,
        }
    }

    /// The folios of the list, first to last (C: `list_for_each_entry()`).
    ///
    /// # Examples
    ///
    /// ```
    /// use kernel::{
    ///     mm::{folio::OwnedFolio, folio_list::{FolioList, ListHeadStorage}},
    ///     stack_pin_init,
    /// };
    ///
    /// stack_pin_init!(let storage = ListHeadStorage::new());
    /// let mut list = FolioList::new_in(storage);
    /// assert_eq!(list.iter().count(), 0);
    /// for order in 0..3 {
    ///     list.push_back(OwnedFolio::alloc(GFP_KERNEL, order)?);
    /// }
    /// assert_eq!(list.iter().count(), 3);
    /// assert!(list.iter().zip(0..).all(|(folio, order)| folio.order() == order));
    /// # Ok::<(), Error>(())
    /// ```
    #[inline]
    pub fn iter(&self) -> Iter<'_, T> {
        // INVARIANT: the list is borrowed for the iterator's lifetime, and
        // its first entry (or the head) is an entry of it.
        Iter {
            head: self.head,
            // SAFETY: the head is this list's (type invariant).
            next: unsafe { next_of(self.head) },
            _p: PhantomData,
        }
    }
}

/// Iterator over the folios of a [`FolioList`], which it borrows.
///
/// # Invariants
///
/// `head` is the head of a list borrowed for `'a`, so unchanged, and
/// `next` one of its entries or the head.
///
/// # Examples
///
/// See [`FolioList::iter`].
pub struct Iter<'a, T: ListFolio> {
    head: NonNull<bindings::list_head>,
    next: NonNull<bindings::list_head>,
    _p: PhantomData<(&'a bindings::list_head, &'a T)>,
}

impl<'a, T: ListFolio> Iterator for Iter<'a, T>
where
    T::Target: 'a,
{
    type Item = &'a T::Target;

    #[inline]
    fn next(&mut self) -> Option<&'a T::Target> {
        if self.next == self.head {
            return None;
        }
        let entry = self.next;
        // SAFETY: `entry` is an entry of the borrowed list (type invariant).
        // INVARIANT: its successor is an entry of the same list or the head.
        self.next = unsafe { next_of(entry) };
        // SAFETY: every entry but the head is the `lru` field of a folio the
        // list holds as a `T`, held so while the list is borrowed for `'a`.
        Some(unsafe { T::borrow_raw(folio_of(entry)) })
    }
}

/// The folios of a [`FolioList`] being taken off it: see
/// [`FolioList::drain`].
///
/// # Invariants
///
/// `head` is the head of a list borrowed mutably for `'a`, empty while the
/// `Drain` lives. Unless `next` is `None`, the entries from `next` on,
/// following `next` links up to the one whose `next` is `first`, are the
/// `lru` fields of folios held as `T`s, not handed out yet and on no list
/// but that chain.
///
/// # Examples
///
/// See [`FolioList::drain`].
pub struct Drain<'a, T: ListFolio> {
    head: NonNull<bindings::list_head>,
    first: NonNull<bindings::list_head>,
    next: Option<NonNull<bindings::list_head>>,
    _p: PhantomData<(&'a mut bindings::list_head, T)>,
}

impl<T: ListFolio> Drain<'_, T> {
    /// The next entry of the chain, and the chain's rest past it.
    ///
    /// An entry whose `next` is itself, other than the last one of a chain
    /// of one, ends the chain after it: taken again it would be handed out
    /// twice.
    #[inline(always)]
    fn take_next(&mut self) -> Option<NonNull<bindings::list_head>> {
        let entry = self.next?;
        // SAFETY: `entry` is an entry of the chain not handed out yet (type
        // invariant), its `next` the following entry, or `first` after the
        // last one.
        let after = unsafe { next_of(entry) };
        if after == self.first {
            // INVARIANT: `entry` was the last one.
            self.next = None;
        } else if after == entry {
            self.corrupted();
        } else {
            // INVARIANT: the rest of the chain starts at `after`.
            self.next = Some(after);
        }
        Some(entry)
    }

    /// Gives up the rest of a chain found leading back to the entry just
    /// taken: reports it (a `WARN`) and hands out nothing more; the folios
    /// not yet handed out are lost (leaked), as for [`FolioList::pop_front`].
    #[cold]
    fn corrupted(&mut self) {
        // SAFETY: the head is the list's (type invariant); the helper only
        // prints its address.
        unsafe { bindings::folio_list_corrupted(self.head.as_ptr()) };
        // INVARIANT: nothing more to hand out.
        self.next = None;
    }
}

impl<T: ListFolio> Iterator for Drain<'_, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        let entry = self.take_next()?;
        let raw = entry.as_ptr();
        // SAFETY: `entry` was on the chain, which only this drain reads
        // (type invariant), and it moved past it: `INIT_LIST_HEAD()`'s two
        // marked stores make it an empty list of its own.
        unsafe {
            core::ptr::write_volatile(core::ptr::addr_of_mut!((*raw).next), raw);
            core::ptr::write_volatile(core::ptr::addr_of_mut!((*raw).prev), raw);
        }
        // SAFETY: `entry` is the `lru` field of a folio held as a `T` (type
        // invariant), now on no list.
        Some(unsafe { T::from_raw(folio_of(entry)) })
    }
}

impl<T: ListFolio> Drop for Drain<'_, T> {
    fn drop(&mut self) {
        while let Some(entry) = self.take_next() {
            // SAFETY: `head` is the list's head (type invariant), and
            // `entry`, past which the drain has moved, belongs to no list
            // but the chain only this drain reads: `list_add_tail()` puts
            // it back, last, checking the neighbours' links.
            unsafe { bindings::list_add_tail(entry.as_ptr(), self.head.as_ptr()) };
        }
    }
}
