/*
 * The QoS configuration's layout (ibroute/qos.h), shared by its parser
 * (qos/config.c) and the QoS manager that programs a result's tables from
 * it (qos/program.c). Private to src/qos/.
 */
#ifndef IBROUTE_QOS_QOS_INT_H
#define IBROUTE_QOS_QOS_INT_H

#include "core/base.h"
#include "ibroute/qos.h"

#define IBR__QOS_TARGETS 5

/* Bits of ibr__qos_set::set: which of the five parameters a family sets. */
enum {
    IBR__QOS_MAX_VLS = 1 << 0,
    IBR__QOS_HIGH_LIMIT = 1 << 1,
    IBR__QOS_VLARB_HIGH = 1 << 2,
    IBR__QOS_VLARB_LOW = 1 << 3,
    IBR__QOS_SL2VL = 1 << 4
};

/* One family of keys (qos_, qos_ca_, ...): the values it sets. */
typedef struct ibr__qos_set {
    unsigned int set; /* IBR__QOS_* bits */
    unsigned int max_vls;
    unsigned int high_limit;
    ibr_vlarb_entry vlarb_high[IBR_VLARB_ENTRIES];
    ibr_vlarb_entry vlarb_low[IBR_VLARB_ENTRIES];
    uint8_t sl2vl[16];
} ibr__qos_set;

/* QoS levels over the routing layers (ibroute's own keys, not OpenSM's):
   ibr_qos_levels N and ibr_qos_level_weights w0,w1,... */
#define IBR__QOS_MAX_LEVELS 8
typedef struct ibr__qos_lv {
    unsigned int levels;                       /* 0: unset (one level) */
    unsigned int n_weights;                    /* 0: unset (equal weights) */
    uint8_t weight[IBR__QOS_MAX_LEVELS];
} ibr__qos_lv;

struct ibr_qos_config {
    ibr_context *ctx;
    char last_error[IBR_ERRMSG_SIZE];
    ibr__qos_set fam[IBR__QOS_TARGETS]; /* indexed by ibr_qos_target */
    ibr__qos_lv lv;
};

/* Key prefix of a family: "qos", "qos_ca", ... */
extern const char *const ibr__qos_prefix[IBR__QOS_TARGETS];

#endif
