#include "mbs_expr.h"

#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

typedef struct {
    const char *text;
    const char *p;
    const MbsExprVariable *vars;
    int nvars;
    unsigned char *used;
    int depth;
    int failed;
    char message[MBS_EXPR_MESSAGE_MAX]; /* first error wins */
} Parser;

typedef struct {
    const char *name;
    double (*fn)(double);
} Function;

static const Function functions[] = {
    {"sqrt", sqrt}, {"sin", sin},   {"cos", cos}, {"tan", tan},  {"asin", asin},
    {"acos", acos}, {"atan", atan}, {"exp", exp}, {"log", log},  {"abs", fabs},
};

#if defined(__GNUC__)
static int fail(Parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif

static int fail(Parser *ps, const char *fmt, ...)
{
    if (!ps->failed) {
        char what[MBS_EXPR_MESSAGE_MAX - 32]; /* room for " at column N" */
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
        snprintf(ps->message, sizeof ps->message, "%s at column %d", what,
                 (int)(ps->p - ps->text) + 1);
        ps->failed = 1;
    }
    return 0;
}

/* ASCII classes: the C library's depend on the locale. */
static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_name_start(char c) { return is_alpha(c) || c == '_'; }
static int is_name_char(char c) { return is_alpha(c) || is_digit(c) || c == '_'; }
static int is_print(char c) { return c >= 0x20 && c < 0x7f; }

static void skip_space(Parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
        ps->p++;
}

static const Function *find_function(const char *name)
{
    for (size_t i = 0; i < sizeof functions / sizeof functions[0]; ++i)
        if (!strcmp(functions[i].name, name))
            return &functions[i];
    return NULL;
}

/* strtod of a number written with '.', whatever the locale's decimal point. */
static double c_locale_strtod(const char *s, size_t len)
{
    const char *point = localeconv()->decimal_point;
    size_t plen = point && *point ? strlen(point) : 1;
    char small[128];
    char *buf = len * plen < sizeof small ? small : malloc(len * plen + 1);
    if (!buf)
        return NAN; /* reported as "not a finite number" */
    size_t n = 0;
    for (size_t i = 0; i < len; ++i) {
        if (s[i] == '.' && point && *point) {
            memcpy(buf + n, point, plen);
            n += plen;
        } else {
            buf[n++] = s[i];
        }
    }
    buf[n] = '\0';
    double v = strtod(buf, NULL);
    if (buf != small)
        free(buf);
    return v;
}

static int parse_expr(Parser *ps, double *v);
static int parse_unary(Parser *ps, double *v);

/* '(' expr ')', at the '('. */
static int parse_parenthesized(Parser *ps, double *v)
{
    ps->p++;
    if (!parse_expr(ps, v))
        return 0;
    skip_space(ps);
    if (*ps->p != ')')
        return fail(ps, "expected ')'");
    ps->p++;
    return 1;
}

static int parse_number(Parser *ps, double *v)
{
    const char *s = ps->p;
    while (is_digit(*ps->p))
        ps->p++;
    if (*ps->p == '.')
        for (ps->p++; is_digit(*ps->p);)
            ps->p++;
    if (ps->p - s == 1 && *s == '.')
        return ps->p = s, fail(ps, "malformed number");
    if (*ps->p == 'e' || *ps->p == 'E') {
        const char *e = ps->p + 1;
        if (*e == '+' || *e == '-')
            e++;
        if (!is_digit(*e))
            return fail(ps, "malformed exponent");
        while (is_digit(*e))
            e++;
        ps->p = e;
    }
    *v = c_locale_strtod(s, (size_t)(ps->p - s));
    return 1;
}

static int parse_name(Parser *ps, double *v)
{
    const char *start = ps->p;
    while (is_name_char(*ps->p))
        ps->p++;
    size_t len = (size_t)(ps->p - start);
    char name[MBS_EXPR_NAME_MAX + 1];
    if (len > MBS_EXPR_NAME_MAX)
        return ps->p = start, fail(ps, "name too long");
    memcpy(name, start, len);
    name[len] = '\0';

    skip_space(ps);
    const Function *f = find_function(name);
    if (f) {
        if (*ps->p != '(')
            return fail(ps, "expected '(' after function '%s'", name);
        double arg;
        if (!parse_parenthesized(ps, &arg))
            return 0;
        *v = f->fn(arg);
        return 1;
    }
    for (int i = 0; i < ps->nvars; ++i)
        if (ps->vars[i].name && !strcmp(ps->vars[i].name, name)) {
            if (ps->used)
                ps->used[i] = 1;
            return *v = ps->vars[i].value, 1;
        }
    if (!strcmp(name, "pi"))
        return *v = 3.14159265358979323846, 1;
    ps->p = start;
    return fail(ps, "unknown parameter '%s'", name);
}

static int parse_primary(Parser *ps, double *v)
{
    skip_space(ps);
    char c = *ps->p;
    if (is_digit(c) || c == '.')
        return parse_number(ps, v);
    if (is_name_start(c))
        return parse_name(ps, v);
    if (c == '(')
        return parse_parenthesized(ps, v);
    if (c == '\0')
        return fail(ps, "unexpected end of expression");
    return fail(ps, "unexpected character '%c'", is_print(c) ? c : '?');
}

static int parse_power(Parser *ps, double *v)
{
    if (!parse_primary(ps, v))
        return 0;
    skip_space(ps);
    if (*ps->p != '^')
        return 1;
    ps->p++;
    double e;
    if (!parse_unary(ps, &e))
        return 0;
    *v = pow(*v, e);
    return 1;
}

static int parse_unary(Parser *ps, double *v)
{
    if (++ps->depth > MAX_DEPTH)
        return fail(ps, "expression nested too deeply");
    skip_space(ps);
    int ok;
    if (*ps->p == '-' || *ps->p == '+') {
        double sign = *ps->p == '-' ? -1.0 : 1.0;
        ps->p++;
        ok = parse_unary(ps, v);
        *v *= sign;
    } else {
        ok = parse_power(ps, v);
    }
    ps->depth--;
    return ok;
}

static int parse_term(Parser *ps, double *v)
{
    if (!parse_unary(ps, v))
        return 0;
    for (;;) {
        skip_space(ps);
        char op = *ps->p;
        if (op != '*' && op != '/')
            return 1;
        ps->p++;
        double r;
        if (!parse_unary(ps, &r))
            return 0;
        *v = op == '*' ? *v * r : *v / r;
    }
}

static int parse_expr(Parser *ps, double *v)
{
    if (++ps->depth > MAX_DEPTH)
        return fail(ps, "expression nested too deeply");
    int ok = parse_term(ps, v);
    while (ok) {
        skip_space(ps);
        char op = *ps->p;
        if (op != '+' && op != '-')
            break;
        ps->p++;
        double r;
        ok = parse_term(ps, &r);
        *v = op == '+' ? *v + r : *v - r;
    }
    ps->depth--;
    return ok;
}

int mbs_expr_eval(const char *text, const MbsExprVariable *vars, int nvars, double *value,
                  unsigned char *used, char message[MBS_EXPR_MESSAGE_MAX])
{
    Parser ps = {.text = text ? text : "", .p = text ? text : "", .vars = vars, .nvars = nvars,
                 .used = used};
    double v = 0.0;
    int ok = parse_expr(&ps, &v);
    if (ok) {
        skip_space(&ps);
        if (*ps.p)
            ok = fail(&ps, "unexpected '%c'", is_print(*ps.p) ? *ps.p : '?');
    }
    if (ok && !isfinite(v)) {
        ok = 0;
        snprintf(ps.message, sizeof ps.message, "value is not a finite number (%g)", v);
    }
    if (ok)
        *value = v;
    if (message)
        snprintf(message, MBS_EXPR_MESSAGE_MAX, "%s", ok ? "" : ps.message);
    return ok;
}

int mbs_expr_valid_name(const char *name, char message[MBS_EXPR_MESSAGE_MAX])
{
    const char *why = NULL;
    char too_long[48];
    snprintf(too_long, sizeof too_long, "is longer than %d characters", MBS_EXPR_NAME_MAX);
    if (!name || !is_name_start(name[0]))
        why = "must start with a letter or '_'";
    for (const char *c = name; !why && *c; ++c)
        if (!is_name_char(*c))
            why = "may contain only letters, digits and '_'";
    if (!why && strlen(name) > MBS_EXPR_NAME_MAX)
        why = too_long;
    if (!why && (!strcmp(name, "pi") || find_function(name)))
        why = "is reserved (a constant or function of expressions)";
    if (message)
        snprintf(message, MBS_EXPR_MESSAGE_MAX, "%s", why ? why : "");
    return why == NULL;
}

void mbs_expr_format_number(double v, char text[MBS_EXPR_NUMBER_MAX])
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", v);
    /* Back to '.' if the locale writes another decimal point. */
    const char *point = localeconv()->decimal_point;
    char *at = point && *point && strcmp(point, ".") ? strstr(buf, point) : NULL;
    if (at) {
        size_t plen = strlen(point);
        *at = '.';
        memmove(at + 1, at + plen, strlen(at + plen) + 1);
    }
    size_t len = strlen(buf);
    if (len >= MBS_EXPR_NUMBER_MAX)
        len = MBS_EXPR_NUMBER_MAX - 1; /* never: %.17g takes at most 24 characters */
    memcpy(text, buf, len);
    text[len] = '\0';
}
