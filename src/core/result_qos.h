/*
 * The QoS section of a result (core/result_qos.c, its one owner): the
 * levels and their SL stride, the programmed VL arbitration, the QoS
 * manager's notes and SL2VL hazards, and what the QoS manager started from
 * (the configuration's text and the engine's own SL2VL maps), which a
 * routing database saves. The QoS manager (qos/program.c) computes the
 * tables and hands them over through these calls; nothing else writes
 * the section's fields.
 */
#ifndef IBROUTE_CORE_RESULT_QOS_H
#define IBROUTE_CORE_RESULT_QOS_H

#include <stdarg.h>

#include "core/internal.h"

/* Drop the whole section (between attempts and at destruction). */
void ibr__result_qos_clear(ibr_result *r);

/* Record the QoS levels r was routed with (by an engine of capabilities
   caps): level l's copy of a path SL is l strides up, the stride the
   engine's layers (torus-2QoS: 8, SL bit 3), and the VLs used grow to
   levels strides. levels 0 or 1: no levels (the fields cleared). */
void ibr__qos_set_levels(ibr_result *r, unsigned levels, unsigned caps);

/* Record the QoS levels and stride of a saved routing that a repair keeps
   (the VLs used stay as the caller set them). */
void ibr__qos_keep_levels(ibr_result *r, unsigned levels, unsigned stride);

/* Install the programmed VL arbitration of every global port (taking
   ownership of va) and mark the section programmed. */
void ibr__result_qos_set_vlarb(ibr_result *r, ibr__vlarb *va);

/* A note of the QoS manager, logged at INFO level too. */
int ibr__result_qos_vnote(ibr_result *r, const char *fmt, va_list ap) IBR_PRINTF(2, 0);

/* Keep what the QoS manager started from, taking ownership of the
   buffers (any may be NULL but conf): the configuration's text, the
   engine's switch maps in r's SL2VL layout and its end-port maps. */
void ibr__result_qos_keep(ibr_result *r, char *conf, uint8_t *sw, uint8_t *ep, uint8_t *ep_set);

/* Replace the SL2VL hazards (taking ownership of tab, n entries). */
void ibr__result_qos_set_hazards(ibr_result *r, ibr_sl_hazard *tab, size_t n);

/* The engine's own SL2VL maps (from before the QoS manager when it ran):
   what a routing database saves. */
typedef struct ibr__engine_maps {
    const uint8_t *sw;     /* switch maps in r->sl2vl_off's layout, or NULL */
    const uint8_t *ep;     /* end-port maps per global port, or NULL */
    const uint8_t *ep_set; /* which end ports the engine set, or NULL */
} ibr__engine_maps;
ibr__engine_maps ibr__result_engine_maps(const ibr_result *r);

/* The levels (1 without levels) and the SL stride between two of them. */
static inline unsigned ibr__result_qos_levels(const ibr_result *r)
{
    return r->qos_levels > 1 ? r->qos_levels : 1;
}

static inline unsigned ibr__result_qos_stride(const ibr_result *r)
{
    return r->qos_levels > 1 ? r->qos_stride : 0;
}

/* The programmed VL arbitration of global port gp (NULL without QoS). */
static inline const ibr__vlarb *ibr__result_qos_vlarb(const ibr_result *r, uint32_t gp)
{
    return r->vlarb ? &r->vlarb[gp] : NULL;
}

/* The QoS configuration's text the QoS manager ran with ("" without). */
static inline const char *ibr__result_qos_conf(const ibr_result *r)
{
    return r->qos_conf ? r->qos_conf : "";
}

#endif
