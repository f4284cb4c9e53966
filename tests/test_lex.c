/* The text formats' lexer (src/formats/lex.h): lines, cursors, numbers. */
#include <stdio.h>
#include <string.h>

#include "formats/lex.h"
#include "harness.h"

/* ibr__span_num over a C string. */
static int num(const char *s, unsigned syntax, uint64_t max, uint64_t *v)
{
    ibr__span sp = {s, strlen(s)};
    return ibr__span_num(sp, syntax, max, v);
}

static void test_numbers_c(void)
{
    uint64_t v = 0;
    CU_ASSERT_EQUAL(num("0", IBR__NUM_C, UINT64_MAX, &v), 1);
    CU_ASSERT_EQUAL(v, 0);
    CU_ASSERT_EQUAL(num("42", IBR__NUM_C, UINT64_MAX, &v), 2);
    CU_ASSERT_EQUAL(v, 42);
    CU_ASSERT_EQUAL(num("0x1F", IBR__NUM_C, UINT64_MAX, &v), 2);
    CU_ASSERT_EQUAL(v, 31);
    CU_ASSERT_EQUAL(num("0X1f", IBR__NUM_C, UINT64_MAX, &v), 2);
    CU_ASSERT_EQUAL(v, 31);
    CU_ASSERT_EQUAL(num("017", IBR__NUM_C, UINT64_MAX, &v), 3);
    CU_ASSERT_EQUAL(v, 15);
    CU_ASSERT_EQUAL(num("18446744073709551615", IBR__NUM_C, UINT64_MAX, &v), 20);
    CU_ASSERT_EQUAL(v, UINT64_MAX);
    CU_ASSERT_EQUAL(num("0xffffffffffffffff", IBR__NUM_C, UINT64_MAX, &v), 16);
    CU_ASSERT_EQUAL(v, UINT64_MAX);
    CU_ASSERT_EQUAL(num("01777777777777777777777", IBR__NUM_C, UINT64_MAX, &v), 23);
    CU_ASSERT_EQUAL(v, UINT64_MAX);
    /* a rejected number leaves *out alone */
    v = 7;
    CU_ASSERT_EQUAL(num("18446744073709551616", IBR__NUM_C, UINT64_MAX, &v), -1);
    CU_ASSERT_EQUAL(num("0x10000000000000000", IBR__NUM_C, UINT64_MAX, &v), -1);
    CU_ASSERT_EQUAL(num("02000000000000000000000", IBR__NUM_C, UINT64_MAX, &v), -1);
    CU_ASSERT_EQUAL(num("08", IBR__NUM_C, UINT64_MAX, &v), -1);  /* octal stops at 8 */
    CU_ASSERT_EQUAL(num("0x", IBR__NUM_C, UINT64_MAX, &v), -1);  /* "0", then "x" */
    CU_ASSERT_EQUAL(num("0xg", IBR__NUM_C, UINT64_MAX, &v), -1);
    CU_ASSERT_EQUAL(num("", IBR__NUM_C, UINT64_MAX, &v), -1);
    CU_ASSERT_EQUAL(num("+1", IBR__NUM_C, UINT64_MAX, &v), -1);
    CU_ASSERT_EQUAL(num("-1", IBR__NUM_C, UINT64_MAX, &v), -1);
    CU_ASSERT_EQUAL(num(" 1", IBR__NUM_C, UINT64_MAX, &v), -1);
    CU_ASSERT_EQUAL(num("1 ", IBR__NUM_C, UINT64_MAX, &v), -1);
    CU_ASSERT_EQUAL(num("12a", IBR__NUM_C, UINT64_MAX, &v), -1);
    CU_ASSERT_EQUAL(v, 7);
}

/* A number field ends at the end of the line, a blank, a comment or one of
   the bytes the caller allows: trailing junk is no other number. */
static void test_number_fields(void)
{
    static const struct {
        const char *s;
        const char *also;
        int n;        /* digits read, -1 for rejected */
        uint64_t v;
        size_t rest;  /* bytes left after the field */
    } cases[] = {
        {"0x0002c9030000100", NULL, 15, 0x2c9030000100, 0},
        {"0x0002c9030000100g", NULL, -1, 0, 0},
        {"0x0002c9030000100 g", NULL, 15, 0x2c9030000100, 2},
        {"0x10\tx", NULL, 2, 16, 2},
        {"0x10#c", NULL, 2, 16, 2},
        {"0x10(10)", NULL, -1, 0, 0},
        {"0x10(10)", "(", 2, 16, 4},
        {"12:", ":)", 2, 12, 1},
        {"12.5", NULL, -1, 0, 0},
        {"12,", NULL, -1, 0, 0},
        {"0x", NULL, -1, 0, 0},
        {"08", NULL, -1, 0, 0},
        {"g", NULL, -1, 0, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ibr__cur c = {cases[k].s, cases[k].s + strlen(cases[k].s)};
        ibr__cur before = c;
        uint64_t v = 77;
        int n = ibr__cur_num_field(&c, IBR__NUM_C, UINT64_MAX, cases[k].also, &v);
        CU_ASSERT_EQUAL(n, cases[k].n);
        if (n != cases[k].n)
            fprintf(stderr, "case %zu (%s): %d\n", k, cases[k].s, n);
        if (n < 0) {
            CU_ASSERT_EQUAL(v, 77);          /* untouched */
            CU_ASSERT_PTR_EQUAL(c.p, before.p); /* cursor unchanged */
        } else {
            CU_ASSERT_EQUAL(v, cases[k].v);
            CU_ASSERT_EQUAL((size_t)(c.e - c.p), cases[k].rest);
        }
    }
    /* a bound still applies */
    ibr__cur c = {"256 ", NULL};
    c.e = c.p + 4;
    uint64_t v;
    CU_ASSERT_EQUAL(ibr__cur_num_field(&c, IBR__NUM_DEC, 255, NULL, &v), -1);
}

static void test_numbers_other_syntaxes(void)
{
    uint64_t v = 0;
    /* decimal only: a leading 0 is decimal, no prefix */
    CU_ASSERT_EQUAL(num("010", IBR__NUM_DEC, UINT64_MAX, &v), 3);
    CU_ASSERT_EQUAL(v, 10);
    CU_ASSERT_EQUAL(num("0x10", IBR__NUM_DEC, UINT64_MAX, &v), -1);
    /* decimal or 0x hexadecimal (generator specs) */
    CU_ASSERT_EQUAL(num("010", IBR__NUM_DEC | IBR__NUM_0X, UINT64_MAX, &v), 3);
    CU_ASSERT_EQUAL(v, 10);
    CU_ASSERT_EQUAL(num("0x10", IBR__NUM_DEC | IBR__NUM_0X, UINT64_MAX, &v), 2);
    CU_ASSERT_EQUAL(v, 16);
    /* bare hexadecimal (GUID columns), and with an optional prefix */
    CU_ASSERT_EQUAL(num("00000000000000001", IBR__NUM_HEX, UINT64_MAX, &v), 17);
    CU_ASSERT_EQUAL(v, 1);
    CU_ASSERT_EQUAL(num("0x1", IBR__NUM_HEX, UINT64_MAX, &v), -1);
    CU_ASSERT_EQUAL(num("0x1", IBR__NUM_HEX | IBR__NUM_0X, UINT64_MAX, &v), 1);
    CU_ASSERT_EQUAL(v, 1);
    CU_ASSERT_EQUAL(num("abcDEF", IBR__NUM_HEX | IBR__NUM_0X, UINT64_MAX, &v), 6);
    CU_ASSERT_EQUAL(v, 0xabcdef);
    /* bounds are exact */
    CU_ASSERT_EQUAL(num("255", IBR__NUM_DEC, 255, &v), 3);
    CU_ASSERT_EQUAL(num("256", IBR__NUM_DEC, 255, &v), -1);
    CU_ASSERT_EQUAL(num("0000255", IBR__NUM_DEC, 255, &v), 7);
    CU_ASSERT_EQUAL(num("0xbfff", IBR__NUM_C, 0xBFFF, &v), 4);
    CU_ASSERT_EQUAL(num("0xc000", IBR__NUM_C, 0xBFFF, &v), -1);
    CU_ASSERT_EQUAL(num("4294967295", IBR__NUM_DEC, UINT32_MAX, &v), 10);
    CU_ASSERT_EQUAL(num("4294967296", IBR__NUM_DEC, UINT32_MAX, &v), -1);
    CU_ASSERT_EQUAL(num("0", IBR__NUM_DEC, 0, &v), 1);
    CU_ASSERT_EQUAL(num("1", IBR__NUM_DEC, 0, &v), -1);
}

static void test_cursor(void)
{
    const char *s = "Switch\t36 \"S-1\" x#y \"open";
    ibr__cur c = {s, s + strlen(s)}, t;
    uint64_t v;
    ibr__span w = ibr__cur_word(&c);
    CU_ASSERT(ibr__span_eq(w, "Switch"));
    CU_ASSERT_FALSE(ibr__span_eq(w, "Switc"));
    /* a failed number leaves the cursor where it was */
    t = c;
    CU_ASSERT_EQUAL(ibr__cur_num(&c, IBR__NUM_DEC, UINT64_MAX, &v), -1);
    CU_ASSERT_PTR_EQUAL(c.p, t.p);
    ibr__cur_skip_blanks(&c);
    CU_ASSERT_EQUAL(ibr__cur_num(&c, IBR__NUM_DEC, UINT64_MAX, &v), 2);
    CU_ASSERT_EQUAL(v, 36);
    CU_ASSERT(ibr__cur_token_end(&c));
    ibr__cur_skip_blanks(&c);
    ibr__span q;
    CU_ASSERT_EQUAL(ibr__cur_quoted(&c, &q), 0);
    CU_ASSERT(ibr__span_eq(q, "S-1"));
    ibr__span tok = ibr__cur_token(&c);
    CU_ASSERT(ibr__span_eq(tok, "x#y"));
    CU_ASSERT(ibr__cur_starts(&c, " \"op"));
    CU_ASSERT_PTR_EQUAL(ibr__cur_find(&c, "open"), s + strlen(s) - 4);
    CU_ASSERT_PTR_NULL(ibr__cur_find(&c, "openx"));
    ibr__cur_skip_blanks(&c);
    t = c;
    CU_ASSERT_EQUAL(ibr__cur_quoted(&c, &q), -1); /* unterminated */
    CU_ASSERT_PTR_EQUAL(c.p, t.p);
    c.p = c.e;
    CU_ASSERT(ibr__cur_end(&c));
    CU_ASSERT(ibr__cur_token_end(&c));
    CU_ASSERT_EQUAL(ibr__cur_token(&c).n, 0);
    CU_ASSERT_EQUAL(ibr__cur_word(&c).n, 0);
    /* a number ends at a blank, '#' or the end for OpenSM's files */
    const char *h = "12#";
    ibr__cur d = {h, h + 3};
    CU_ASSERT_EQUAL(ibr__cur_num(&d, IBR__NUM_C, UINT64_MAX, &v), 2);
    CU_ASSERT(ibr__cur_token_end(&d));
}

static void test_lines(void)
{
    /* CRLF, blanks around, a comment, a blank line, no final newline */
    const char text[] = "  first line \r\n# comment\n\n\t \nlast\0x";
    ibr__lex lx;
    ibr__lex_init(&lx, text, sizeof text - 1);
    CU_ASSERT_TRUE_FATAL(ibr__lex_line(&lx));
    CU_ASSERT_EQUAL(lx.line, 1);
    CU_ASSERT_EQUAL((size_t)(lx.c.e - lx.c.p), strlen("first line"));
    CU_ASSERT(ibr__cur_starts(&lx.c, "first line"));
    CU_ASSERT_EQUAL(lx.c.p - lx.bol, 2); /* column 3 */
    CU_ASSERT_TRUE_FATAL(ibr__lex_line(&lx));
    CU_ASSERT_EQUAL(lx.line, 2);
    CU_ASSERT(ibr__cur_at(&lx.c, '#'));
    CU_ASSERT_TRUE_FATAL(ibr__lex_line(&lx));
    CU_ASSERT(ibr__cur_end(&lx.c));
    CU_ASSERT_TRUE_FATAL(ibr__lex_line(&lx));
    CU_ASSERT_EQUAL(lx.line, 4);
    CU_ASSERT(ibr__cur_end(&lx.c));
    CU_ASSERT_TRUE_FATAL(ibr__lex_line(&lx));
    CU_ASSERT_EQUAL(lx.line, 5);
    CU_ASSERT_EQUAL(lx.c.e - lx.c.p, 6); /* a NUL is text like any byte */
    CU_ASSERT_FALSE(ibr__lex_line(&lx));
    CU_ASSERT_FALSE(ibr__lex_line(&lx));

    /* entries skip blank and comment lines but keep counting */
    ibr__lex_init(&lx, text, sizeof text - 1);
    CU_ASSERT_TRUE_FATAL(ibr__lex_entry(&lx));
    CU_ASSERT_EQUAL(lx.line, 1);
    CU_ASSERT_TRUE_FATAL(ibr__lex_entry(&lx));
    CU_ASSERT_EQUAL(lx.line, 5);
    CU_ASSERT(ibr__cur_starts(&lx.c, "last"));
    CU_ASSERT_FALSE(ibr__lex_entry(&lx));

    /* empty texts, NULL included; a final newline adds no line */
    ibr__lex_init(&lx, NULL, 0);
    CU_ASSERT_FALSE(ibr__lex_line(&lx));
    ibr__lex_init(&lx, "\n", 1);
    CU_ASSERT_TRUE(ibr__lex_line(&lx));
    CU_ASSERT_FALSE(ibr__lex_line(&lx));
}

static void test_line_errors(void)
{
    char msg[IBR_ERRMSG_SIZE];
    CU_ASSERT_EQUAL(ibr__line_err(msg, IBR_EPARSE, 12, "bad %s", "GUID"), IBR_EPARSE);
    CU_ASSERT_STRING_EQUAL(msg, "line 12: bad GUID");
    CU_ASSERT_EQUAL(ibr__line_err(msg, IBR_ENOMEM, 0, "out of memory"), IBR_ENOMEM);
    CU_ASSERT_STRING_EQUAL(msg, "out of memory");
    char longer[2 * IBR_ERRMSG_SIZE];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = 0;
    ibr__line_err(msg, IBR_EPARSE, 1, "%s", longer);
    CU_ASSERT_EQUAL(strlen(msg), IBR_ERRMSG_SIZE - 1);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"numbers: C base detection", test_numbers_c},
        {"numbers: decimal, hexadecimal, bounds", test_numbers_other_syntaxes},
        {"numbers: fields end at a blank, comment or allowed byte", test_number_fields},
        {"cursor: words, tokens, quotes, search", test_cursor},
        {"lines: blanks, comments, CRLF, numbering", test_lines},
        {"line-numbered messages", test_line_errors},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("lex", tests);
}
