// SPDX-License-Identifier: GPL-2.0

#include <linux/gfp.h>
#include <linux/mm.h>

struct folio *rust_helper_folio_alloc(gfp_t gfp, unsigned int order)
{
	return folio_alloc(gfp, order);
}

void rust_helper_folio_put(struct folio *folio)
{
	folio_put(folio);
}

unsigned int rust_helper_folio_order(struct folio *folio)
{
	return folio_order(folio);
}

void rust_helper_folio_get(struct folio *folio)
{
	folio_get(folio);
}

int rust_helper_folio_ref_count(const struct folio *folio)
{
	return folio_ref_count(folio);
}

void *rust_helper_folio_address(const struct folio *folio)
{
	return folio_address(folio);
}

/*
 * Rust mm code lost track of folios it had to free or give back (a value
 * dropped that should have been handed on, a null argument from C): it says
 * so with a WARN, as loudly as C's checks would, each time, rather than
 * leaking them silently.
 */
void rust_helper_mmrust_warn_folios_leaked(const char *what)
{
	WARN(1, "%s\n", what);
}
