/* The unicast section of a result: its storage and its public getters
   (core/result_unicast.h says who writes what). */
#define _DEFAULT_SOURCE 1 /* madvise() and MADV_HUGEPAGE: not ISO C */
#include <stdint.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "core/result_unicast.h"

/* Ask for transparent huge pages on the 2 MiB-aligned inside of a large
   table (where the system has them on request): a table written once in
   full then takes one page fault per 2 MiB instead of one per 4 KiB, which
   is most of the cost of filling tens of megabytes of fresh memory. Only
   advice: memory that cannot take it (another allocator's, a file's) is
   left as it is. */
static void advise_huge(void *p, size_t n)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (n < huge)
        return;
    uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    uintptr_t e = ((uintptr_t)p + n) & ~(huge - 1);
    if (e > a)
        (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}

void ibr__result_unicast_init(ibr_result *r)
{
    r->lft_size = (size_t)r->topo->max_lid + 1;
    r->lft = NULL;
    r->hops = NULL;
}

int ibr__result_alloc_lft_unfilled(ibr_result *r)
{
    size_t n = (size_t)r->topo->n_sw * r->lft_size;
    if (!r->lft) {
        r->lft = ibr__mallocarray(r->ctx, n ? n : 1, 1);
        if (!r->lft)
            return IBR_ENOMEM;
        advise_huge(r->lft, n);
    }
    return 0;
}

int ibr__result_alloc_lft(ibr_result *r)
{
    if (ibr__result_alloc_lft_unfilled(r) < 0)
        return IBR_ENOMEM;
    memset(r->lft, IBR_NO_ROUTE, (size_t)r->topo->n_sw * r->lft_size);
    return 0;
}

int ibr__result_alloc_hops_unfilled(ibr_result *r)
{
    if (r->hops)
        return 0;
    size_t n = (size_t)r->topo->n_sw * r->topo->n_sw;
    r->hops = ibr__mallocarray(r->ctx, n ? n : 1, 1);
    if (r->hops)
        advise_huge(r->hops, n);
    return r->hops ? 1 : IBR_ENOMEM;
}

int ibr__result_alloc_hops(ibr_result *r)
{
    int rc = ibr__result_alloc_hops_unfilled(r);
    if (rc > 0)
        memset(r->hops, 255, (size_t)r->topo->n_sw * r->topo->n_sw);
    return rc < 0 ? rc : 0;
}

void ibr__result_unicast_clear(ibr_result *r)
{
    ibr__free(r->ctx, r->hops);
    r->hops = NULL;
    if (r->lft)
        memset(r->lft, IBR_NO_ROUTE, (size_t)r->topo->n_sw * r->lft_size);
}

void ibr__result_unicast_drop(ibr_result *r)
{
    ibr__free(r->ctx, r->hops);
    r->hops = NULL;
    ibr__free(r->ctx, r->lft);
    r->lft = NULL;
}

int ibr__result_unicast_copy(uint8_t **lft, uint8_t **hops, const ibr_result *r)
{
    size_t nsw = r->topo->n_sw, lb = nsw * r->lft_size, hb = nsw * nsw;
    *lft = ibr__malloc(r->ctx, lb ? lb : 1);
    *hops = r->hops ? ibr__malloc(r->ctx, hb ? hb : 1) : NULL;
    if (!*lft || (r->hops && !*hops)) {
        ibr__free(r->ctx, *lft);
        ibr__free(r->ctx, *hops);
        *lft = *hops = NULL;
        return IBR_ENOMEM;
    }
    memcpy(*lft, r->lft, lb);
    if (r->hops)
        memcpy(*hops, r->hops, hb);
    return 0;
}

size_t ibr_result_lft_size(const ibr_result *r)
{
    return r ? r->lft_size : 0;
}

const uint8_t *ibr_result_lft(const ibr_result *r, uint32_t sw)
{
    if (!r || !r->lft || r->status != 0 || sw >= r->topo->n_sw)
        return NULL;
    return ibr__lft_row(r, sw);
}

unsigned int ibr_result_lft_port(const ibr_result *r, uint32_t sw, uint16_t lid)
{
    const uint8_t *l = ibr_result_lft(r, sw);
    if (!l || lid >= r->lft_size)
        return IBR_NO_ROUTE;
    return l[lid];
}

int ibr_result_copy_lft(uint8_t *dst, size_t cap, size_t *needed, const ibr_result *r,
                        uint32_t sw)
{
    const uint8_t *l = ibr_result_lft(r, sw);
    if (!l)
        return IBR_ENOTFOUND;
    if (needed)
        *needed = r->lft_size;
    if (cap < r->lft_size || !dst)
        return IBR_ERANGE;
    memcpy(dst, l, r->lft_size);
    return 0;
}

int ibr_result_has_hops(const ibr_result *r)
{
    return r && r->hops != NULL;
}

unsigned int ibr_result_hops(const ibr_result *r, uint32_t sw, uint32_t dst_sw)
{
    if (!r || !r->hops || sw >= r->topo->n_sw || dst_sw >= r->topo->n_sw)
        return 255;
    return r->hops[(size_t)sw * r->topo->n_sw + dst_sw];
}
