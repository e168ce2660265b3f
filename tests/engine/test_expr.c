/* Expressions of model files: values, precedence, and clear errors for bad input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_expr.h"
#include "tap.h"

static const MbsExprVariable vars[] = {{"L", 1.5}, {"k_2", 4.0}, {"cos_t", -0.7625}};

static void value_is(const char *text, double want)
{
    double v = NAN;
    char msg[MBS_EXPR_MESSAGE_MAX];
    int ok = mbs_expr_eval(text, vars, 3, &v, NULL, msg);
    tap_ok(ok, "'%s' evaluates%s%s", text, *msg ? ": " : "", msg);
    tap_close(v, want, 1e-14 * (1.0 + fabs(want)), "'%s' = %.17g", text, want);
}

static void error_is(const char *text, const char *expected)
{
    double v = 123.0;
    char msg[MBS_EXPR_MESSAGE_MAX];
    int ok = mbs_expr_eval(text, vars, 3, &v, NULL, msg);
    tap_ok(!ok && v == 123.0, "'%.40s' is rejected and the output untouched", text);
    tap_ok(strstr(msg, expected) != NULL, "message for '%.40s' mentions \"%s\" (got \"%s\")",
           text, expected, msg);
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
    value_is("2*pi", 2.0 * M_PI);
    value_is("sqrt(1 - cos_t^2)", sqrt(1.0 - 0.7625 * 0.7625));
    value_is("sin(pi/6) + cos(0)", 1.5);
    value_is("atan(1) * 4", M_PI);
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
    char *deep = malloc(100002);
    memset(deep, '(', 100000);
    deep[100000] = '\0';
    error_is(deep, "nested too deeply");
    memset(deep, '-', 100000);
    deep[100000] = '1';
    deep[100001] = '\0';
    error_is(deep, "nested too deeply");
    free(deep);
    value_is("((((((((((1))))))))))", 1.0);
    /* A long number is read whole (the decimal point is swapped for the locale's in a copy). */
    char *longnum = malloc(1003);
    memset(longnum, '0', 1000);
    memcpy(longnum + 997, "2.5", 4);
    value_is(longnum, 2.5);
    free(longnum);

    tap_ok(mbs_expr_valid_name("cos_t", NULL), "cos_t is a valid parameter name");
    tap_ok(!mbs_expr_valid_name("2L", NULL), "2L is not a valid parameter name");
    tap_ok(!mbs_expr_valid_name("a-b", NULL), "a-b is not a valid parameter name");
    tap_ok(!mbs_expr_valid_name("pi", NULL), "pi is reserved");
    tap_ok(!mbs_expr_valid_name("sqrt", NULL), "sqrt is reserved");
    tap_ok(!mbs_expr_valid_name("", NULL), "the empty name is not valid");

    /* The engine records which parameters a field reads (mbs_model_parameter_dependents). */
    unsigned char used[3] = {0, 0, 0};
    double v = 0.0;
    tap_ok(mbs_expr_eval("k_2 / L + pi", vars, 3, &v, used, NULL) && used[0] && used[1] &&
               !used[2], "'k_2 / L + pi' reads L and k_2, not cos_t");
    /* Numbers written by the engine read back exactly (derived fields keep their inputs). */
    const double samples[] = {0.1, -1.0 / 3.0, 6.02214076e23, 5e-324, 1.7976931348623157e308};
    int exact = 1;
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; ++i) {
        char text[MBS_EXPR_NUMBER_MAX];
        mbs_expr_format_number(samples[i], text);
        exact &= mbs_expr_eval(text, NULL, 0, &v, NULL, NULL) && v == samples[i];
    }
    tap_ok(exact, "formatted numbers evaluate back to the same double");
    return tap_done();
}
