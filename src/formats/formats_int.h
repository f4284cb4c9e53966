/*
 * Private helpers shared by the writers in src/formats (defined in
 * dumps.c). The parsers share the lexer instead (lex.h).
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

#endif
