/* Expressions of model files: values, precedence, and clear errors for bad input. */
#include <string.h>

#include "esl-expr.h"
#include "tap.h"

static const EslExprVariable vars[] = {{"L", 1.5}, {"k_2", 4.0}, {"cos_t", -0.7625}};

static void value_is(const char *text, double want)
{
    double v = NAN;
    char *msg = NULL;
    gboolean ok = esl_expr_eval(text, vars, 3, &v, &msg);
    tap_ok(ok, "'%s' evaluates%s%s", text, msg ? ": " : "", msg ? msg : "");
    tap_close(v, want, 1e-14 * (1.0 + fabs(want)), "'%s' = %.17g", text, want);
    g_free(msg);
}

static void error_is(const char *text, const char *expected)
{
    double v = 123.0;
    char *msg = NULL;
    gboolean ok = esl_expr_eval(text, vars, 3, &v, &msg);
    tap_ok(!ok && v == 123.0, "'%.40s' is rejected and the output untouched", text);
    tap_ok(msg && strstr(msg, expected), "message for '%.40s' mentions \"%s\" (got \"%s\")", text,
           expected, msg ? msg : "(null)");
    g_free(msg);
}

int main(void)
{
    value_is("42", 42.0);
    value_is("  1.25e2 ", 125.0);
    value_is(".5", 0.5);
    value_is("1 + 2 * 3", 7.0);
    value_is("(1 + 2) * 3", 9.0);
    value_is("10 - 4 - 3", 3.0);
    value_is("12 / 3 / 2", 2.0);
    value_is("-2^2", -4.0);
    value_is("2^-1", 0.5);
    value_is("2^3^2", 512.0);
    value_is("--3", 3.0);
    value_is("-L*2", -3.0);
    value_is("k_2 / L", 4.0 / 1.5);
    value_is("2*pi", 2.0 * G_PI);
    value_is("sqrt(1 - cos_t^2)", sqrt(1.0 - 0.7625 * 0.7625));
    value_is("sin(pi/6) + cos(0)", 1.5);
    value_is("atan(1) * 4", G_PI);
    value_is("abs(-3) + exp(0) + log(1) + tan(0) + asin(0) + acos(1)", 4.0);

    error_is("Lc * 2", "unknown parameter 'Lc'");
    error_is("2 * (L + 1", "expected ')'");
    error_is("2 +", "unexpected end");
    error_is("", "unexpected end");
    error_is("3 4", "unexpected '4'");
    error_is("1 / 0", "not a finite number");
    error_is("sqrt(-1)", "not a finite number");
    error_is("1e999", "not a finite number");
    error_is("sqrt 2", "expected '('");
    error_is("2 $ 3", "unexpected '$'");
    error_is("1e+", "malformed exponent");
    error_is(".", "malformed number");
    error_is("2 ** 3", "unexpected character '*'");

    /* No input exhausts the stack. */
    GString *deep = g_string_new(NULL);
    for (int i = 0; i < 100000; ++i)
        g_string_append_c(deep, '(');
    error_is(deep->str, "nested too deeply");
    g_string_truncate(deep, 0);
    for (int i = 0; i < 100000; ++i)
        g_string_append_c(deep, '-');
    g_string_append_c(deep, '1');
    error_is(deep->str, "nested too deeply");
    g_string_free(deep, TRUE);
    value_is("((((((((((1))))))))))", 1.0);

    tap_ok(esl_expr_valid_name("cos_t", NULL), "cos_t is a valid parameter name");
    tap_ok(!esl_expr_valid_name("2L", NULL), "2L is not a valid parameter name");
    tap_ok(!esl_expr_valid_name("a-b", NULL), "a-b is not a valid parameter name");
    tap_ok(!esl_expr_valid_name("pi", NULL), "pi is reserved");
    tap_ok(!esl_expr_valid_name("sqrt", NULL), "sqrt is reserved");
    tap_ok(!esl_expr_valid_name("", NULL), "the empty name is not valid");
    return tap_done();
}
