/* Natural (fully Cartesian) coordinates of García de Jalón, derived from an MbsModel.
 *
 * Every moving body b carries 12 dependent coordinates
 *     q_b = [r; u; v; w]
 * r: its centre of mass; u, v, w: three unit vectors that coincide with the global X, Y, Z
 * axes in the drawing (so R = [u v w] is the rotation from the drawing). A drawn point x0 of
 * the body is at
 *     x(q) = r + s_x u + s_y v + s_z w,   s = x0 - com_drawn,
 * and a drawn vector a0 is a0_x u + a0_y v + a0_z w: every point and vector is LINEAR in q,
 * so every constraint is at most quadratic and the mass matrix is constant:
 *     M_b = [m I3, 0; 0, S (x) I3],   S = int rho s s^T dV = tr(J)/2 I - J   (J about the com).
 * The ground carries no coordinates (its points and vectors are constants).
 *
 * Constraints Phi(q, t) (rows in this order):
 *   6 rigid-body rows per moving body: u.u - 1, v.v - 1, w.w - 1, u.v, u.w, v.w;
 *   then per joint (rows joint_row[j] .. + joint_nrows[j] - 1):
 *     spherical  3: (x1 - x2)_k = 0
 *     revolute   5: spherical + a1.w1' = 0, a1.w2' = 0      (a1 on body1, w1', w2' on body2,
 *                   (a1, w1, w2) = mbs_v3_basis(axis1), right-handed)
 *     universal  4: spherical + a1.a2' - c = 0             (c: drawn value)
 *     prismatic  5: a1.w1' = 0, a1.w2' = 0, w1.w2' = 0, (x2 - x1).w1 = 0, (x2 - x1).w2 = 0
 *     rod        1: (x1 - x2).(x1 - x2) - L^2 = 0
 *     driver    +1: revolute  sin(theta - f(t)) = (w2.w1') cos f - (w1.w1') sin f = 0
 *                   prismatic (x2 - x1).a1 - f(t) = 0
 *   theta, the revolute joint coordinate, is the rotation of body2 relative to body1 about
 *   axis1 measured from the drawing: sin theta = w2.w1', cos theta = w1.w1' (same sign as the
 *   relative coordinate z of the spanning tree).
 *
 * Dense matrices are column-major. Nothing here allocates after mbs_natural_new().
 */
#ifndef MBS_NATURAL_H
#define MBS_NATURAL_H

#include "mbs_assembly.h"
#include "mbs_model.h"
#include "mbs_scalar.h"

/* A linear 3-vector expression x = c + sum_t sum_k w[t][k] q[off[t] + 3k .. 3k+2]. */
typedef struct {
    int nt;
    int off[2];
    double w[2][4];
    double c[3];
} MbsNatLin;

typedef enum {
    MBS_NAT_ROW_DOT,        /* a.b - c0 */
    MBS_NAT_ROW_DRIVE_REV,  /* (a.b) cos f - (a2.b) sin f */
    MBS_NAT_ROW_DRIVE_PRI,  /* a.b - f */
} MbsNatRowType;

typedef struct {
    MbsNatRowType type;
    int joint; /* -1 for rigid-body rows */
    MbsNatLin a, b, a2;
    double c0;
    const MbsFunction *f;
} MbsNatRow;

typedef struct {
    const MbsModel *model;
    int nbodies;   /* moving bodies */
    int n;         /* coordinates: 12 per moving body */
    int m;         /* constraints (rigid-body rows first) */
    int nrigid;    /* 6 per moving body */
    int *body_off; /* per model body: offset of its 12 coordinates, -1 for ground */
    MbsNatRow *rows;
    int *joint_row, *joint_nrows;
    double *S;     /* per model body: 9 entries, second moment about the com */
    int q_dependent_forces; /* 1 when Q depends on q or qd beyond constants */
    const double *clock; /* the time forces are evaluated at, as MbsKinematics.clock (the
                            formulation's; NULL: t = 0) */
} MbsNatural;

/* Energy terms of a natural-coordinate state (same conventions as mbs_energy.h). */
typedef struct {
    double kinetic;
    double potential_gravity;
    double potential_elastic;
    double power_nonconservative; /* dampers, constant forces, torques (not drivers) */
} MbsNatEnergy;

MbsNatural *mbs_natural_new(const MbsModel *m, MbsError *err);
/* 1 when the generalized forces of m in natural coordinates depend on q or qd: any force but a
 * constant one (gravity and constant forces are constant in natural coordinates). */
int mbs_natural_forces_vary(const MbsModel *m);
void mbs_natural_free(MbsNatural *nat);

/* q, qd from body poses and velocities (e.g. from mbs_assemble). */
void mbs_natural_from_bodies(const MbsNatural *nat, const MbsBodyState *bodies, double *q,
                             double *qd);
/* Pose x = R x_drawn + p of a body (ground: identity). */
/* Max |Phi_i| over the constraint rows of one joint (0 for an index out of range). */
double mbs_natural_joint_violation(const MbsNatural *nat, const double *phi, int joint);
void mbs_natural_body_pose(const MbsNatural *nat, const double *q, int body, double R[9],
                           double p[3]);
/* Velocity of the material point of a body now at r: the rate of x = r_c + s_x u + s_y v +
 * s_z w with s = R^T (r - r_c) (zero for ground). */
void mbs_natural_point_velocity(const MbsNatural *nat, const double *q, const double *qd,
                                int body, const double r[3], double v[3]);
/* Linear expressions of a drawn point / vector of a body. */
void mbs_natural_point_lin(const MbsNatural *nat, int body, const double x0[3], MbsNatLin *L);
void mbs_natural_vector_lin(const MbsNatural *nat, int body, const double a0[3], MbsNatLin *L);
void mbs_natlin_eval(const MbsNatLin *L, const double *q, double x[3]);
void mbs_natlin_rate(const MbsNatLin *L, const double *qd, double v[3]); /* no constant */
/* g += s * A^T f (A = dx/dq, 3 x n) */
void mbs_natlin_add_transpose(const MbsNatLin *L, double s, const double f[3], double *g);
/* out = A - B (both with at most one body term, on different bodies or ground). */
void mbs_natlin_sub(const MbsNatLin *A, const MbsNatLin *B, MbsNatLin *out);
/* Current position of a drawn point of a body. */
void mbs_natural_point(const MbsNatural *nat, const double *q, int body, const double x0[3],
                       double x[3]);

/* Constraint values (m), Jacobian Phi_q (m x n, ld = m), Phi_t (m) and the bias
 * c = dPhi_q/dt qd + dPhi_t/dt, so that Phi_dd = Phi_q qdd + c. Any output may be NULL. */
void mbs_natural_constraints(const MbsNatural *nat, const double *q, const double *qd, double t,
                             double *phi, double *phiq, double *phit, double *c);

/* Sparse rows of Phi_q: every row involves at most two bodies (12 columns each). */
typedef struct {
    int off[2];        /* first column of each block, -1 when unused */
    double v[2][12];
} MbsNatJacRow;
/* The same with Phi_q as m sparse rows. */
void mbs_natural_constraint_rows(const MbsNatural *nat, const double *q, const double *qd,
                                 double t, double *phi, MbsNatJacRow *J, double *phit, double *c);

/* Constant mass matrix (n x n, column-major), and y = M x using its block structure. */
void mbs_natural_mass(const MbsNatural *nat, double *M);
void mbs_natural_mass_mul(const MbsNatural *nat, const double *x, double *y);

/* Joint coordinate 0 of a revolute (angle, unwrapped to the branch nearest ref) or prismatic
 * (translation) joint, its gradient dtheta/dq (n entries, optional). */
double mbs_natural_joint_coordinate(const MbsNatural *nat, const double *q, int joint,
                                    double ref, double *grad);

/* Generalized forces Q(q, qd, t): gravity, TSDA, RSDA, constant forces and torques.
 * angle_ref (njoints entries, may be NULL = 0): branch of the revolute angles for RSDA.
 * grad: n-entry scratch. e (optional): energy terms. */
void mbs_natural_forces(const MbsNatural *nat, const double *q, const double *qd,
                        const double *angle_ref, double *grad, double *Q, MbsNatEnergy *e);
/* The same two over dual numbers (mbs_natural_dual.c: one source, mbs_natural_forces_kernel.h),
 * for the tangent methods ad and ad-sparse; e must be NULL. */
MbsDual mbs_natural_joint_coordinate_dual(const MbsNatural *nat, const MbsDual *q, int joint,
                                          double ref, MbsDual *grad);
void mbs_natural_forces_dual(const MbsNatural *nat, const MbsDual *q, const MbsDual *qd,
                             const double *angle_ref, MbsDual *grad, MbsDual *Q, MbsNatEnergy *e);

/* dQ/d[q, qd] of the force elements (gravity is constant), analytically from the laws'
 * derivatives (MbsForceClass.derivative) chained through the natural-coordinate kinematics:
 * add(ctx, row, column, value) is called for each contribution (entries may repeat: the sink
 * sums them), column < n for dQ/dq, n + j for dQ/dqd_j. Only rows and columns of the bodies an
 * element couples (ali3p's pattern) are touched. grad: n-entry scratch. */
typedef void (*MbsNatAddFn)(void *ctx, int row, int column, double value);
void mbs_natural_forces_derivatives(const MbsNatural *nat, const double *q, const double *qd,
                                    const double *angle_ref, double *grad, MbsNatAddFn add,
                                    void *ctx);
/* 1 when every element's law has its derivative; else 0 with why naming the element. */
int mbs_natural_forces_derivatives_supported(const MbsModel *m, char *why, size_t size);

#endif
