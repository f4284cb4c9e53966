/**
 * @file ibroute.h
 * @brief ibroute: InfiniBand routing as a library. Includes every public
 *        header except the engine-author API (sys/engine.h).
 *
 * The flow is builder, then frozen topology, then result:
 * ::ibr_fabric (fabric.h) -> ibr_fabric_freeze() -> ::ibr_topo (topo.h) ->
 * ibr_route() (route.h) -> ::ibr_result (result.h) -> ibr_result_verify()
 * (verify.h). The conventions every call follows (names, argument order,
 * versioned structs, errors, ownership, threads) are in
 * doc/api-conventions.md.
 *
 * @example route_fabric.c
 * Build a small fat tree node by node, route it, verify the result and
 * print one switch's forwarding table.
 *
 * @example route_ibnetdiscover.c
 * Parse an ibnetdiscover file, route it with an engine chain, verify it and
 * write OpenSM's opensm-lfts.dump to standard output.
 *
 * @example custom_engine.c
 * Register a user engine ("bfs-tree", sys/engine.h) on a context, compare
 * its link load with minhop, and watch the chain fall back to minhop when
 * the engine declines.
 *
 * @example reroute_link_failure.c
 * Route a fat tree, save the routing with its fabric (a routing database,
 * persist.h), lose one cable between two switches and reroute
 * incrementally from the saved routing; compare the churn with a full
 * reroute.
 */
#ifndef IBROUTE_IBROUTE_H
#define IBROUTE_IBROUTE_H

#include "analyze.h"
#include "common.h"
#include "context.h"
#include "fabric.h"
#include "formats.h"
#include "generate.h"
#include "guidlist.h"
#include "mcast.h"
#include "options.h"
#include "persist.h"
#include "qos.h"
#include "result.h"
#include "route.h"
#include "topo.h"
#include "verify.h"
#include "version.h"

#endif
