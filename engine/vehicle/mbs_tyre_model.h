/* Tyre laws: the steady-state force law of a tyre, separated from the wheel's geometry.
 *
 * A wheel force element (engine/vehicle/force_wheel.c) finds the contact point of a wheel on
 * the road, the contact frame and the wheel's velocities there; a tyre law turns them into the
 * contact wrench. One class per law, listed once in mbs_tyre_model.c:
 *   "linear"   linear slip stiffnesses with the friction limit (a reference and a fallback
 *              for tests; no file needed)
 *   "pac2002"  Pacejka's Magic Formula 5.2 / PAC2002, steady state, combined slip, read from a
 *              TeimOrbit .tir property file (engine/vehicle/mbs_tir.h)
 *
 * Frames (Pacejka, Tire and Vehicle Dynamics, 3rd ed., §4.2; ISO 8855's W axis system): the
 * contact frame has its origin at the contact point, z along the road normal (up), x along the
 * intersection of the wheel plane and the road plane (forward), y = z × x (left).
 *
 * Sign conventions (the .tir files' own: ISO 8855 / TYDEX W axes, in which PKY1 < 0 makes the
 * cornering stiffness negative): kappa = -Vsx/|Vcx|, where Vsx = Vcx - Omega Re is the
 * longitudinal slip velocity; tan(alpha) = Vcy/|Vcx|, where Vcy is the lateral velocity of the
 * contact point, so that Fy = K_ya alpha with K_ya < 0 opposes it (Pacejka's book writes the
 * adapted-SAE alpha = -Vcy/|Vcx| with K_ya > 0: the same force); gamma is the inclination of
 * the wheel plane about x. Every law reports alpha with this sign.
 * Below the file's VXLOW the law uses its low-speed treatment, so a vehicle can start from rest
 * and stop without a singular slip.
 */
#ifndef MBS_TYRE_MODEL_H
#define MBS_TYRE_MODEL_H

#include <stddef.h>

#include "mbs_error.h"

/* What a law reads. */
enum {
    MBS_TYRE_IN_FZ,    /* normal load, N (>= 0; the wheel element clamps it) */
    MBS_TYRE_IN_VX,    /* Vcx: wheel centre velocity along the contact frame's x, m/s */
    MBS_TYRE_IN_VY,    /* Vcy: contact point's velocity along the contact frame's y, m/s */
    MBS_TYRE_IN_OMEGA, /* spin of the wheel about its axis, rad/s (positive rolling forward) */
    MBS_TYRE_IN_GAMMA, /* inclination angle, rad */
    MBS_TYRE_IN_COUNT
};

/* What a law gives: forces along and moments about the contact frame's axes, at the contact
 * point. */
enum {
    MBS_TYRE_OUT_FX,
    MBS_TYRE_OUT_FY,
    MBS_TYRE_OUT_MX,
    MBS_TYRE_OUT_MY,
    MBS_TYRE_OUT_MZ,
    MBS_TYRE_OUT_COUNT
};

/* Most scaling factors a law lets a wheel multiply (MbsTyreModelClass.scaling). */
#define MBS_TYRE_SCALES 32

typedef struct {
    double in[MBS_TYRE_IN_COUNT];
    double mu_scale; /* road friction relative to the tyre's nominal (1 on a nominal road) */
    /* the wheel's multipliers of the law's scaling factors (MbsTyreModelClass.scaling order;
     * a model file's "tyre_scaling"), NULL: all 1 */
    const double *scale;
} MbsTyreInput;

typedef struct {
    double out[MBS_TYRE_OUT_COUNT];
    double kappa, alpha; /* the slips the law used (for monitors and plots) */
} MbsTyreOutput;

/* d out[i] / d in[j] at the input: the analytical tangent and the sensitivities need it (paper
 * 003 §3: tyre-force derivatives cannot be neglected over bumps). */
typedef struct {
    double d[MBS_TYRE_OUT_COUNT][MBS_TYRE_IN_COUNT];
} MbsTyreDerivative;

/* d out[i] / d scale[k]: the sensitivities of a tyre's scaling factors (issue 24). */
typedef struct {
    double d[MBS_TYRE_OUT_COUNT][MBS_TYRE_SCALES];
} MbsTyreScalingDerivative;

typedef struct MbsTyreData MbsTyreData; /* a law's parameters (opaque; owned by the model) */

typedef struct {
    const char *name;        /* "pac2002" */
    const char *description; /* "Magic Formula 5.2 (PAC2002)" */
    /* The unloaded radius, vertical stiffness and damping that the wheel element uses for the
     * normal load (the law's own data: UNLOADED_RADIUS, VERTICAL_STIFFNESS, VERTICAL_DAMPING of
     * a .tir file);
     * scale: the wheel's multipliers (MbsTyreInput.scale; NULL: all 1). */
    void (*vertical)(const MbsTyreData *data, const double *scale, double *radius,
                     double *stiffness, double *damping);
    /* The wrench at an input; d may be NULL. Never NaN for finite input. */
    void (*evaluate)(const MbsTyreData *data, const MbsTyreInput *in, MbsTyreOutput *out,
                     MbsTyreDerivative *d);
    /* The law's data from the text of its property file (the .tir file for pac2002; "linear"
     * takes none: text NULL gives its defaults). file names the file in err's messages
     * ("HMMWV_Pac02Tire.tir:57: unknown key 'PCY9'"). NULL with err on failure. */
    MbsTyreData *(*parse)(const char *text, size_t size, const char *file, MbsError *err);
    MbsTyreData *(*copy)(const MbsTyreData *data); /* a model copy owns its own */
    void (*free_data)(MbsTyreData *data);
    /* Optional: the side of the vehicle the data describe (MBS_TYRE_LEFT or MBS_TYRE_RIGHT; a
     * .tir file's TYRESIDE). NULL: a law symmetric by construction, taken as left. */
    int (*side)(const MbsTyreData *data);
    /* Optional: the tyre's section width, m (a .tir file's WIDTH; 0 when not given). NULL: none
     * (drawings then take a fraction of the radius). */
    double (*width)(const MbsTyreData *data);
    /* Optional: the names of the law's scaling factors that a wheel may multiply (a model
     * file's "tyre_scaling": {"LMUY": 1.1}; PAC2002: the [SCALING_COEFFICIENTS] it reads),
     * NULL-terminated, at most MBS_TYRE_SCALES; MbsTyreInput.scale follows this order. NULL: a
     * law without them. */
    const char *const *scaling;
    /* With scaling: d out / d scale[k] at in (in->scale the multipliers, NULL: all 1), exact
     * (forward mode through the law), for the tests and the sensitivities of the factors. */
    void (*scaling_derivative)(const MbsTyreData *data, const MbsTyreInput *in,
                               MbsTyreScalingDerivative *d);
    /* With scaling: 0 when the multipliers scale (one per name) suit the data, else a status
     * with err naming force `name` and the factor. */
    int (*check_scaling)(const MbsTyreData *data, const double *scale, const char *name,
                         MbsError *err);
} MbsTyreModelClass;

enum { MBS_TYRE_LEFT, MBS_TYRE_RIGHT };

/* The side the data of law describe (MBS_TYRE_LEFT for a law without one). */
int mbs_tyre_side(const MbsTyreModelClass *law, const MbsTyreData *data);
/* The section width of the tyre (m), 0 when the law or its file gives none. */
double mbs_tyre_width(const MbsTyreModelClass *law, const MbsTyreData *data);

/* The law's evaluate for a tyre mounted on the side its data describe (mirror 0) or on the
 * other side (mirror 1). A mirrored tyre is the reflection of the data's tyre in its wheel
 * plane (Pacejka, Tire and Vehicle Dynamics, 3rd ed., §4.3.2, and the MF-Tyre manuals'
 * TYRESIDE): Fx, My(kappa, alpha, gamma) = Fx, My of the data at (kappa, -alpha, -gamma) and
 * Fy, Mx, Mz = minus those of the data there; alpha -> -alpha is Vcy -> -Vcy. d follows by the
 * chain rule (d out_i/d in_j times the signs of out_i and in_j); out->alpha is the mounted
 * tyre's. */
void mbs_tyre_evaluate(const MbsTyreModelClass *law, const MbsTyreData *data, int mirror,
                       const MbsTyreInput *in, MbsTyreOutput *out, MbsTyreDerivative *d);
/* The law's scaling_derivative for a tyre mounted as mbs_tyre_evaluate's mirror says (its
 * outputs' signs); zeros for a law without scaling factors. */
void mbs_tyre_scaling_derivative(const MbsTyreModelClass *law, const MbsTyreData *data,
                                 int mirror, const MbsTyreInput *in, MbsTyreScalingDerivative *d);
/* The number of the law's scaling factors, and the place of name among them (-1: none). */
int mbs_tyre_scaling_count(const MbsTyreModelClass *law);
int mbs_tyre_scaling_index(const MbsTyreModelClass *law, const char *name);

/* The "linear" law's numbers (engine/vehicle/tyre_linear.c): Fx = C_kappa kappa and
 * Fy = C_alpha alpha, limited together to mu Fz. A wheel element keeps them as its fields
 * (MbsForce.tyre, so parameters and sensitivities reach them) and passes them to the law as its
 * data; parse(NULL) gives a copy of the defaults. */
enum {
    MBS_TYRE_LINEAR_RADIUS,      /* unloaded radius, m */
    MBS_TYRE_LINEAR_STIFFNESS,   /* vertical stiffness, N/m */
    MBS_TYRE_LINEAR_DAMPING,     /* vertical damping, N s/m */
    MBS_TYRE_LINEAR_CKAPPA,      /* longitudinal slip stiffness dFx/dkappa, N */
    MBS_TYRE_LINEAR_CALPHA,      /* cornering stiffness dFy/dalpha, N/rad */
    MBS_TYRE_LINEAR_MU,          /* friction coefficient (times the road's mu) */
    MBS_TYRE_LINEAR_ROLLING,     /* effective rolling radius Re, m (0: the unloaded radius) */
    MBS_TYRE_LINEAR_VLOW,        /* speed below which the slips are damped, m/s (VXLOW) */
    MBS_TYRE_LINEAR_COUNT
};

/* The linear law's default numbers (MBS_TYRE_LINEAR_COUNT of them). */
const double *mbs_tyre_linear_defaults(void);

/* Index of the law class in the registry (-1 if unknown). */
int mbs_tyre_model_class_index(const char *name);

int mbs_tyre_model_class_count(void);
const MbsTyreModelClass *mbs_tyre_model_class_at(int i);
const MbsTyreModelClass *mbs_tyre_model_class_by_name(const char *name); /* NULL if unknown */

#endif
