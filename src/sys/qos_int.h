/*
 * The QoS manager (qos.c): programs a routed result's SL2VL and VL
 * arbitration tables from a QoS configuration, as OpenSM's QoS manager
 * does with -Q, and records the notes and SL2VL hazards.
 */
#ifndef IBROUTE_SYS_QOS_INT_H
#define IBROUTE_SYS_QOS_INT_H

#include "core/internal.h"

/* Program r (routed by engine, of capabilities caps) with q. IBR_ENOMEM
   leaves r's tables partly replaced: the caller fails the attempt. */
int ibr__qos_program(ibr_result *r, const ibr_qos_config *q, const char *engine,
                     unsigned int caps);

#endif
