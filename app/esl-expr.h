/* Arithmetic expressions of model files: a small, safe recursive-descent evaluator.
 *
 *   expr    := term   (('+' | '-') term)*
 *   term    := unary  (('*' | '/') unary)*
 *   unary   := ('-' | '+') unary | power
 *   power   := primary ('^' unary)?          right-associative: 2^3^2 = 2^9, -2^2 = -4
 *   primary := number | name | function '(' expr ')' | '(' expr ')'
 *
 * Names are the constant pi and the variables given by the caller; functions are sqrt, sin,
 * cos, tan, asin, acos, atan, exp, log and abs. Numbers are read in the C locale. Nesting is
 * limited, so no input can exhaust the stack, and a result that is not finite is an error.
 */
#ifndef ESL_EXPR_H
#define ESL_EXPR_H

#include <glib.h>

typedef struct {
    const char *name;
    double value;
} EslExprVariable;

/* Evaluate text. On failure returns FALSE and sets *message (g_free) to a one-line
 * explanation such as "unknown parameter 'Lc' at column 1". */
gboolean esl_expr_eval(const char *text, const EslExprVariable *vars, int nvars, double *value,
                       char **message);

/* TRUE if name can be used as a variable: [A-Za-z_][A-Za-z0-9_]* and not pi or a function. */
gboolean esl_expr_valid_name(const char *name, char **message);

#endif
