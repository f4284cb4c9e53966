/* Open-addressing hash map from 64-bit GUIDs to 32-bit values. */
#include <string.h>

#include "core/internal.h"

static size_t slot_of(uint64_t key, size_t cap)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    key *= 0xc4ceb9fe1a85ec53ULL;
    key ^= key >> 33;
    return (size_t)key & (cap - 1);
}

static void raw_put(uint64_t *keys, uint32_t *vals, size_t cap, uint64_t key, uint32_t val)
{
    size_t i = slot_of(key, cap);
    while (keys[i] && keys[i] != key)
        i = (i + 1) & (cap - 1);
    keys[i] = key;
    vals[i] = val;
}

int ibr__guidmap_reserve(ibr_context *ctx, ibr__guidmap *m, size_t n)
{
    size_t need = 16;
    while (need < n * 2) {
        if (need > SIZE_MAX / 4)
            return IBR_ENOMEM;
        need *= 2;
    }
    if (need <= m->cap)
        return 0;
    uint64_t *keys = ibr__calloc(ctx, need, sizeof *keys);
    uint32_t *vals = ibr__mallocarray(ctx, need, sizeof *vals);
    if (!keys || !vals) {
        ibr__free(ctx, keys);
        ibr__free(ctx, vals);
        return IBR_ENOMEM;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->keys[i])
            raw_put(keys, vals, need, m->keys[i], m->vals[i]);
    ibr__free(ctx, m->keys);
    ibr__free(ctx, m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = need;
    return 0;
}

int ibr__guidmap_put(ibr_context *ctx, ibr__guidmap *m, uint64_t key, uint32_t val)
{
    if (!key)
        return IBR_EINVAL;
    int rc = ibr__guidmap_reserve(ctx, m, m->n + 1);
    if (rc < 0)
        return rc;
    size_t i = slot_of(key, m->cap);
    while (m->keys[i] && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    if (!m->keys[i])
        m->n++;
    m->keys[i] = key;
    m->vals[i] = val;
    return 0;
}

uint32_t ibr__guidmap_get(const ibr__guidmap *m, uint64_t key)
{
    if (!m->cap || !key)
        return IBR_NONE;
    size_t i = slot_of(key, m->cap);
    while (m->keys[i]) {
        if (m->keys[i] == key)
            return m->vals[i];
        i = (i + 1) & (m->cap - 1);
    }
    return IBR_NONE;
}

void ibr__guidmap_del(ibr__guidmap *m, uint64_t key)
{
    if (!m->cap || !key)
        return;
    size_t i = slot_of(key, m->cap);
    while (m->keys[i] && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    if (!m->keys[i])
        return;
    m->keys[i] = 0;
    m->n--;
    /* re-insert the rest of the cluster (backward-shift deletion) */
    size_t j = (i + 1) & (m->cap - 1);
    while (m->keys[j]) {
        uint64_t k = m->keys[j];
        uint32_t v = m->vals[j];
        m->keys[j] = 0;
        raw_put(m->keys, m->vals, m->cap, k, v);
        j = (j + 1) & (m->cap - 1);
    }
}

void ibr__guidmap_free(ibr_context *ctx, ibr__guidmap *m)
{
    ibr__free(ctx, m->keys);
    ibr__free(ctx, m->vals);
    memset(m, 0, sizeof *m);
}
