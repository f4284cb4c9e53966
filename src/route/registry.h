/* The table of built-in engines the registry (route/registry.c) starts
   from: builtins.c, generated from route/builtins.c.in and the list of
   engines in src/engines/meson.build. Each built-in defines
   `const ibr_engine ibr__engine_<name>` in its own sources and is listed
   there once, with the way the routing database repairs its routings. */
#ifndef IBROUTE_ROUTE_REGISTRY_H
#define IBROUTE_ROUTE_REGISTRY_H

#include "ibroute/sys/engine.h"

/* How ibr_routing_db_route() (persist/reroute.c) repairs a saved routing
   after lost cables or switches, per registry entry: what a built-in
   declares in src/engines/meson.build; an engine registered on a context
   (ibr_context_register_engine()) has IBR__REPAIR_GENERIC. Internal: the
   public engine definition does not carry it. */
typedef enum {
    /* by the engine's caps and what the database keeps: entries moved to
       shortest paths (minimal engines), moved paths placed into layers
       (deadlock-free minimal engines with path SLs), moves under the saved
       up/down orientation (deadlock-free engines that saved one), else
       the engine's own routes for the destinations concerned, checked for
       credit loops; or a full reroute that says why */
    IBR__REPAIR_GENERIC,
    /* generic, under the saved up/down orientation, which it needs: a
       database without one takes a full reroute (updn, dnup) */
    IBR__REPAIR_UPDOWN,
    /* generic (under the orientation when the database keeps one); a
       full reroute without one names the tree routes it cannot repair
       under (ftree) */
    IBR__REPAIR_TREE,
    /* generic, the moved paths chosen by the link load of all routes
       (sssp, dfsssp: engines that balance by load) */
    IBR__REPAIR_BALANCED,
    /* broken columns joined to what is intact of their trees, then the
       moved paths placed into layers (nue: not minimal, no hop matrix) */
    IBR__REPAIR_NUE,
    /* the columns concerned routed again on the torus rebuilt from the
       saved configuration and placement (torus-2QoS) */
    IBR__REPAIR_TORUS,
    /* the engine's own computation redone in place, for every change
       (dmodc) */
    IBR__REPAIR_DMODC,
} ibr__repair_kind;

extern const ibr_engine *const ibr__builtins[];
extern const ibr__repair_kind ibr__builtin_repairs[];
extern const size_t ibr__n_builtins;

/* The repair of the engine registered as name on ctx (NULL: the built-ins
   only), by its registry entry: the built-in's declared kind, or
   IBR__REPAIR_GENERIC for an engine registered on the context and for a
   name that is not registered. */
ibr__repair_kind ibr__engine_repair(const ibr_context *ctx, const char *name);

#endif
