/* Compiled topology of a model: spanning tree of relative coordinates and the loop-closure
 * constraints of the cut joints (papers 000 and 003).
 *
 * Every joint in the tree is split into elementary nodes, one per relative coordinate, each a
 * rotation about or a translation along an axis carried by its parent node. Nodes are numbered
 * from the leaves to the root: parent[k] > k, so a loop from n-1 down to 0 visits parents first
 * (kinematics) and a loop from 0 up accumulates inertias and forces towards the root.
 */
#ifndef MBS_TOPOLOGY_H
#define MBS_TOPOLOGY_H

#include "mbs_model.h"

typedef enum { MBS_NODE_REVOLUTE, MBS_NODE_PRISMATIC } MbsNodeType;

typedef struct {
    MbsNodeType type;
    int parent;      /* node index (> own index), -1 for ground */
    int joint;       /* model joint */
    int joint_coord; /* which coordinate of that joint */
    int body;        /* body carried by this node, -1 for the intermediate nodes of a joint */
    int depth;       /* number of nodes from the root to this one, itself included */
    double point[3]; /* drawn */
    double axis[3];  /* drawn, oriented so that z equals the joint coordinate */
} MbsNode;

typedef enum {
    MBS_ROW_POINTS,    /* (r1 - r2) . e_axis = 0, e_axis a global unit vector (k = 0..2) */
    MBS_ROW_DOT,       /* u1 . v2 - c = 0, u1 on body1, v2 on body2 */
    MBS_ROW_LINE,      /* (r2 - r1) . u1 = 0: point stays on a line/plane of body1 */
    MBS_ROW_DISTANCE,  /* (r1 - r2).(r1 - r2) - L^2 = 0 */
    MBS_ROW_DRIVER,    /* z_k - f(t) = 0 */
} MbsRowType;

typedef struct {
    MbsRowType type;
    int joint;
    int body1, body2;       /* bodies (model indices) carrying r1/u1 and r2/v2 */
    double r1[3], r2[3];    /* drawn points */
    double u1[3], v2[3];    /* drawn vectors (DOT, LINE) */
    int axis;               /* POINTS: 0, 1, 2 */
    double c;               /* DOT: drawn value; DISTANCE: L^2 */
    int node;               /* DRIVER: node of the driven coordinate */
} MbsRow;

/* 1 when rows a and b (b may be NULL) draw the same pair of points: a spherical or revolute
 * joint's three POINTS rows do, and the loops over rows share those points' kinematics. */
static inline int mbs_rows_share_points(const MbsRow *a, const MbsRow *b)
{
    return b && a->body1 == b->body1 && a->body2 == b->body2 && a->r1[0] == b->r1[0] &&
           a->r1[1] == b->r1[1] && a->r1[2] == b->r1[2] && a->r2[0] == b->r2[0] &&
           a->r2[1] == b->r2[1] && a->r2[2] == b->r2[2];
}

struct MbsTopology {
    int nnodes;         /* = number of relative coordinates */
    MbsNode *nodes;
    int *body_node;     /* per body: node that carries it, -1 for ground */
    int *joint_node;    /* per joint: node of its first coordinate, -1 for cut joints */
    int nrows;          /* constraint equations (may be redundant) */
    MbsRow *rows;
    int *joint_row;     /* per joint: first row, -1 if none */
    int *joint_nrows;
    int *row_ptr;       /* nrows + 1: structural nonzero columns of Phi_z, row by row */
    int *row_cols;
    int ncut;           /* number of cut joints (rods included) */
    int max_depth;
};

MbsTopology *mbs_topology_build(const MbsModel *m, MbsError *err);
void mbs_topology_free(MbsTopology *t);

#endif
