/* Property test over many seeded small fabrics, with faults, for every
   engine of the registry (new engines join without a change here): each
   routing is valid (every end-port pair with a path delivered, no loop, no
   bad port) or a decline/failure with a reason, and never breaks the
   engine's promise: credit-loop freedom for IBR_CAP_DEADLOCK_FREE
   engines, shortest paths for IBR_CAP_MINIMAL ones. The number of fabrics
   is IBR_PROPERTY_FABRICS (default 3,000); a longer run: see README.md,
   "Testing". */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ibroute/sys/engine.h"

/* splitmix64: the fabric parameters of seed s */
static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static unsigned pick(uint64_t *s, unsigned lo, unsigned hi)
{
    return lo + (unsigned)(mix(s) % (hi - lo + 1));
}

/* The spec of fabric number i: a family and its size, all small. */
static void fabric_spec(char *buf, size_t cap, uint64_t *s)
{
    switch (mix(s) % 7) {
    case 0: {
        unsigned n = pick(s, 3, 24), d = pick(s, 2, 5);
        snprintf(buf, cap, "random:switches=%u,degree=%u,hosts=%u,seed=%u", n,
                 d < n ? d : n - 1, pick(s, 1, 3), pick(s, 1, 1u << 30));
        break;
    }
    case 1:
        snprintf(buf, cap, "torus:dims=%ux%u,hosts=%u", pick(s, 2, 5), pick(s, 2, 5), pick(s, 1, 2));
        break;
    case 2:
        snprintf(buf, cap, "mesh:dims=%ux%u,hosts=%u", pick(s, 2, 5), pick(s, 2, 5), pick(s, 1, 2));
        break;
    case 3:
        snprintf(buf, cap, "fattree:levels=%u,radix=%u", pick(s, 2, 3),
                 pick(s, 2, 3) * 2 /* 4 or 6 */);
        break;
    case 4:
        snprintf(buf, cap, "hypercube:dim=%u,hosts=%u", pick(s, 1, 4), pick(s, 1, 2));
        break;
    case 5:
    {
        unsigned a = pick(s, 2, 3); /* a global link per router: g <= a + 1 */
        snprintf(buf, cap, "dragonfly:a=%u,p=%u,h=%u,g=%u", a, 1, 1, pick(s, 2, a + 1));
        break;
    }
    default:
        snprintf(buf, cap, "torus:dims=%ux%ux%u,hosts=1,parallel=%u", pick(s, 2, 3),
                 pick(s, 2, 3), pick(s, 2, 3), pick(s, 1, 2));
        break;
    }
}

typedef struct tally {
    unsigned routed, declined;
} tally;

static void test_every_engine(void)
{
    const char *env = getenv("IBR_PROPERTY_FABRICS");
    unsigned nfab = env ? (unsigned)strtoul(env, NULL, 10) : 3000;
    size_t neng = ibr_context_engine_count(NULL);
    tally *tl = calloc(neng, sizeof *tl);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tl);
    unsigned failures = 0;
    for (unsigned i = 0; i < nfab && failures < 10; i++) {
        uint64_t s = 0x5eed0000u + i;
        char spec[160];
        fabric_spec(spec, sizeof spec, &s);
        ibr_fabric *f = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
        if (ibr_fabric_generate(f, spec) < 0) {
            fprintf(stderr, "fabric %u: %s: %s\n", i, spec, ibr_fabric_last_error(f));
            CU_FAIL("a generated spec was refused");
            ibr_fabric_destroy(f);
            continue;
        }
        /* faults on most fabrics: links, sometimes a switch */
        unsigned links = pick(&s, 0, 3), sws = pick(&s, 0, 3) == 0;
        while (ibr_fabric_inject_faults(f, links, sws, s) == IBR_ERANGE && (links || sws)) {
            if (links)
                links--;
            else
                sws = 0;
        }
        unsigned lmc = pick(&s, 0, 4) == 0;
        if (lmc)
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_assign_lids(f, 1, IBR_LIDS_REASSIGN), 0);
        ibr_topo *t = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
        for (size_t e = 0; e < neng; e++) {
            ibr_engine_info info;
            CU_ASSERT_EQUAL_FATAL(ibr_context_engine(&info, NULL, e), 0);
            char chain[96];
            snprintf(chain, sizeof chain, "%s,no_fallback", info.name);
            ibr_options o = IBR_OPTIONS_INIT;
            o.threads = 1;
            o.seed = i + 1;
            ibr_result *r = NULL;
            int rc = ibr_route(&r, t, chain, &o);
            const char *why = "";
            if (rc < 0) {
                /* a decline or a failure, said: never a crash or silence */
                const char *msg = r ? ibr_result_last_error(r) : "";
                if ((rc != IBR_EUNROUTABLE && rc != IBR_ENOVL) || !msg[0])
                    why = "refused without a reason, or with an unexpected code";
                else
                    tl[e].declined++;
                if (why[0])
                    fprintf(stderr, "fabric %u (%s, %u faulty links, %u switch, lmc %u), %s: "
                                    "%s: %s\n",
                            i, spec, links, sws, lmc, info.name, ibr_status_name(rc), msg);
            } else {
                tl[e].routed++;
                ibr_verify_report rep = IBR_VERIFY_REPORT_INIT;
                rep.threads = 1;
                int vrc = ibr_result_verify(&rep, r);
                if (vrc != 0)
                    why = "invalid routing";
                else if ((info.caps & IBR_CAP_DEADLOCK_FREE) && rep.deadlock_free != 1)
                    why = "a credit loop from an engine that promises none";
                else if ((info.caps & IBR_CAP_MINIMAL) && rep.pairs && rep.max_stretch > 1.0)
                    why = "a longer than shortest path from an engine that promises them";
                if (why[0])
                    fprintf(stderr, "fabric %u (%s, %u faulty links, %u switch, lmc %u), %s: "
                                    "%s (%s; %s)\n",
                            i, spec, links, sws, lmc, info.name, why, rep.first_error,
                            rep.credit_loop);
            }
            if (why[0]) {
                failures++;
                CU_FAIL("an engine broke its promise (see above)");
            }
            ibr_result_destroy(r);
        }
        ibr_topo_destroy(t);
        ibr_fabric_destroy(f);
    }
    /* every engine routed some of them: the property was exercised */
    for (size_t e = 0; e < neng; e++) {
        ibr_engine_info info;
        ibr_context_engine(&info, NULL, e);
        printf("  %-12s routed %u, declined %u\n", info.name, tl[e].routed, tl[e].declined);
    }
    CU_ASSERT(tl[0].routed > 0); /* minhop routes every connected fabric */
    free(tl);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"every engine on seeded fabrics with faults", test_every_engine},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("property", tests);
}
