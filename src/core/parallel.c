/* A small fork-join parallel loop on POSIX threads. */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "core/internal.h"

#define MAX_WORKERS 64

typedef struct {
    ibr__par_fn fn;
    void *arg;
    size_t n;
    size_t block;
    atomic_size_t next;
    atomic_int failed;
    /* first failure in item order */
    pthread_mutex_t lock;
    size_t fail_item;
    int fail_rc;
} par_state;

typedef struct {
    par_state *st;
    unsigned worker;
} par_worker;

static void *worker_main(void *p)
{
    par_worker *w = p;
    par_state *st = w->st;
    for (;;) {
        size_t start = atomic_fetch_add(&st->next, st->block);
        if (start >= st->n || atomic_load(&st->failed))
            break;
        size_t end = start + st->block < st->n ? start + st->block : st->n;
        for (size_t i = start; i < end; i++) {
            int rc = st->fn(st->arg, w->worker, i);
            if (rc < 0) {
                pthread_mutex_lock(&st->lock);
                if (!atomic_load(&st->failed) || i < st->fail_item) {
                    st->fail_item = i;
                    st->fail_rc = rc;
                }
                atomic_store(&st->failed, 1);
                pthread_mutex_unlock(&st->lock);
                return NULL;
            }
        }
    }
    return NULL;
}

unsigned int ibr__resolve_threads(unsigned int requested)
{
    if (requested)
        return requested > MAX_WORKERS ? MAX_WORKERS : requested;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    return n > MAX_WORKERS ? MAX_WORKERS : (unsigned)n;
}

int ibr__parallel_for(unsigned int nthreads, size_t n, ibr__par_fn fn, void *arg)
{
    if (nthreads < 1)
        nthreads = 1;
    if (nthreads > n)
        nthreads = n ? (unsigned)n : 1;
    if (nthreads == 1) {
        for (size_t i = 0; i < n; i++) {
            int rc = fn(arg, 0, i);
            if (rc < 0)
                return rc;
        }
        return 0;
    }
    par_state st;
    st.fn = fn;
    st.arg = arg;
    st.n = n;
    st.block = n / (nthreads * 16) ? n / (nthreads * 16) : 1;
    atomic_init(&st.next, 0);
    atomic_init(&st.failed, 0);
    pthread_mutex_init(&st.lock, NULL);
    st.fail_item = 0;
    st.fail_rc = 0;
    pthread_t tid[MAX_WORKERS];
    par_worker w[MAX_WORKERS];
    unsigned started = 0;
    for (unsigned i = 1; i < nthreads; i++) {
        w[i] = (par_worker){&st, i};
        if (pthread_create(&tid[i], NULL, worker_main, &w[i]) != 0)
            break;
        started = i;
    }
    w[0] = (par_worker){&st, 0};
    worker_main(&w[0]);
    for (unsigned i = 1; i <= started; i++)
        pthread_join(tid[i], NULL);
    pthread_mutex_destroy(&st.lock);
    return atomic_load(&st.failed) ? st.fail_rc : 0;
}
