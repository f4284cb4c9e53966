/*
 * export_formats.h - the formats of `ibr export`: each builds its files in
 * memory (xout) from the routed fabric (xfab); cmd_export.c writes them.
 */
#ifndef IBR_CLI_EXPORT_FORMATS_H
#define IBR_CLI_EXPORT_FORMATS_H

#include "export_model.h"

/* One output file: its name (inside the output directory) and text. */
typedef struct xfile {
    char name[64];
    xbuf b;
} xfile;

typedef struct xout {
    xfile *f;
    size_t n, cap;
} xout;

/* A new empty file named @p name, or NULL when out of memory. The pointer
   is valid until the next xout_add(). */
xbuf *xout_add(xout *o, const char *name);
void xout_dispose(xout *o);

/* Each returns 0, or -1 with the error printed (export_sim.c,
   export_slurm.c, export_orcs.c). */
int xexp_codes(xout *o, const xfab *x);
int xexp_sst_macro(xout *o, const xfab *x);
int xexp_sst_merlin(xout *o, const xfab *x);
int xexp_slurm_conf(xout *o, const xfab *x);
int xexp_slurm_yaml(xout *o, const xfab *x);
int xexp_orcs(xout *o, const xfab *x);

#endif
