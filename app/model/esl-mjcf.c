/* MuJoCo XML (MJCF) from a compiled model (esl-mjcf.h).
 *
 * Every MuJoCo body keeps the drawing's global orientation (no quat) and has its frame at its
 * centre of mass, so MuJoCo's qpos = 0 is our z = 0 (the drawing) and each topology node's
 * point and axis carry over unchanged as a joint's pos (relative to the body) and axis. A body
 * carried by several nodes (a spherical or universal joint in the tree) lists them from the
 * parent outwards: MuJoCo applies a body's joints in order, each about an axis moved by the
 * ones before, as our nodes are carried by their parents. */
#include "esl-mjcf.h"

#include <gio/gio.h>
#include <math.h>
#include <string.h>

#include "mbs_topology.h"

static const char *body_name(const MbsModel *m, int b)
{
    return b < 0 || b == m->ground ? "world" : m->bodies[b].name;
}

/* %.17g keeps every bit of a double through the text. */
static void put3(GString *s, const double v[3])
{
    g_string_append_printf(s, "%.17g %.17g %.17g", v[0], v[1], v[2]);
}

static void put_escaped(GString *s, const char *text)
{
    char *e = g_markup_escape_text(text, -1);
    g_string_append(s, e);
    g_free(e);
}

static const double zero3[3] = {0, 0, 0};

static const double *body_origin(const MbsModel *m, int b)
{
    return b < 0 || b == m->ground ? zero3 : m->bodies[b].com;
}

/* The body a node's chain hangs from: the first ancestor node that carries a body. */
static int parent_body(const MbsTopology *t, const MbsModel *m, int node)
{
    for (int k = t->nodes[node].parent; k >= 0; k = t->nodes[k].parent)
        if (t->nodes[k].body >= 0)
            return t->nodes[k].body;
    return m->ground;
}

static const char *refusal(const MbsModel *m)
{
    static char why[256];
    if (m->road)
        return "the model has a road (wheels and tyres have no MJCF form here)";
    if (m->nforces > 0) {
        g_snprintf(why, sizeof why,
                   "force element '%s': only gravity is exported (springs, dampers and tyres "
                   "have no exact MJCF counterpart written here)",
                   m->forces[0].name);
        return why;
    }
    for (int j = 0; j < m->njoints; ++j) {
        const MbsJoint *J = &m->joints[j];
        if (J->driven) {
            g_snprintf(why, sizeof why,
                       "joint '%s' is driven (MJCF has no prescribed motion of a joint)", J->name);
            return why;
        }
        if (J->type == MBS_JOINT_ROD) {
            g_snprintf(why, sizeof why,
                       "joint '%s' is a rod (MuJoCo 2.2 removed the distance equality)", J->name);
            return why;
        }
        if (m->topo->joint_node[j] < 0 && J->type != MBS_JOINT_REVOLUTE &&
            J->type != MBS_JOINT_SPHERICAL) {
            g_snprintf(why, sizeof why,
                       "cut joint '%s' is %s: only revolute and spherical loop closures are "
                       "written (as connect equalities)",
                       J->name, mbs_joint_type_name(J->type));
            return why;
        }
    }
    for (int b = 0; b < m->nbodies; ++b)
        if (b != m->ground && m->topo->body_node[b] < 0) {
            g_snprintf(why, sizeof why, "body '%s' is not carried by a joint",
                       m->bodies[b].name);
            return why;
        }
    return NULL;
}

/* MuJoCo refuses a moving body whose principal inertia falls below mjMINVAL (1e-15); a slender
 * rod has none about its axis. A tiny isotropic floor (1e-9 of the trace) is added only then:
 * it changes a kinetic energy by at most that fraction (none where the rod does not spin). */
static void put_inertia(GString *s, const MbsBody *B)
{
    const double *J = B->inertia;
    double tr = J[0] + J[4] + J[8];
    double det = J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) +
                 J[2] * (J[3] * J[7] - J[4] * J[6]);
    double floor_ = det <= 1e-9 * tr * tr * tr ? 1e-9 * tr : 0.0;
    g_string_append_printf(s, "<inertial pos=\"0 0 0\" mass=\"%.17g\" fullinertia=\"%.17g %.17g "
                              "%.17g %.17g %.17g %.17g\"/>",
                           B->mass, J[0] + floor_, J[4] + floor_, J[8] + floor_, J[1], J[2],
                           J[5]);
}

typedef struct {
    const MbsModel *m;
    GString *s;
    int *order; /* qpos index -> node */
    int nq;
} Writer;

static void write_body(Writer *w, int b, int depth)
{
    const MbsModel *m = w->m;
    const MbsTopology *t = m->topo;
    GString *s = w->s;
    int parent = parent_body(t, m, t->body_node[b]);
    double pos[3];
    for (int i = 0; i < 3; ++i)
        pos[i] = m->bodies[b].com[i] - body_origin(m, parent)[i];
    g_string_append_printf(s, "%*s<body name=\"", 2 * depth, "");
    put_escaped(s, m->bodies[b].name);
    g_string_append(s, "\" pos=\"");
    put3(s, pos);
    g_string_append(s, "\">\n");
    /* the chain of nodes from the parent body down to this one, listed parent first */
    int chain[8], nchain = 0;
    for (int k = t->body_node[b]; k >= 0 && nchain < 8; k = t->nodes[k].parent) {
        chain[nchain++] = k;
        if (t->nodes[k].parent >= 0 && t->nodes[t->nodes[k].parent].body >= 0)
            break;
    }
    for (int c = nchain - 1; c >= 0; --c) {
        const MbsNode *N = &t->nodes[chain[c]];
        const MbsJoint *J = &m->joints[N->joint];
        double jp[3];
        for (int i = 0; i < 3; ++i)
            jp[i] = N->point[i] - m->bodies[b].com[i];
        g_string_append_printf(s, "%*s<joint name=\"", 2 * depth + 2, "");
        put_escaped(s, J->name);
        if (mbs_joint_type_dofs(J->type) > 1)
            g_string_append_printf(s, "_%d", N->joint_coord);
        g_string_append_printf(s, "\" type=\"%s\" pos=\"",
                               N->type == MBS_NODE_REVOLUTE ? "hinge" : "slide");
        put3(s, jp);
        g_string_append(s, "\" axis=\"");
        put3(s, N->axis);
        g_string_append(s, "\"/>\n");
        w->order[w->nq++] = chain[c];
    }
    g_string_append_printf(s, "%*s", 2 * depth + 2, "");
    put_inertia(s, &m->bodies[b]);
    g_string_append(s, "\n");
    for (int c = 0; c < m->nbodies; ++c)
        if (c != m->ground && parent_body(t, m, t->body_node[c]) == b)
            write_body(w, c, depth + 1);
    g_string_append_printf(s, "%*s</body>\n", 2 * depth, "");
}

/* 1 when every tree coordinate keeps the direction u fixed (revolute axes along it, prismatic
 * ones across it): the motion is planar about u, and a revolute cut joint about u is closed by
 * its point alone (a second connect on its axis would only repeat the tree's rows). */
static int planar_about(const MbsTopology *t, const double u[3])
{
    for (int k = 0; k < t->nnodes; ++k) {
        const double *a = t->nodes[k].axis;
        double c = a[0] * u[0] + a[1] * u[1] + a[2] * u[2];
        if (t->nodes[k].type == MBS_NODE_REVOLUTE ? fabs(c) < 1.0 - 1e-12 : fabs(c) > 1e-12)
            return 0;
    }
    return 1;
}

/* A connect equality holding point p (global, drawn) of body a on body b. */
static void put_connect(GString *s, const MbsModel *m, int a, int b, const double p[3],
                        const char *name)
{
    if (a == m->ground) { /* body1 must move: MuJoCo takes the anchor in its frame */
        int tmp = a;
        a = b;
        b = tmp;
    }
    double anchor[3];
    for (int i = 0; i < 3; ++i)
        anchor[i] = p[i] - body_origin(m, a)[i];
    g_string_append(s, "    <connect name=\"");
    put_escaped(s, name);
    g_string_append(s, "\" body1=\"");
    put_escaped(s, body_name(m, a));
    g_string_append(s, "\" body2=\"");
    put_escaped(s, body_name(m, b));
    g_string_append(s, "\" anchor=\"");
    put3(s, anchor);
    g_string_append(s, "\"/>\n");
}

char *esl_mjcf_from_model(const MbsModel *m, const double *z, const double *zd,
                          const EslMjcfOptions *options, int *qpos_node, GError **error)
{
    const char *why = refusal(m);
    if (why) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                    "cannot write model '%s' as MJCF: %s", m->name, why);
        return NULL;
    }
    const MbsTopology *t = m->topo;
    GString *s = g_string_new(NULL);
    g_string_append(s, "<!-- Written by eslabon-cli export, format mjcf: the spanning tree of "
                       "relative coordinates as bodies and joints, cut joints as connect "
                       "equalities (MuJoCo's are soft: solref, solimp). -->\n<mujoco model=\"");
    put_escaped(s, m->name);
    g_string_append(s, "\">\n  <compiler angle=\"radian\" inertiafromgeom=\"false\"/>\n");
    g_string_append_printf(s, "  <option timestep=\"%.17g\" integrator=\"%s\" gravity=\"",
                           options && options->timestep > 0 ? options->timestep : 0.01,
                           options && options->integrator ? options->integrator : "RK4");
    put3(s, m->gravity);
    g_string_append(s, "\">\n    <flag contact=\"disable\" energy=\"enable\"/>\n  </option>\n"
                       "  <worldbody>\n");
    Writer w = {m, s, g_new0(int, t->nnodes + 1), 0};
    for (int b = 0; b < m->nbodies; ++b)
        if (b != m->ground && parent_body(t, m, t->body_node[b]) == m->ground)
            write_body(&w, b, 2);
    g_string_append(s, "  </worldbody>\n");
    if (t->ncut > 0) {
        g_string_append(s, "  <equality>\n");
        for (int j = 0; j < m->njoints; ++j) {
            const MbsJoint *J = &m->joints[j];
            if (t->joint_node[j] >= 0)
                continue;
            put_connect(s, m, J->body1, J->body2, J->point1, J->name);
            /* a revolute joint also keeps a second point of its axis, unless the mechanism is
             * planar about that axis */
            if (J->type == MBS_JOINT_REVOLUTE && !planar_about(t, J->axis1)) {
                double p2[3];
                for (int i = 0; i < 3; ++i)
                    p2[i] = J->point1[i] + J->axis1[i];
                char *name = g_strdup_printf("%s_axis", J->name);
                put_connect(s, m, J->body1, J->body2, p2, name);
                g_free(name);
            }
        }
        g_string_append(s, "  </equality>\n");
    }
    g_string_append(s, "  <keyframe>\n    <key name=\"initial\" qpos=\"");
    for (int q = 0; q < w.nq; ++q)
        g_string_append_printf(s, "%s%.17g", q ? " " : "", z ? z[w.order[q]] : 0.0);
    g_string_append(s, "\" qvel=\"");
    for (int q = 0; q < w.nq; ++q)
        g_string_append_printf(s, "%s%.17g", q ? " " : "", zd ? zd[w.order[q]] : 0.0);
    g_string_append(s, "\"/>\n  </keyframe>\n</mujoco>\n");
    if (qpos_node)
        memcpy(qpos_node, w.order, sizeof(int) * (size_t)w.nq);
    g_free(w.order);
    return g_string_free(s, FALSE);
}
