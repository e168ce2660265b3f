/* The scalar types the evaluation of Q is written over (docs/architecture.md § Automatic
 * differentiation): double, and MbsDual, a forward-mode dual number carrying the derivatives
 * along MBS_DUAL_WIDTH directions at once (vector mode, "chunked" as ForwardDiff does).
 *
 * The kernels (mbs_kinematics_kernel.h, mbs_dynamics_kernel.h) and the force laws
 * (MBS_FORCE_LAW, mbs_force.h) use only the operations below, which select the double or the
 * dual version by the type of their first argument (C11 _Generic). Over double each one is the
 * plain operator, so the compiled double path does the same operations in the same order as
 * hand-written arithmetic would: same results to the last bit. Operations whose name ends in C
 * take a double constant as their second argument (MBS_SCALE: as the first).
 */
#ifndef MBS_SCALAR_H
#define MBS_SCALAR_H

#include <math.h>

#include "mbs_linalg.h"

/* Directions of one dual evaluation. Measured on the 7x15 lattice (docs/architecture.md): a
 * dual evaluation of Q costs 3.0 evaluations of Q per direction with 4, 2.4 with 8, 1.5 with 16,
 * so 16; a small model (the four-bar: 16 columns) needs one evaluation anyway. */
#define MBS_DUAL_WIDTH 16

typedef struct {
    double v;                   /* value */
    double d[MBS_DUAL_WIDTH];   /* derivatives along the seeded directions */
} MbsDual;

static inline MbsDual mbs_dual_constant(double v)
{
    MbsDual r = {.v = v};
    return r;
}
static inline MbsDual mbs_dual_add(MbsDual a, MbsDual b)
{
    a.v += b.v;
    for (int k = 0; k < MBS_DUAL_WIDTH; ++k)
        a.d[k] += b.d[k];
    return a;
}
static inline MbsDual mbs_dual_sub(MbsDual a, MbsDual b)
{
    a.v -= b.v;
    for (int k = 0; k < MBS_DUAL_WIDTH; ++k)
        a.d[k] -= b.d[k];
    return a;
}
static inline MbsDual mbs_dual_mul(MbsDual a, MbsDual b)
{
    MbsDual r;
    r.v = a.v * b.v;
    for (int k = 0; k < MBS_DUAL_WIDTH; ++k)
        r.d[k] = a.d[k] * b.v + a.v * b.d[k];
    return r;
}
static inline MbsDual mbs_dual_div(MbsDual a, MbsDual b)
{
    MbsDual r;
    r.v = a.v / b.v;
    for (int k = 0; k < MBS_DUAL_WIDTH; ++k)
        r.d[k] = (a.d[k] - r.v * b.d[k]) / b.v;
    return r;
}
static inline MbsDual mbs_dual_neg(MbsDual a)
{
    a.v = -a.v;
    for (int k = 0; k < MBS_DUAL_WIDTH; ++k)
        a.d[k] = -a.d[k];
    return a;
}
static inline MbsDual mbs_dual_scale(double c, MbsDual a)
{
    a.v *= c;
    for (int k = 0; k < MBS_DUAL_WIDTH; ++k)
        a.d[k] *= c;
    return a;
}
static inline MbsDual mbs_dual_addc(MbsDual a, double c)
{
    a.v += c;
    return a;
}
static inline MbsDual mbs_dual_subc(MbsDual a, double c)
{
    a.v -= c;
    return a;
}
/* c - a */
static inline MbsDual mbs_dual_csub(MbsDual a, double c)
{
    a = mbs_dual_neg(a);
    a.v += c;
    return a;
}
/* The chain rule f(a) = f(a.v) + f'(a.v) a.d. */
static inline MbsDual mbs_dual_chain(MbsDual a, double value, double derivative)
{
    a.v = value;
    for (int k = 0; k < MBS_DUAL_WIDTH; ++k)
        a.d[k] *= derivative;
    return a;
}
static inline MbsDual mbs_dual_sqrt(MbsDual a)
{
    double s = sqrt(a.v);
    return mbs_dual_chain(a, s, 0.5 / s);
}
static inline MbsDual mbs_dual_sin(MbsDual a) { return mbs_dual_chain(a, sin(a.v), cos(a.v)); }
static inline MbsDual mbs_dual_cos(MbsDual a) { return mbs_dual_chain(a, cos(a.v), -sin(a.v)); }
static inline MbsDual mbs_dual_atan(MbsDual a)
{
    return mbs_dual_chain(a, atan(a.v), 1.0 / (1.0 + a.v * a.v));
}

static inline MbsDual mbs_dual_exp(MbsDual a)
{
    double e = exp(a.v);
    return mbs_dual_chain(a, e, e);
}
/* |a|: the derivative of the side the value is on (+1 at 0, as the double branch would take). */
static inline MbsDual mbs_dual_fabs(MbsDual a) { return a.v < 0.0 ? mbs_dual_neg(a) : a; }

/* atan2(y, x): d = (x dy - y dx) / (x^2 + y^2) */
static inline MbsDual mbs_dual_atan2(MbsDual y, MbsDual x)
{
    MbsDual r;
    r.v = atan2(y.v, x.v);
    double r2 = x.v * x.v + y.v * y.v;
    for (int k = 0; k < MBS_DUAL_WIDTH; ++k)
        r.d[k] = (x.v * y.d[k] - y.v * x.d[k]) / r2;
    return r;
}

/* The double versions: the plain operators. */
static inline double mbs_real_add(double a, double b) { return a + b; }
static inline double mbs_real_sub(double a, double b) { return a - b; }
static inline double mbs_real_mul(double a, double b) { return a * b; }
static inline double mbs_real_div(double a, double b) { return a / b; }
static inline double mbs_real_neg(double a) { return -a; }
static inline double mbs_real_scale(double c, double a) { return c * a; }
static inline double mbs_real_addc(double a, double c) { return a + c; }
static inline double mbs_real_subc(double a, double c) { return a - c; }
static inline double mbs_real_csub(double a, double c) { return c - a; }
static inline double mbs_real_value(double a) { return a; }
static inline double mbs_dual_value(MbsDual a) { return a.v; }
static inline double mbs_real_like(double like, double c)
{
    (void)like;
    return c;
}
static inline MbsDual mbs_dual_like(MbsDual like, double c)
{
    (void)like;
    return mbs_dual_constant(c);
}

#define MBS_SCALAR_PICK(x, name) _Generic((x), MbsDual: mbs_dual_##name, default: mbs_real_##name)

#define MBS_ADD(a, b) MBS_SCALAR_PICK(a, add)(a, b)
#define MBS_SUB(a, b) MBS_SCALAR_PICK(a, sub)(a, b)
#define MBS_MUL(a, b) MBS_SCALAR_PICK(a, mul)(a, b)
#define MBS_DIV(a, b) MBS_SCALAR_PICK(a, div)(a, b)
#define MBS_NEG(a) MBS_SCALAR_PICK(a, neg)(a)
#define MBS_SCALE(c, a) MBS_SCALAR_PICK(a, scale)(c, a)
#define MBS_ADDC(a, c) MBS_SCALAR_PICK(a, addc)(a, c)
#define MBS_SUBC(a, c) MBS_SCALAR_PICK(a, subc)(a, c)
#define MBS_CSUB(c, a) MBS_SCALAR_PICK(a, csub)(a, c) /* c - a */
#define MBS_SQRT(a) _Generic((a), MbsDual: mbs_dual_sqrt, default: sqrt)(a)
#define MBS_SIN(a) _Generic((a), MbsDual: mbs_dual_sin, default: sin)(a)
#define MBS_COS(a) _Generic((a), MbsDual: mbs_dual_cos, default: cos)(a)
#define MBS_ATAN(a) _Generic((a), MbsDual: mbs_dual_atan, default: atan)(a)
#define MBS_EXP(a) _Generic((a), MbsDual: mbs_dual_exp, default: exp)(a)
#define MBS_FABS(a) _Generic((a), MbsDual: mbs_dual_fabs, default: fabs)(a)
#define MBS_ATAN2(y, x) _Generic((y), MbsDual: mbs_dual_atan2, default: atan2)(y, x)
/* The value as a double (for comparisons: branches follow the value). */
#define MBS_VALUE(a) MBS_SCALAR_PICK(a, value)(a)
/* The constant c in the type of `like` (a dual constant has no derivatives). */
#define MBS_LIKE(x, c) MBS_SCALAR_PICK(x, like)(x, c)

/* 3-vectors and row-major 3x3 matrices of dual numbers: the operations of mbs_linalg.h with the
 * same order of operations. */
static inline void mbs_dual_v3_add(const MbsDual a[3], const MbsDual b[3], MbsDual out[3])
{
    for (int i = 0; i < 3; ++i)
        out[i] = mbs_dual_add(a[i], b[i]);
}
static inline void mbs_dual_v3_sub(const MbsDual a[3], const MbsDual b[3], MbsDual out[3])
{
    for (int i = 0; i < 3; ++i)
        out[i] = mbs_dual_sub(a[i], b[i]);
}
static inline MbsDual mbs_dual_v3_dot(const MbsDual a[3], const MbsDual b[3])
{
    return mbs_dual_add(mbs_dual_add(mbs_dual_mul(a[0], b[0]), mbs_dual_mul(a[1], b[1])),
                        mbs_dual_mul(a[2], b[2]));
}
static inline MbsDual mbs_dual_v3_norm(const MbsDual a[3])
{
    return mbs_dual_sqrt(mbs_dual_v3_dot(a, a));
}
static inline void mbs_dual_v3_cross(const MbsDual a[3], const MbsDual b[3], MbsDual out[3])
{
    out[0] = mbs_dual_sub(mbs_dual_mul(a[1], b[2]), mbs_dual_mul(a[2], b[1]));
    out[1] = mbs_dual_sub(mbs_dual_mul(a[2], b[0]), mbs_dual_mul(a[0], b[2]));
    out[2] = mbs_dual_sub(mbs_dual_mul(a[0], b[1]), mbs_dual_mul(a[1], b[0]));
}
static inline void mbs_dual_m3_mulv(const MbsDual R[9], const MbsDual x[3], MbsDual out[3])
{
    for (int i = 0; i < 3; ++i)
        out[i] = mbs_dual_add(mbs_dual_add(mbs_dual_mul(R[3 * i], x[0]),
                                           mbs_dual_mul(R[3 * i + 1], x[1])),
                              mbs_dual_mul(R[3 * i + 2], x[2]));
}
/* R x for a constant x (a drawn point or axis). */
static inline void mbs_dual_m3_mulv_c(const MbsDual R[9], const double x[3], MbsDual out[3])
{
    for (int i = 0; i < 3; ++i)
        out[i] = mbs_dual_add(mbs_dual_add(mbs_dual_scale(x[0], R[3 * i]),
                                           mbs_dual_scale(x[1], R[3 * i + 1])),
                              mbs_dual_scale(x[2], R[3 * i + 2]));
}
static inline void mbs_dual_m3_mul(const MbsDual A[9], const MbsDual B[9], MbsDual out[9])
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            out[3 * i + j] = mbs_dual_add(mbs_dual_add(mbs_dual_mul(A[3 * i], B[j]),
                                                       mbs_dual_mul(A[3 * i + 1], B[3 + j])),
                                          mbs_dual_mul(A[3 * i + 2], B[6 + j]));
}
static inline void mbs_real_m3_mulv_c(const double R[9], const double x[3], double out[3])
{
    mbs_m3_mulv(R, x, out);
}

#define MBS_VECTOR_PICK(x, dual, real) _Generic((x)[0], MbsDual: dual, default: real)
#define MBS_V3_ADD(a, b, out) MBS_VECTOR_PICK(out, mbs_dual_v3_add, mbs_v3_add)(a, b, out)
#define MBS_V3_SUB(a, b, out) MBS_VECTOR_PICK(out, mbs_dual_v3_sub, mbs_v3_sub)(a, b, out)
#define MBS_V3_CROSS(a, b, out) MBS_VECTOR_PICK(out, mbs_dual_v3_cross, mbs_v3_cross)(a, b, out)
#define MBS_V3_DOT(a, b) MBS_VECTOR_PICK(a, mbs_dual_v3_dot, mbs_v3_dot)(a, b)
#define MBS_V3_NORM(a) MBS_VECTOR_PICK(a, mbs_dual_v3_norm, mbs_v3_norm)(a)
#define MBS_M3_MULV(R, x, out) MBS_VECTOR_PICK(out, mbs_dual_m3_mulv, mbs_m3_mulv)(R, x, out)
#define MBS_M3_MULV_C(R, x, out)                                                                 \
    MBS_VECTOR_PICK(out, mbs_dual_m3_mulv_c, mbs_real_m3_mulv_c)(R, x, out)
#define MBS_M3_MUL(A, B, out) MBS_VECTOR_PICK(out, mbs_dual_m3_mul, mbs_m3_mul)(A, B, out)

#endif
