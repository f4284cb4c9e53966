/*
 * The local shape of one switch, for LASH's mesh analysis (seed 004): the
 * hop distances between its neighbours along paths that avoid it, and the
 * characteristic polynomial of that matrix. Plain C99 on compressed rows,
 * no allocation and no library calls, because two programs use it: the
 * analysis itself (mesh.c) and the build-time generator of the table of
 * known shapes (mesh_table_gen.c), which runs it on pristine tori. Both
 * therefore measure shapes with the very same code.
 */
#ifndef IBROUTE_LASH_MESH_POLY_H
#define IBROUTE_LASH_MESH_POLY_H

#include <stdint.h>

/* Switches with more neighbours than this get no metric. */
#define IBR__MESH_MAX_DEGREE 8
/* Most dimensions a known shape has (a switch of an 8-D hypercube). */
#define IBR__MESH_MAX_DIMS 8
/* Distances are searched up to IBR__MESH_NEAR hops; anything farther, or
   unreachable without the switch, reads IBR__MESH_FAR. Every known shape
   has distances of at most 4, so the cap never changes a match; it bounds
   the search on graphs whose neighbours do not meet again (trees, long
   rings) and keeps the polynomial's coefficients small (below). */
#define IBR__MESH_NEAR 6
#define IBR__MESH_FAR 7

/* One entry of the table of known shapes: the shape of a switch of a
   pristine torus of dims dimensions and the given sizes (largest first; 6
   stands for "6 or more": distances stop growing there), and its
   polynomial det(D - xI) = poly[0] + poly[1] x + ... + poly[degree] x^degree. */
typedef struct ibr__mesh_shape {
    uint8_t dims;
    uint8_t size[IBR__MESH_MAX_DIMS];
    uint8_t degree;
    int64_t poly[IBR__MESH_MAX_DEGREE + 1];
} ibr__mesh_shape;

/*
 * The local metric of switch s with k = off[s + 1] - off[s] <= 8
 * neighbours: d[i * k + j] = hops from neighbour i to neighbour j on paths
 * that do not pass through s (0 on the diagonal, IBR__MESH_FAR beyond
 * IBR__MESH_NEAR hops or when unreachable).
 * Meet in the middle: a breadth-first ball of radius IBR__MESH_NEAR / 2
 * around each neighbour, avoiding s; a path of L <= IBR__MESH_NEAR hops has
 * a switch at most L / 2 rounded up from both ends, so d[i][j] is the least
 * sum of the two balls' distances over the switches both balls hold. The
 * balls stay small on meshes and the cost per switch never exceeds k
 * searches, however far apart its neighbours are.
 * Scratch (caller's; n is the number of switches): mask (n bytes, all 0;
 * left all 0), hd (8 n bytes), touched and queue (n entries each).
 */
static inline void ibr__mesh_local_metric(uint8_t *d, uint32_t s, const uint32_t *off,
                                          const uint32_t *nbr, uint8_t *mask, uint8_t *hd,
                                          uint32_t *touched, uint32_t *queue)
{
    const uint8_t radius = (IBR__MESH_NEAR + 1) / 2;
    uint32_t k = off[s + 1] - off[s], n_touched = 0;
    const uint32_t *nb = nbr + off[s];

    for (uint32_t i = 0; i < k; i++)
        for (uint32_t j = 0; j < k; j++)
            d[i * k + j] = i == j ? 0 : IBR__MESH_FAR;
    for (uint32_t i = 0; i < k; i++) {
        uint8_t bit = (uint8_t)(1u << i);
        uint32_t head = 0, tail = 0;
        if (!mask[nb[i]])
            touched[n_touched++] = nb[i];
        mask[nb[i]] |= bit;
        hd[(size_t)nb[i] * 8 + i] = 0;
        queue[tail++] = nb[i];
        while (head < tail) {
            uint32_t v = queue[head++];
            uint8_t h = hd[(size_t)v * 8 + i];
            if (h >= radius)
                continue;
            for (uint32_t e = off[v]; e < off[v + 1]; e++) {
                uint32_t w = nbr[e];
                if (w == s || (mask[w] & bit))
                    continue;
                if (!mask[w])
                    touched[n_touched++] = w;
                mask[w] |= bit;
                hd[(size_t)w * 8 + i] = (uint8_t)(h + 1);
                queue[tail++] = w;
            }
        }
    }
    for (uint32_t t = 0; t < n_touched; t++) {
        uint32_t v = touched[t];
        uint8_t m = mask[v];
        mask[v] = 0;
        if (!(m & (m - 1)))
            continue; /* in one ball only */
        for (uint32_t i = 0; i < k; i++) {
            if (!(m >> i & 1))
                continue;
            for (uint32_t j = i + 1; j < k; j++) {
                if (!(m >> j & 1))
                    continue;
                uint8_t sum = (uint8_t)(hd[(size_t)v * 8 + i] + hd[(size_t)v * 8 + j]);
                if (sum < d[i * k + j])
                    d[i * k + j] = d[j * k + i] = sum;
            }
        }
    }
}

/*
 * det(D - xI) of the k x k matrix d (k <= 8, entries 0..IBR__MESH_FAR), in
 * integers: poly[e] is the coefficient of x^e, e = 0..k. Berkowitz's
 * division-free algorithm: the characteristic polynomial of the trailing
 * principal submatrices, grown one row and column at a time by a Toeplitz
 * product. With entries of at most 7 and k <= 8 every intermediate value
 * stays below 2^45 (R M^p C <= 49^2 * 7^11, the sub-polynomials' coefficients
 * below 8! * 7^8), so 64-bit arithmetic is exact.
 */
static inline void ibr__mesh_charpoly(int64_t *poly, const uint8_t *d, uint32_t k)
{
    /* q: det(xI - M) of the current trailing submatrix, highest power first */
    int64_t q[IBR__MESH_MAX_DEGREE + 1], t[IBR__MESH_MAX_DEGREE + 1];
    int64_t nq[IBR__MESH_MAX_DEGREE + 1], v[IBR__MESH_MAX_DEGREE], w[IBR__MESH_MAX_DEGREE];

    if (k == 0) {
        poly[0] = 1;
        return;
    }
    q[0] = 1;
    q[1] = -(int64_t)d[(k - 1) * k + (k - 1)];
    for (uint32_t r = k - 1; r-- > 0;) {
        uint32_t m = k - 1 - r; /* size of the trailing block M below row r */
        /* t = 1, -a, -R C, -R M C, ..., -R M^(m-1) C */
        t[0] = 1;
        t[1] = -(int64_t)d[r * k + r];
        for (uint32_t i = 0; i < m; i++)
            v[i] = d[(r + 1 + i) * k + r]; /* C */
        for (uint32_t p = 0; p < m; p++) {
            int64_t rv = 0;
            for (uint32_t i = 0; i < m; i++)
                rv += (int64_t)d[r * k + r + 1 + i] * v[i];
            t[p + 2] = -rv;
            if (p + 1 < m) { /* v = M v */
                for (uint32_t i = 0; i < m; i++) {
                    int64_t acc = 0;
                    for (uint32_t j = 0; j < m; j++)
                        acc += (int64_t)d[(r + 1 + i) * k + r + 1 + j] * v[j];
                    w[i] = acc;
                }
                for (uint32_t i = 0; i < m; i++)
                    v[i] = w[i];
            }
        }
        /* the new polynomial (degree m + 1) = Toeplitz(t) times q (degree m) */
        for (uint32_t j = 0; j <= m + 1; j++) {
            int64_t acc = 0;
            for (uint32_t l = 0; l <= m && l <= j; l++)
                acc += t[j - l] * q[l];
            nq[j] = acc;
        }
        for (uint32_t j = 0; j <= m + 1; j++)
            q[j] = nq[j];
    }
    /* det(D - xI) = (-1)^k det(xI - D); q[j] is the coefficient of x^(k-j) */
    for (uint32_t e = 0; e <= k; e++)
        poly[e] = (k & 1) ? -q[k - e] : q[k - e];
}

#endif
