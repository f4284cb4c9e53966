/* The text formats' lexer (lex.h): lines, words, tokens, quoted strings
   and numbers. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>

#include "core/internal.h"
#include "formats/lex.h"

void ibr__lex_init(ibr__lex *lx, const char *buf, size_t len)
{
    if (!buf)
        buf = "";
    lx->c.p = lx->c.e = lx->bol = lx->next = buf;
    lx->end = buf + len;
    lx->line = 0;
}

bool ibr__lex_line(ibr__lex *lx)
{
    if (lx->next >= lx->end)
        return false;
    const char *nl = memchr(lx->next, '\n', (size_t)(lx->end - lx->next));
    lx->bol = lx->next;
    lx->c.p = lx->next;
    lx->c.e = nl ? nl : lx->end;
    lx->next = nl ? nl + 1 : lx->end;
    lx->line++;
    while (lx->c.e > lx->c.p && ibr__is_blank(lx->c.e[-1]))
        lx->c.e--;
    ibr__cur_skip_blanks(&lx->c);
    return true;
}

bool ibr__lex_entry(ibr__lex *lx)
{
    while (ibr__lex_line(lx))
        if (!ibr__cur_end(&lx->c) && *lx->c.p != '#')
            return true;
    return false;
}

int ibr__line_verr(char *msg, int code, uint32_t line, const char *fmt, va_list ap)
{
    int n = line ? snprintf(msg, IBR_ERRMSG_SIZE, "line %" PRIu32 ": ", line) : 0;
    if (n < 0)
        n = 0;
    vsnprintf(msg + n, IBR_ERRMSG_SIZE - (size_t)n, fmt, ap);
    return code;
}

int ibr__line_fabric_err(char *msg, uint32_t line, int rc, const ibr_fabric *f)
{
    if (rc == IBR_ENOMEM)
        return ibr__line_err(msg, rc, 0, "out of memory");
    ibr__line_err(msg, IBR_EPARSE, line, "%s", ibr_fabric_last_error(f));
    return IBR_EPARSE;
}

int ibr__text_holds(const char *buf, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = 0; n <= len && i <= len - n; i++)
        if (buf[i] == needle[0] && memcmp(buf + i, needle, n) == 0)
            return 1;
    return 0;
}

char *ibr__esc(char *buf, size_t cap, const char *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        int plain = c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
        size_t need = plain ? 1 : 4;
        if (o + need + 4 > cap) { /* room for "..." and the NUL */
            memcpy(buf + o, "...", 3);
            o += 3;
            break;
        }
        if (plain) {
            buf[o++] = (char)c;
        } else {
            buf[o++] = '\\';
            buf[o++] = 'x';
            buf[o++] = hex[c >> 4];
            buf[o++] = hex[c & 15];
        }
    }
    buf[o] = 0;
    return buf;
}

int ibr__line_err(char *msg, int code, uint32_t line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ibr__line_verr(msg, code, line, fmt, ap);
    va_end(ap);
    return code;
}

const char *ibr__cur_find(const ibr__cur *c, const char *lit)
{
    size_t n = strlen(lit);
    for (const char *p = c->p; (size_t)(c->e - p) >= n; p++)
        if (memcmp(p, lit, n) == 0)
            return p;
    return NULL;
}

static bool is_word_char(char c)
{
    return ibr__is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           c == '-';
}

ibr__span ibr__cur_word(ibr__cur *c)
{
    ibr__span w = {c->p, 0};
    while (c->p < c->e && is_word_char(*c->p))
        c->p++;
    w.n = (size_t)(c->p - w.p);
    return w;
}

ibr__span ibr__cur_token(ibr__cur *c)
{
    ibr__cur_skip_blanks(c);
    ibr__span t = {c->p, 0};
    while (c->p < c->e && !ibr__is_blank(*c->p))
        c->p++;
    t.n = (size_t)(c->p - t.p);
    return t;
}

int ibr__cur_quoted(ibr__cur *c, ibr__span *out)
{
    if (!ibr__cur_at(c, '"'))
        return -1;
    const char *s = c->p + 1;
    const char *q = memchr(s, '"', (size_t)(c->e - s));
    if (!q)
        return -1;
    out->p = s;
    out->n = (size_t)(q - s);
    c->p = q + 1;
    return 0;
}

static int digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return 99;
}

int ibr__cur_num(ibr__cur *c, unsigned syntax, uint64_t max, uint64_t *out)
{
    const char *p = c->p, *e = c->e;
    unsigned base;
    if ((syntax & IBR__NUM_0X) && e - p >= 3 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
        digit_value(p[2]) < 16) {
        base = 16;
        p += 2;
    } else if ((syntax & IBR__NUM_OCT) && p < e && *p == '0') {
        base = 8;
    } else {
        base = (syntax & IBR__NUM_HEX) ? 16 : 10;
    }
    const char *start = p;
    uint64_t v = 0;
    for (; p < e; p++) {
        unsigned d = (unsigned)digit_value(*p);
        if (d >= base)
            break;
        if (d > max || v > (max - d) / base)
            return -1;
        v = v * base + d;
    }
    if (p == start)
        return -1;
    *out = v;
    c->p = p;
    return p - start < INT_MAX ? (int)(p - start) : INT_MAX;
}

int ibr__cur_num_field(ibr__cur *c, unsigned syntax, uint64_t max, const char *also,
                       uint64_t *out)
{
    ibr__cur t = *c;
    uint64_t v;
    int n = ibr__cur_num(&t, syntax, max, &v);
    if (n < 0)
        return -1;
    if (!ibr__cur_token_end(&t) && !(also && *also && memchr(also, *t.p, strlen(also))))
        return -1;
    *out = v;
    *c = t;
    return n;
}

int ibr__span_num(ibr__span s, unsigned syntax, uint64_t max, uint64_t *out)
{
    if (!s.n)
        return -1;
    ibr__cur c = {s.p, s.p + s.n};
    uint64_t v;
    int n = ibr__cur_num(&c, syntax, max, &v);
    if (n < 0 || c.p != c.e)
        return -1;
    *out = v;
    return n;
}
