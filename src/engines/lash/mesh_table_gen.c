/*
 * Generates the table of known shapes for LASH's mesh analysis at build
 * time (mesh_table.c in the build tree): for every non-increasing tuple of
 * sizes over {6, 5, 3, 2} in 1 to 8 dimensions whose switches have at most
 * 8 neighbours (a size-2 dimension gives one, any other two), it builds the
 * pristine torus, measures one switch with the analysis's own code
 * (mesh_poly.h) and writes its polynomial. Size 6 stands for "6 or more"
 * (beyond 6 the distances around a switch no longer change, in two or more
 * dimensions); there is no size 4, whose ring looks exactly like a 2 x 2
 * square (4 x 2 and 2 x 2 x 2 measure the same).
 *
 * Differences from OpenSM's hand-written table, on purpose:
 *  - the five 4-D tuples with every size 5 or more are included (OpenSM
 *    leaves them out for no stated reason; they are ordinary 8-neighbour
 *    shapes);
 *  - OpenSM's extra "6 x 6 mesh error" polynomial, x^4 - 80x^2 - 256x -
 *    192, is not: it is the shape of a switch diagonal to a missing switch
 *    in a 2-D mesh (its two neighbours beside the hole are 6 hops apart;
 *    tests/test_mesh.c measures it). Classes group equal polynomials
 *    whatever the table says, so the entry only matters when such switches
 *    outnumber the pristine ones, and then it would seed the axes at a
 *    defect, where the first link's "opposite" can be a perpendicular one;
 *  - OpenSM's 1-D rows are not the distances of a ring (a ring of size n
 *    measures n - 2); ours are measured, so a 1-D "6" means exactly 6: a
 *    single ring has no detour, its distances keep growing with its size,
 *    and longer rings are not recognised (there is no dimension order to
 *    gain on a ring anyway).
 * Two tuples measuring the same would make the table ambiguous: the
 * generator fails (exit status 1) if that ever happens.
 *
 * Usage: mesh_table_gen OUTPUT.c
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_poly.h"

#define MAX_SHAPES 512

static const unsigned sizes[] = {6, 5, 3, 2};
static ibr__mesh_shape table[MAX_SHAPES];
static unsigned n_table;

/* Measure switch 0 of the pristine torus of the given sizes. */
static int measure(ibr__mesh_shape *out, unsigned dims, const unsigned *size)
{
    uint32_t n = 1, k = 0;
    if (dims > IBR__MESH_MAX_DIMS) { /* out->size holds that many */
        fprintf(stderr, "mesh_table_gen: %u dimensions (at most %d)\n", dims,
                IBR__MESH_MAX_DIMS);
        return -1;
    }
    for (unsigned d = 0; d < dims; d++) {
        n *= size[d];
        k += size[d] == 2 ? 1 : 2;
    }
    uint32_t *off = malloc(sizeof *off * (n + 1)), *nbr = malloc(sizeof *nbr * n * k);
    uint32_t *touched = malloc(sizeof *touched * n), *queue = malloc(sizeof *queue * n);
    uint8_t *mask = calloc(n, 1), *hd = malloc((size_t)n * 8);
    uint8_t d[IBR__MESH_MAX_DEGREE * IBR__MESH_MAX_DEGREE];
    if (!off || !nbr || !touched || !queue || !mask || !hd) {
        fprintf(stderr, "mesh_table_gen: out of memory\n");
        return -1;
    }
    /* switch index = x_0 + size_0 * (x_1 + size_1 * ...); each switch lists
       its neighbours dimension by dimension, "+" before "-" */
    uint32_t e = 0;
    for (uint32_t s = 0; s < n; s++) {
        uint32_t stride = 1;
        off[s] = e;
        for (unsigned dd = 0; dd < dims; stride *= size[dd], dd++) {
            uint32_t x = s / stride % size[dd];
            uint32_t up = (x + 1) % size[dd], down = (x + size[dd] - 1) % size[dd];
            nbr[e++] = s + (up - x) * stride;
            if (size[dd] > 2)
                nbr[e++] = s + (down - x) * stride;
        }
    }
    off[n] = e;
    ibr__mesh_local_metric(d, 0, off, nbr, mask, hd, touched, queue);
    memset(out, 0, sizeof *out);
    out->dims = (uint8_t)dims;
    for (unsigned dd = 0; dd < dims; dd++)
        out->size[dd] = (uint8_t)size[dd];
    out->degree = (uint8_t)k;
    ibr__mesh_charpoly(out->poly, d, k);
    free(off);
    free(nbr);
    free(touched);
    free(queue);
    free(mask);
    free(hd);
    return 0;
}

/* Every non-increasing tuple of dims sizes, position pos onwards drawn from
   sizes[first..], with at most left neighbours still to give. */
static int enumerate(unsigned dims, unsigned *size, unsigned pos, unsigned first, unsigned left)
{
    if (pos == dims) {
        if (n_table == MAX_SHAPES) {
            fprintf(stderr, "mesh_table_gen: more than %d shapes\n", MAX_SHAPES);
            return -1;
        }
        return measure(&table[n_table++], dims, size);
    }
    for (unsigned i = first; i < sizeof sizes / sizeof sizes[0]; i++) {
        unsigned need = sizes[i] == 2 ? 1 : 2;
        if (need > left)
            continue;
        size[pos] = sizes[i];
        if (enumerate(dims, size, pos + 1, i, left - need) < 0)
            return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    unsigned size[IBR__MESH_MAX_DIMS];
    if (argc != 2) {
        fprintf(stderr, "usage: mesh_table_gen OUTPUT.c\n");
        return 2;
    }
    for (unsigned dims = 1; dims <= IBR__MESH_MAX_DIMS; dims++)
        if (enumerate(dims, size, 0, 0, IBR__MESH_MAX_DEGREE) < 0)
            return 1;
    for (unsigned a = 0; a < n_table; a++)
        for (unsigned b = a + 1; b < n_table; b++)
            if (table[a].degree == table[b].degree &&
                !memcmp(table[a].poly, table[b].poly, sizeof table[a].poly)) {
                fprintf(stderr, "mesh_table_gen: shapes %u and %u measure the same\n", a, b);
                return 1;
            }
    FILE *f = fopen(argv[1], "w");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    fprintf(f, "/* Generated at build time by src/engines/lash/mesh_table_gen.c: the\n"
               "   polynomials of one switch of each pristine torus. Do not edit. */\n"
               "#include \"engines/lash/mesh.h\"\n\n"
               "const ibr__mesh_shape ibr__mesh_shapes[] = {\n");
    for (unsigned i = 0; i < n_table; i++) {
        const ibr__mesh_shape *t = &table[i];
        fprintf(f, "    {%u, {", t->dims);
        for (unsigned d = 0; d < IBR__MESH_MAX_DIMS; d++)
            fprintf(f, "%s%u", d ? ", " : "", t->size[d]);
        fprintf(f, "}, %u, {", t->degree);
        for (unsigned e = 0; e <= IBR__MESH_MAX_DEGREE; e++)
            fprintf(f, "%s%" PRId64, e ? ", " : "", t->poly[e]);
        fprintf(f, "}},\n");
    }
    fprintf(f, "};\n\nconst unsigned ibr__mesh_n_shapes = %u;\n", n_table);
    if (fclose(f) != 0) {
        perror(argv[1]);
        return 1;
    }
    return 0;
}
