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
