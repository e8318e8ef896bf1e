// SPDX-License-Identifier: GPL-2.0

/*
 * The kernel's list functions for Rust (kernel::mm::folio_list): with
 * CONFIG_LIST_HARDENED or CONFIG_DEBUG_LIST, list_add_tail() and
 * list_del_init() check the links they change, for Rust lists as for C's.
 */

#include <linux/list.h>

void rust_helper_INIT_LIST_HEAD(struct list_head *list)
{
	INIT_LIST_HEAD(list);
}

void rust_helper_list_add_tail(struct list_head *new, struct list_head *head)
{
	list_add_tail(new, head);
}

void rust_helper_list_del_init(struct list_head *entry)
{
	list_del_init(entry);
}

bool rust_helper_list_empty(const struct list_head *head)
{
	return list_empty(head);
}

/*
 * list_del_init() that says whether the list checks let it unlink @entry:
 * false when CONFIG_LIST_HARDENED or CONFIG_DEBUG_LIST found the links
 * around it corrupted (and reported them), in which case nothing was
 * unlinked.  @entry is re-initialised either way, as by list_del_init().
 * The verdict is __list_del_entry_valid()'s, the check __list_del_entry()
 * itself makes, so the caller need not read the corrupted links to infer it.
 */
bool rust_helper_list_del_init_valid(struct list_head *entry)
{
	bool valid = __list_del_entry_valid(entry);

	if (valid)
		__list_del(entry->prev, entry->next);
	INIT_LIST_HEAD(entry);
	return valid;
}

/*
 * kernel::mm::folio_list found a list's links corrupted (an unlink refused
 * by the list checks, or leading back to itself): it gives the list up,
 * leaking the folios still on it, and says so as a C list check would.
 */
void rust_helper_folio_list_corrupted(const struct list_head *head)
{
	WARN(1, "FolioList %p: corrupted links, the folios still on it are leaked\n", head);
}
