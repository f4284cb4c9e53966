/*
 * LASH's mesh analysis (seed 004; reference engines-dor-lash-mesh.md,
 * section 3): recognise a (mostly) Cartesian mesh or torus in the collapsed
 * switch graph, give its switches coordinates, reorder each switch's links
 * into dimension order with the sign trick, and number the switches by
 * their coordinates. The steps:
 *
 *  1. Local metric: for every switch with at most 8 neighbours, the hop
 *     distances between its neighbours avoiding it (mesh_poly.h), and the
 *     characteristic polynomial det(D - xI) of that matrix, in integers.
 *  2. Classification: each polynomial is looked up in the table of known
 *     shapes (generated at build time, mesh_table_gen.c). A switch of a
 *     known shape with a neighbour that has more links than it is a mesh
 *     boundary switch and sits out the vote. The others form classes of
 *     equal polynomials; the largest class wins (on a tie, the one whose
 *     first member has the lowest index), and its first member is the
 *     seed. If that class's shape is unknown, nothing is reordered.
 *  3. Axes: the seed's links get "+d" and, for the link at a distance
 *     other than 2 from it (across the switch), "-d", dimension by
 *     dimension; a dimension without such a link has size 2 and only "+d".
 *     Three rules then spread axes until nothing changes, sweeping the
 *     switches in index order: opposites within a switch, the reverse of a
 *     link, and the fourth corner of a square. A link that already has an
 *     axis keeps it. Links in no square (extra cables) keep none.
 *     With IBR__MESH_GUARD_AXES, two guards OpenSM lacks, neither of which
 *     ever fires on a pristine mesh or torus: the opposite rule needs each
 *     of the two links to be the other's only link across (next to a
 *     failed link a perpendicular neighbour can be the only one far from an
 *     axis link; it is then far from another one too), and no code is
 *     given to a link when another link of its switch has it already.
 *     Without them, an 8 x 8 mesh with one or two random failed links got
 *     wrong sizes in 42 and 64 of 100 cases; with them in none, and the
 *     coordinates stay consistent (tests/test_mesh.c). They are not the
 *     default because consistent coordinates did not make lash's result
 *     better: against OpenSM's on faulty meshes and tori they cost a layer
 *     or a busier link more often than they saved one (doc/engines.md).
 *  4. Coordinates: the seed is the origin; the others take, dimension by
 *     dimension, the candidate of smallest magnitude (the positive one on a
 *     tie) that an axis link offers, relaxed to a fixed point in sweeps over
 *     the switches (OpenSM's order); on a torus this is the representative
 *     nearest the seed.
 *  5. Sizes (max - min + 1 per dimension) and the dimension order: by
 *     decreasing size, ties to the lower dimension.
 *  6. Links: per dimension in that order, "+d" then "-d" if the switch's
 *     coordinate in d is <= 0 (or it has none), "-d" then "+d" if it is
 *     positive: the two ends of an even ring's half-way tie then take the
 *     same arc. Links without an axis come last, in their original order.
 *     OpenSM fills a missing direction (a mesh boundary) with the switch's
 *     links that have no axis, which pulls extra cables in between the
 *     dimensions; here a missing direction is simply skipped.
 *  7. Switches are numbered by their coordinates in dimension order with a
 *     three-way comparison; switches without coordinates come last, and
 *     ties keep the original order (OpenSM subtracts coordinates, which
 *     overflows against its "unknown" sentinel, and leaves ties to qsort).
 *
 * With IBR__MESH_OPENSM the two departures from OpenSM (the skipped
 * direction of step 6, the comparison of step 7) give way to OpenSM's own
 * behaviour, so that its link order and numbering come
 * out exactly (checked against OpenSM 3.3.23 under ibsim: identical LFTs).
 * Remaining differences in that mode, none on 2-D or larger meshes and
 * tori: the table (OpenSM's 1-D "6" entry is the shape of a ring of 8, ours
 * of a ring of 6; its "mesh error" entry, see mesh_table_gen.c) and
 * distances beyond 6 hops, which OpenSM measures exactly and which only
 * ever tell apart classes of unknown shape.
 *
 * Memory is O(S + E) (64 bytes of metric, 72 of polynomial and 8 of
 * scratch per switch); time is dominated by the metric, k breadth-first
 * balls of radius 3 per switch, and by the axis sweeps, O(S k^2 deg) each.
 */
#include <stdio.h>
#include <string.h>

#include "engines/lash/mesh.h"

#define MD IBR__MESH_MAX_DEGREE
#define NPOLY (IBR__MESH_MAX_DEGREE + 1)

typedef struct mesh {
    ibr_context *ctx;
    uint32_t n;
    const uint32_t *off, *nbr;
    int opensm;       /* IBR__MESH_OPENSM: OpenSM's quirks kept */
    int guard;        /* IBR__MESH_GUARD_AXES: the guards of step 3 */
    /* step 1 */
    uint8_t *metric;  /* n: 1 when the switch has a metric */
    uint8_t *dist;    /* n * MD * MD: the metric, row-major k x k */
    int64_t *poly;    /* n * NPOLY */
    uint8_t *mask;    /* n: metric scratch (which balls hold a switch) */
    uint8_t *hd;      /* n * 8: metric scratch (distance within each ball) */
    uint32_t *queue;  /* n */
    /* step 2 */
    uint32_t *sorted; /* switches with a metric, by polynomial */
    uint32_t *pos;    /* n: scratch (step 1: switches touched; step 3:
                         position of a link in a row) */
    uint32_t *seen;   /* n: stamps of the square search */
    uint32_t stamp;
    /* step 3 */
    uint8_t *axis;    /* off[n] */
    uint8_t opp[2 * IBR__MESH_MAX_DIMS + 1]; /* opposite(seed, code) */
    unsigned dims;
    uint32_t seed;
    /* step 4 */
    int32_t *coord;   /* n * dims */
    uint8_t *known;   /* n */
    unsigned dim_order[IBR__MESH_MAX_DIMS];
} mesh;

static inline uint32_t deg(const mesh *m, uint32_t s)
{
    return m->off[s + 1] - m->off[s];
}

static inline uint8_t dst(const mesh *m, uint32_t s, uint32_t i, uint32_t j)
{
    return m->dist[(size_t)s * MD * MD + i * deg(m, s) + j];
}

static inline uint32_t next_stamp(mesh *m)
{
    if (++m->stamp == 0) {
        memset(m->seen, 0, sizeof *m->seen * m->n);
        m->stamp = 1;
    }
    return m->stamp;
}

const ibr__mesh_shape *ibr__mesh_shape_find(const int64_t *poly, uint32_t k)
{
    for (unsigned i = 0; i < ibr__mesh_n_shapes; i++) {
        const ibr__mesh_shape *t = &ibr__mesh_shapes[i];
        if (t->degree == k && !memcmp(t->poly, poly, sizeof *poly * (k + 1)))
            return t;
    }
    return NULL;
}

/* ---- step 2: classes ------------------------------------------------ */

static int cmp_poly(const void *a, const void *b, void *arg)
{
    const mesh *m = arg;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint32_t kx = deg(m, x), ky = deg(m, y);
    if (kx != ky)
        return kx < ky ? -1 : 1;
    const int64_t *px = m->poly + (size_t)x * NPOLY, *py = m->poly + (size_t)y * NPOLY;
    for (uint32_t e = 0; e <= kx; e++)
        if (px[e] != py[e])
            return px[e] < py[e] ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int same_poly(const mesh *m, uint32_t x, uint32_t y)
{
    return deg(m, x) == deg(m, y) &&
           !memcmp(m->poly + (size_t)x * NPOLY, m->poly + (size_t)y * NPOLY,
                   sizeof *m->poly * (deg(m, x) + 1));
}

/* Finds the dominant class. Returns its shape (NULL when its polynomial is
   not in the table, or no switch has a metric), with the seed, the class
   count and size. */
static const ibr__mesh_shape *classify(mesh *m, uint32_t n_metric, uint32_t *seed,
                                       unsigned *n_classes, uint32_t *members)
{
    const ibr__mesh_shape *best_shape = NULL;
    uint32_t best_count = 0, best_seed = IBR_NONE;
    *n_classes = 0;
    for (uint32_t a = 0, b; a < n_metric; a = b) {
        uint32_t s0 = m->sorted[a];
        for (b = a + 1; b < n_metric && same_poly(m, s0, m->sorted[b]); b++)
            ;
        const ibr__mesh_shape *shape =
            ibr__mesh_shape_find(m->poly + (size_t)s0 * NPOLY, deg(m, s0));
        uint32_t count = 0, first = IBR_NONE;
        for (uint32_t i = a; i < b; i++) {
            uint32_t s = m->sorted[i], excluded = 0;
            if (shape) /* a boundary switch of a mesh sits out */
                for (uint32_t e = m->off[s]; e < m->off[s + 1] && !excluded; e++)
                    excluded = deg(m, m->nbr[e]) > deg(m, s);
            if (excluded)
                continue;
            if (!count)
                first = s; /* members are sorted by index within a class */
            count++;
        }
        if (!count)
            continue;
        ++*n_classes;
        if (count > best_count || (count == best_count && first < best_seed)) {
            best_count = count;
            best_seed = first;
            best_shape = shape;
        }
    }
    *seed = best_seed;
    *members = best_count;
    return best_shape;
}

/* ---- step 3: axes ---------------------------------------------------- */

static inline uint8_t negate(uint8_t code)
{
    return (uint8_t)(((code - 1) ^ 1) + 1);
}

static void seed_axes(mesh *m)
{
    uint32_t s = m->seed, k = deg(m, s);
    uint8_t *ax = m->axis + m->off[s];
    for (unsigned d = 0; d < m->dims; d++) {
        uint32_t i = 0;
        while (i < k && ax[i])
            i++;
        if (i == k)
            break;
        ax[i] = (uint8_t)(2 * d + 1);
        for (uint32_t j = 0; j < k; j++)
            if (j != i && !ax[j] && dst(m, s, i, j) != 2) {
                ax[j] = (uint8_t)(2 * d + 2);
                break;
            }
    }
    /* opposite(seed, c): -c, or c itself when every other link of the seed
       is 2 hops from c's (a dimension of size 2), or 0 when the seed has no
       link c */
    memset(m->opp, 0, sizeof m->opp);
    for (uint8_t c = 1; c <= 2 * m->dims; c++)
        for (uint32_t i = 0; i < k; i++)
            if (ax[i] == c) {
                uint8_t o = c;
                for (uint32_t j = 0; j < k; j++)
                    if (j != i && dst(m, s, i, j) != 2)
                        o = negate(c);
                m->opp[c] = o;
                break;
            }
}

/* Gives link i of a row of k links (axes ax) the axis code if it has none
   and no other link of the row has that code; returns 1 on a change. A
   link that has an axis keeps it (OpenSM logs a "mismatch" when they
   disagree); a code twice in a row can only be a mistake near a defect. */
static inline int set_axis(const mesh *m, uint8_t *ax, uint32_t k, uint32_t i, uint8_t code)
{
    if (ax[i] || !code)
        return 0;
    for (uint32_t j = 0; j < k && m->guard; j++)
        if (ax[j] == code)
            return 0;
    ax[i] = code;
    return 1;
}

/* The only link of s not 2 hops from link i (avoiding s), or IBR_NONE when
   there are none or several. */
static uint32_t across(const mesh *m, uint32_t s, uint32_t i)
{
    uint32_t found = IBR_NONE, k = deg(m, s);
    for (uint32_t j = 0; j < k; j++)
        if (j != i && dst(m, s, i, j) != 2) {
            if (found != IBR_NONE)
                return IBR_NONE;
            found = j;
        }
    return found;
}

static void grow_axes(mesh *m)
{
    uint32_t n = m->n, seed_k = deg(m, m->seed);
    int change;
    do {
        change = 0;
        /* rule 1: the one link across a switch from an axis gets its
           opposite, if each is the other's only link across (both ways:
           next to a failed link a perpendicular neighbour can be the only
           one far from an axis link, but it is then far from another too) */
        for (uint32_t s = 0; s < n; s++) {
            uint32_t k = deg(m, s);
            uint8_t *ax = m->axis + m->off[s];
            if (!m->metric[s] || (k < seed_k && k <= 2)) /* chain fragments */
                continue;
            for (uint32_t i = 0; i < k; i++) {
                if (!ax[i])
                    continue;
                uint32_t j = across(m, s, i);
                if (j != IBR_NONE && dst(m, s, i, j) <= 4 && (!m->guard || across(m, s, j) == i))
                    change |= set_axis(m, ax, k, j, m->opp[ax[i]]);
            }
        }
        /* rule 2: the reverse of a link gets the opposite axis */
        for (uint32_t s = 0; s < n; s++) {
            if (!m->metric[s])
                continue;
            for (uint32_t e = m->off[s]; e < m->off[s + 1]; e++) {
                uint32_t t = m->nbr[e];
                if (!m->axis[e] || !m->metric[t])
                    continue;
                for (uint32_t f = m->off[t]; f < m->off[t + 1]; f++)
                    if (m->nbr[f] == s) {
                        change |= set_axis(m, m->axis + m->off[t], deg(m, t), f - m->off[t],
                                           m->opp[m->axis[e]]);
                        break;
                    }
            }
        }
        /* rule 3: X's links i, j to A, B two hops apart close a square at
           the first common neighbour C != X of A and B (in A's order):
           A -> C gets j's axis, B -> C gets i's */
        for (uint32_t s = 0; s < n; s++) {
            uint32_t k = deg(m, s), base = m->off[s];
            if (!m->metric[s])
                continue;
            for (uint32_t i = 0; i < k; i++) {
                if (!m->axis[base + i])
                    continue;
                for (uint32_t j = 0; j < k; j++) {
                    if (j == i || !m->axis[base + j] || dst(m, s, i, j) != 2)
                        continue;
                    uint32_t a = m->nbr[base + i], b = m->nbr[base + j];
                    uint32_t st = next_stamp(m);
                    for (uint32_t f = m->off[b]; f < m->off[b + 1]; f++)
                        if (m->nbr[f] != s) {
                            m->seen[m->nbr[f]] = st;
                            m->pos[m->nbr[f]] = f;
                        }
                    for (uint32_t f = m->off[a]; f < m->off[a + 1]; f++) {
                        uint32_t c = m->nbr[f];
                        if (c == s || m->seen[c] != st)
                            continue;
                        change |= set_axis(m, m->axis + m->off[a], deg(m, a), f - m->off[a],
                                           m->axis[base + j]);
                        change |= set_axis(m, m->axis + m->off[b], deg(m, b),
                                           m->pos[c] - m->off[b], m->axis[base + i]);
                        break;
                    }
                }
            }
        }
    } while (change);
}

/* ---- step 4: coordinates ---------------------------------------------- */

/* Is a a better coordinate than b: smaller in magnitude, or as small and
   positive? */
static inline int better(int32_t a, int32_t b)
{
    int64_t ma = a < 0 ? -(int64_t)a : a, mb = b < 0 ? -(int64_t)b : b;
    return ma < mb || (ma == mb && a > b);
}

static void place(mesh *m)
{
    unsigned dims = m->dims;
    int32_t cand[IBR__MESH_MAX_DIMS];
    int change;
    memset(m->known, 0, m->n);
    for (unsigned d = 0; d < dims; d++)
        m->coord[(size_t)m->seed * dims + d] = 0;
    m->known[m->seed] = 1;
    /* sweeps in switch order, each update seen at once (as OpenSM): the
       relaxation's fixed point can depend on the order near defects */
    do {
        change = 0;
        for (uint32_t u = 0; u < m->n; u++) {
            if (!m->known[u])
                continue;
            for (uint32_t e = m->off[u]; e < m->off[u + 1]; e++) {
                uint8_t a = m->axis[e];
                if (!a)
                    continue;
                memcpy(cand, m->coord + (size_t)u * dims, sizeof *cand * dims);
                cand[(a - 1) / 2] += (a & 1) ? 1 : -1;
                int32_t *cv = m->coord + (size_t)m->nbr[e] * dims;
                if (!m->known[m->nbr[e]]) {
                    memcpy(cv, cand, sizeof *cand * dims);
                    m->known[m->nbr[e]] = 1;
                    change = 1;
                    continue;
                }
                for (unsigned d = 0; d < dims; d++)
                    if (better(cand[d], cv[d])) {
                        cv[d] = cand[d];
                        change = 1;
                    }
            }
        }
    } while (change);
}

/* ---- step 6 as OpenSM does it ------------------------------------------ */

/* opposite(s, c) on s's own metric: 0 when s has no metric or no link c, c
   itself when every other link of s is 2 hops from that link, else -c. */
static uint8_t opposite_own(const mesh *m, uint32_t s, uint8_t c)
{
    uint32_t k = deg(m, s);
    const uint8_t *ax = m->axis + m->off[s];
    if (!m->metric[s])
        return 0;
    for (uint32_t i = 0; i < k; i++)
        if (ax[i] == c) {
            for (uint32_t j = 0; j < k; j++)
                if (j != i && dst(m, s, i, j) != 2)
                    return negate(c);
            return c;
        }
    return 0;
}

/* OpenSM's order of s's links: per dimension, codes +d then -d, each
   replaced by opposite(s, code) when s's coordinate is positive or unknown;
   a missing direction becomes code 0 and so takes the links without an
   axis there; whatever is left follows in its original order. */
static void reorder_opensm(const mesh *m, uint32_t s, uint32_t *perm)
{
    uint32_t k = deg(m, s), p = 0;
    const uint8_t *ax = m->axis + m->off[s];
    uint8_t taken[IBR_MAX_PORTS + 1];
    memset(taken, 0, k);
    for (unsigned r = 0; r < m->dims; r++) {
        unsigned d = m->dim_order[r];
        for (unsigned sign = 0; sign < 2; sign++) {
            uint8_t c = (uint8_t)(2 * d + 1 + sign);
            if (!m->known[s] || m->coord[(size_t)s * m->dims + d] > 0)
                c = opposite_own(m, s, c);
            for (uint32_t i = 0; i < k; i++)
                if (!taken[i] && ax[i] == c) {
                    taken[i] = 1;
                    perm[p++] = i;
                }
        }
    }
    for (uint32_t i = 0; i < k; i++)
        if (!taken[i])
            perm[p++] = i;
}

/* ---- step 7: numbering ------------------------------------------------ */

static int cmp_coord(const void *a, const void *b, void *arg)
{
    const mesh *m = arg;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (m->known[x] != m->known[y])
        return m->known[x] ? -1 : 1;
    if (m->known[x])
        for (unsigned r = 0; r < m->dims; r++) {
            unsigned d = m->dim_order[r];
            int32_t cx = m->coord[(size_t)x * m->dims + d], cy = m->coord[(size_t)y * m->dims + d];
            if (cx != cy)
                return cx < cy ? -1 : 1;
        }
    return x < y ? -1 : x > y;
}

/* OpenSM's comparison: coordinates subtracted in 32-bit arithmetic (wrapping
   as the hardware does), a switch without coordinates at 0x7fffffff in every
   dimension. It is not an order: such a switch comes before negative
   coordinates and after the others. */
static int cmp_opensm(const mesh *m, uint32_t x, uint32_t y)
{
    for (unsigned r = 0; r < m->dims; r++) {
        unsigned d = m->dim_order[r];
        uint32_t cx = m->known[x] ? (uint32_t)m->coord[(size_t)x * m->dims + d] : 0x7fffffffu;
        uint32_t cy = m->known[y] ? (uint32_t)m->coord[(size_t)y * m->dims + d] : 0x7fffffffu;
        if (cx != cy)
            return (cx - cy) & 0x80000000u ? -1 : 1;
    }
    return 0;
}

/* OpenSM sorts with the C library's qsort(); glibc's is a top-down merge
   sort (halves of n / 2 and n - n / 2, the left element first on a tie),
   and with a comparison that is not an order the result depends on that
   merge tree, so it is reproduced here, with an explicit stack. tmp: n
   entries. */
void ibr__mesh_merge_sort(uint32_t *a, uint32_t *tmp, size_t n,
                          int (*cmp)(const void *x, const void *y, void *arg), void *arg)
{
    struct frame {
        size_t lo, n;
        int merged_children;
    } stack[2 * 64];
    size_t top = 0;
    stack[top++] = (struct frame){0, n, 0};
    while (top) {
        struct frame *f = &stack[top - 1];
        if (f->n <= 1) {
            top--;
            continue;
        }
        size_t n1 = f->n / 2, n2 = f->n - n1;
        if (!f->merged_children) {
            f->merged_children = 1;
            size_t lo = f->lo;
            stack[top++] = (struct frame){lo + n1, n2, 0}; /* done second */
            stack[top++] = (struct frame){lo, n1, 0};      /* done first */
            continue;
        }
        uint32_t *b1 = a + f->lo, *b2 = b1 + n1, *out = tmp;
        size_t k1 = n1, k2 = n2;
        while (k1 && k2) {
            if (cmp(b1, b2, arg) <= 0) {
                *out++ = *b1++;
                k1--;
            } else {
                *out++ = *b2++;
                k2--;
            }
        }
        while (k1--)
            *out++ = *b1++;
        memcpy(a + f->lo, tmp, sizeof *a * (f->n - k2));
        top--;
    }
}

static int cmp_opensm_fn(const void *a, const void *b, void *arg)
{
    return cmp_opensm(arg, *(const uint32_t *)a, *(const uint32_t *)b);
}

/* ---- the analysis ----------------------------------------------------- */

static void identity(uint32_t n, const uint32_t *off, uint32_t *perm, uint32_t *order)
{
    for (uint32_t s = 0; s < n; s++) {
        order[s] = s;
        for (uint32_t e = off[s]; e < off[s + 1]; e++)
            perm[e] = e - off[s];
    }
}

static void append_size(char *buf, size_t size, unsigned v, int plus, int first)
{
    size_t len = strlen(buf);
    if (len + 1 < size)
        snprintf(buf + len, size - len, "%s%u%s", first ? "" : " x ", v, plus ? "+" : "");
}

static void free_mesh(mesh *m)
{
    ibr_context *ctx = m->ctx;
    ibr__free(ctx, m->metric);
    ibr__free(ctx, m->dist);
    ibr__free(ctx, m->poly);
    ibr__free(ctx, m->mask);
    ibr__free(ctx, m->hd);
    ibr__free(ctx, m->seen);
    ibr__free(ctx, m->queue);
    ibr__free(ctx, m->sorted);
    ibr__free(ctx, m->pos);
    ibr__free(ctx, m->axis);
    ibr__free(ctx, m->coord);
    ibr__free(ctx, m->known);
}

/* Step 1: the local metric and its characteristic polynomial of every
   switch with at most MD neighbours, those switches listed in m->sorted
   (*n_metric of them). IBR_ENOMEM when the scratch cannot be had. */
static int local_metrics(mesh *m, uint32_t *n_metric)
{
    ibr_context *ctx = m->ctx;
    uint32_t n = m->n;
    if (!(m->metric = ibr__calloc(ctx, n, 1)) || !(m->dist = ibr__mallocarray(ctx, n, MD * MD)) ||
        !(m->poly = ibr__mallocarray(ctx, n, sizeof *m->poly * NPOLY)) ||
        !(m->mask = ibr__calloc(ctx, n, 1)) || !(m->hd = ibr__mallocarray(ctx, n, 8)) ||
        !(m->seen = ibr__calloc(ctx, n, sizeof *m->seen)) ||
        !(m->queue = ibr__mallocarray(ctx, n, sizeof *m->queue)) ||
        !(m->sorted = ibr__mallocarray(ctx, n, sizeof *m->sorted)) ||
        !(m->pos = ibr__mallocarray(ctx, n, sizeof *m->pos)))
        return IBR_ENOMEM;
    for (uint32_t s = 0; s < n; s++) {
        uint32_t k = deg(m, s);
        if (k > MD)
            continue;
        ibr__mesh_local_metric(m->dist + (size_t)s * MD * MD, s, m->off, m->nbr, m->mask, m->hd,
                               m->pos, m->queue);
        ibr__mesh_charpoly(m->poly + (size_t)s * NPOLY, m->dist + (size_t)s * MD * MD, k);
        m->metric[s] = 1;
        m->sorted[(*n_metric)++] = s;
    }
    return 0;
}

/* Step 5: the size of each dimension over the placed switches, and the
   dimension order (decreasing size, ties to the lower): m->dim_order and
   each dimension's rank in it. */
static void order_dims(mesh *m, unsigned *size, unsigned *rank)
{
    for (unsigned d = 0; d < m->dims; d++) {
        int32_t lo = 0, hi = 0; /* the seed is at 0 */
        for (uint32_t s = 0; s < m->n; s++)
            if (m->known[s]) {
                int32_t c = m->coord[(size_t)s * m->dims + d];
                lo = c < lo ? c : lo;
                hi = c > hi ? c : hi;
            }
        size[d] = (unsigned)((int64_t)hi - lo + 1);
    }
    for (unsigned r = 0; r < m->dims; r++) {
        unsigned best = m->dims;
        for (unsigned d = 0; d < m->dims; d++) {
            int taken = 0;
            for (unsigned q = 0; q < r; q++)
                taken |= m->dim_order[q] == d;
            if (!taken && (best == m->dims || size[d] > size[best]))
                best = d;
        }
        m->dim_order[r] = best;
        rank[best] = r;
    }
}

/* Step 6: each switch's links in dimension order with the sign trick; a
   direction the switch lacks is skipped (not filled with links that have
   no axis). Counts the links given an axis. */
static void order_links(mesh *m, uint32_t *perm, ibr__mesh_info *info)
{
    const uint32_t *off = m->off;
    for (uint32_t s = 0; s < m->n; s++) {
        uint32_t k = deg(m, s), p = 0;
        const uint8_t *ax = m->axis + off[s];
        if (m->opensm) {
            reorder_opensm(m, s, perm + off[s]);
            p = k;
        }
        for (unsigned r = 0; r < m->dims && !m->opensm; r++) {
            unsigned d = m->dim_order[r];
            uint8_t first = (uint8_t)(2 * d + 1), second = (uint8_t)(2 * d + 2);
            if (m->known[s] && m->coord[(size_t)s * m->dims + d] > 0) {
                first = (uint8_t)(2 * d + 2);
                second = (uint8_t)(2 * d + 1);
            }
            for (uint32_t i = 0; i < k; i++)
                if (ax[i] == first)
                    perm[off[s] + p++] = i;
            for (uint32_t i = 0; i < k; i++)
                if (ax[i] == second)
                    perm[off[s] + p++] = i;
        }
        for (uint32_t i = 0; i < k && !m->opensm; i++)
            if (!ax[i])
                perm[off[s] + p++] = i;
        for (uint32_t i = 0; i < k; i++)
            info->axis_links += ax[i] != 0;
    }
}

int ibr__mesh_analyze_geometry(ibr_context *ctx, uint32_t n, const uint32_t *off,
                               const uint32_t *nbr, unsigned flags, uint32_t *perm,
                               uint32_t *order, ibr__mesh_info *info, uint8_t *axis_out,
                               int32_t *coord_out)
{
    mesh m;
    ibr__mesh_info local;
    uint32_t n_links = n ? off[n] : 0, n_metric = 0, members = 0;
    const ibr__mesh_shape *shape;
    int rc = IBR_ENOMEM;

    if (!info)
        info = &local;
    memset(info, 0, sizeof *info);
    info->seed = IBR_NONE;
    memset(&m, 0, sizeof m);
    m.ctx = ctx = ibr__ctx(ctx);
    m.n = n;
    m.off = off;
    m.nbr = nbr;
    m.opensm = (flags & IBR__MESH_OPENSM) != 0;
    m.guard = !m.opensm && (flags & IBR__MESH_GUARD_AXES);
    if (axis_out && n_links)
        memset(axis_out, 0, n_links);
    if (coord_out)
        for (size_t i = 0; i < (size_t)n * IBR__MESH_MAX_DIMS; i++)
            coord_out[i] = INT32_MIN;
    identity(n, off, perm, order);
    snprintf(info->shape, sizeof info->shape, "unknown geometry");
    if (!n)
        return 0;

    /* step 1 */
    if (local_metrics(&m, &n_metric) < 0)
        goto out;

    /* step 2 */
    ibr__sort(m.sorted, n_metric, sizeof *m.sorted, cmp_poly, &m);
    shape = classify(&m, n_metric, &m.seed, &info->n_classes, &members);
    if (!shape) {
        if (!n_metric)
            snprintf(info->shape, sizeof info->shape,
                     "unknown geometry (no switch has %d or fewer neighbours)", MD);
        rc = 0;
        goto out;
    }
    m.dims = shape->dims;

    /* step 3 */
    if (!(m.axis = ibr__calloc(ctx, n_links ? n_links : 1, 1)))
        goto out;
    seed_axes(&m);
    grow_axes(&m);

    /* step 4 */
    if (!(m.coord = ibr__mallocarray(ctx, n, sizeof *m.coord * m.dims)) ||
        !(m.known = ibr__malloc(ctx, n)))
        goto out;
    place(&m);

    /* step 5 */
    unsigned size[IBR__MESH_MAX_DIMS], rank[IBR__MESH_MAX_DIMS];
    order_dims(&m, size, rank);

    /* step 6 */
    order_links(&m, perm, info);

    /* step 7 */
    for (uint32_t s = 0; s < n; s++) {
        order[s] = s;
        info->placed += m.known[s];
    }
    if (m.opensm) {
        /* OpenSM's numbering, from the original order; queue is free now */
        ibr__mesh_merge_sort(order, m.queue, n, cmp_opensm_fn, &m);
    } else
        ibr__sort(order, n, sizeof *order, cmp_coord, &m);

    info->recognised = 1;
    info->dims = m.dims;
    info->seed = m.seed;
    info->class_members = members;
    {
        char *buf = info->shape;
        size_t bs = sizeof info->shape;
        snprintf(buf, bs, "node shape ");
        for (unsigned d = 0; d < shape->dims; d++)
            append_size(buf, bs, shape->size[d], shape->size[d] == 6, d == 0);
        size_t len = strlen(buf);
        if (len + 1 < bs)
            snprintf(buf + len, bs - len, ", found ");
        for (unsigned r = 0; r < m.dims; r++)
            append_size(buf, bs, size[m.dim_order[r]], 0, r == 0);
    }
    for (unsigned r = 0; r < m.dims; r++)
        info->size[r] = size[m.dim_order[r]];
    if (axis_out)
        for (uint32_t e = 0; e < n_links; e++) {
            uint8_t a = m.axis[e];
            axis_out[e] = a ? (uint8_t)(2 * rank[(a - 1) / 2] + 1 + ((a - 1) & 1)) : 0;
        }
    if (coord_out)
        for (uint32_t s = 0; s < n; s++)
            if (m.known[s])
                for (unsigned r = 0; r < m.dims; r++)
                    coord_out[(size_t)s * IBR__MESH_MAX_DIMS + r] =
                        m.coord[(size_t)s * m.dims + m.dim_order[r]];
    rc = 0;
out:
    free_mesh(&m);
    return rc;
}

int ibr__mesh_analyze(ibr_context *ctx, uint32_t n, const uint32_t *off, const uint32_t *nbr,
                      uint32_t *perm, uint32_t *order, ibr__mesh_info *info)
{
    return ibr__mesh_analyze_geometry(ctx, n, off, nbr, 0, perm, order, info, NULL, NULL);
}
