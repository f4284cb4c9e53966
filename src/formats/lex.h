/*
 * The one lexer of the library's text formats: ibnetdiscover and ibsim
 * netfiles, LFT dumps, guid2lid, GUID lists, and the numbers of generator
 * specs.
 *
 * A parser reads its text line by line with an ibr__lex, which counts lines
 * for the messages ("line 12: ...", ibr__line_verr()) and hands out each
 * line as an ibr__cur: a cursor over the line with its leading and
 * trailing blanks cut off (the line number is lx->line; the column of a
 * cursor position p is p - lx->bol + 1). The scanners below move a cursor
 * over words, tokens, quoted strings and numbers. A cursor is two
 * pointers: copy it to look ahead and drop the copy to back out.
 *
 * Blanks are ' ', '\t', '\r', '\v' and '\f' (so CRLF text reads like LF
 * text); '\n' ends a line. Nothing here allocates, prints or keeps state
 * beyond the structures the caller owns; texts need not be NUL-terminated.
 */
#ifndef IBROUTE_FORMATS_LEX_H
#define IBROUTE_FORMATS_LEX_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/base.h"
#include "ibroute/fabric.h"

/* A piece of the text (not NUL-terminated). */
typedef struct ibr__span {
    const char *p;
    size_t n;
} ibr__span;

/* A cursor: the unread part [p, e) of one line. */
typedef struct ibr__cur {
    const char *p, *e;
} ibr__cur;

/* A text read line by line. */
typedef struct ibr__lex {
    ibr__cur c;       /* the current line, blanks cut off both ends */
    const char *bol;  /* where the current line starts, blanks included */
    const char *next; /* where the next line starts */
    const char *end;  /* end of the text */
    uint32_t line;    /* number of the current line, from 1 */
} ibr__lex;

static inline bool ibr__is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static inline bool ibr__is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static inline bool ibr__span_eq(ibr__span s, const char *lit)
{
    size_t n = strlen(lit);
    return s.n == n && memcmp(s.p, lit, n) == 0;
}

/* ------------------------------------------------------------------ */
/* lines                                                               */

/* Start reading buf[0..len) (buf may be NULL when len is 0). */
void ibr__lex_init(ibr__lex *lx, const char *buf, size_t len);
/* Move to the next line; false at the end of the text. Blank lines and
   comments are lines too (ibnetdiscover ends a node record at a blank). */
bool ibr__lex_line(ibr__lex *lx);
/* Move to the next line that is neither blank nor a '#' comment; false at
   the end of the text. */
bool ibr__lex_entry(ibr__lex *lx);

/* Format "line N: <message>" into msg (IBR_ERRMSG_SIZE bytes; no prefix
   when line is 0) and return code: the parsers' error messages. */
int ibr__line_verr(char *msg, int code, uint32_t line, const char *fmt, va_list ap)
    IBR_PRINTF(4, 0);
int ibr__line_err(char *msg, int code, uint32_t line, const char *fmt, ...) IBR_PRINTF(4, 5);

/* A library call on a parser's private fabric f failed with rc: "out of
   memory" (IBR_ENOMEM, no line) or f's message on this line (IBR_EPARSE),
   into msg; returns that code. */
int ibr__line_fabric_err(char *msg, uint32_t line, int rc, const ibr_fabric *f);

/* Does buf[0..len) hold needle anywhere (a plain substring search over
   bytes, for naming what a text holds when it is not the format asked)? */
int ibr__text_holds(const char *buf, size_t len, const char *needle);

/* Text of the input to quote in a message: the n bytes at p with every
   byte outside printable ASCII (control characters, a NUL, escape
   sequences, bytes of 0x7f and above) and '"' and '\\' written as \xNN,
   truncated with "..." to fit cap bytes (at least 8). Returns buf. */
char *ibr__esc(char *buf, size_t cap, const char *p, size_t n);
/* ibr__esc of a span into a buffer of the enclosing full expression's
   lifetime: for the arguments of one message call. */
#define IBR__ESC(s) ibr__esc((char[96]){0}, 96, (s).p, (s).n)

/* ------------------------------------------------------------------ */
/* cursors                                                             */

static inline bool ibr__cur_end(const ibr__cur *c)
{
    return c->p >= c->e;
}

static inline bool ibr__cur_at(const ibr__cur *c, char ch)
{
    return c->p < c->e && *c->p == ch;
}

static inline void ibr__cur_skip_blanks(ibr__cur *c)
{
    while (c->p < c->e && ibr__is_blank(*c->p))
        c->p++;
}

/* Does a value end here (end of line, a blank or a '#' comment), as
   OpenSM's files require after a number? */
static inline bool ibr__cur_token_end(const ibr__cur *c)
{
    return c->p >= c->e || ibr__is_blank(*c->p) || *c->p == '#';
}

/* Does the rest of the line start with lit? */
static inline bool ibr__cur_starts(const ibr__cur *c, const char *lit)
{
    size_t n = strlen(lit);
    return (size_t)(c->e - c->p) >= n && memcmp(c->p, lit, n) == 0;
}

/* The first lit in the rest of the line, or NULL. */
const char *ibr__cur_find(const ibr__cur *c, const char *lit);
/* A word: letters, digits, '_' and '-' (possibly empty). */
ibr__span ibr__cur_word(ibr__cur *c);
/* Skip blanks, then the run of non-blanks up to the next blank (empty at
   the end of the line). */
ibr__span ibr__cur_token(ibr__cur *c);
/* A string in double quotes, the cursor at the opening quote: out gets
   the text up to the next quote on the line. -1 (cursor unchanged) when
   there is no opening or closing quote. */
int ibr__cur_quoted(ibr__cur *c, ibr__span *out);

/* ------------------------------------------------------------------ */
/* numbers                                                             */

/* Number syntaxes, or-ed: which bases ibr__cur_num() reads. */
enum {
    IBR__NUM_DEC = 1u << 0, /* decimal digits */
    IBR__NUM_HEX = 1u << 1, /* hexadecimal digits, no prefix */
    IBR__NUM_0X = 1u << 2,  /* "0x" or "0X" and a hex digit: hexadecimal */
    IBR__NUM_OCT = 1u << 3  /* a leading 0: octal */
};
/* C's base detection, as strtoull(s, NULL, 0) reads it (and OpenSM's
   option files): 0x hexadecimal, leading 0 octal, else decimal. No sign,
   no leading blanks. */
#define IBR__NUM_C (IBR__NUM_DEC | IBR__NUM_0X | IBR__NUM_OCT)

/* Read the unsigned number at the cursor: a 0x prefix (with IBR__NUM_0X)
   chooses hexadecimal, else a leading 0 (with IBR__NUM_OCT) octal, else
   IBR__NUM_HEX hexadecimal or decimal; the digits run as far as they
   belong to that base. Returns the number of digits read (the prefix not
   counted; INT_MAX for longer runs of zeros), with *out set and the cursor
   past them; -1, cursor unchanged, when there is no digit or the value
   exceeds max (overflow included). Fixed-width fields check the count. */
int ibr__cur_num(ibr__cur *c, unsigned syntax, uint64_t max, uint64_t *out);
/* A number field: ibr__cur_num(), then the field must end (the end of the
   line, a blank, a '#' comment, or one of the bytes of `also`, which may be
   NULL): "0x0002c9030000100g" is not a GUID followed by "g". -1, cursor
   unchanged, otherwise; the count of digits on success. */
int ibr__cur_num_field(ibr__cur *c, unsigned syntax, uint64_t max, const char *also,
                       uint64_t *out);
/* The same for a whole span: -1 unless all of s is the number. */
int ibr__span_num(ibr__span s, unsigned syntax, uint64_t max, uint64_t *out);

#endif
