#include "mbs_topology.h"

#include <stdlib.h>
#include <string.h>

#include "mbs_force.h"
#include "mbs_linalg.h"

void mbs_topology_free(MbsTopology *t)
{
    if (!t)
        return;
    free(t->nodes);
    free(t->body_node);
    free(t->joint_node);
    free(t->rows);
    free(t->joint_row);
    free(t->joint_nrows);
    free(t->row_ptr);
    free(t->row_cols);
    free(t);
}

static int uf_find(int *uf, int i)
{
    while (uf[i] != i)
        i = uf[i] = uf[uf[i]];
    return i;
}

/* Joints that must be relative coordinates: driven, sprung or with initial conditions. */
static int joint_must_be_in_tree(const MbsModel *m, int j)
{
    if (m->joints[j].driven)
        return 1;
    for (int f = 0; f < m->nforces; ++f)
        if ((mbs_force_class(m->forces[f].type)->geometry == MBS_FORCE_ON_JOINT ||
             mbs_force_class(m->forces[f].type)->geometry == MBS_FORCE_CONTROL) &&
            m->forces[f].joint == j)
            return 1;
    for (int i = 0; i < m->ninitial; ++i)
        if (m->initial[i].joint == j)
            return 1;
    return 0;
}

/* Kruskal over the joint graph, required joints first, then in file order. */
static int choose_tree_joints(const MbsModel *m, int *in_tree, MbsError *err)
{
    int *uf = malloc(sizeof(int) * (size_t)m->nbodies);
    if (!uf)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    for (int i = 0; i < m->nbodies; ++i)
        uf[i] = i;
    for (int pass = 0; pass < 2; ++pass) {
        for (int j = 0; j < m->njoints; ++j) {
            const MbsJoint *J = &m->joints[j];
            int required = joint_must_be_in_tree(m, j);
            if (J->type == MBS_JOINT_ROD || (pass == 0) != required)
                continue;
            int a = uf_find(uf, J->body1), b = uf_find(uf, J->body2);
            if (a != b) {
                uf[a] = b;
                in_tree[j] = 1;
            } else if (required) {
                free(uf);
                return mbs_error_set(err, MBS_FATAL,
                                     "joint '%s' is driven, sprung or has an initial condition "
                                     "but closes a loop of such joints; it must be a tree joint",
                                     J->name);
            }
        }
    }
    for (int b = 0; b < m->nbodies; ++b)
        if (uf_find(uf, b) != uf_find(uf, m->ground)) {
            free(uf);
            return mbs_error_set(err, MBS_FATAL,
                                 "body '%s' is not connected to the ground by any chain of joints",
                                 m->bodies[b].name);
        }
    free(uf);
    return 0;
}

static void set_node(MbsNode *n, MbsNodeType type, int joint, int coord, const double point[3],
                     const double axis[3], double sign)
{
    n->type = type;
    n->joint = joint;
    n->joint_coord = coord;
    n->body = -1;
    memcpy(n->point, point, sizeof n->point);
    for (int i = 0; i < 3; ++i)
        n->axis[i] = sign * axis[i];
}

/* Elementary nodes of joint j seen from the tree parent (forward: parent is body1). */
static int joint_nodes(const MbsJoint *J, int j, int forward, MbsNode *out)
{
    double s = forward ? 1.0 : -1.0;
    static const double ex[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    switch (J->type) {
    case MBS_JOINT_REVOLUTE:
        set_node(&out[0], MBS_NODE_REVOLUTE, j, 0, J->point1, J->axis1, s);
        return 1;
    case MBS_JOINT_PRISMATIC:
        set_node(&out[0], MBS_NODE_PRISMATIC, j, 0, J->point1, J->axis1, s);
        return 1;
    case MBS_JOINT_UNIVERSAL:
        set_node(&out[0], MBS_NODE_REVOLUTE, j, forward ? 0 : 1, J->point1,
                 forward ? J->axis1 : J->axis2, s);
        set_node(&out[1], MBS_NODE_REVOLUTE, j, forward ? 1 : 0, J->point1,
                 forward ? J->axis2 : J->axis1, s);
        return 2;
    case MBS_JOINT_SPHERICAL:
        for (int k = 0; k < 3; ++k) {
            int c = forward ? k : 2 - k;
            set_node(&out[k], MBS_NODE_REVOLUTE, j, c, J->point1, ex[c], s);
        }
        return 3;
    default:
        return 0;
    }
}

static int count_rows(const MbsModel *m, const int *in_tree)
{
    int rows = 0;
    for (int j = 0; j < m->njoints; ++j) {
        const MbsJoint *J = &m->joints[j];
        if (in_tree[j]) {
            rows += J->driven;
            continue;
        }
        if (m->planar_normal >= 0 && J->type != MBS_JOINT_ROD) {
            rows += 2; /* in-plane equations only (add_cut_rows) */
            continue;
        }
        switch (J->type) {
        case MBS_JOINT_REVOLUTE: rows += 5; break;
        case MBS_JOINT_PRISMATIC: rows += 5; break;
        case MBS_JOINT_SPHERICAL: rows += 3; break;
        case MBS_JOINT_UNIVERSAL: rows += 4; break;
        case MBS_JOINT_ROD: rows += 1; break;
        default: break;
        }
    }
    return rows;
}

static MbsRow *add_row(MbsTopology *t, MbsRowType type, int joint, const MbsJoint *J)
{
    MbsRow *r = &t->rows[t->nrows++];
    memset(r, 0, sizeof *r);
    r->type = type;
    r->joint = joint;
    r->body1 = J->body1;
    r->body2 = J->body2;
    memcpy(r->r1, J->point1, sizeof r->r1);
    memcpy(r->r2, J->point2, sizeof r->r2);
    return r;
}

static void add_dot_row(MbsTopology *t, int j, const MbsJoint *J, const double u1[3],
                        const double v2[3])
{
    MbsRow *r = add_row(t, MBS_ROW_DOT, j, J);
    memcpy(r->u1, u1, sizeof r->u1);
    memcpy(r->v2, v2, sizeof r->v2);
    r->c = mbs_v3_dot(u1, v2);
}

/* A planar model's cut joint (normal e_n): a revolute joint keeps the two in-plane components of
 * the point coincidence; a prismatic joint the relative rotation about e_n (axis on body1 . its
 * in-plane normal on body2) and the in-plane offset across the axis. The three equations a
 * spatial joint adds beyond these are identically satisfied by planar motion: as rows they
 * would only be redundant (a 40-loop chain: 200 rows of rank 80 become 80). */
static void add_planar_cut_rows(MbsTopology *t, int j, const MbsJoint *J, int normal)
{
    if (J->type == MBS_JOINT_REVOLUTE) {
        for (int k = 0; k < 3; ++k)
            if (k != normal)
                add_row(t, MBS_ROW_POINTS, j, J)->axis = k;
        return;
    }
    double e[3] = {0.0, 0.0, 0.0}, across[3];
    e[normal] = 1.0;
    mbs_v3_cross(e, J->axis1, across);
    mbs_v3_unit(across, across);
    add_dot_row(t, j, J, J->axis1, across);
    MbsRow *r = add_row(t, MBS_ROW_LINE, j, J);
    memcpy(r->u1, across, sizeof r->u1);
}

static void add_cut_rows(MbsTopology *t, int j, const MbsJoint *J, int planar_normal)
{
    if (planar_normal >= 0 && J->type != MBS_JOINT_ROD) {
        add_planar_cut_rows(t, j, J, planar_normal);
        return;
    }
    double w1[3], w2[3];
    mbs_v3_basis(J->axis1, w1, w2);
    if (J->type == MBS_JOINT_ROD) {
        MbsRow *r = add_row(t, MBS_ROW_DISTANCE, j, J);
        r->c = J->length * J->length;
        return;
    }
    if (J->type != MBS_JOINT_PRISMATIC)
        for (int k = 0; k < 3; ++k)
            add_row(t, MBS_ROW_POINTS, j, J)->axis = k;
    switch (J->type) {
    case MBS_JOINT_REVOLUTE:
        add_dot_row(t, j, J, J->axis1, w1);
        add_dot_row(t, j, J, J->axis1, w2);
        break;
    case MBS_JOINT_UNIVERSAL:
        add_dot_row(t, j, J, J->axis1, J->axis2);
        break;
    case MBS_JOINT_PRISMATIC: {
        add_dot_row(t, j, J, J->axis1, w1);
        add_dot_row(t, j, J, J->axis1, w2);
        add_dot_row(t, j, J, w1, w2);
        MbsRow *r = add_row(t, MBS_ROW_LINE, j, J);
        memcpy(r->u1, w1, sizeof r->u1);
        r = add_row(t, MBS_ROW_LINE, j, J);
        memcpy(r->u1, w2, sizeof r->u1);
        break;
    }
    default:
        break;
    }
}

/* Columns a row can touch: the nodes on the paths of its bodies (or its driven node). */
static int build_row_pattern(MbsTopology *t)
{
    int n = t->nnodes;
    t->row_ptr = calloc((size_t)t->nrows + 1, sizeof(int));
    t->row_cols = malloc(sizeof(int) * ((size_t)t->nrows * (size_t)(n > 0 ? n : 1) + 1));
    char *mark = calloc((size_t)n + 1, 1);
    if (!t->row_ptr || !t->row_cols || !mark) {
        free(mark);
        return -1;
    }
    int nnz = 0;
    for (int i = 0; i < t->nrows; ++i) {
        const MbsRow *r = &t->rows[i];
        if (r->type == MBS_ROW_DRIVER) {
            mark[r->node] = 1;
        } else {
            for (int j = t->body_node[r->body1]; j >= 0; j = t->nodes[j].parent)
                mark[j] = 1;
            for (int j = t->body_node[r->body2]; j >= 0; j = t->nodes[j].parent)
                mark[j] = 1;
        }
        for (int j = 0; j < n; ++j)
            if (mark[j]) {
                t->row_cols[nnz++] = j;
                mark[j] = 0;
            }
        t->row_ptr[i + 1] = nnz;
    }
    free(mark);
    return 0;
}

MbsTopology *mbs_topology_build(const MbsModel *m, MbsError *err)
{
    MbsTopology *t = calloc(1, sizeof *t);
    int *in_tree = calloc((size_t)m->njoints + 1, sizeof(int));
    int *order = malloc(sizeof(int) * (size_t)m->nbodies);     /* BFS order of bodies */
    int *in_joint = malloc(sizeof(int) * (size_t)m->nbodies);  /* tree joint into body */
    int *parent_body = malloc(sizeof(int) * (size_t)m->nbodies);
    int ncoords = 0;
    if (!t || !in_tree || !order || !in_joint || !parent_body) {
        mbs_error_set(err, MBS_FATAL, "out of memory");
        goto fail;
    }
    if (choose_tree_joints(m, in_tree, err))
        goto fail;

    /* Orient the tree from the ground (breadth first). */
    for (int b = 0; b < m->nbodies; ++b)
        in_joint[b] = parent_body[b] = -2;
    int head = 0, tail = 0;
    order[tail++] = m->ground;
    in_joint[m->ground] = -1;
    while (head < tail) {
        int b = order[head++];
        for (int j = 0; j < m->njoints; ++j) {
            if (!in_tree[j])
                continue;
            const MbsJoint *J = &m->joints[j];
            int other = J->body1 == b ? J->body2 : J->body2 == b ? J->body1 : -1;
            if (other < 0 || in_joint[other] != -2)
                continue;
            in_joint[other] = j;
            parent_body[other] = b;
            order[tail++] = other;
        }
    }
    for (int j = 0; j < m->njoints; ++j)
        if (in_tree[j])
            ncoords += mbs_joint_type_dofs(m->joints[j].type);

    t->nnodes = ncoords;
    t->nodes = calloc((size_t)ncoords + 1, sizeof *t->nodes);
    t->body_node = malloc(sizeof(int) * (size_t)m->nbodies);
    t->joint_node = malloc(sizeof(int) * ((size_t)m->njoints + 1));
    t->joint_row = malloc(sizeof(int) * ((size_t)m->njoints + 1));
    t->joint_nrows = calloc((size_t)m->njoints + 1, sizeof(int));
    int nrows = count_rows(m, in_tree);
    t->rows = calloc((size_t)nrows + 1, sizeof *t->rows);
    if (!t->nodes || !t->body_node || !t->joint_node || !t->joint_row || !t->joint_nrows || !t->rows) {
        mbs_error_set(err, MBS_FATAL, "out of memory");
        goto fail;
    }
    for (int j = 0; j < m->njoints; ++j)
        t->joint_node[j] = t->joint_row[j] = -1;

    /* Nodes in BFS order (root first) at index ncoords-1-k: leaves-to-root numbering. */
    int k = 0;
    for (int i = 1; i < tail; ++i) {
        int b = order[i], j = in_joint[b];
        const MbsJoint *J = &m->joints[j];
        MbsNode tmp[3];
        int nn = joint_nodes(J, j, parent_body[b] == J->body1, tmp);
        int parent = parent_body[b] == m->ground ? -1 : t->body_node[parent_body[b]];
        for (int c = 0; c < nn; ++c, ++k) {
            int idx = ncoords - 1 - k;
            t->nodes[idx] = tmp[c];
            t->nodes[idx].parent = parent;
            t->nodes[idx].depth = parent < 0 ? 1 : t->nodes[parent].depth + 1;
            if (t->nodes[idx].depth > t->max_depth)
                t->max_depth = t->nodes[idx].depth;
            if (c == 0)
                t->joint_node[j] = idx;
            parent = idx;
        }
        t->nodes[parent].body = b;
        t->body_node[b] = parent;
    }
    t->body_node[m->ground] = -1;
    /* joint_node must point at coordinate 0 of the joint, whatever the tree direction. */
    for (int n = 0; n < ncoords; ++n)
        if (t->nodes[n].joint_coord == 0)
            t->joint_node[t->nodes[n].joint] = n;

    for (int j = 0; j < m->njoints; ++j) {
        const MbsJoint *J = &m->joints[j];
        int first = t->nrows;
        if (!in_tree[j]) {
            t->ncut++;
            add_cut_rows(t, j, J, m->planar_normal);
        } else if (J->driven) {
            add_row(t, MBS_ROW_DRIVER, j, J)->node = t->joint_node[j];
        }
        if (t->nrows > first) {
            t->joint_row[j] = first;
            t->joint_nrows[j] = t->nrows - first;
        }
    }
    if (build_row_pattern(t)) {
        mbs_error_set(err, MBS_FATAL, "out of memory");
        goto fail;
    }
    free(in_tree);
    free(order);
    free(in_joint);
    free(parent_body);
    return t;

fail:
    free(in_tree);
    free(order);
    free(in_joint);
    free(parent_body);
    mbs_topology_free(t);
    return NULL;
}
