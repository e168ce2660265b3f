/* Arithmetic expressions of model parameters: a small, safe recursive-descent evaluator.
 *
 *   expr    := term   (('+' | '-') term)*
 *   term    := unary  (('*' | '/') unary)*
 *   unary   := ('-' | '+') unary | power
 *   power   := primary ('^' unary)?          right-associative: 2^3^2 = 2^9, -2^2 = -4
 *   primary := number | name | function '(' expr ')' | '(' expr ')'
 *
 * Names are the constant pi and the variables given by the caller; functions are sqrt, sin,
 * cos, tan, asin, acos, atan, exp, log and abs. Numbers are read with '.' as the decimal point
 * whatever the locale. Nesting is limited, so no input can exhaust the stack, and a result that
 * is not finite is an error.
 */
#ifndef MBS_EXPR_H
#define MBS_EXPR_H

#include <stddef.h>

#define MBS_EXPR_NAME_MAX 63
#define MBS_EXPR_MESSAGE_MAX 256
/* Longest text of mbs_expr_format_number (%.17g of any double, NUL included). */
#define MBS_EXPR_NUMBER_MAX 32

typedef struct {
    const char *name;
    double value;
} MbsExprVariable;

/* Evaluate text. Returns 1 and sets *value, or 0 with message (if not NULL) set to a one-line
 * explanation such as "unknown parameter 'Lc' at column 1"; *value is untouched then.
 * used (optional, nvars flags): set to 1 for every variable the text reads. */
int mbs_expr_eval(const char *text, const MbsExprVariable *vars, int nvars, double *value,
                  unsigned char *used, char message[MBS_EXPR_MESSAGE_MAX]);

/* 1 if name can be used as a variable: [A-Za-z_][A-Za-z0-9_]* and not pi or a function;
 * otherwise 0 and message says why ("must start with a letter or '_'"). */
int mbs_expr_valid_name(const char *name, char message[MBS_EXPR_MESSAGE_MAX]);

/* The text of a number that evaluates back to exactly v ("%.17g" with '.' as the point). */
void mbs_expr_format_number(double v, char text[MBS_EXPR_NUMBER_MAX]);

#endif
