/* TeimOrbit .tir reader (mbs_tir.h). */
#include "mbs_tir.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_settings.h" /* MBS_N_ */

static const char *const section_names[] = {
#define MBS_TIR_SECTION_NAME(s) #s,
    MBS_TIR_SECTIONS(MBS_TIR_SECTION_NAME)
#undef MBS_TIR_SECTION_NAME
};

/* Sections read and ignored knowingly: the file's header, the tyre's cross-section shape
 * (a table for the graphics of Adams) and turn slip (not part of the steady-state PAC2002 of
 * ch. 4 §4.3.2). */
static const char *const skipped_sections[] = {"MDI_HEADER", "SHAPE", "TURNSLIP_COEFFICIENTS"};

static const MbsTirKey keys[] = {
#define MBS_TIR_TEXT_ROW(s, n, r)                                                                \
    {#n, MBS_TIR_SECTION_##s, 1, offsetof(MbsTir, n), 0.0, r, MBS_TIR_ONE},
#define MBS_TIR_NUMBER_ROW(s, n, d, r, u)                                                        \
    {#n, MBS_TIR_SECTION_##s, 0, offsetof(MbsTir, n), d, r, u},
    MBS_TIR_TEXT_KEYS(MBS_TIR_TEXT_ROW)
    MBS_TIR_NUMBER_KEYS(MBS_TIR_NUMBER_ROW)
#undef MBS_TIR_TEXT_ROW
#undef MBS_TIR_NUMBER_ROW
};
#define KEY_COUNT ((int)(sizeof keys / sizeof keys[0]))

int mbs_tir_key_count(void) { return KEY_COUNT; }
const MbsTirKey *mbs_tir_key_at(int i) { return i >= 0 && i < KEY_COUNT ? &keys[i] : NULL; }
const char *mbs_tir_section_name(MbsTirSection s)
{
    return s >= 0 && s < MBS_TIR_SECTION_COUNT ? section_names[s] : "?";
}

/* Unit names of [UNITS] and their factor to SI, case-insensitive (Adams' names and the usual
 * abbreviations). */
typedef struct {
    MbsTirDimension dimension;
    const char *name;
    double factor;
} Unit;
static const Unit units[] = {
    {MBS_TIR_LENGTH, "meter", 1.0},         {MBS_TIR_LENGTH, "m", 1.0},
    {MBS_TIR_LENGTH, "millimeter", 1e-3},   {MBS_TIR_LENGTH, "mm", 1e-3},
    {MBS_TIR_LENGTH, "centimeter", 1e-2},   {MBS_TIR_LENGTH, "cm", 1e-2},
    {MBS_TIR_LENGTH, "kilometer", 1e3},     {MBS_TIR_LENGTH, "km", 1e3},
    {MBS_TIR_LENGTH, "inch", 0.0254},       {MBS_TIR_LENGTH, "foot", 0.3048},
    {MBS_TIR_FORCE, "newton", 1.0},         {MBS_TIR_FORCE, "n", 1.0},
    {MBS_TIR_FORCE, "kilonewton", 1e3},     {MBS_TIR_FORCE, "kn", 1e3},
    {MBS_TIR_FORCE, "pound_force", 4.4482216152605}, {MBS_TIR_FORCE, "lbf", 4.4482216152605},
    {MBS_TIR_FORCE, "kilogram_force", 9.80665}, {MBS_TIR_FORCE, "kgf", 9.80665},
    {MBS_TIR_ANGLE, "radian", 1.0},         {MBS_TIR_ANGLE, "rad", 1.0},
    {MBS_TIR_ANGLE, "degree", M_PI / 180.0}, {MBS_TIR_ANGLE, "deg", M_PI / 180.0},
    {MBS_TIR_MASS, "kg", 1.0},              {MBS_TIR_MASS, "kilogram", 1.0},
    {MBS_TIR_MASS, "gram", 1e-3},           {MBS_TIR_MASS, "g", 1e-3},
    {MBS_TIR_MASS, "tonne", 1e3},           {MBS_TIR_MASS, "pound_mass", 0.45359237},
    {MBS_TIR_MASS, "lbm", 0.45359237},
    {MBS_TIR_TIME, "second", 1.0},          {MBS_TIR_TIME, "sec", 1.0},
    {MBS_TIR_TIME, "s", 1.0},               {MBS_TIR_TIME, "millisecond", 1e-3},
    {MBS_TIR_TIME, "ms", 1e-3},             {MBS_TIR_TIME, "minute", 60.0},
    {MBS_TIR_TIME, "hour", 3600.0},
    {MBS_TIR_PRESSURE, "pascal", 1.0},      {MBS_TIR_PRESSURE, "pa", 1.0},
    {MBS_TIR_PRESSURE, "kpa", 1e3},         {MBS_TIR_PRESSURE, "kilopascal", 1e3},
    {MBS_TIR_PRESSURE, "mpa", 1e6},         {MBS_TIR_PRESSURE, "megapascal", 1e6},
    {MBS_TIR_PRESSURE, "bar", 1e5},         {MBS_TIR_PRESSURE, "psi", 6894.757293168361},
};

static int ascii_lower(int c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }
static int same_name(const char *a, const char *b)
{
    for (; *a && *b; ++a, ++b)
        if (ascii_lower((unsigned char)*a) != ascii_lower((unsigned char)*b))
            return 0;
    return *a == *b;
}
static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
static int is_key_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* strtod of a number written with '.', whatever the locale's decimal point; 0 and *v, or -1
 * if the token is not exactly one finite number. */
static int parse_number(const char *s, size_t len, double *v)
{
    char buf[96];
    const char *point = localeconv()->decimal_point;
    size_t plen = point && *point ? strlen(point) : 1;
    if (len == 0 || len * plen >= sizeof buf)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < len; ++i) {
        char c = s[i];
        if (!((c >= '0' && c <= '9') || c == '.' || c == '+' || c == '-' || c == 'e' || c == 'E'))
            return -1; /* no "inf", "nan", hex or spaces */
        if (c == '.' && point && *point) {
            memcpy(buf + n, point, plen);
            n += plen;
        } else {
            buf[n++] = c;
        }
    }
    buf[n] = '\0';
    char *end;
    *v = strtod(buf, &end);
    return *end == '\0' && end != buf && isfinite(*v) ? 0 : -1;
}

/* One line's span [b, e), without the end-of-line characters. */
typedef struct {
    const char *b, *e;
} Span;

static Span trim(Span s)
{
    while (s.b < s.e && is_space(*s.b))
        s.b++;
    while (s.e > s.b && is_space(s.e[-1]))
        s.e--;
    return s;
}

static int span_is(Span s, const char *name)
{
    size_t n = strlen(name);
    return (size_t)(s.e - s.b) == n && memcmp(s.b, name, n) == 0;
}

/* Prints at most 40 characters of a span into buf (for messages; non-printing as '?'). */
static const char *show(Span s, char *buf, size_t size)
{
    size_t n = 0;
    for (const char *p = s.b; p < s.e && n + 4 < size && n < 40; ++p)
        buf[n++] = (*p >= 0x20 && *p < 0x7f) ? *p : '?';
    if (s.b + n < s.e && n + 4 < size) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

static double unit_factor(const MbsTir *t, MbsTirDimension d)
{
    const char *name = NULL;
    MbsTirDimension base = d;
    switch (d) {
    case MBS_TIR_LENGTH: name = t->LENGTH; break;
    case MBS_TIR_FORCE: name = t->FORCE; break;
    case MBS_TIR_ANGLE: name = t->ANGLE; break;
    case MBS_TIR_MASS: name = t->MASS; break;
    case MBS_TIR_PRESSURE: name = t->PRESSURE; break;
    case MBS_TIR_TIME: name = t->TIME; break;
    case MBS_TIR_VELOCITY: {
        double l = unit_factor(t, MBS_TIR_LENGTH);
        double s = unit_factor(t, MBS_TIR_TIME);
        return l / s;
    }
    case MBS_TIR_STIFFNESS: {
        double f = unit_factor(t, MBS_TIR_FORCE);
        double l = unit_factor(t, MBS_TIR_LENGTH);
        return f / l;
    }
    case MBS_TIR_DAMPING: {
        double f = unit_factor(t, MBS_TIR_FORCE);
        double l = unit_factor(t, MBS_TIR_LENGTH);
        double s = unit_factor(t, MBS_TIR_TIME);
        return f * s / l;
    }
    case MBS_TIR_ONE:
    default: return 1.0;
    }
    if (!name[0])
        return 1.0; /* not given: SI */
    for (size_t i = 0; i < sizeof units / sizeof units[0]; ++i)
        if (units[i].dimension == base && same_name(units[i].name, name))
            return units[i].factor;
    return NAN;
}

int mbs_tir_parse(const char *text, size_t size, const char *file, MbsTir *tir, int lines[],
                  MbsError *err)
{
    int line_of[sizeof keys / sizeof keys[0]];
    memset(line_of, 0, sizeof line_of);
    memset(tir, 0, sizeof *tir);
    if (!file)
        file = "(tyre file)";
    if (!text)
        size = 0;
    char shown[64], shown2[64];
    int section = -1;   /* index into section_names, or -1 before any section */
    int skipping = 0;   /* inside a skipped section */
    Span section_span = {"", ""};
    int line = 0;
    const char *p = text, *end = text + size;
    while (p < end) {
        line++;
        Span s = {p, p};
        while (s.e < end && *s.e != '\n')
            s.e++;
        p = s.e < end ? s.e + 1 : end;
        for (const char *q = s.b; q < s.e; ++q)
            if (*q == '\0')
                return mbs_error_set(err, MBS_FATAL, MBS_N_("%s:%d: a NUL byte: not a text file"),
                                     file, line),
                       -1;
        s = trim(s);
        if (s.b == s.e || *s.b == '$' || *s.b == '!')
            continue;
        if (*s.b == '[') {
            const char *close = memchr(s.b, ']', (size_t)(s.e - s.b));
            Span rest = {close ? close + 1 : s.e, s.e};
            rest = trim(rest);
            if (!close || (rest.b < rest.e && *rest.b != '$'))
                return mbs_error_set(err, MBS_FATAL, MBS_N_("%s:%d: malformed section header '%s'"),
                                     file, line, show(s, shown, sizeof shown)),
                       -1;
            Span name = trim((Span){s.b + 1, close});
            section = -1;
            skipping = 0;
            section_span = name;
            for (int i = 0; i < MBS_TIR_SECTION_COUNT; ++i)
                if (span_is(name, section_names[i]))
                    section = i;
            for (size_t i = 0; i < sizeof skipped_sections / sizeof skipped_sections[0]; ++i)
                if (span_is(name, skipped_sections[i]))
                    skipping = 1;
            if (section < 0 && !skipping)
                return mbs_error_set(err, MBS_FATAL, MBS_N_("%s:%d: unknown section [%s]"), file,
                                     line, show(name, shown, sizeof shown)),
                       -1;
            continue;
        }
        if (skipping)
            continue;
        /* KEY = VALUE [$ comment] */
        Span key = {s.b, s.b};
        while (key.e < s.e && is_key_char(*key.e))
            key.e++;
        const char *q = key.e;
        while (q < s.e && is_space(*q))
            q++;
        if (key.b == key.e || q == s.e || *q != '=')
            return mbs_error_set(err, MBS_FATAL, MBS_N_("%s:%d: expected KEY = VALUE, found '%s'"),
                                 file, line, show(s, shown, sizeof shown)),
                   -1;
        if (section < 0)
            return mbs_error_set(err, MBS_FATAL, MBS_N_("%s:%d: key '%s' outside a section"),
                                 file, line, show(key, shown, sizeof shown)),
                   -1;
        int k = -1;
        for (int i = 0; i < KEY_COUNT; ++i)
            if ((int)keys[i].section == section && span_is(key, keys[i].name))
                k = i;
        if (k < 0)
            return mbs_error_set(err, MBS_FATAL, MBS_N_("%s:%d: unknown key '%s' in [%s]"), file,
                                 line, show(key, shown, sizeof shown),
                                 show(section_span, shown2, sizeof shown2)),
                   -1;
        if (line_of[k])
            return mbs_error_set(err, MBS_FATAL,
                                 MBS_N_("%s:%d: key '%s' given twice (first on line %d)"), file,
                                 line, keys[k].name, line_of[k]),
                   -1;
        line_of[k] = line;
        /* The value: a quoted string, or a token up to a space or '$'. */
        Span v = trim((Span){q + 1, s.e});
        Span after;
        int quoted = v.b < v.e && (*v.b == '\'' || *v.b == '"');
        if (quoted) {
            const char *close = memchr(v.b + 1, *v.b, (size_t)(v.e - v.b - 1));
            if (!close)
                return mbs_error_set(err, MBS_FATAL, MBS_N_("%s:%d: unterminated string for %s"),
                                     file, line, keys[k].name),
                       -1;
            after = (Span){close + 1, v.e};
            v = (Span){v.b + 1, close};
        } else {
            const char *t = v.b;
            while (t < v.e && !is_space(*t) && *t != '$')
                t++;
            after = (Span){t, v.e};
            v.e = t;
        }
        after = trim(after);
        if (after.b < after.e && *after.b != '$')
            return mbs_error_set(err, MBS_FATAL,
                                 MBS_N_("%s:%d: unexpected '%s' after the value of %s"), file,
                                 line, show(after, shown, sizeof shown), keys[k].name),
                   -1;
        char *field = (char *)tir + keys[k].offset;
        if (keys[k].is_text) {
            size_t n = (size_t)(v.e - v.b);
            if (n >= MBS_TIR_TEXT_SIZE)
                return mbs_error_set(err, MBS_FATAL,
                                     MBS_N_("%s:%d: the value of %s is too long (at most %d characters)"),
                                     file, line, keys[k].name, MBS_TIR_TEXT_SIZE - 1),
                       -1;
            for (const char *c = v.b; c < v.e; ++c)
                if (!(*c >= 0x20 && *c < 0x7f))
                    return mbs_error_set(err, MBS_FATAL,
                                         MBS_N_("%s:%d: the value of %s is not printable text"),
                                         file, line, keys[k].name),
                           -1;
            memcpy(field, v.b, n);
            field[n] = '\0';
        } else {
            double x;
            if (quoted || parse_number(v.b, (size_t)(v.e - v.b), &x))
                return mbs_error_set(err, MBS_FATAL,
                                     MBS_N_("%s:%d: '%s' is not a number (key %s)"), file, line,
                                     show(v, shown, sizeof shown), keys[k].name),
                       -1;
            memcpy(field, &x, sizeof x);
        }
    }
    /* Required keys, then defaults, then units. */
    for (int i = 0; i < KEY_COUNT; ++i) {
        if (line_of[i])
            continue;
        if (keys[i].required)
            return mbs_error_set(err, MBS_FATAL,
                                 MBS_N_("%s: missing required key '%s' in [%s]"), file,
                                 keys[i].name, section_names[keys[i].section]),
                   -1;
        if (!keys[i].is_text)
            memcpy((char *)tir + keys[i].offset, &keys[i].default_value, sizeof(double));
    }
    /* Every unit named in [UNITS] must be known, used or not. */
    for (int i = 0; i < KEY_COUNT; ++i) {
        if (keys[i].section != MBS_TIR_SECTION_UNITS || !line_of[i])
            continue;
        static const MbsTirDimension dims[] = {MBS_TIR_LENGTH, MBS_TIR_FORCE, MBS_TIR_ANGLE,
                                               MBS_TIR_MASS, MBS_TIR_TIME, MBS_TIR_PRESSURE};
        static const char *const dim_keys[] = {"LENGTH", "FORCE", "ANGLE", "MASS", "TIME",
                                               "PRESSURE"};
        for (size_t j = 0; j < sizeof dims / sizeof dims[0]; ++j)
            if (!strcmp(keys[i].name, dim_keys[j]) && !isfinite(unit_factor(tir, dims[j])))
                return mbs_error_set(err, MBS_FATAL,
                                     MBS_N_("%s:%d: unknown unit '%s' for %s in [UNITS]"), file,
                                     line_of[i], (const char *)tir + keys[i].offset,
                                     keys[i].name),
                       -1;
    }
    for (int i = 0; i < KEY_COUNT; ++i) {
        if (keys[i].is_text || !line_of[i] || keys[i].dimension == MBS_TIR_ONE)
            continue;
        double f = unit_factor(tir, keys[i].dimension);
        double *x = (double *)((char *)tir + keys[i].offset);
        *x *= f;
        if (!isfinite(*x))
            return mbs_error_set(err, MBS_FATAL,
                                 MBS_N_("%s:%d: %s overflows when converted to SI units"), file,
                                 line_of[i], keys[i].name),
                   -1;
    }
    if (lines)
        memcpy(lines, line_of, sizeof line_of);
    mbs_error_clear(err);
    return 0;
}
