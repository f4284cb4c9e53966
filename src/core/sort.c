/*
 * Sorting with a context pointer for the comparison. ISO C's qsort() has
 * none, and qsort_r() is an extension whose argument order differs between
 * glibc, the BSDs and macOS (Windows calls it qsort_s), so the library has
 * its own.
 *
 * Heapsort, with insertion sort for short arrays: in place, no allocation
 * (it cannot fail), O(n log n) comparisons in the worst case. It is not
 * stable, so callers give a total order (break ties by index or GUID):
 * then every correct sort, glibc's qsort_r included, gives the same
 * array, and the output does not depend on the algorithm.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/base.h"

/* Below this many elements insertion sort does fewer comparisons. */
#define SORT_SMALL 12

static void swap_bytes(unsigned char *a, unsigned char *b, size_t size)
{
    if (size == sizeof(uint32_t)) { /* the common case: indices */
        uint32_t t;
        memcpy(&t, a, sizeof t);
        memcpy(a, b, sizeof t);
        memcpy(b, &t, sizeof t);
        return;
    }
    while (size--) {
        unsigned char t = *a;
        *a++ = *b;
        *b++ = t;
    }
}

/* Move the element at root down the max-heap of the first n elements. */
static void sift_down(unsigned char *base, size_t root, size_t n, size_t size, ibr__cmp_fn cmp,
                      void *arg)
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && cmp(base + child * size, base + (child + 1) * size, arg) < 0)
            child++;
        if (cmp(base + root * size, base + child * size, arg) >= 0)
            return;
        swap_bytes(base + root * size, base + child * size, size);
        root = child;
    }
}

void ibr__sort(void *base, size_t n, size_t size, ibr__cmp_fn cmp, void *arg)
{
    unsigned char *b = base;
    if (n < 2 || size == 0)
        return;
    if (n <= SORT_SMALL) {
        for (size_t i = 1; i < n; i++)
            for (size_t j = i; j > 0 && cmp(b + (j - 1) * size, b + j * size, arg) > 0; j--)
                swap_bytes(b + (j - 1) * size, b + j * size, size);
        return;
    }
    for (size_t i = n / 2; i-- > 0;)
        sift_down(b, i, n, size, cmp, arg);
    for (size_t end = n - 1; end > 0; end--) {
        swap_bytes(b, b + end * size, size);
        sift_down(b, 0, end, size, cmp, arg);
    }
}
