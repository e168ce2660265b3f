/* Numbers in entries; see esl-number.h. */
#include "esl-number.h"

#include <locale.h>
#include <math.h>
#include <string.h>

char *esl_number_to_text(double v, int digits, const char *decimal_point)
{
    char text[G_ASCII_DTOSTR_BUF_SIZE];
    if (digits > 0) {
        char format[16];
        g_snprintf(format, sizeof format, "%%.%dg", digits);
        g_ascii_formatd(text, sizeof text, format, v);
    } else {
        /* %g unless that loses digits of a stored value (1/300 s) */
        g_ascii_formatd(text, sizeof text, "%g", v);
        if (g_ascii_strtod(text, NULL) != v)
            g_ascii_formatd(text, sizeof text, "%.17g", v);
    }
    if (!decimal_point)
        decimal_point = localeconv()->decimal_point;
    char *point = strchr(text, '.');
    if (!point || g_str_equal(decimal_point, "."))
        return g_strdup(text);
    *point = '\0';
    return g_strconcat(text, decimal_point, point + 1, NULL);
}

gboolean esl_number_from_text(const char *text, double *value)
{
    const char *locale_point = localeconv()->decimal_point;
    g_autoptr(GString) number = g_string_new(text);
    if (!g_str_equal(locale_point, ".") && !g_str_equal(locale_point, ","))
        g_string_replace(number, locale_point, ".", 0);
    g_strdelimit(number->str, ",", '.');
    g_strstrip(number->str);
    char *end = NULL;
    double x = g_ascii_strtod(number->str, &end);
    if (end == number->str || *end || !isfinite(x))
        return FALSE;
    *value = x;
    return TRUE;
}
