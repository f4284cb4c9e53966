/* libFuzzer target: applying a routing database to a changed fabric
   (include/ibroute/persist.h: compare, the unchanged and cached paths, the
   incremental repair, the full reroute). The checksum of the input is
   fixed up before parsing (the "end" line is recomputed, or added), so
   that mutated records reach the comparison and the repair instead of
   stopping at "checksum mismatch"; fuzz_routingdb keeps the checksum as
   it comes. Each database that parses is applied to a fat tree and a torus
   (the seed corpus's fabrics), intact and with a cable, two cables or a
   switch lost, with flags drawn from the input.
   Properties: no crash or sanitizer report; compare's count is the same
   with and without room; a successful reroute verifies without error codes
   other than EROUTES, its report names the engine that routed (the
   result's), and that engine is the saved one unless IBR_REROUTE_FALLBACK
   was given and the report says fallback, and its changed blocks agree
   with its changed entries and switches; a failed one returns a known
   code and leaves no table. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* The input with its checksum line recomputed: everything up to the last
   line that starts with "end " (the whole input when there is none, a
   newline added), then "end <FNV-1a 64 of those bytes>". malloc'ed, NUL
   terminated; *len receives its length. */
static char *fix_checksum(const uint8_t *data, size_t size, size_t *len)
{
    size_t keep = size;
    for (size_t i = size; i-- > 0;)
        if ((i == 0 || data[i - 1] == '\n') && size - i >= 4 && !memcmp(data + i, "end ", 4)) {
            keep = i;
            break;
        }
    char *s = malloc(keep + 32);
    FUZZ_CHECK(s != NULL);
    if (keep)
        memcpy(s, data, keep);
    if (keep && s[keep - 1] != '\n')
        s[keep++] = '\n';
    int n = snprintf(s + keep, 32, "end %016llx\n", (unsigned long long)fnv1a(s, keep));
    *len = keep + (size_t)n;
    return s;
}

/* The fabrics a database is applied to: two families, each intact and
   with faults (links, switches, seed). Built once per process. */
#define N_TOPOS 8
static const ibr_topo *topos[N_TOPOS];

static void build_topos(void)
{
    static const struct {
        const char *spec;
        unsigned links, switches;
        uint64_t seed;
    } v[N_TOPOS] = {
        {"fattree:levels=2,radix=4", 0, 0, 0}, {"fattree:levels=2,radix=4", 1, 0, 1},
        {"fattree:levels=2,radix=4", 2, 0, 2}, {"fattree:levels=2,radix=4", 0, 1, 3},
        {"torus:dims=3x3,hosts=1", 0, 0, 0},   {"torus:dims=3x3,hosts=1", 1, 0, 4},
        {"torus:dims=3x3,hosts=1", 2, 0, 5},   {"torus:dims=3x3,hosts=1", 0, 1, 6},
    };
    for (int i = 0; i < N_TOPOS; i++) {
        ibr_fabric *f = NULL;
        ibr_topo *t = NULL;
        FUZZ_CHECK(ibr_fabric_create(&f, NULL) == 0);
        FUZZ_CHECK(ibr_fabric_generate(f, v[i].spec) == 0);
        if (v[i].links || v[i].switches)
            FUZZ_CHECK(ibr_fabric_inject_faults(f, v[i].links, v[i].switches, v[i].seed) == 0);
        FUZZ_CHECK(ibr_fabric_freeze(&t, f) == 0);
        ibr_fabric_destroy(f);
        topos[i] = t;
    }
}

static void apply(const ibr_routing_db *db, const ibr_topo *t, unsigned flags)
{
    size_t needed = 0, again = 0;
    int rc = ibr_routing_db_compare(NULL, 0, &needed, db, t);
    FUZZ_CHECK(rc == 0 || rc == IBR_ERANGE);
    FUZZ_CHECK((rc == 0) == (needed == 0));
    if (needed) {
        ibr_change *c = malloc(needed * sizeof *c);
        FUZZ_CHECK(c != NULL);
        FUZZ_CHECK(ibr_routing_db_compare(c, needed, &again, db, t) == 0);
        FUZZ_CHECK(again == needed);
        free(c);
    }
    ibr_result *r = NULL;
    ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
    ibr_options o = IBR_OPTIONS_INIT;
    o.threads = 1;
    rc = ibr_routing_db_route(&r, &rep, db, t, &o, flags);
    FUZZ_CHECK(rc < 0 || rep.changes == needed);
    FUZZ_CHECK(memchr(rep.reason, 0, sizeof rep.reason) && memchr(rep.warning, 0,
                                                                  sizeof rep.warning));
    if (rc == 0) {
        /* the saved engine: as written, or minhop (what a full reroute
           runs) for a database without an engine line */
        const char *dbe = ibr_routing_db_engine(db);
        int saved = !strcmp(rep.engine, dbe) || (!dbe[0] && !strcmp(rep.engine, "minhop"));
        FUZZ_CHECK(r != NULL && ibr_result_status(r) == 0);
        FUZZ_CHECK(rep.mode >= IBR_REROUTE_UNCHANGED && rep.mode <= IBR_REROUTE_FULL);
        FUZZ_CHECK(!strcmp(rep.engine, ibr_result_engine(r)));
        FUZZ_CHECK(rep.fallback == !saved);
        /* the fallback's tables only when the caller allowed them */
        FUZZ_CHECK(!rep.fallback || (flags & IBR_REROUTE_FALLBACK));
        /* blocks: one at least per changed switch, one at most per entry,
           the histogram adds up to the switches */
        uint64_t in_hist = 0;
        for (unsigned k = 0; k < IBR_REROUTE_BLOCK_BUCKETS; k++)
            in_hist += rep.lft_blocks_hist[k];
        FUZZ_CHECK(in_hist == rep.switches_changed);
        FUZZ_CHECK(rep.switches_changed <= rep.lft_blocks_changed &&
                   rep.lft_blocks_changed <= rep.lft_entries_changed);
        FUZZ_CHECK(rep.lft_blocks_max <= rep.lft_blocks_changed);
        ibr_verify_report v = IBR_VERIFY_REPORT_INIT;
        v.threads = 1;
        rc = ibr_result_verify(&v, r);
        FUZZ_CHECK(rc == 0 || rc == IBR_EROUTES);
    } else {
        FUZZ_CHECK(rc == IBR_EUNROUTABLE || rc == IBR_EINVAL || rc == IBR_ENOMEM);
        FUZZ_CHECK(!r || ibr_result_lft(r, 0) == NULL);
        FUZZ_CHECK(rep.engine[0] == 0);
    }
    ibr_result_destroy(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!topos[0])
        build_topos();
    size_t len;
    char *text = fix_checksum(data, size, &len);
    ibr_routing_db *db = NULL;
    int rc = ibr_routing_db_parse(&db, NULL, text, len);
    if (rc < 0) {
        FUZZ_CHECK(rc == IBR_EPARSE || rc == IBR_ENOMEM);
        goto out;
    }
    /* flags per fabric from the input's hash: none, the fallback, a full
       reroute with or without it */
    uint64_t h = fnv1a(text, len);
    for (int i = 0; i < N_TOPOS; i++)
        apply(db, topos[i], (unsigned)(h >> (2 * i)) & 3u);
out:
    ibr_routing_db_destroy(db);
    free(text);
    return 0;
}
