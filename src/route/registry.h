/* The table of built-in engines the registry (route/registry.c) starts
   from: builtins.c, generated from route/builtins.c.in and the list of
   engines in src/engines/meson.build. Each built-in defines
   `const ibr_engine ibr__engine_<name>` in its own sources and is listed
   there once. */
#ifndef IBROUTE_ROUTE_REGISTRY_H
#define IBROUTE_ROUTE_REGISTRY_H

#include "ibroute/sys/engine.h"

extern const ibr_engine *const ibr__builtins[];
extern const size_t ibr__n_builtins;

#endif
