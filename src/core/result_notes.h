/*
 * The notes section of a result (core/result_notes.c, its one owner):
 * the engine, seed and threads of the run that made the tables, the
 * attempts of the chain, the engine's settings and artefacts, the VLs and
 * layers its paths use, and the up/down orientation (upos) a repair of an
 * up/down routing keeps. Writers (route/, sys/, persist/) go through
 * these calls; readers use the public getters of ibroute/result.h.
 */
#ifndef IBROUTE_CORE_RESULT_NOTES_H
#define IBROUTE_CORE_RESULT_NOTES_H

#include "core/internal.h"

/* A new result's notes: one VL, no layers, LMC cap 7. */
void ibr__result_notes_init(ibr_result *r);
/* Drop what an engine recorded (settings, artefacts, upos, layering)
   between attempts; the attempts and the run stay. */
void ibr__result_notes_clear(ibr_result *r);
/* Drop the whole section, attempts included (destruction). */
void ibr__result_notes_drop(ibr_result *r);

/* The seed, worker count and LMC cap (LIDs past the first 2^lmc_cap of a
   port were not asked for) of the run that made the tables. */
void ibr__result_set_run(ibr_result *r, uint64_t seed, unsigned threads, unsigned lmc_cap);
/* The engine whose tables the result holds (NULL or "": none). */
void ibr__result_set_engine(ibr_result *r, const char *name);
/* The VLs the paths use (0 counts as 1) and the layers (0: not set). */
void ibr__result_set_layering(ibr_result *r, unsigned vls_used, unsigned layers);
/* Install the per-switch up/down places (taking ownership; NULL drops). */
void ibr__result_take_upos(ibr_result *r, uint32_t *pos);

/* Record one attempt of the chain (the message copied). */
int ibr__result_add_attempt(ibr_result *r, const char *name, int status, const char *msg);
/* Record one setting of the engine that routed (copied). */
int ibr__result_add_setting(ibr_result *r, const char *name, const char *value);
/* Store an artefact by name (copied; a second one of a name replaces it). */
int ibr__result_set_artifact(ibr_result *r, const char *name, const void *data, size_t size);

#endif
