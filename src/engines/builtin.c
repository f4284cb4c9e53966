/* The table of built-in engines: const, so it needs no locking. */
#include "engines/engines.h"

const ibr__builtin ibr__builtins[] = {
    {"minhop",
     "shortest paths, least-loaded port per destination (OpenSM's default)",
     IBR_CAP_LMC | IBR_CAP_MINIMAL, ibr__minhop_route},
};

const size_t ibr__n_builtins = sizeof ibr__builtins / sizeof ibr__builtins[0];
