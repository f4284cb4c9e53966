/* Shared pieces of the libFuzzer targets (tests/fuzz/README.md): a failed
   property aborts, which libFuzzer reports as a crash with the input. */
#ifndef IBR_FUZZ_COMMON_H
#define IBR_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibroute/ibroute.h"

#define FUZZ_CHECK(cond)                                                         \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__,   \
                    #cond);                                                      \
            abort();                                                             \
        }                                                                        \
    } while (0)

/* Two buffers hold the same text. */
static inline int fuzz_same(const ibr_buffer *a, const ibr_buffer *b)
{
    return a->size == b->size && (a->size == 0 || memcmp(a->data, b->data, a->size) == 0);
}

/* A small fabric with LIDs, frozen once per process (the LFT and guid2lid
   targets parse against it). */
static inline ibr_fabric *fuzz_fabric(void)
{
    static ibr_fabric *f;
    if (!f) {
        FUZZ_CHECK(ibr_fabric_create(&f, NULL) == 0);
        FUZZ_CHECK(ibr_fabric_generate(f, "fattree:levels=2,radix=4") == 0);
    }
    return f;
}

static inline const ibr_topo *fuzz_topo(void)
{
    static ibr_topo *t;
    if (!t)
        FUZZ_CHECK(ibr_fabric_freeze(&t, fuzz_fabric()) == 0);
    return t;
}

#endif
