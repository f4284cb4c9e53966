/* Seeded fault injection.

   Candidates, in node index then port order:
     switches: every switch with at least one active cable;
     links:    every active cable between two different switches (each
               counted once, from the end with the lower node index).
   The switches are drawn first (a partial Fisher-Yates shuffle driven by
   ibr__rng seeded with @c seed); the links are then drawn, with the same
   generator, among the candidate links not touching a drawn switch, so
   exactly @c links cables are downed in addition to the drawn switches'
   cables. Everything is chosen before anything is changed: a failed call
   leaves the fabric as it was. */
#include <inttypes.h>
#include <string.h>

#include "core/internal.h"
#include "core/messages.h"

typedef struct cand_link {
    uint32_t node;
    uint8_t port;
} cand_link;

static const ibr__port *port_at(const ibr_fabric *f, uint32_t node, unsigned port)
{
    return &f->ports[f->nodes[node].port_off + port];
}

static int is_switch(const ibr_fabric *f, uint32_t node)
{
    return f->nodes[node].type == IBR_NODE_SWITCH;
}

/* Partial Fisher-Yates shuffles: the first k entries become a uniform
   draw of k of the n. */
static void draw_switches(uint32_t *a, size_t n, size_t k, ibr__rng *rng)
{
    for (size_t i = 0; i < k; i++) {
        size_t j = i + (size_t)ibr__rng_below(rng, n - i);
        uint32_t x = a[i];
        a[i] = a[j];
        a[j] = x;
    }
}

static void draw_links(cand_link *a, size_t n, size_t k, ibr__rng *rng)
{
    for (size_t i = 0; i < k; i++) {
        size_t j = i + (size_t)ibr__rng_below(rng, n - i);
        cand_link x = a[i];
        a[i] = a[j];
        a[j] = x;
    }
}

int ibr_fabric_inject_faults(ibr_fabric *f, unsigned int links, unsigned int switches,
                             uint64_t seed)
{
    if (!f)
        return IBR_EINVAL;
    ibr_context *ctx = f->ctx;
    size_t n = f->n_nodes, n_sw = 0, n_links = 0;
    uint32_t *sw = NULL;
    uint8_t *down = NULL;
    cand_link *cl = NULL;
    int rc = 0;
    ibr__rng rng;

    if (!links && !switches) {
        f->last_error[0] = 0;
        return 0;
    }
    sw = ibr__mallocarray(ctx, n ? n : 1, sizeof *sw);
    down = ibr__calloc(ctx, n ? n : 1, 1);
    if (!sw || !down) {
        rc = ibr__fabric_err(f, IBR_ENOMEM, "faults: out of memory");
        goto out;
    }
    for (uint32_t u = 0; u < n; u++) {
        if (!is_switch(f, u))
            continue;
        for (unsigned p = 1; p <= f->nodes[u].nports; p++) {
            const ibr__port *x = port_at(f, u, p);
            if (x->remote_node != IBR_NONE && x->state == IBR_LINK_ACTIVE) {
                sw[n_sw++] = u;
                break;
            }
        }
    }
    if (switches > n_sw) {
        rc = ibr__fabric_err(
            f, IBR_ERANGE,
            IBR__MSG("GN015", "faults: %u switches requested, only %zu switches have an active "
                              "link"),
            switches, n_sw);
        goto out;
    }
    ibr__rng_seed(&rng, seed);
    draw_switches(sw, n_sw, switches, &rng);
    for (size_t i = 0; i < switches; i++)
        down[sw[i]] = 1;

    size_t cap = 0;
    for (uint32_t u = 0; u < n; u++)
        if (is_switch(f, u))
            cap += f->nodes[u].nports;
    cl = ibr__mallocarray(ctx, cap ? cap : 1, sizeof *cl);
    if (!cl) {
        rc = ibr__fabric_err(f, IBR_ENOMEM, "faults: out of memory");
        goto out;
    }
    for (uint32_t u = 0; u < n; u++) {
        if (!is_switch(f, u) || down[u])
            continue;
        for (unsigned p = 1; p <= f->nodes[u].nports; p++) {
            const ibr__port *x = port_at(f, u, p);
            uint32_t v = x->remote_node;
            if (v == IBR_NONE || v <= u || x->state != IBR_LINK_ACTIVE || !is_switch(f, v) ||
                down[v])
                continue;
            cl[n_links].node = u;
            cl[n_links].port = (uint8_t)p;
            n_links++;
        }
    }
    if (links > n_links) {
        rc = ibr__fabric_err(
            f, IBR_ERANGE,
            IBR__MSG("GN016", "faults: %u links requested, only %zu active switch-to-switch "
                              "links%s"),
            links, n_links, switches ? " remain after the switch faults" : "");
        goto out;
    }
    draw_links(cl, n_links, links, &rng);

    /* apply: these calls cannot fail on the validated nodes and ports */
    for (size_t i = 0; i < switches && rc == 0; i++)
        rc = ibr_fabric_set_node_state(f, sw[i], IBR_LINK_DOWN);
    for (size_t i = 0; i < links && rc == 0; i++)
        rc = ibr_fabric_set_link_state(f, cl[i].node, cl[i].port, IBR_LINK_DOWN);
    if (rc == 0)
        f->last_error[0] = 0;
out:
    ibr__free(ctx, sw);
    ibr__free(ctx, down);
    ibr__free(ctx, cl);
    return rc;
}
