/* The engine toolkit (sys/toolkit.h): graph views, searches, the run's
   parallel loop and credit-loop check. The LFT builder is in ucast.c. */
#include <stdatomic.h>
#include <string.h>

#include "verify/verify_int.h"
#include "sys/run_int.h"

uint32_t ibr_topo_switch_links(const uint32_t **off, const ibr_switch_link **links,
                               const ibr_topo *t)
{
    if (!off || !links || !t) {
        if (off)
            *off = NULL;
        if (links)
            *links = NULL;
        return 0;
    }
    *off = t->adj_off;
    *links = t->adj;
    return t->n_adj;
}

int ibr_topo_bfs(uint32_t *dist, const ibr_topo *t, const uint32_t *src, size_t n_src,
                 uint32_t *queue)
{
    if (!dist || !t || (n_src && !src))
        return IBR_EINVAL;
    for (size_t i = 0; i < n_src; i++)
        if (src[i] >= t->n_sw)
            return IBR_ENOTFOUND;
    uint32_t *own = NULL;
    if (!queue) {
        own = ibr__mallocarray(t->ctx, t->n_sw ? t->n_sw : 1, sizeof *own);
        if (!own)
            return IBR_ENOMEM;
        queue = own;
    }
    ibr__bfs(dist, t, src, n_src, queue);
    ibr__free(t->ctx, own);
    return 0;
}

int ibr_topo_switch_hops(uint8_t *out, const ibr_topo *t, unsigned int threads)
{
    if (!out || !t)
        return IBR_EINVAL;
    return ibr__switch_hops_into(out, t, ibr__resolve_threads(threads));
}

unsigned int ibr_run_threads(const ibr_run *run)
{
    return run ? run->nthreads : 1;
}

/* A parallel loop that reports its progress: the calling thread (worker
   0) reports "done of n" items under the run's current phase about 64
   times, so that a long loop shows movement and can be cancelled. */
typedef struct progress_loop {
    ibr_run *run;
    ibr_parallel_fn fn;
    void *arg;
    size_t n, step;
    atomic_size_t done;
    size_t next; /* worker 0 only */
} progress_loop;

static int progress_item(void *arg, unsigned int worker, size_t i)
{
    progress_loop *pl = arg;
    int rc = pl->fn(pl->arg, worker, i);
    size_t done = atomic_fetch_add_explicit(&pl->done, 1, memory_order_relaxed) + 1;
    if (rc == 0 && worker == 0 && done >= pl->next) {
        pl->next = done + pl->step;
        rc = ibr_run_progress(pl->run, pl->run->phase, done, pl->n);
    }
    return rc;
}

int ibr__run_parallel_for(ibr_run *run, unsigned int nw, size_t n, ibr_parallel_fn fn,
                          void *arg)
{
    if (!run->opts.progress || n < 2)
        return ibr__parallel_for(nw, n, fn, arg);
    progress_loop pl = {run, fn, arg, n, n / 64 ? n / 64 : 1, 0, 0};
    atomic_init(&pl.done, 0);
    pl.next = pl.step;
    return ibr__parallel_for(nw, n, progress_item, &pl);
}

int ibr_run_parallel_for(ibr_run *run, size_t n, ibr_parallel_fn fn, void *arg)
{
    if (!run || !fn)
        return IBR_EINVAL;
    return ibr__run_parallel_for(run, run->nthreads, n, fn, arg);
}

int ibr_parallel_for(unsigned int threads, size_t n, ibr_parallel_fn fn, void *arg)
{
    if (!fn)
        return IBR_EINVAL;
    return ibr__parallel_for(ibr__resolve_threads(threads), n, fn, arg);
}

int ibr_run_find_credit_loop(ibr_channel *cycle, size_t cap, size_t *len, ibr_run *run)
{
    if (!run || !len || (cap && !cycle))
        return IBR_EINVAL;
    int free_ = 1;
    uint32_t *cyc = NULL;
    size_t n = 0;
    int rc = ibr__deadlock_check(&free_, &cyc, &n, run->topo, run->res);
    if (rc < 0)
        return rc;
    *len = free_ ? 0 : n;
    for (size_t i = 0; !free_ && i < n && i < cap; i++)
        ibr__decode_channel(&cycle[i], run->topo, cyc[i]);
    ibr__free(run->ctx, cyc);
    return free_ ? 0 : IBR_EDEADLOCK;
}
