/* A study's results: its manifest (esl-study.h) and the project its shards were merged into
 * (`study collect`), read back case by case for the application's Studies view: each case's
 * parameters, status, run and objectives' values (from the provenance each case stored).
 *
 * GLib-level, no GTK.
 */
#ifndef ESL_STUDY_RESULTS_H
#define ESL_STUDY_RESULTS_H

#include <glib.h>

#include "esl-project.h"
#include "esl-study.h"

G_BEGIN_DECLS

typedef struct {
    EslRunStatus status; /* of its run in the project */
    gboolean stored;     /* a run of this case is in the project (else status means nothing) */
    gint64 run_id;       /* 0 when not stored */
    double *objectives;  /* nobjectives; NAN when not stored or not evaluated */
} EslStudyCase;

typedef struct {
    EslStudy *study;
    char *project_path;
    int nobjectives;
    EslStudyCase *cases; /* study->ncases */
    int nstored, nfinished, nfailed;
} EslStudyResults;

void esl_study_results_free(EslStudyResults *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(EslStudyResults, esl_study_results_free)

/* Read the manifest and find its cases' runs in project_path (runs of other studies are
 * ignored; a case stored twice keeps its last run). NULL with error when either cannot be
 * read. */
EslStudyResults *esl_study_results_load(const char *manifest_path, const char *project_path,
                                        GError **error);

/* The studies whose cases the project holds: their manifests' paths (as the cases stored them),
 * in the order of their first run; NULL with error when the project cannot be read. */
GPtrArray *esl_study_results_list(const char *project_path, GError **error);

/* The value of case k's parameter j (the manifest's). */
double esl_study_results_parameter(const EslStudyResults *r, int k, int j);

G_END_DECLS

#endif
