/*
 * The QoS module (src/qos/): the configuration (config.c) and the QoS
 * manager (program.c), which programs a routed result's SL2VL and VL
 * arbitration tables from a configuration, as OpenSM's QoS manager does
 * with -Q, and records the notes and SL2VL hazards. It owns the QoS
 * section of the result; what the rest of the library calls is here.
 */
#ifndef IBROUTE_QOS_QOS_H
#define IBROUTE_QOS_QOS_H

#include "core/internal.h"

/* The number of QoS levels of q (1 when unset or q is NULL) and the VL
   arbitration weight of level l (64 unless set). */
unsigned ibr__qos_levels(const ibr_qos_config *q);
unsigned ibr__qos_level_weight(const ibr_qos_config *q, unsigned l);

/* Program r (routed by engine, of capabilities caps) with q. IBR_ENOMEM
   leaves r's tables partly replaced: the caller fails the attempt. */
int ibr__qos_program(ibr_result *r, const ibr_qos_config *q, const char *engine,
                     unsigned int caps);

#endif
