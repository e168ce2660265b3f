/* The derivative of a model's drawn data along one parameter (mbs_model_direction.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_force.h"
#include "mbs_model_direction.h"
#include "mbs_topology.h"

void mbs_model_direction_free(MbsModelDirection *dir)
{
    free(dir->node_point);
    free(dir->row_points);
    free(dir->row_c);
    free(dir->mass);
    free(dir->com);
    free(dir->inertia);
    free(dir->force_points);
    free(dir->point);
    memset(dir, 0, sizeof *dir);
}

static int same(const double *a, const double *b, int n)
{
    return !memcmp(a, b, sizeof(double) * (size_t)n);
}

/* out = (plus - minus) * c, n numbers */
static void difference(const double *plus, const double *minus, int n, double c, double *out)
{
    for (int i = 0; i < n; ++i)
        out[i] = c * (plus[i] - minus[i]);
}

static int refuse(char *why, size_t size, const char *what)
{
    if (why && size)
        snprintf(why, size, "%s", what);
    return 1;
}

/* Every number of the element's field table equal: the ones named below and those only the
 * table knows (a wheel's tyre numbers, a spring table's pairs, a stop's limits). Without this a
 * parameter bound to a wheel's stiffness passed for one that changes nothing, and matrix-r's
 * sensitivities reported 0 for it (issue 24, the buggy's k_t and c_t). */
static int same_field_numbers(const MbsForce *x, const MbsForce *y)
{
    const MbsForceClass *c = mbs_force_class(x->type);
    for (const MbsForceField *field = c ? c->fields : NULL; field && field->name; ++field) {
        const double *a = (const double *)(const void *)((const char *)x + field->offset);
        const double *b = (const double *)(const void *)((const char *)y + field->offset);
        if (!same(a, b, field->count))
            return 0;
    }
    return 1;
}

/* What the analytical terms follow: everything but points, mass properties, and the rows'
 * drawn values equal in the three models. */
static int comparable(const MbsModel *b, const MbsModel *p, char *why, size_t size)
{
    const MbsTopology *tb = b->topo, *tp = p->topo;
    if (tb->nnodes != tp->nnodes || tb->nrows != tp->nrows || b->nbodies != p->nbodies ||
        b->njoints != p->njoints ||
        b->nforces != p->nforces || b->npoints != p->npoints ||
        b->nobjective_terms != p->nobjective_terms || !same(b->gravity, p->gravity, 3))
        return refuse(why, size, "the parameter changes the model's structure or gravity");
    for (int i = 0; i < tb->nnodes; ++i) {
        const MbsNode *x = &tb->nodes[i], *y = &tp->nodes[i];
        if (x->type != y->type || x->parent != y->parent || x->body != y->body ||
            !same(x->axis, y->axis, 3))
            return refuse(why, size, "the parameter turns a joint's axis");
    }
    for (int i = 0; i < tb->nrows; ++i) {
        const MbsRow *x = &tb->rows[i], *y = &tp->rows[i];
        if (x->type != y->type || x->body1 != y->body1 || x->body2 != y->body2 ||
            x->axis != y->axis || x->node != y->node || !same(x->u1, y->u1, 3) ||
            !same(x->v2, y->v2, 3))
            return refuse(why, size, "the parameter turns a constraint's vector");
    }
    for (int j = 0; j < b->njoints; ++j) { /* a driver's Phi_t is not differentiated */
        const MbsFunction *x = &b->joints[j].driver, *y = &p->joints[j].driver;
        if (b->joints[j].driven != p->joints[j].driven || x->kind != y->kind ||
            x->ncoef != y->ncoef || !same(x->coef, y->coef, MBS_POLY_MAX) ||
            x->offset != y->offset || x->amplitude != y->amplitude || x->omega != y->omega ||
            x->phase != y->phase)
            return refuse(why, size, "the parameter changes a driver");
    }
    for (int f = 0; f < b->nforces; ++f) {
        const MbsForce *x = &b->forces[f], *y = &p->forces[f];
        if (x->type != y->type || x->body1 != y->body1 || x->body2 != y->body2 ||
            x->joint != y->joint || x->stiffness != y->stiffness || x->damping != y->damping ||
            x->natural_length != y->natural_length || x->preload != y->preload ||
            x->rest_angle != y->rest_angle || !same(x->vector, y->vector, 3) ||
            !same(x->bump, y->bump, 3) || !same_field_numbers(x, y) ||
            !same(x->tyre_scale, y->tyre_scale, MBS_FORCE_TYRE_SCALES))
            return refuse(why, size, "the parameter changes a force law's numbers");
    }
    for (int i = 0; i < b->npoints; ++i)
        if (b->points[i].body != p->points[i].body)
            return refuse(why, size, "the parameter changes the model's points");
    for (int i = 0; i < b->nobjective_terms; ++i) {
        const MbsObjectiveTerm *x = &b->objective_terms[i], *y = &p->objective_terms[i];
        /* a displacement's reference is the point's initial position, which the parameter
         * moves with the initial assembly: the rebuilt models' differences carry that */
        if (x->quantity == MBS_QUANTITY_DISPLACEMENT)
            return refuse(why, size, "an objective reads a displacement");
        if (x->quantity != y->quantity || x->point != y->point || x->body != y->body ||
            x->joint != y->joint || x->weight != y->weight || !same(x->reference, y->reference, 3))
            return refuse(why, size, "the parameter changes an objective");
    }
    return 0;
}

int mbs_model_direction_init(MbsModelDirection *dir, const MbsModel *base, const MbsModel *plus,
                             const MbsModel *minus, double delta, char *why, size_t size)
{
    memset(dir, 0, sizeof *dir);
    int status = comparable(base, plus, why, size);
    if (!status)
        status = comparable(base, minus, why, size);
    if (status)
        return status;
    const MbsTopology *t = base->topo;
    int nn = dir->nnodes = t->nnodes, nr = dir->nrows = t->nrows;
    int nb = dir->nbodies = base->nbodies, nf = dir->nforces = base->nforces;
    int np = dir->npoints = base->npoints;
    dir->node_point = calloc(3 * (size_t)nn + 1, sizeof(double));
    dir->row_points = calloc(6 * (size_t)nr + 1, sizeof(double));
    dir->row_c = calloc((size_t)nr + 1, sizeof(double));
    dir->mass = calloc((size_t)nb + 1, sizeof(double));
    dir->com = calloc(3 * (size_t)nb + 1, sizeof(double));
    dir->inertia = calloc(9 * (size_t)nb + 1, sizeof(double));
    dir->force_points = calloc(6 * (size_t)nf + 1, sizeof(double));
    dir->point = calloc(3 * (size_t)np + 1, sizeof(double));
    if (!dir->node_point || !dir->row_points || !dir->row_c || !dir->mass || !dir->com ||
        !dir->inertia || !dir->force_points || !dir->point) {
        mbs_model_direction_free(dir);
        return -1;
    }
    double c = 1.0 / (2.0 * delta);
    const MbsTopology *tp = plus->topo, *tm = minus->topo;
    for (int i = 0; i < nn; ++i)
        difference(tp->nodes[i].point, tm->nodes[i].point, 3, c, dir->node_point + 3 * i);
    for (int i = 0; i < nr; ++i) {
        difference(tp->rows[i].r1, tm->rows[i].r1, 3, c, dir->row_points + 6 * i);
        difference(tp->rows[i].r2, tm->rows[i].r2, 3, c, dir->row_points + 6 * i + 3);
        dir->row_c[i] = c * (tp->rows[i].c - tm->rows[i].c);
    }
    for (int b = 0; b < nb; ++b) {
        dir->mass[b] = c * (plus->bodies[b].mass - minus->bodies[b].mass);
        difference(plus->bodies[b].com, minus->bodies[b].com, 3, c, dir->com + 3 * b);
        difference(plus->bodies[b].inertia, minus->bodies[b].inertia, 9, c, dir->inertia + 9 * b);
    }
    for (int f = 0; f < nf; ++f) {
        difference(plus->forces[f].point1, minus->forces[f].point1, 3, c, dir->force_points + 6 * f);
        difference(plus->forces[f].point2, minus->forces[f].point2, 3, c,
                   dir->force_points + 6 * f + 3);
    }
    for (int i = 0; i < np; ++i)
        difference(plus->points[i].pos, minus->points[i].pos, 3, c, dir->point + 3 * i);
    return 0;
}
