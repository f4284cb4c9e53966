/* Generator plumbing shared by every family (scratch fabric, LIDs, hosts)
   and the spec-string front end ibr_fabric_generate():
       family[:key=value[,key=value]...]
   Values are unsigned decimal or 0x-prefixed hexadecimal numbers; the list
   keys take several numbers separated by '.' (xgft m and w) or 'x' (dims). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/messages.h"
#include "gen/gen_int.h"
#include "core/internal.h"
#include "formats/lex.h"

/* ------------------------------------------------------------------ */
/* shared helpers                                                      */

int ibr__gen_check_empty(ibr_fabric *f, const char *what)
{
    if (!f)
        return IBR_EINVAL;
    if (f->n_nodes)
        return ibr__fabric_err(f, IBR_ESTATE, "%s: the fabric must be empty (it has %zu nodes)",
                               what, f->n_nodes);
    return 0;
}

int ibr__gen_begin(ibr_fabric **tmp, ibr_fabric *f, const char *what)
{
    int rc;
    *tmp = NULL;
    if ((rc = ibr__gen_check_empty(f, what)) < 0)
        return rc;
    if (ibr_fabric_create(tmp, f->ctx) < 0)
        return ibr__fabric_err(f, IBR_ENOMEM, "%s: out of memory", what);
    return 0;
}

int ibr__gen_finish(ibr_fabric *f, ibr_fabric *tmp, int rc, const char *what)
{
    if (rc == 0)
        rc = ibr_fabric_assign_lids(tmp, 0, IBR_LIDS_KEEP);
    if (rc == 0) {
        /* Both fabrics share the context and nothing points back at the
           fabric object, so swapping the structures moves the contents.
           The caller's (empty) storage is freed with the scratch object. */
        struct ibr_fabric keep = *f;
        *f = *tmp;
        *tmp = keep;
        f->last_error[0] = 0;
    } else {
        const char *msg = ibr_fabric_last_error(tmp);
        ibr__fabric_err(f, rc, "%s: %s", what, *msg ? msg : ibr_strerror(rc));
    }
    ibr_fabric_destroy(tmp);
    return rc;
}

int ibr__gen_check_lids(ibr_fabric *f, uint64_t lids, const char *what)
{
    if (lids > IBR_MAX_UNICAST_LID)
        return ibr__fabric_err(
            f, IBR_ENOSPC,
            IBR__MSG("GN001", "%s: needs %" PRIu64 " LIDs (switches and CA ports), more than %d"),
            what, lids, IBR_MAX_UNICAST_LID);
    return 0;
}

int ibr__gen_add_hosts(ibr_fabric *t, uint32_t sw, unsigned first_port, unsigned count,
                       unsigned family, uint32_t *next_host)
{
    char desc[IBR_DESC_SIZE];
    for (unsigned i = 0; i < count; i++) {
        uint32_t h = (*next_host)++, node;
        int rc;
        snprintf(desc, sizeof desc, "H%" PRIu32 " HCA-1", h);
        if ((rc = ibr_fabric_add_node(&node, t, IBR_NODE_CA, ibr__gen_ca_guid(family, h), 1,
                                      desc)) < 0 ||
            (rc = ibr_fabric_add_link(t, node, 1, sw, first_port + i, NULL)) < 0)
            return rc;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* spec strings                                                        */

enum field {
    F_LEVELS,
    F_RADIX,
    F_HOSTS,
    F_H,
    F_M,
    F_W,
    F_DIMS,
    F_PARALLEL,
    F_DIM,
    F_A,
    F_P,
    F_G,
    F_SWITCHES,
    F_DEGREE,
    F_SEED,
    F_VLS,
    F_NODES,
    F_RAILS,
    F_SU,
    F_BYLEAF,
    F_GROUPS,
    F_LEAVES,
    F_SPINES,
    F_GLOBAL,
    F_Q,
    F_COUNT
};

#define SPEC_MAX_LIST 16

static const struct {
    const char *name;
    char sep; /* list separator, 0 for a single number */
} fields[F_COUNT] = {
    [F_LEVELS] = {"levels", 0},   [F_RADIX] = {"radix", 0},   [F_HOSTS] = {"hosts", 0},
    [F_H] = {"h", 0},             [F_M] = {"m", '.'},         [F_W] = {"w", '.'},
    [F_DIMS] = {"dims", 'x'},     [F_PARALLEL] = {"parallel", 0},
    [F_DIM] = {"dim", 0},         [F_A] = {"a", 0},           [F_P] = {"p", 0},
    [F_G] = {"g", 0},             [F_SWITCHES] = {"switches", 0},
    [F_DEGREE] = {"degree", 0},   [F_SEED] = {"seed", 0},
    [F_VLS] = {"vls", 0},         [F_NODES] = {"nodes", 0},   [F_RAILS] = {"rails", 0},
    [F_SU] = {"su", 0},           [F_BYLEAF] = {"byleaf", 0},
    [F_GROUPS] = {"groups", 0},   [F_LEAVES] = {"leaves", 0}, [F_SPINES] = {"spines", 0},
    [F_GLOBAL] = {"global", 0},   [F_Q] = {"q", 0},
};

enum family { FAM_FATTREE, FAM_XGFT, FAM_TORUS, FAM_MESH, FAM_HYPERCUBE, FAM_DRAGONFLY,
              FAM_RANDOM, FAM_RAIL, FAM_DFPLUS, FAM_HYPERX, FAM_SLIMFLY, FAM_COUNT };

#define B(x) (1u << (x))

static const struct {
    const char *name;
    unsigned allowed;
    unsigned required;
} families[FAM_COUNT] = {
    [FAM_FATTREE] = {"fattree", B(F_LEVELS) | B(F_RADIX) | B(F_HOSTS), B(F_LEVELS) | B(F_RADIX)},
    [FAM_XGFT] = {"xgft", B(F_H) | B(F_M) | B(F_W) | B(F_HOSTS), B(F_H) | B(F_M) | B(F_W)},
    [FAM_TORUS] = {"torus", B(F_DIMS) | B(F_HOSTS) | B(F_PARALLEL), B(F_DIMS)},
    [FAM_MESH] = {"mesh", B(F_DIMS) | B(F_HOSTS) | B(F_PARALLEL), B(F_DIMS)},
    [FAM_HYPERCUBE] = {"hypercube", B(F_DIM) | B(F_HOSTS), B(F_DIM)},
    [FAM_DRAGONFLY] = {"dragonfly", B(F_A) | B(F_P) | B(F_H) | B(F_G), B(F_A) | B(F_H)},
    [FAM_RANDOM] = {"random", B(F_SWITCHES) | B(F_DEGREE) | B(F_HOSTS) | B(F_SEED),
                    B(F_SWITCHES) | B(F_DEGREE)},
    [FAM_RAIL] = {"rail", B(F_NODES) | B(F_RAILS) | B(F_SU) | B(F_RADIX) | B(F_LEVELS) |
                              B(F_BYLEAF),
                  B(F_NODES)},
    [FAM_DFPLUS] = {"dfplus",
                    B(F_GROUPS) | B(F_LEAVES) | B(F_SPINES) | B(F_HOSTS) | B(F_GLOBAL),
                    B(F_GROUPS) | B(F_LEAVES) | B(F_SPINES)},
    [FAM_HYPERX] = {"hyperx", B(F_DIMS) | B(F_HOSTS), B(F_DIMS)},
    [FAM_SLIMFLY] = {"slimfly", B(F_Q) | B(F_HOSTS), B(F_Q)},
};

typedef struct spec {
    unsigned have;
    uint64_t val[F_COUNT];
    unsigned list[F_COUNT][SPEC_MAX_LIST];
    unsigned nlist[F_COUNT];
} spec;

/* Shown in messages: at most this many bytes of user text. */
#define SHOW(len) ((int)((len) > 40 ? 40 : (len)))

/* One number of s[0..len): decimal or 0x hex, no sign, no blanks. */
static bool parse_u64(uint64_t *out, const char *s, size_t len, uint64_t max)
{
    ibr__span sp = {s, len};
    return ibr__span_num(sp, IBR__NUM_DEC | IBR__NUM_0X, max, out) >= 0;
}

static int parse_value(ibr_fabric *f, spec *sp, const char *fam, enum field k, const char *v,
                       size_t vlen)
{
    if (!fields[k].sep) {
        uint64_t max = k == F_SEED ? UINT64_MAX : UINT32_MAX;
        if (!parse_u64(&sp->val[k], v, vlen, max))
            return ibr__fabric_err(
                f, IBR_EINVAL,
                IBR__MSG("GN002", "generate %s: bad value '%.*s' for key '%s' (expected an "
                                  "unsigned number)"),
                fam, SHOW(vlen), v, fields[k].name);
        return 0;
    }
    size_t n = 0, i = 0;
    for (;;) {
        size_t j = i;
        uint64_t x;
        while (j < vlen && v[j] != fields[k].sep)
            j++;
        if (n == SPEC_MAX_LIST)
            return ibr__fabric_err(
                f, IBR_EINVAL, IBR__MSG("GN003", "generate %s: key '%s' has more than %d values"),
                fam, fields[k].name, SPEC_MAX_LIST);
        if (!parse_u64(&x, v + i, j - i, UINT32_MAX))
            return ibr__fabric_err(
                f, IBR_EINVAL,
                IBR__MSG("GN004", "generate %s: bad value '%.*s' for key '%s' (expected numbers "
                                  "separated by '%c')"),
                fam, SHOW(vlen), v, fields[k].name, fields[k].sep);
        sp->list[k][n++] = (unsigned)x;
        if (j == vlen)
            break;
        i = j + 1;
    }
    sp->nlist[k] = (unsigned)n;
    return 0;
}

static int parse_spec(ibr_fabric *f, spec *sp, enum family *famout, const char *s)
{
    size_t len = strlen(s);
    const char *colon = memchr(s, ':', len);
    size_t flen = colon ? (size_t)(colon - s) : len;
    int fam = -1;
    for (int i = 0; i < FAM_COUNT; i++)
        if (strlen(families[i].name) == flen && !memcmp(families[i].name, s, flen))
            fam = i;
    if (fam < 0)
        return ibr__fabric_err(
            f, IBR_EINVAL,
            IBR__MSG("GN005", "generate: unknown family '%.*s' (expected fattree, xgft, torus, "
                              "mesh, hypercube, dragonfly, dfplus, hyperx, slimfly, random or "
                              "rail)"),
            SHOW(flen), s);
    const char *fn = families[fam].name;
    memset(sp, 0, sizeof *sp);
    *famout = (enum family)fam;
    if (!colon)
        goto check;
    const char *p = colon + 1, *end = s + len;
    for (;;) {
        const char *item_end = memchr(p, ',', (size_t)(end - p));
        if (!item_end)
            item_end = end;
        size_t ilen = (size_t)(item_end - p);
        const char *eq = memchr(p, '=', ilen);
        size_t klen = eq ? (size_t)(eq - p) : ilen;
        if (!ilen)
            return ibr__fabric_err(f, IBR_EINVAL,
                                   IBR__MSG("GN006", "generate %s: empty key=value item"), fn);
        int k = -1;
        for (int i = 0; i < F_COUNT; i++)
            if (strlen(fields[i].name) == klen && !memcmp(fields[i].name, p, klen))
                k = i;
        if (k < 0 || !((families[fam].allowed | B(F_VLS)) & B(k)))
            return ibr__fabric_err(f, IBR_EINVAL,
                                   IBR__MSG("GN007", "generate %s: unknown key '%.*s'"), fn,
                                   SHOW(klen), p);
        if (!eq || eq + 1 == item_end)
            return ibr__fabric_err(f, IBR_EINVAL,
                                   IBR__MSG("GN008", "generate %s: key '%s' needs a value"), fn,
                                   fields[k].name);
        if (sp->have & B(k))
            return ibr__fabric_err(f, IBR_EINVAL,
                                   IBR__MSG("GN009", "generate %s: duplicate key '%s'"), fn,
                                   fields[k].name);
        int rc = parse_value(f, sp, fn, (enum field)k, eq + 1, (size_t)(item_end - eq - 1));
        if (rc < 0)
            return rc;
        sp->have |= B(k);
        if (item_end == end)
            break;
        p = item_end + 1;
    }
check:
    for (int k = 0; k < F_COUNT; k++)
        if ((families[fam].required & B(k)) && !(sp->have & B(k)))
            return ibr__fabric_err(f, IBR_EINVAL,
                                   IBR__MSG("GN010", "generate %s: missing key '%s'"), fn,
                                   fields[k].name);
    return 0;
}

static unsigned get(const spec *sp, enum field k, unsigned def)
{
    return (sp->have & B(k)) ? (unsigned)sp->val[k] : def;
}

static int generate(ibr_fabric *f, const spec *sp_, enum family fam);

/* Give every port of the generated fabric vl_cap data VLs (the key "vls",
   checked before anything was built, so this cannot fail). */
static void set_vls(ibr_fabric *f, unsigned vls)
{
    ibr_port_attr a = IBR_PORT_ATTR_INIT;
    a.vl_cap = vls;
    for (uint32_t i = 0; i < f->n_nodes; i++)
        for (unsigned p = 1; p <= f->nodes[i].nports; p++)
            ibr_fabric_set_port_attr(f, i, p, &a);
}

int ibr_fabric_generate(ibr_fabric *f, const char *s)
{
    spec sp;
    enum family fam = FAM_FATTREE;
    int rc;
    if (!f)
        return IBR_EINVAL;
    if (!s)
        return ibr__fabric_err(f, IBR_EINVAL, "generate: NULL spec");
    if ((rc = parse_spec(f, &sp, &fam, s)) < 0)
        return rc;
    unsigned vls = get(&sp, F_VLS, 0);
    if ((sp.have & B(F_VLS)) && vls != 1 && vls != 2 && vls != 4 && vls != 8 && vls != 15)
        return ibr__fabric_err(
            f, IBR_EINVAL, IBR__MSG("GN011", "generate %s: vls=%u (data VLs are 1, 2, 4, 8 or 15)"),
            families[fam].name, vls);
    if ((rc = generate(f, &sp, fam)) < 0)
        return rc;
    if (vls)
        set_vls(f, vls);
    return 0;
}

static int generate(ibr_fabric *f, const spec *sp_, enum family fam)
{
    spec sp = *sp_;
    switch (fam) {
    case FAM_FATTREE:
        return ibr_fabric_gen_fat_tree(f, get(&sp, F_LEVELS, 0), get(&sp, F_RADIX, 0),
                                       get(&sp, F_HOSTS, 0));
    case FAM_XGFT: {
        ibr_gen_xgft p = IBR_GEN_XGFT_INIT;
        p.h = get(&sp, F_H, 0);
        p.hosts = get(&sp, F_HOSTS, 0);
        if (p.h < 1 || p.h > IBR_XGFT_MAX_LEVELS)
            return ibr__fabric_err(f, IBR_EINVAL,
                                   IBR__MSG("GN012", "generate xgft: h=%u out of range 1..%d"), p.h,
                                   IBR_XGFT_MAX_LEVELS);
        if (sp.nlist[F_M] != p.h || sp.nlist[F_W] != p.h)
            return ibr__fabric_err(
                f, IBR_EINVAL,
                IBR__MSG("GN013", "generate xgft: m and w need h=%u values each (m has %u, w "
                                  "has %u)"),
                p.h, sp.nlist[F_M], sp.nlist[F_W]);
        for (unsigned i = 0; i < p.h; i++) {
            p.m[i] = sp.list[F_M][i];
            p.w[i] = sp.list[F_W][i];
        }
        return ibr_fabric_gen_xgft(f, &p);
    }
    case FAM_TORUS:
    case FAM_MESH:
        return ibr_fabric_gen_torus(f, sp.nlist[F_DIMS], sp.list[F_DIMS], fam == FAM_TORUS,
                                    get(&sp, F_HOSTS, 1), get(&sp, F_PARALLEL, 1));
    case FAM_HYPERCUBE:
        return ibr_fabric_gen_hypercube(f, get(&sp, F_DIM, 0), get(&sp, F_HOSTS, 1));
    case FAM_DRAGONFLY: {
        unsigned a = get(&sp, F_A, 0), h = get(&sp, F_H, 0);
        uint64_t g = (uint64_t)a * h + 1;
        if (sp.have & B(F_G))
            g = sp.val[F_G];
        if (g > UINT32_MAX)
            return ibr__fabric_err(
                f, IBR_EINVAL, IBR__MSG("GN014", "generate dragonfly: too many groups (a*h+1)"));
        return ibr_fabric_gen_dragonfly(f, a, get(&sp, F_P, h), h, (unsigned)g);
    }
    case FAM_RANDOM:
        return ibr_fabric_gen_random(f, get(&sp, F_SWITCHES, 0), get(&sp, F_DEGREE, 0),
                                     get(&sp, F_HOSTS, 1),
                                     (sp.have & B(F_SEED)) ? sp.val[F_SEED] : 0);
    case FAM_RAIL:
        return ibr__gen_rail(f, get(&sp, F_NODES, 0), get(&sp, F_RAILS, 8), get(&sp, F_SU, 0),
                             get(&sp, F_RADIX, 64), get(&sp, F_LEVELS, 0), get(&sp, F_BYLEAF, 0));
    case FAM_DFPLUS:
        return ibr__gen_dfplus(f, get(&sp, F_GROUPS, 0), get(&sp, F_LEAVES, 0),
                               get(&sp, F_SPINES, 0), get(&sp, F_HOSTS, 1),
                               get(&sp, F_GLOBAL, 0));
    case FAM_HYPERX:
        return ibr__gen_hyperx(f, sp.nlist[F_DIMS], sp.list[F_DIMS], get(&sp, F_HOSTS, 1));
    case FAM_SLIMFLY:
        return ibr__gen_slimfly(f, get(&sp, F_Q, 0), get(&sp, F_HOSTS, 1));
    default:
        return ibr__fabric_err(f, IBR_EINTERNAL, "generate: family %d", (int)fam);
    }
}
