/*
 * LASH's mesh analysis (OpenSM's do_mesh_analysis, seed 004): recognise a
 * switch graph that is (mostly) a Cartesian mesh or torus, give its
 * switches coordinates, and reorder each switch's logical links so that a
 * "first link one hop closer" route follows dimension order, with the sign
 * trick that makes both ends of an even ring's half-way tie take the same
 * arc. It only reorders and renumbers; it never changes connectivity.
 *
 * The graph is LASH's collapsed switch graph: one logical link per
 * neighbour switch (parallel cables collapsed, self-links dropped), each
 * switch's links in their current order (by the first local port that
 * reaches the neighbour).
 */
#ifndef IBROUTE_LASH_MESH_H
#define IBROUTE_LASH_MESH_H

#include "core/base.h"
#include "engines/lash/mesh_poly.h"

/* What the analysis found, for logs and the result's artefacts. */
typedef struct ibr__mesh_info {
    int recognised;          /* 1: a shape was found and links reordered */
    unsigned dims;           /* dimensions of the shape found (0 if none) */
    unsigned size[8];        /* measured size per dimension, in the
                                dimension order used (largest first) */
    unsigned n_classes;      /* classes of switches of equal signature */
    uint32_t seed;           /* the switch the axes grew from (original
                                index), IBR_NONE if none */
    char shape[128];         /* readable: "6+ x 6+ x 6+ torus", "unknown
                                geometry", ... */
    /* refinements for logs and tests (0 when nothing is recognised) */
    uint32_t class_members;  /* switches in the dominant class */
    uint32_t axis_links;     /* logical links (one direction each) that got
                                an axis; the others come last in their row */
    uint32_t placed;         /* switches that got coordinates (the others
                                are numbered last) */
} ibr__mesh_info;

/* The table of known shapes, generated at build time by
   mesh_table_gen.c (see there for what it holds and why). */
extern const ibr__mesh_shape ibr__mesh_shapes[];
extern const unsigned ibr__mesh_n_shapes;

/* The table entry whose polynomial (degree k, coefficients poly[0..k]) is
   this one, or NULL. */
const ibr__mesh_shape *ibr__mesh_shape_find(const int64_t *poly, uint32_t k);

/*
 * Analyse the collapsed graph of n switches: switch s's logical links lead
 * to nbr[off[s]] .. nbr[off[s + 1] - 1] (switch indices 0..n-1, no
 * duplicates in a row, no self-links; links are symmetric: if s lists t
 * then t lists s).
 * Outputs (caller's arrays):
 *   perm[off[s] + k] = the position, within s's original row, of the link
 *                      that comes k-th after reordering (a permutation of
 *                      0 .. deg(s) - 1 per row; the identity when nothing
 *                      is recognised);
 *   order[i]         = the original index of the switch numbered i after
 *                      renumbering (a permutation of 0..n-1; the identity
 *                      when nothing is recognised);
 *   info             = what was found (may be NULL).
 * Returns 0 (recognised or not: an unknown shape is not an error) or
 * IBR_ENOMEM (outputs then unspecified). Never prints. Deterministic.
 */
int ibr__mesh_analyze(ibr_context *ctx, uint32_t n, const uint32_t *off, const uint32_t *nbr,
                      uint32_t *perm, uint32_t *order, ibr__mesh_info *info);

/* Flags of ibr__mesh_analyze_geometry. */
#define IBR__MESH_OPENSM 1u     /* OpenSM 3.3's behaviour, quirks included */
#define IBR__MESH_GUARD_AXES 2u /* consistent axes next to failures */

/*
 * ibr__mesh_analyze with options and the geometry it found.
 * flags: 0 (what ibr__mesh_analyze does), or
 *   IBR__MESH_OPENSM: keep the two places where ibroute departs from
 *     OpenSM, to reproduce its link order and numbering exactly: a
 *     direction a switch lacks is filled with its links that have no axis,
 *     and switches are numbered by OpenSM's overflowing comparison under
 *     glibc's merge sort;
 *   IBR__MESH_GUARD_AXES (ignored with IBR__MESH_OPENSM): the opposite
 *     rule of the axis propagation acts only between two links that are
 *     each other's only link across, and no switch gets one axis on two
 *     links; the coordinates then stay consistent next to failed links,
 *     where OpenSM's rule can take a perpendicular link for an opposite.
 *   All of them give the same results on a pristine mesh or torus.
 * axis, coord (either may be NULL), for tests and diagnostics:
 *   axis[off[s] + k]  = the axis of s's original k-th link: 2d + 1 for
 *                       "+d", 2d + 2 for "-d", 0 for none (d is the
 *                       dimension's index in the dimension order, 0 =
 *                       largest); all 0 when nothing is recognised;
 *   coord[s * 8 + d]  = s's coordinate in dimension d (same indexing),
 *                       INT32_MIN when s got none or d >= info->dims.
 */
int ibr__mesh_analyze_geometry(ibr_context *ctx, uint32_t n, const uint32_t *off,
                               const uint32_t *nbr, unsigned flags, uint32_t *perm,
                               uint32_t *order, ibr__mesh_info *info, uint8_t *axis,
                               int32_t *coord);

/* The merge sort glibc's qsort() uses (top-down, n / 2 | n - n / 2, the
   left element first on a tie), which OpenSM's numbering depends on: its
   comparison is not an order. tmp: n entries. Exposed for tests. */
void ibr__mesh_merge_sort(uint32_t *a, uint32_t *tmp, size_t n,
                          int (*cmp)(const void *x, const void *y, void *arg), void *arg);

#endif
