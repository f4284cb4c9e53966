/* ibr__sort (core/base.h), the library's sort with a context pointer:
   checked against qsort on every length up to past the insertion-sort
   cutoff and on long arrays, in sorted, reversed and shuffled starting
   orders, with all-equal, repeated and distinct keys, elements of 4 and
   24 bytes, a comparison that needs its context, and a bound on the
   number of comparisons. */
#include <stdlib.h>
#include <string.h>

#include "core/base.h"
#include "harness.h"

/* xorshift64: test data only */
static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Indices ordered by key[index], then by index: a total order that needs
   the context, as updn orders switches by their keys. */
typedef struct by_key {
    const uint32_t *key;
    size_t calls;
} by_key;

static int cmp_by_key(const void *a, const void *b, void *arg)
{
    by_key *c = arg;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    c->calls++;
    if (c->key[x] != c->key[y])
        return c->key[x] < c->key[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

static size_t ceil_log2(size_t n)
{
    size_t l = 0;
    while (((size_t)1 << l) < n)
        l++;
    return l;
}

enum { START_SORTED, START_REVERSED, START_SHUFFLED };

/* Sort the indices 0..n-1 by (key, index) and compare with qsort of the
   (key, index) pairs packed into integers. */
static void sort_indices(size_t n, uint32_t range, int start, uint64_t *seed)
{
    size_t m = n ? n : 1;
    uint32_t *key = malloc(m * sizeof *key);
    uint32_t *idx = malloc(m * sizeof *idx);
    uint64_t *ref = malloc(m * sizeof *ref);
    CU_ASSERT_PTR_NOT_NULL_FATAL(key);
    CU_ASSERT_PTR_NOT_NULL_FATAL(idx);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ref);
    for (size_t i = 0; i < n; i++) {
        key[i] = (uint32_t)(next(seed) % range);
        idx[i] = (uint32_t)(start == START_REVERSED ? n - 1 - i : i);
        ref[i] = (uint64_t)key[i] << 32 | i;
    }
    for (size_t i = n; start == START_SHUFFLED && i > 1; i--) {
        size_t j = (size_t)(next(seed) % i);
        uint32_t tmp = idx[i - 1];
        idx[i - 1] = idx[j];
        idx[j] = tmp;
    }
    by_key c = {key, 0};
    ibr__sort(idx, n, sizeof *idx, cmp_by_key, &c);
    qsort(ref, n, sizeof *ref, cmp_u64);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += idx[i] != (uint32_t)ref[i];
    CU_ASSERT_EQUAL(bad, 0);
    /* O(n log n) comparisons, never quadratic */
    CU_ASSERT(c.calls <= 3 * n * ceil_log2(n) + n);
    free(key);
    free(idx);
    free(ref);
}

static void test_against_qsort(void)
{
    static const uint32_t ranges[] = {1, 3, 1u << 30};
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    for (size_t r = 0; r < sizeof ranges / sizeof *ranges; r++)
        for (int start = START_SORTED; start <= START_SHUFFLED; start++) {
            for (size_t n = 0; n <= 40; n++)
                sort_indices(n, ranges[r], start, &seed);
            sort_indices(1000, ranges[r], start, &seed);
            sort_indices(4097, ranges[r], start, &seed);
        }
}

/* Elements of 24 bytes: the whole element moves. */
typedef struct wide {
    uint64_t k;
    uint64_t payload[2];
} wide;

static int wide_tag; /* the context given to the comparison */

static int cmp_wide(const void *a, const void *b, void *arg)
{
    const wide *x = a, *y = b;
    CU_ASSERT_PTR_EQUAL(arg, &wide_tag);
    if (x->k != y->k)
        return x->k < y->k ? -1 : 1;
    return x->payload[0] < y->payload[0] ? -1 : x->payload[0] > y->payload[0];
}

static int cmp_wide_q(const void *a, const void *b)
{
    const wide *x = a, *y = b;
    if (x->k != y->k)
        return x->k < y->k ? -1 : 1;
    return x->payload[0] < y->payload[0] ? -1 : x->payload[0] > y->payload[0];
}

static void test_wide_elements(void)
{
    uint64_t seed = 12345;
    for (size_t n = 0; n <= 300; n += 13) {
        wide a[300], b[300];
        for (size_t i = 0; i < n; i++) {
            a[i].k = next(&seed) % 7;
            a[i].payload[0] = i;
            a[i].payload[1] = ~(uint64_t)i;
        }
        memcpy(b, a, n * sizeof *a);
        ibr__sort(a, n, sizeof *a, cmp_wide, &wide_tag);
        qsort(b, n, sizeof *b, cmp_wide_q);
        CU_ASSERT_EQUAL(memcmp(a, b, n * sizeof *a), 0);
    }
}

static int cmp_never(const void *a, const void *b, void *arg)
{
    (void)a;
    (void)b;
    (void)arg;
    CU_FAIL("no comparison expected");
    return 0;
}

static void test_empty_and_single(void)
{
    ibr__sort(NULL, 0, sizeof(uint32_t), cmp_never, NULL);
    uint32_t one = 7;
    ibr__sort(&one, 1, sizeof one, cmp_never, NULL);
    CU_ASSERT_EQUAL(one, 7);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"same order as qsort on a total order", test_against_qsort},
        {"24-byte elements", test_wide_elements},
        {"empty and single-element arrays", test_empty_and_single},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("sort", tests);
}
