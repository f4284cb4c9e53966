/* Route functions of the built-in engines. */
#ifndef IBROUTE_ENGINES_H
#define IBROUTE_ENGINES_H

#include "core/internal.h"

int ibr__minhop_route(ibr_run *run, void *user);
int ibr__updn_route(ibr_run *run, void *user);
int ibr__dnup_route(ibr_run *run, void *user);
int ibr__ftree_route(ibr_run *run, void *user);
int ibr__sssp_route(ibr_run *run, void *user);
int ibr__dfsssp_route(ibr_run *run, void *user);

#endif
