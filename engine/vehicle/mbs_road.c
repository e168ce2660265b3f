#include "mbs_road.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_settings.h" /* MBS_N_ */

extern const MbsRoadClass mbs_road_step, mbs_road_bump, mbs_road_profile;

/* The registry: one line per feature kind. */
static const MbsRoadClass *const classes[] = {
    &mbs_road_step,
    &mbs_road_bump,
    &mbs_road_profile,
};

#define NCLASSES ((int)(sizeof classes / sizeof classes[0]))

int mbs_road_class_count(void) { return NCLASSES; }

const MbsRoadClass *mbs_road_class_at(int i)
{
    return i >= 0 && i < NCLASSES ? classes[i] : NULL;
}

int mbs_road_class_index(const char *name)
{
    for (int i = 0; name && i < NCLASSES; ++i)
        if (!strcmp(classes[i]->name, name))
            return i;
    return -1;
}

void mbs_road_class_list(char *text, size_t size)
{
    size_t used = 0;
    text[0] = '\0';
    for (int i = 0; i < NCLASSES && used < size; ++i) {
        const char *sep = i == 0 ? "" : i == NCLASSES - 1 ? " or " : ", ";
        int n = snprintf(text + used, size - used, "%s%s", sep, classes[i]->name);
        used += n > 0 ? (size_t)n : 0;
    }
}

MbsRoad *mbs_road_new(double height, double mu)
{
    MbsRoad *r = calloc(1, sizeof *r);
    if (r) {
        r->height = height;
        r->mu = mu;
    }
    return r;
}

void mbs_road_free(MbsRoad *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->nfeatures; ++i)
        free(r->features[i].points);
    free(r->features);
    free(r);
}

MbsRoad *mbs_road_copy(const MbsRoad *r)
{
    if (!r)
        return NULL;
    MbsRoad *c = mbs_road_new(r->height, r->mu);
    if (!c)
        return NULL;
    if (r->nfeatures) {
        c->features = calloc((size_t)r->nfeatures, sizeof *c->features);
        if (!c->features) {
            free(c);
            return NULL;
        }
    }
    for (int i = 0; i < r->nfeatures; ++i) {
        const MbsRoadFeature *f = &r->features[i];
        c->features[i] = *f;
        c->features[i].points = NULL;
        c->nfeatures = i + 1;
        if (f->npoints) {
            c->features[i].points = malloc(sizeof(double) * 2 * (size_t)f->npoints);
            if (!c->features[i].points) {
                mbs_road_free(c);
                return NULL;
            }
            memcpy(c->features[i].points, f->points, sizeof(double) * 2 * (size_t)f->npoints);
        }
    }
    return c;
}

int mbs_road_add(MbsRoad *r, int kind, const double *numbers, int n, const double *points,
                 int npoints, MbsError *err)
{
    const MbsRoadClass *c = mbs_road_class_at(kind);
    int which = r->nfeatures + 1;
    if (!c)
        return mbs_error_set(err, MBS_FATAL, "road feature %d: unknown kind", which);
    if (n < 0 || n > MBS_ROAD_NUMBERS)
        return mbs_error_set(err, MBS_FATAL, "road feature %d (%s): too many numbers", which,
                             c->name);
    MbsRoadFeature f = {.kind = kind};
    for (int i = 0; i < n; ++i) {
        if (!isfinite(numbers[i]))
            return mbs_error_set(err, MBS_FATAL, "road feature %d (%s): '%s' is not a finite "
                                 "number", which, c->name, c->fields[i].name);
        f.v[i] = numbers[i];
    }
    if (c->takes_points) {
        if (npoints < 2)
            return mbs_error_set(err, MBS_FATAL, "road feature %d (%s): 'points' needs at least "
                                 "two points [x, h]", which, c->name);
        for (int i = 0; i < 2 * npoints; ++i)
            if (!isfinite(points[i]))
                return mbs_error_set(err, MBS_FATAL, "road feature %d (%s): 'points' holds a "
                                     "number that is not finite", which, c->name);
        for (int i = 1; i < npoints; ++i)
            if (!(points[2 * i] > points[2 * i - 2]))
                return mbs_error_set(err, MBS_FATAL, "road feature %d (%s): the x of 'points' "
                                     "must increase (point %d)", which, c->name, i + 1);
        f.points = malloc(sizeof(double) * 2 * (size_t)npoints);
        if (!f.points)
            return mbs_error_set(err, MBS_FATAL, "out of memory");
        memcpy(f.points, points, sizeof(double) * 2 * (size_t)npoints);
        f.npoints = npoints;
    }
    if (c->check && c->check(&f, err)) {
        free(f.points);
        return -1;
    }
    MbsRoadFeature *grown = realloc(r->features, sizeof *grown * (size_t)(r->nfeatures + 1));
    if (!grown) {
        free(f.points);
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    }
    r->features = grown;
    r->features[r->nfeatures] = f;
    return r->nfeatures++;
}

void mbs_road_eval(const MbsRoad *r, double x, double y, MbsRoadPoint *p)
{
    memset(p, 0, sizeof *p);
    p->height = r->height;
    p->mu = r->mu;
    for (int i = 0; i < r->nfeatures; ++i)
        classes[r->features[i].kind]->add(&r->features[i], x, y, p);
    double gx = p->gradient[0], gy = p->gradient[1], g = sqrt(gx * gx + gy * gy);
    if (g > 1.0) { /* the normal's slope limited to 45 degrees */
        gx /= g, gy /= g;
        p->limited = 1;
    }
    double s = sqrt(1.0 + gx * gx + gy * gy);
    p->normal[0] = -gx / s;
    p->normal[1] = -gy / s;
    p->normal[2] = 1.0 / s;
}
