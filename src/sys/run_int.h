/*
 * The layout of an engine run, shared by the engine-author API (sys/) and
 * the routing pipeline (route/route.c). Engines never see it: they go
 * through sys/engine.h and sys/toolkit.h.
 */
#ifndef IBROUTE_RUN_INT_H
#define IBROUTE_RUN_INT_H

#include "core/internal.h"

/* The value of one engine setting during a run. */
typedef struct ibr__setting_val {
    int64_t i;        /* BOOL and INT */
    const char *s;    /* STRING: borrowed from the caller's params or the
                         engine's default */
    size_t len;
} ibr__setting_val;

struct ibr_run {
    ibr_context *ctx;
    const ibr_topo *topo;
    ibr_result *res;
    ibr_options opts;           /* normalised to the current version */
    unsigned int nthreads;      /* resolved worker count, >= 1 */
    const ibr_engine *engine;   /* the engine running */
    ibr__setting_val *vals;     /* engine->n_settings values */
    char message[IBR_ERRMSG_SIZE];
    char phase[64];             /* the last progress phase reported */
    int mcast_built;            /* the engine built the multicast trees */
};

/* ibr_run_parallel_for() on nw workers: ibr__parallel_for() that also
   reports "done of n" items under the run's current phase from the calling
   thread (a cancel stops the loop with IBR_ECANCELED). */
int ibr__run_parallel_for(ibr_run *run, unsigned int nw, size_t n, ibr_parallel_fn fn,
                          void *arg);

/* An up/down engine's orientation of the links into the result
   (declared for the engines in engines/engine_int.h). */
int ibr__run_set_upos(ibr_run *run, const uint32_t *pos);

/* Format a decline/fail message into the run and return the code. */
int ibr__run_decline(ibr_run *run, const char *fmt, ...) IBR_PRINTF(2, 3);
int ibr__run_fail(ibr_run *run, int code, const char *fmt, ...) IBR_PRINTF(3, 4);

/* Parse @p value for setting @p s into @p out. Returns 0 or IBR_EINVAL with
   a message ("must be ...") in msg (IBR_ERRMSG_SIZE bytes). */
int ibr__setting_parse(ibr__setting_val *out, const ibr_setting *s, const char *value,
                       char *msg);
/* Defaults of every setting of engine e into vals. */
void ibr__setting_defaults(ibr__setting_val *vals, const ibr_engine *e);
/* The value as text ("0"/"1", decimal, the string): into buf of cap bytes
   for BOOL/INT; STRING values are returned as they are. */
const char *ibr__setting_text(const ibr_setting *s, const ibr__setting_val *v, char *buf,
                              size_t cap);

#endif
