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

/* Record the QoS levels r was routed with (by an engine of capabilities
   caps): level l's copy of a path SL is l strides up, the stride the
   engine's layers (torus-2QoS: 8, SL bit 3), and the VLs used grow to
   levels strides. levels 0 or 1: no levels (the fields cleared). */
void ibr__qos_set_levels(ibr_result *r, unsigned levels, unsigned caps);

#endif
