/* A model as MuJoCo XML (MJCF), so that anyone can run the same mechanism in MuJoCo
 * (`eslabon-cli export --format mjcf`, `eslabon-cli bench peer`; docs/cli.md § export). */
#ifndef ESL_MJCF_H
#define ESL_MJCF_H

#include <glib.h>

#include "mbs_model.h"

typedef struct {
    double timestep;        /* <option timestep>: s */
    const char *integrator; /* <option integrator>: "Euler", "RK4" or "implicit" */
} EslMjcfOptions;

/* The MJCF text of m: its spanning tree (mbs_topology.h) as nested bodies with one hinge or
 * slide joint per relative coordinate, the cut joints as `connect` equalities, gravity, and a
 * keyframe "initial" with the assembled initial state (z, zd: the model's relative coordinates
 * in node order, from mbs_assemble; NULL: the drawing at rest). NULL with a reason for what MJCF
 * (or this writer) cannot express: drivers, force elements, roads, rods and universal or
 * prismatic cut joints. qpos_node (optional, n entries): the topology node of each MuJoCo qpos
 * entry. The caller frees the text. */
char *esl_mjcf_from_model(const MbsModel *m, const double *z, const double *zd,
                          const EslMjcfOptions *options, int *qpos_node, GError **error);

#endif
