/* The ibnetdiscover dialect's tokens, on top of the formats' lexer. */
#include <string.h>

#include "formats/ibnetdiscover/ibnetdiscover_int.h"

/* The rest of a bracketed number, the opening bracket read: blanks, the
   number (syntax, at most max), blanks and the closing byte, the cursor
   past it; -1 otherwise (the cursor then somewhere inside). */
static int num_closed(ibr__cur *t, unsigned syntax, uint64_t max, char close, uint64_t *out)
{
    ibr__cur_skip_blanks(t);
    if (ibr__cur_num(t, syntax, max, out) < 0)
        return -1;
    ibr__cur_skip_blanks(t);
    if (!ibr__cur_at(t, close))
        return -1;
    t->p++;
    return 0;
}

int ibr__ibn_bracket_num(ibr__cur *c, unsigned *out)
{
    ibr__cur t = *c;
    uint64_t v;
    if (!ibr__cur_at(&t, '['))
        return -1;
    t.p++;
    if (num_closed(&t, IBR__NUM_DEC, 255, ']', &v) < 0)
        return -1;
    *out = (unsigned)v;
    *c = t;
    return 0;
}

int ibr__ibn_skip_ext(ibr__cur *c)
{
    if (!ibr__cur_starts(c, "[ext"))
        return 0;
    ibr__cur t = *c;
    uint64_t v;
    t.p += 4;
    if (num_closed(&t, IBR__NUM_DEC, 255, ']', &v) < 0)
        return -1;
    *c = t;
    return 0;
}

int ibr__ibn_paren_guid(ibr__cur *c, uint64_t *out)
{
    ibr__cur t = *c;
    ibr__cur_skip_blanks(&t);
    if (!ibr__cur_at(&t, '('))
        return 0;
    t.p++;
    if (num_closed(&t, IBR__NUM_HEX | IBR__NUM_0X, UINT64_MAX, ')', out) < 0)
        return -1;
    *c = t;
    return 1;
}

int ibr__ibn_guid_from_id(ibr__span id, uint64_t *out)
{
    if (id.n < 3 || id.n > 18 || id.p[1] != '-' ||
        (id.p[0] != 'S' && id.p[0] != 'H' && id.p[0] != 'R'))
        return 0;
    ibr__span hex = {id.p + 2, id.n - 2};
    return ibr__span_num(hex, IBR__NUM_HEX, UINT64_MAX, out) > 0;
}

int ibr__ibn_width_speed(ibr__span t, uint8_t *wmask, uint16_t *smask)
{
    static const struct {
        const char *s;
        ibr_link_speed v;
    } speeds[] = {{"SDR", IBR_SPEED_SDR}, {"DDR", IBR_SPEED_DDR},     {"QDR", IBR_SPEED_QDR},
                  {"FDR10", IBR_SPEED_FDR10}, {"FDR", IBR_SPEED_FDR}, {"EDR", IBR_SPEED_EDR},
                  {"HDR", IBR_SPEED_HDR}, {"NDR", IBR_SPEED_NDR},     {"XDR", IBR_SPEED_XDR}};
    const char *x = memchr(t.p, 'x', t.n);
    if (!x || x == t.p)
        return 0;
    ibr__span w = {t.p, (size_t)(x - t.p)}, s = {x + 1, t.n - (size_t)(x - t.p) - 1};
    if (!s.n)
        return 0;
    uint8_t wm = 0;
    if (ibr__span_eq(w, "1"))
        wm = IBR_WIDTH_1X;
    else if (ibr__span_eq(w, "2"))
        wm = IBR_WIDTH_2X;
    else if (ibr__span_eq(w, "4"))
        wm = IBR_WIDTH_4X;
    else if (ibr__span_eq(w, "8"))
        wm = IBR_WIDTH_8X;
    else if (ibr__span_eq(w, "12"))
        wm = IBR_WIDTH_12X;
    else if (!ibr__span_eq(w, "??"))
        return 0;
    uint16_t sm = 0;
    for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++)
        if (ibr__span_eq(s, speeds[i].s))
            sm = (uint16_t)(1u << speeds[i].v);
    if (!sm) {
        for (size_t i = 0; i < s.n; i++)
            if (s.p[i] != '?')
                return 0;
    }
    *wmask = wm;
    *smask = sm;
    return 1;
}
