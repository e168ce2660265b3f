/* Named model points ("BODY:POINT") and their histories: the `--points` of `eslabon-cli run`
 * and `compare`, and the point columns the application exports from a run's stored poses.
 *
 * GLib-only.
 */
#ifndef ESL_POINTS_H
#define ESL_POINTS_H

#include <glib.h>
#include <stdio.h>

#include "mbs_model.h"

G_BEGIN_DECLS

/* Point indices (into m->points) of a comma-separated "BODY:POINT,..." list; with spec NULL,
 * every point of a moving body. NULL with error naming the first name that is not one. */
GArray *esl_points_parse(const MbsModel *m, const char *spec, GError **error);

/* Append the six CSV column names of a point: ",BODY:POINT:x,...:y,:z,:vx,:vy,:vz". */
void esl_points_write_header(FILE *csv, const MbsModel *m, const int *points, int npoints);
/* Append ",x,y,z,vx,vy,vz" of each point: xyz and v hold 3 numbers per point. */
void esl_points_write_values(FILE *csv, const double *xyz, const double *v, int npoints);

/* Positions of the points in a stored pose vector (nbodies * 12: R row-major, then p), 3 per
 * point, into xyz. */
void esl_points_from_poses(const MbsModel *m, const double *poses, const int *points,
                           int npoints, double *xyz);

/* A point history from stored samples: time (n) and poses (n * nbodies * 12) give, for each
 * sample, positions xyz (n * npoints * 3) and velocities v (n * npoints * 3). The velocities
 * are differences of the stored positions (central inside, one-sided at the ends; zero with
 * one sample) — exact velocities are in `eslabon-cli run --points`, which has the state. */
void esl_points_history(const MbsModel *m, const double *time, const double *poses, int n,
                        const int *points, int npoints, double *xyz, double *v);

/* The same history written to a CSV file: a column "time", then the six columns of each point
 * (esl_points_write_header). FALSE with error when the file cannot be written. */
gboolean esl_points_write_history(const char *path, const MbsModel *m, const double *time,
                                  const double *poses, int n, const int *points, int npoints,
                                  GError **error);

G_END_DECLS

#endif
