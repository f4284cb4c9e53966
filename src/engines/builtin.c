/* The table of built-in engines: const, so it needs no locking. */
#include "engines/engines.h"

const ibr__builtin ibr__builtins[] = {
    {"minhop",
     "shortest paths, least-loaded port per destination (OpenSM's default)",
     IBR_CAP_LMC | IBR_CAP_MINIMAL, ibr__minhop_route},
    {"updn",
     "up/down: shortest legal up*down* paths from root switches; credit-loop free",
     IBR_CAP_LMC | IBR_CAP_DEADLOCK_FREE, ibr__updn_route},
    {"dnup",
     "down/up: like updn with ranks measured from the switches carrying end nodes",
     IBR_CAP_LMC | IBR_CAP_DEADLOCK_FREE, ibr__dnup_route},
    {"ftree",
     "fat-tree: up/down routes balanced for shift patterns on (almost) pure fat trees",
     IBR_CAP_DEADLOCK_FREE, ibr__ftree_route},
    {"sssp",
     "globally balanced shortest paths: one search per destination LID over link loads",
     IBR_CAP_LMC | IBR_CAP_MINIMAL, ibr__sssp_route},
    {"dfsssp",
     "sssp with virtual layers that break every credit loop; path SLs, SL2VL",
     IBR_CAP_LMC | IBR_CAP_SL | IBR_CAP_SL2VL | IBR_CAP_DEADLOCK_FREE | IBR_CAP_MINIMAL,
     ibr__dfsssp_route},
};

const size_t ibr__n_builtins = sizeof ibr__builtins / sizeof ibr__builtins[0];
