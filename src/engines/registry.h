/* The table of built-in engines, generated from src/engines/meson.build
   (builtins.c): each built-in defines `const ibr_engine ibr__engine_<name>`
   in its own sources and is listed there once. */
#ifndef IBROUTE_REGISTRY_H
#define IBROUTE_REGISTRY_H

#include "ibroute/sys/engine.h"

extern const ibr_engine *const ibr__builtins[];
extern const size_t ibr__n_builtins;

#endif
