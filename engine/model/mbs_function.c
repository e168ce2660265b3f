#include "mbs_function.h"

#include <math.h>

static double polynomial(const MbsFunction *f, double t, double *d1, double *d2)
{
    double v = 0.0, dv = 0.0, ddv = 0.0;
    for (int k = f->ncoef - 1; k >= 0; --k) {
        ddv = ddv * t + 2.0 * dv;
        dv = dv * t + v;
        v = v * t + f->coef[k];
    }
    if (d1)
        *d1 = dv;
    if (d2)
        *d2 = ddv;
    return v;
}

double mbs_function_eval(const MbsFunction *f, double t, double *d1, double *d2)
{
    if (f->kind == MBS_FUNCTION_POLYNOMIAL)
        return polynomial(f, t, d1, d2);
    double arg = f->omega * t + f->phase;
    if (d1)
        *d1 = f->amplitude * f->omega * cos(arg);
    if (d2)
        *d2 = -f->amplitude * f->omega * f->omega * sin(arg);
    return f->offset + f->amplitude * sin(arg);
}
