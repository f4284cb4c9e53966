/* Grids: meshes, tori and hypercubes, cabled in dimension order so that
   port numbers identify dimensions (what DOR and torus-2QoS expect).

   Torus/mesh. Switch index = x_0 + n_0 * (x_1 + n_1 * (x_2 + ...)):
   dimension 0 varies fastest. With P = parallel, the ports of dimension d
   are 2*d*P+1 .. 2*d*P+P toward x_d - 1 ("minus") and 2*d*P+P+1 ..
   2*d*P+2P toward x_d + 1 ("plus"); the k-th plus port of a switch is
   cabled to the k-th minus port of its plus neighbour. In a mesh the minus
   ports of x_d = 0 and the plus ports of x_d = n_d - 1 stay empty; in a
   torus they wrap, except that a dimension of size 2 has a single set of
   cables (x_d = 0's plus ports to x_d = 1's minus ports) and a dimension of
   size 1 none. Hosts take ports 2*ndims*P+1 ... Descriptions: "T(x0,x1,..)"
   for a torus, "M(x0,x1,..)" for a mesh, hosts "H<n> HCA-1" with
   n = switch index * hosts + k.

   Hypercube. Switch index bits are the coordinates; port d+1 crosses
   dimension d (to index ^ (1 << d)), hosts take ports dim+1 ...
   Descriptions "Q<index>", hosts as above. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/messages.h"
#include "gen/gen_int.h"

static void coord_desc(char *buf, size_t size, char tag, uint32_t s, unsigned ndims,
                       const unsigned *dims)
{
    size_t n = 0;
    int w;
    buf[n++] = tag;
    buf[n++] = '(';
    for (unsigned d = 0; d < ndims && n + 1 < size; d++) {
        w = snprintf(buf + n, size - n, d ? ",%" PRIu32 : "%" PRIu32, s % dims[d]);
        s /= dims[d];
        if (w < 0 || (size_t)w >= size - n) {
            n = size - 1;
            break;
        }
        n += (size_t)w;
    }
    if (n + 1 < size)
        buf[n++] = ')';
    buf[n] = 0;
}

static int build_torus(ibr_fabric *t, unsigned ndims, const unsigned *dims, int wrap,
                       unsigned hosts, unsigned parallel, uint32_t n_sw)
{
    char desc[IBR_DESC_SIZE];
    unsigned sw_ports = 2 * ndims * parallel;
    int rc;
    for (uint32_t s = 0; s < n_sw; s++) {
        coord_desc(desc, sizeof desc, wrap ? 'T' : 'M', s, ndims, dims);
        if ((rc = ibr_fabric_add_node(NULL, t, IBR_NODE_SWITCH,
                                      ibr__gen_switch_guid(IBR__GEN_TORUS, s), sw_ports + hosts,
                                      desc)) < 0)
            return rc;
    }
    for (uint32_t s = 0; s < n_sw; s++) {
        uint32_t stride = 1;
        for (unsigned d = 0; d < ndims; stride *= dims[d], d++) {
            uint32_t x = s / stride % dims[d], nb;
            if (x + 1 < dims[d])
                nb = s + stride;
            else if (wrap && dims[d] > 2)
                nb = s - x * stride;
            else
                continue;
            unsigned minus = 2 * d * parallel + 1, plus = minus + parallel;
            for (unsigned k = 0; k < parallel; k++)
                if ((rc = ibr_fabric_add_link(t, s, plus + k, nb, minus + k, NULL)) < 0)
                    return rc;
        }
    }
    uint32_t next = 0;
    for (uint32_t s = 0; s < n_sw; s++)
        if ((rc = ibr__gen_add_hosts(t, s, sw_ports + 1, hosts, IBR__GEN_TORUS, &next)) < 0)
            return rc;
    return 0;
}

int ibr_fabric_gen_torus(ibr_fabric *f, unsigned int ndims, const unsigned int *dims, int wrap,
                         unsigned int hosts, unsigned int parallel)
{
    const char *what = wrap ? "torus" : "mesh";
    ibr_fabric *t;
    int rc;
    if ((rc = ibr__gen_check_empty(f, what)) < 0)
        return rc;
    if (!dims || ndims < 1)
        return ibr__fabric_err(f, IBR_EINVAL, IBR__MSG("GN025", "%s: needs at least one dimension"),
                               what);
    if (parallel < 1)
        return ibr__fabric_err(f, IBR_EINVAL,
                               IBR__MSG("GN026", "%s: parallel=0, must be at least 1"), what);
    if (ndims > IBR_MAX_PORTS || parallel > IBR_MAX_PORTS ||
        2u * ndims * parallel + (uint64_t)hosts > IBR_MAX_PORTS)
        return ibr__fabric_err(
            f, IBR_EINVAL,
            IBR__MSG("GN027", "%s: a switch would need 2*%u*%u switch ports + %u host ports, "
                              "more than %d"),
            what, ndims, parallel, hosts, IBR_MAX_PORTS);
    uint64_t n_sw = 1;
    for (unsigned d = 0; d < ndims; d++) {
        if (dims[d] < 1)
            return ibr__fabric_err(f, IBR_EINVAL, IBR__MSG("GN028", "%s: dimension %u has size 0"),
                                   what, d);
        n_sw *= dims[d];
        if (n_sw > IBR_MAX_UNICAST_LID)
            return ibr__fabric_err(f, IBR_ENOSPC, IBR__MSG("GN029", "%s: more than %d switches"),
                                   what, IBR_MAX_UNICAST_LID);
    }
    if ((rc = ibr__gen_check_lids(f, n_sw * (1 + (uint64_t)hosts), what)) < 0)
        return rc;
    if ((rc = ibr__gen_begin(&t, f, what)) < 0)
        return rc;
    rc = build_torus(t, ndims, dims, wrap, hosts, parallel, (uint32_t)n_sw);
    return ibr__gen_finish(f, t, rc, what);
}

static int build_cube(ibr_fabric *t, unsigned dim, unsigned hosts)
{
    char desc[IBR_DESC_SIZE];
    uint32_t n = (uint32_t)1 << dim, next = 0;
    int rc;
    for (uint32_t s = 0; s < n; s++) {
        snprintf(desc, sizeof desc, "Q%" PRIu32, s);
        if ((rc = ibr_fabric_add_node(NULL, t, IBR_NODE_SWITCH,
                                      ibr__gen_switch_guid(IBR__GEN_HYPERCUBE, s), dim + hosts,
                                      desc)) < 0)
            return rc;
    }
    for (uint32_t s = 0; s < n; s++)
        for (unsigned d = 0; d < dim; d++)
            if (!(s & ((uint32_t)1 << d)) &&
                (rc = ibr_fabric_add_link(t, s, d + 1, s | (uint32_t)1 << d, d + 1, NULL)) < 0)
                return rc;
    for (uint32_t s = 0; s < n; s++)
        if ((rc = ibr__gen_add_hosts(t, s, dim + 1, hosts, IBR__GEN_HYPERCUBE, &next)) < 0)
            return rc;
    return 0;
}

int ibr_fabric_gen_hypercube(ibr_fabric *f, unsigned int dim, unsigned int hosts)
{
    ibr_fabric *t;
    int rc;
    if ((rc = ibr__gen_check_empty(f, "hypercube")) < 0)
        return rc;
    if (dim < 1 || dim > 15)
        return ibr__fabric_err(f, IBR_EINVAL, IBR__MSG("GN030", "hypercube: dim=%u, must be 1..15"),
                               dim);
    if ((uint64_t)dim + hosts > IBR_MAX_PORTS)
        return ibr__fabric_err(
            f, IBR_EINVAL,
            IBR__MSG("GN031", "hypercube: a switch would need %u + %u ports, more than %d"), dim,
            hosts, IBR_MAX_PORTS);
    uint64_t n = (uint64_t)1 << dim;
    if ((rc = ibr__gen_check_lids(f, n * (1 + (uint64_t)hosts), "hypercube")) < 0)
        return rc;
    if ((rc = ibr__gen_begin(&t, f, "hypercube")) < 0)
        return rc;
    return ibr__gen_finish(f, t, build_cube(t, dim, hosts), "hypercube");
}
