#include "esl-expr.h"

#include <math.h>
#include <string.h>

#define MAX_DEPTH 64
#define MAX_NAME 63

typedef struct {
    const char *text;
    const char *p;
    const EslExprVariable *vars;
    int nvars;
    int depth;
    char *message; /* first error wins */
} Parser;

typedef struct {
    const char *name;
    double (*fn)(double);
} Function;

static const Function functions[] = {
    {"sqrt", sqrt}, {"sin", sin},   {"cos", cos}, {"tan", tan},  {"asin", asin},
    {"acos", acos}, {"atan", atan}, {"exp", exp}, {"log", log},  {"abs", fabs},
};

static gboolean fail(Parser *ps, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

static gboolean fail(Parser *ps, const char *fmt, ...)
{
    if (!ps->message) {
        va_list ap;
        va_start(ap, fmt);
        char *what = g_strdup_vprintf(fmt, ap);
        va_end(ap);
        ps->message = g_strdup_printf("%s at column %d", what, (int)(ps->p - ps->text) + 1);
        g_free(what);
    }
    return FALSE;
}

static void skip_space(Parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
        ps->p++;
}

static gboolean is_name_start(char c) { return g_ascii_isalpha(c) || c == '_'; }
static gboolean is_name_char(char c) { return g_ascii_isalnum(c) || c == '_'; }

static const Function *find_function(const char *name)
{
    for (size_t i = 0; i < G_N_ELEMENTS(functions); ++i)
        if (!strcmp(functions[i].name, name))
            return &functions[i];
    return NULL;
}

static gboolean parse_expr(Parser *ps, double *v);
static gboolean parse_unary(Parser *ps, double *v);

static gboolean parse_number(Parser *ps, double *v)
{
    const char *s = ps->p;
    while (g_ascii_isdigit(*ps->p))
        ps->p++;
    if (*ps->p == '.')
        for (ps->p++; g_ascii_isdigit(*ps->p);)
            ps->p++;
    if (ps->p - s == 1 && *s == '.')
        return ps->p = s, fail(ps, "malformed number");
    if (*ps->p == 'e' || *ps->p == 'E') {
        const char *e = ps->p + 1;
        if (*e == '+' || *e == '-')
            e++;
        if (!g_ascii_isdigit(*e))
            return fail(ps, "malformed exponent");
        while (g_ascii_isdigit(*e))
            e++;
        ps->p = e;
    }
    char *copy = g_strndup(s, (gsize)(ps->p - s));
    *v = g_ascii_strtod(copy, NULL);
    g_free(copy);
    return TRUE;
}

static gboolean parse_name(Parser *ps, double *v)
{
    const char *start = ps->p;
    while (is_name_char(*ps->p))
        ps->p++;
    size_t len = (size_t)(ps->p - start);
    char name[MAX_NAME + 1];
    if (len > MAX_NAME)
        return ps->p = start, fail(ps, "name too long");
    memcpy(name, start, len);
    name[len] = '\0';

    skip_space(ps);
    const Function *f = find_function(name);
    if (f) {
        if (*ps->p != '(')
            return fail(ps, "expected '(' after function '%s'", name);
        ps->p++;
        double arg;
        if (!parse_expr(ps, &arg))
            return FALSE;
        skip_space(ps);
        if (*ps->p != ')')
            return fail(ps, "expected ')'");
        ps->p++;
        *v = f->fn(arg);
        return TRUE;
    }
    for (int i = 0; i < ps->nvars; ++i)
        if (ps->vars[i].name && !strcmp(ps->vars[i].name, name))
            return *v = ps->vars[i].value, TRUE;
    if (!strcmp(name, "pi"))
        return *v = G_PI, TRUE;
    ps->p = start;
    return fail(ps, "unknown parameter '%s'", name);
}

static gboolean parse_primary(Parser *ps, double *v)
{
    skip_space(ps);
    char c = *ps->p;
    if (g_ascii_isdigit(c) || c == '.')
        return parse_number(ps, v);
    if (is_name_start(c))
        return parse_name(ps, v);
    if (c == '(') {
        ps->p++;
        if (!parse_expr(ps, v))
            return FALSE;
        skip_space(ps);
        if (*ps->p != ')')
            return fail(ps, "expected ')'");
        ps->p++;
        return TRUE;
    }
    if (c == '\0')
        return fail(ps, "unexpected end of expression");
    return fail(ps, "unexpected character '%c'", g_ascii_isprint(c) ? c : '?');
}

static gboolean parse_power(Parser *ps, double *v)
{
    if (!parse_primary(ps, v))
        return FALSE;
    skip_space(ps);
    if (*ps->p != '^')
        return TRUE;
    ps->p++;
    double e;
    if (!parse_unary(ps, &e))
        return FALSE;
    *v = pow(*v, e);
    return TRUE;
}

static gboolean parse_unary(Parser *ps, double *v)
{
    if (++ps->depth > MAX_DEPTH)
        return fail(ps, "expression nested too deeply");
    skip_space(ps);
    gboolean ok;
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

static gboolean parse_term(Parser *ps, double *v)
{
    if (!parse_unary(ps, v))
        return FALSE;
    for (;;) {
        skip_space(ps);
        char op = *ps->p;
        if (op != '*' && op != '/')
            return TRUE;
        ps->p++;
        double r;
        if (!parse_unary(ps, &r))
            return FALSE;
        *v = op == '*' ? *v * r : *v / r;
    }
}

static gboolean parse_expr(Parser *ps, double *v)
{
    if (++ps->depth > MAX_DEPTH)
        return fail(ps, "expression nested too deeply");
    gboolean ok = parse_term(ps, v);
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

gboolean esl_expr_eval(const char *text, const EslExprVariable *vars, int nvars, double *value,
                       char **message)
{
    Parser ps = {text ? text : "", text ? text : "", vars, nvars, 0, NULL};
    double v = 0.0;
    gboolean ok = parse_expr(&ps, &v);
    if (ok) {
        skip_space(&ps);
        if (*ps.p)
            ok = fail(&ps, "unexpected '%c'", g_ascii_isprint(*ps.p) ? *ps.p : '?');
    }
    if (ok && !isfinite(v)) {
        ok = FALSE;
        ps.message = g_strdup_printf("value is not a finite number (%g)", v);
    }
    if (ok)
        *value = v;
    if (message)
        *message = ps.message;
    else
        g_free(ps.message);
    return ok;
}

gboolean esl_expr_valid_name(const char *name, char **message)
{
    char *msg = NULL;
    if (!name || !is_name_start(name[0]))
        msg = g_strdup("must start with a letter or '_'");
    for (const char *c = name; !msg && *c; ++c)
        if (!is_name_char(*c))
            msg = g_strdup("may contain only letters, digits and '_'");
    if (!msg && strlen(name) > MAX_NAME)
        msg = g_strdup_printf("is longer than %d characters", MAX_NAME);
    if (!msg && (!strcmp(name, "pi") || find_function(name)))
        msg = g_strdup("is reserved (a constant or function of expressions)");
    if (message)
        *message = msg;
    else
        g_free(msg);
    return msg == NULL;
}
