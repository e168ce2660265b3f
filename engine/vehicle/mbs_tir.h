/* A reader of TeimOrbit tyre property files (.tir: MSC Adams' format for PAC2002 and the other
 * Magic Formula tyres; docs/formulations.md § Tyres).
 *
 * A file is sections ([UNITS], [MODEL], [LATERAL_COEFFICIENTS], ...) of `KEY = VALUE` lines;
 * `$` starts a comment (to the end of the line), `!` a comment line, values are numbers or
 * quoted strings. Every key the reader knows is one row of MBS_TIR_KEYS below (section, name,
 * default, whether required, physical dimension): the struct MbsTir and the descriptor table the
 * parser walks are generated from it, so a key is written once. Dimensional values are
 * converted to SI from the file's [UNITS]; the Magic Formula coefficients are dimensionless or
 * per radian and taken as written (as Adams and MF-Tyre do). Sections that carry nothing for a
 * steady-state tyre ([MDI_HEADER], [SHAPE], [TURNSLIP_COEFFICIENTS]) are skipped whole; any
 * other unknown section or key is an error naming the file and line.
 */
#ifndef MBS_TIR_H
#define MBS_TIR_H

#include <stddef.h>

#include "mbs_error.h"

/* Sections. */
#define MBS_TIR_SECTIONS(X)                                                                      \
    X(UNITS) X(MODEL) X(TIRE_CONDITIONS) X(DIMENSION) X(VERTICAL) X(LONG_SLIP_RANGE)             \
    X(SLIP_ANGLE_RANGE) X(INCLINATION_ANGLE_RANGE) X(VERTICAL_FORCE_RANGE)                        \
    X(SCALING_COEFFICIENTS) X(LONGITUDINAL_COEFFICIENTS) X(OVERTURNING_COEFFICIENTS)               \
    X(LATERAL_COEFFICIENTS) X(ROLLING_COEFFICIENTS) X(ALIGNING_COEFFICIENTS)

typedef enum {
#define MBS_TIR_SECTION_ENUM(s) MBS_TIR_SECTION_##s,
    MBS_TIR_SECTIONS(MBS_TIR_SECTION_ENUM)
#undef MBS_TIR_SECTION_ENUM
    MBS_TIR_SECTION_COUNT
} MbsTirSection;

/* Physical dimension of a numeric key (the [UNITS] it is converted with). */
typedef enum {
    MBS_TIR_ONE,       /* dimensionless, or per radian: as written */
    MBS_TIR_LENGTH,
    MBS_TIR_FORCE,
    MBS_TIR_ANGLE,
    MBS_TIR_MASS,
    MBS_TIR_PRESSURE,
    MBS_TIR_TIME,      /* (no key is a bare time: the unit of velocities and damping) */
    MBS_TIR_VELOCITY,  /* length / time */
    MBS_TIR_STIFFNESS, /* force / length */
    MBS_TIR_DAMPING,   /* force time / length */
} MbsTirDimension;

/* Text keys: (section, NAME, required). At most MBS_TIR_TEXT_SIZE - 1 characters. */
#define MBS_TIR_TEXT_KEYS(X)                                                                     \
    X(UNITS, LENGTH, 0) X(UNITS, FORCE, 0) X(UNITS, ANGLE, 0) X(UNITS, MASS, 0)                  \
    X(UNITS, TIME, 0) X(UNITS, PRESSURE, 0)                                                      \
    X(MODEL, PROPERTY_FILE_FORMAT, 1) X(MODEL, TYRESIDE, 0) X(MODEL, BELT_DYNAMICS, 0)            \
    X(MODEL, CONTACT_MODEL, 0) X(MODEL, FE_METHOD, 0) X(MODEL, LOCAL_SOLVER, 0)                   \
    X(MODEL, LOCAL_SOLVER_HP, 0)

/* Numeric keys: (section, NAME, default, required, dimension). Coefficients not given are 0,
 * scaling factors 1 (Pacejka, Tire and Vehicle Dynamics, 3rd ed., §4.3.2). */
/* The scaling factors ([SCALING_COEFFICIENTS], Pacejka §4.3.2), Y(X, NAME) each: a list of its
 * own so that MBS_TIR_SCALE_NAME indexes them (a wheel's multipliers: tyre_pac2002.c). */
#define MBS_TIR_SCALING_KEYS(X, Y)                                                               \
    Y(X, LFZO) Y(X, LCX) Y(X, LEX) Y(X, LKX) Y(X, LHX) Y(X, LVX) Y(X, LMUX) Y(X, LGAX) Y(X, LCY)    \
    Y(X, LEY) Y(X, LKY) Y(X, LHY) Y(X, LVY) Y(X, LMUY) Y(X, LGAY) Y(X, LKG) Y(X, LTR) Y(X, LRES)   \
    Y(X, LGAZ) Y(X, LXAL) Y(X, LYKA) Y(X, LVYKA) Y(X, LS) Y(X, LMX) Y(X, LMY) Y(X, LVMX)          \
    Y(X, LSGKP) Y(X, LSGAL) Y(X, LGYR) Y(X, LCZ) Y(X, LIP)

#define MBS_TIR_SCALE_ENUM(X, n) MBS_TIR_SCALE_##n,
enum { MBS_TIR_SCALING_KEYS(_, MBS_TIR_SCALE_ENUM) MBS_TIR_SCALING_COUNT };
#undef MBS_TIR_SCALE_ENUM

#define MBS_TIR_SCALE(X, n) X(SCALING_COEFFICIENTS, n, 1.0, 0, MBS_TIR_ONE)
#define MBS_TIR_COEF(X, s, n) X(s##_COEFFICIENTS, n, 0.0, 0, MBS_TIR_ONE)
#define MBS_TIR_NEEDED(X, s, n) X(s##_COEFFICIENTS, n, 0.0, 1, MBS_TIR_ONE)
#define MBS_TIR_NUMBER_KEYS(X)                                                                   \
    X(MODEL, USE_MODE, 4.0, 0, MBS_TIR_ONE)                                                      \
    X(MODEL, LONGVL, 16.7, 0, MBS_TIR_VELOCITY)                                                  \
    X(MODEL, VXLOW, 1.0, 0, MBS_TIR_VELOCITY)                                                    \
    X(TIRE_CONDITIONS, IP, 0.0, 0, MBS_TIR_PRESSURE)                                             \
    X(TIRE_CONDITIONS, IP_NOM, 0.0, 0, MBS_TIR_PRESSURE)                                         \
    X(DIMENSION, UNLOADED_RADIUS, 0.0, 1, MBS_TIR_LENGTH)                                        \
    X(DIMENSION, WIDTH, 0.0, 0, MBS_TIR_LENGTH)                                                  \
    X(DIMENSION, ASPECT_RATIO, 0.0, 0, MBS_TIR_ONE)                                              \
    X(DIMENSION, RIM_RADIUS, 0.0, 0, MBS_TIR_LENGTH)                                             \
    X(DIMENSION, RIM_WIDTH, 0.0, 0, MBS_TIR_LENGTH)                                              \
    X(DIMENSION, BOTTOMING_RADIUS, 0.0, 0, MBS_TIR_LENGTH)                                       \
    X(VERTICAL, VERTICAL_STIFFNESS, 0.0, 1, MBS_TIR_STIFFNESS)                                   \
    X(VERTICAL, VERTICAL_DAMPING, 0.0, 0, MBS_TIR_DAMPING)                                       \
    X(VERTICAL, DREFF, 0.0, 0, MBS_TIR_ONE)                                                      \
    X(VERTICAL, BREFF, 0.0, 0, MBS_TIR_ONE)                                                      \
    X(VERTICAL, FREFF, 0.0, 0, MBS_TIR_ONE)                                                      \
    X(VERTICAL, FNOMIN, 0.0, 1, MBS_TIR_FORCE)                                                   \
    X(VERTICAL, DYNAMIC_STIFFNESS, 0.0, 0, MBS_TIR_STIFFNESS)                                    \
    X(VERTICAL, DYNAMIC_DAMPING, 0.0, 0, MBS_TIR_DAMPING)                                        \
    X(LONG_SLIP_RANGE, KPUMIN, -1.5, 0, MBS_TIR_ONE)                                             \
    X(LONG_SLIP_RANGE, KPUMAX, 1.5, 0, MBS_TIR_ONE)                                              \
    X(SLIP_ANGLE_RANGE, ALPMIN, -1.5708, 0, MBS_TIR_ANGLE)                                       \
    X(SLIP_ANGLE_RANGE, ALPMAX, 1.5708, 0, MBS_TIR_ANGLE)                                        \
    X(INCLINATION_ANGLE_RANGE, CAMMIN, -0.26181, 0, MBS_TIR_ANGLE)                               \
    X(INCLINATION_ANGLE_RANGE, CAMMAX, 0.26181, 0, MBS_TIR_ANGLE)                                \
    X(VERTICAL_FORCE_RANGE, FZMIN, 0.0, 0, MBS_TIR_FORCE)                                        \
    X(VERTICAL_FORCE_RANGE, FZMAX, 0.0, 0, MBS_TIR_FORCE)                                        \
    MBS_TIR_SCALING_KEYS(X, MBS_TIR_SCALE)                                                       \
    MBS_TIR_NEEDED(X, LONGITUDINAL, PCX1) MBS_TIR_NEEDED(X, LONGITUDINAL, PDX1)                  \
    MBS_TIR_COEF(X, LONGITUDINAL, PDX2) MBS_TIR_COEF(X, LONGITUDINAL, PDX3)                      \
    MBS_TIR_COEF(X, LONGITUDINAL, PEX1) MBS_TIR_COEF(X, LONGITUDINAL, PEX2)                      \
    MBS_TIR_COEF(X, LONGITUDINAL, PEX3) MBS_TIR_COEF(X, LONGITUDINAL, PEX4)                      \
    MBS_TIR_NEEDED(X, LONGITUDINAL, PKX1) MBS_TIR_COEF(X, LONGITUDINAL, PKX2)                    \
    MBS_TIR_COEF(X, LONGITUDINAL, PKX3) MBS_TIR_COEF(X, LONGITUDINAL, PHX1)                      \
    MBS_TIR_COEF(X, LONGITUDINAL, PHX2) MBS_TIR_COEF(X, LONGITUDINAL, PVX1)                      \
    MBS_TIR_COEF(X, LONGITUDINAL, PVX2) MBS_TIR_COEF(X, LONGITUDINAL, PPX1)                      \
    MBS_TIR_COEF(X, LONGITUDINAL, PPX2) MBS_TIR_COEF(X, LONGITUDINAL, PPX3)                      \
    MBS_TIR_COEF(X, LONGITUDINAL, PPX4) MBS_TIR_COEF(X, LONGITUDINAL, RBX1)                      \
    MBS_TIR_COEF(X, LONGITUDINAL, RBX2) MBS_TIR_COEF(X, LONGITUDINAL, RCX1)                      \
    MBS_TIR_COEF(X, LONGITUDINAL, RHX1) MBS_TIR_COEF(X, LONGITUDINAL, REX1)                      \
    MBS_TIR_COEF(X, LONGITUDINAL, REX2) MBS_TIR_COEF(X, LONGITUDINAL, PTX1)                      \
    MBS_TIR_COEF(X, LONGITUDINAL, PTX2) MBS_TIR_COEF(X, LONGITUDINAL, PTX3)                      \
    MBS_TIR_COEF(X, LONGITUDINAL, PTX4)                                                          \
    MBS_TIR_COEF(X, OVERTURNING, QSX1) MBS_TIR_COEF(X, OVERTURNING, QSX2)                        \
    MBS_TIR_COEF(X, OVERTURNING, QSX3) MBS_TIR_COEF(X, OVERTURNING, QSX4)                        \
    MBS_TIR_COEF(X, OVERTURNING, QSX5) MBS_TIR_COEF(X, OVERTURNING, QSX6)                        \
    MBS_TIR_COEF(X, OVERTURNING, QSX7) MBS_TIR_COEF(X, OVERTURNING, QSX8)                        \
    MBS_TIR_COEF(X, OVERTURNING, QSX9) MBS_TIR_COEF(X, OVERTURNING, QSX10)                       \
    MBS_TIR_COEF(X, OVERTURNING, QSX11) MBS_TIR_COEF(X, OVERTURNING, QPX1)                       \
    MBS_TIR_NEEDED(X, LATERAL, PCY1) MBS_TIR_NEEDED(X, LATERAL, PDY1)                            \
    MBS_TIR_COEF(X, LATERAL, PDY2) MBS_TIR_COEF(X, LATERAL, PDY3)                                \
    MBS_TIR_COEF(X, LATERAL, PEY1) MBS_TIR_COEF(X, LATERAL, PEY2)                                \
    MBS_TIR_COEF(X, LATERAL, PEY3) MBS_TIR_COEF(X, LATERAL, PEY4)                                \
    MBS_TIR_NEEDED(X, LATERAL, PKY1) MBS_TIR_NEEDED(X, LATERAL, PKY2)                            \
    MBS_TIR_COEF(X, LATERAL, PKY3) MBS_TIR_COEF(X, LATERAL, PHY1)                                \
    MBS_TIR_COEF(X, LATERAL, PHY2) MBS_TIR_COEF(X, LATERAL, PHY3)                                \
    MBS_TIR_COEF(X, LATERAL, PVY1) MBS_TIR_COEF(X, LATERAL, PVY2)                                \
    MBS_TIR_COEF(X, LATERAL, PVY3) MBS_TIR_COEF(X, LATERAL, PVY4)                                \
    MBS_TIR_COEF(X, LATERAL, PPY1) MBS_TIR_COEF(X, LATERAL, PPY2)                                \
    MBS_TIR_COEF(X, LATERAL, PPY3) MBS_TIR_COEF(X, LATERAL, PPY4)                                \
    MBS_TIR_COEF(X, LATERAL, RBY1) MBS_TIR_COEF(X, LATERAL, RBY2)                                \
    MBS_TIR_COEF(X, LATERAL, RBY3) MBS_TIR_COEF(X, LATERAL, RCY1)                                \
    MBS_TIR_COEF(X, LATERAL, RHY1) MBS_TIR_COEF(X, LATERAL, RVY1)                                \
    MBS_TIR_COEF(X, LATERAL, RVY2) MBS_TIR_COEF(X, LATERAL, RVY3)                                \
    MBS_TIR_COEF(X, LATERAL, RVY4) MBS_TIR_COEF(X, LATERAL, RVY5)                                \
    MBS_TIR_COEF(X, LATERAL, RVY6) MBS_TIR_COEF(X, LATERAL, REY1)                                \
    MBS_TIR_COEF(X, LATERAL, REY2) MBS_TIR_COEF(X, LATERAL, RHY2)                                \
    MBS_TIR_COEF(X, LATERAL, PTY1) MBS_TIR_COEF(X, LATERAL, PTY2)                                \
    MBS_TIR_COEF(X, LATERAL, PTY3)                                                               \
    MBS_TIR_COEF(X, ROLLING, QSY1) MBS_TIR_COEF(X, ROLLING, QSY2)                                \
    MBS_TIR_COEF(X, ROLLING, QSY3) MBS_TIR_COEF(X, ROLLING, QSY4)                                \
    MBS_TIR_COEF(X, ROLLING, QSY5) MBS_TIR_COEF(X, ROLLING, QSY6)                                \
    MBS_TIR_COEF(X, ROLLING, QSY7) MBS_TIR_COEF(X, ROLLING, QSY8)                                \
    MBS_TIR_COEF(X, ALIGNING, QBZ1) MBS_TIR_COEF(X, ALIGNING, QBZ2)                              \
    MBS_TIR_COEF(X, ALIGNING, QBZ3) MBS_TIR_COEF(X, ALIGNING, QBZ4)                              \
    MBS_TIR_COEF(X, ALIGNING, QBZ5) MBS_TIR_COEF(X, ALIGNING, QBZ9)                              \
    MBS_TIR_COEF(X, ALIGNING, QBZ10) MBS_TIR_COEF(X, ALIGNING, QCZ1)                             \
    MBS_TIR_COEF(X, ALIGNING, QDZ1) MBS_TIR_COEF(X, ALIGNING, QDZ2)                              \
    MBS_TIR_COEF(X, ALIGNING, QDZ3) MBS_TIR_COEF(X, ALIGNING, QDZ4)                              \
    MBS_TIR_COEF(X, ALIGNING, QDZ6) MBS_TIR_COEF(X, ALIGNING, QDZ7)                              \
    MBS_TIR_COEF(X, ALIGNING, QDZ8) MBS_TIR_COEF(X, ALIGNING, QDZ9)                              \
    MBS_TIR_COEF(X, ALIGNING, QEZ1) MBS_TIR_COEF(X, ALIGNING, QEZ2)                              \
    MBS_TIR_COEF(X, ALIGNING, QEZ3) MBS_TIR_COEF(X, ALIGNING, QEZ4)                              \
    MBS_TIR_COEF(X, ALIGNING, QEZ5) MBS_TIR_COEF(X, ALIGNING, QHZ1)                              \
    MBS_TIR_COEF(X, ALIGNING, QHZ2) MBS_TIR_COEF(X, ALIGNING, QHZ3)                              \
    MBS_TIR_COEF(X, ALIGNING, QHZ4) MBS_TIR_COEF(X, ALIGNING, QPZ1)                              \
    MBS_TIR_COEF(X, ALIGNING, QPZ2) MBS_TIR_COEF(X, ALIGNING, SSZ1)                              \
    MBS_TIR_COEF(X, ALIGNING, SSZ2) MBS_TIR_COEF(X, ALIGNING, SSZ3)                              \
    MBS_TIR_COEF(X, ALIGNING, SSZ4) MBS_TIR_COEF(X, ALIGNING, QTZ1)                              \
    X(ALIGNING_COEFFICIENTS, MBELT, 0.0, 0, MBS_TIR_MASS)

#define MBS_TIR_TEXT_SIZE 32

/* A parsed file: every key in SI, with its line (0: not in the file, the default). */
typedef struct {
#define MBS_TIR_TEXT_FIELD(s, n, r) char n[MBS_TIR_TEXT_SIZE];
#define MBS_TIR_NUMBER_FIELD(s, n, d, r, u) double n;
    MBS_TIR_TEXT_KEYS(MBS_TIR_TEXT_FIELD)
    MBS_TIR_NUMBER_KEYS(MBS_TIR_NUMBER_FIELD)
#undef MBS_TIR_TEXT_FIELD
#undef MBS_TIR_NUMBER_FIELD
} MbsTir;

/* One key's descriptor: the table the parser walks (and an editor could). */
typedef struct {
    const char *name;
    MbsTirSection section;
    int is_text;
    size_t offset;       /* into MbsTir */
    double default_value; /* numbers */
    int required;
    MbsTirDimension dimension;
} MbsTirKey;

int mbs_tir_key_count(void);
const MbsTirKey *mbs_tir_key_at(int i);
const char *mbs_tir_section_name(MbsTirSection s);

/* Parses text[0..size) (need not be NUL-terminated); file names it in messages
 * ("HMMWV_Pac02Tire.tir:57: unknown key 'PCY9' in [LATERAL_COEFFICIENTS]"). lines, when not
 * NULL, receives each key's line (0: absent), indexed like mbs_tir_key_at. Returns 0, or -1
 * with err (tir then holds nothing useful). Allocates nothing. */
int mbs_tir_parse(const char *text, size_t size, const char *file, MbsTir *tir,
                  int lines[], MbsError *err);

#endif
