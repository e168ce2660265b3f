/* Time functions for driven (rheonomic) coordinates. */
#ifndef MBS_FUNCTION_H
#define MBS_FUNCTION_H

#define MBS_POLY_MAX 8

typedef enum {
    MBS_FUNCTION_POLYNOMIAL, /* sum_k coef[k] t^k */
    MBS_FUNCTION_SINE,       /* offset + amplitude sin(omega t + phase) */
} MbsFunctionKind;

typedef struct {
    MbsFunctionKind kind;
    int ncoef;
    double coef[MBS_POLY_MAX];
    double offset, amplitude, omega, phase;
} MbsFunction;

/* Value at t; first and second derivatives in d1, d2 (either may be NULL). */
double mbs_function_eval(const MbsFunction *f, double t, double *d1, double *d2);

#endif
