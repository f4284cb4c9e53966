/*
 * The QoS configuration's layout (qos.h), shared by its parser
 * (formats/qos_conf.c) and the QoS manager that programs a result's tables
 * from it (sys/qos.c).
 */
#ifndef IBROUTE_CORE_QOS_INT_H
#define IBROUTE_CORE_QOS_INT_H

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

struct ibr_qos_config {
    ibr_context *ctx;
    char last_error[IBR_ERRMSG_SIZE];
    ibr__qos_set fam[IBR__QOS_TARGETS]; /* indexed by ibr_qos_target */
};

/* Key prefix of a family: "qos", "qos_ca", ... */
extern const char *const ibr__qos_prefix[IBR__QOS_TARGETS];

#endif
