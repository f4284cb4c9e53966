/*
 * What the files of src/route/ share: the caller's options read by their
 * version (options.c), the engines a context knows (registry.c) and the
 * engine settings a caller gives (params.c), for the chain driver
 * (route.c).
 */
#ifndef IBROUTE_ROUTE_INT_H
#define IBROUTE_ROUTE_INT_H

#include "sys/run_int.h"

/* At most this many settings per engine. */
#define IBR__MAX_SETTINGS 64

/* Copy the caller's options (NULL: the defaults) into out, normalised to
   the current version: only the fields opts's version has, defaults for
   the rest. IBR_EVERSION with a message in msg for an unknown version. */
int ibr__options_read(ibr_options *out, const ibr_options *opts, char *msg);
/* Check the values of o (ranges, list pointers); IBR_EINVAL and a message
   in msg. */
int ibr__options_check(char *msg, const ibr_options *o);

/* The engine whose name is the len bytes at name, or NULL. */
const ibr_engine *ibr__engine_named(const ibr_context *ctx, const char *name, size_t len);
/* "minhop, updn, ..." : the names of every engine ctx knows, truncated
   with "..." to fit cap bytes. */
void ibr__engine_names(char *buf, size_t cap, const ibr_context *ctx);

/* Validate every parameter (ENGINE.SETTING = value) of o before any engine
   runs; IBR_EINVAL and a message in msg. */
int ibr__params_check(char *msg, const ibr_context *ctx, const ibr_options *o);
/* The values engine e runs with: its defaults, then the caller's (checked
   already; a later duplicate wins). */
void ibr__params_values(ibr__setting_val *vals, const ibr_context *ctx, const ibr_engine *e,
                        const ibr_options *o);
/* Record the values engine e ran with in r; IBR_ENOMEM. */
int ibr__params_record(ibr_result *r, const ibr_engine *e, const ibr__setting_val *vals);

#endif
