/*
 * Private helpers shared by the writers in src/formats (defined in
 * dumps.c) and by the readers that build a fabric (port_guids.c). The
 * parsers share the lexer too (lex.h).
 */
#ifndef IBROUTE_FORMATS_INT_H
#define IBROUTE_FORMATS_INT_H

#include "core/buffer.h"
#include "core/internal.h"

/* Link width as ibnetdiscover and OpenSM print it ("4x"; "??" unknown). */
const char *ibr__width_str(unsigned w);
/* Node type as OpenSM's dumps name it ("Switch", "Channel Adapter",
   "Router"; "UNKNOWN"). */
const char *ibr__type_word(unsigned type);
/* A node description as one line of text into dst (IBR_DESC_SIZE bytes):
   control characters become spaces. */
void ibr__desc_line(char *dst, const char *src);

/* The arguments of a reader that builds fabric f from buf[0..len): f
   given and still empty, buf NULL only when len is 0. 0, or the error
   (with f's message). */
int ibr__parse_into_check(ibr_fabric *f, const char *buf, size_t len);
/* A temporary port GUID: one no port of f holds and finals (the GUIDs
   the text gives) does not hold; *next counts down from 2^64 - 1. */
uint64_t ibr__temp_port_guid(const ibr_fabric *f, const ibr__guidmap *finals, uint64_t *next);
/* Move the port holding GUID g, if any, to a temporary GUID; *node and
   *port get it (*node IBR_NONE when no port held g). 0 or a library error. */
int ibr__port_move_aside(ibr_fabric *f, const ibr__guidmap *finals, uint64_t *next, uint64_t g,
                         uint32_t *node, unsigned *port);

#endif
