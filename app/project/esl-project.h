/* EslProject: the project file, an SQLite database holding models, runs (settings, provenance,
 * status), sampled histories (monitors and body poses for replay) and run summaries.
 *
 * Safety rules:
 *  - A file that exists is first opened read-only (immutable when nothing is beside it, so
 *    SQLite creates no -wal/-shm) and checked: SQLite header, application_id, schema version
 *    (1 to ESL_PROJECT_SCHEMA_VERSION), exactly the schema objects the migrations create (no
 *    trigger, view, index or table of anyone else), integrity_check. A file that is not an
 *    Eslabón project, is corrupt, or comes from a newer Eslabón is refused with a GError, left
 *    byte-identical, with nothing created beside it.
 *  - Connections are defensive (SQLITE_DBCONFIG_DEFENSIVE, trusted_schema off, triggers and
 *    views off): a project file cannot run SQL in Eslabón.
 *  - Every write is a transaction; the journal is WAL (set once the file is known good).
 *  - Stored sizes are checked before use: a run storing a body or joint count outside
 *    0..2^24-1, or more sample data than the file holds, lists but is refused when loaded;
 *    stored JSON nested deeper than ESL_JSON_MAX_NESTING is not parsed.
 *  - A run is created with status "running"; a run left "running" by a process that no longer
 *    exists is marked "interrupted" when the project is opened.
 *  - Non-finite numbers (NaN, inf) are refused with a message naming the field.
 *
 * GLib-level, no GTK. One EslProject is used from one thread at a time.
 */
#ifndef ESL_PROJECT_H
#define ESL_PROJECT_H

#include <glib.h>

#include "mbs_formulation.h"

G_BEGIN_DECLS

#define ESL_PROJECT_ERROR (esl_project_error_quark())
GQuark esl_project_error_quark(void);

typedef enum {
    ESL_PROJECT_ERROR_NOT_FOUND,   /* no such file and create was FALSE */
    ESL_PROJECT_ERROR_NOT_PROJECT, /* not SQLite, or SQLite of another application */
    ESL_PROJECT_ERROR_CORRUPT,     /* SQLite header but failing the integrity check */
    ESL_PROJECT_ERROR_TOO_NEW,     /* schema version newer than this program knows */
    ESL_PROJECT_ERROR_INVALID,     /* refused value (NaN, unknown run, bad argument) */
    ESL_PROJECT_ERROR_SQLITE,      /* any other database error */
} EslProjectError;

/* "ESLB": PRAGMA application_id of every Eslabón project. */
#define ESL_PROJECT_APPLICATION_ID 0x45534C42
#define ESL_PROJECT_SCHEMA_VERSION 12

typedef enum {
    ESL_RUN_RUNNING,
    ESL_RUN_FINISHED,
    ESL_RUN_STOPPED,
    ESL_RUN_FAILED,
    ESL_RUN_INTERRUPTED,
} EslRunStatus;

const char *esl_run_status_name(EslRunStatus status);
/* -1 for an unknown name. */
int esl_run_status_from_name(const char *name);

/* What a run was asked to do. */
typedef struct {
    const char *model_name;
    gint64 model_id;          /* from esl_project_add_model, or 0 when not stored */
    const char *formulation;
    MbsSettings settings;
    const char *parameters_json; /* parameter overrides as a JSON object, or NULL */
    int nbodies;              /* bodies per stored pose (0: no poses) */
    int njoints;              /* joints per stored violation vector (0: none) */
} EslRunRequest;

/* A run as stored. Strings are owned by the record (esl_run_info_free). */
typedef struct {
    gint64 id;
    gint64 model_id;
    char *model_name;
    char *formulation;
    MbsSettings settings;
    char *parameters_json;
    char *eslabon_version;
    char *hostname;
    char *started_at;  /* ISO 8601 UTC */
    char *finished_at; /* NULL while running */
    double wall_time;  /* s */
    EslRunStatus status;
    char *message;     /* failure or stop reason, may be NULL */
    char *name;        /* the name the user gave the run, or NULL */
    char *summary_json; /* NULL until finished */
    int nbodies;
    int njoints;
    gint64 nsamples;
    char *sensitivity_method; /* a sensitivity run's method, NULL for other runs */
    char *optimization_objective; /* an optimisation's objective, NULL for other runs */
    gint64 optimization_evaluations; /* an optimisation's evaluations stored (0: other runs) */
    double optimization_psi; /* the lowest psi among them; NAN when none */
} EslRunInfo;

void esl_run_info_free(EslRunInfo *info);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(EslRunInfo, esl_run_info_free)

/* A loaded history: n monitors; when nbodies > 0, n * nbodies * 12 pose numbers
 * (per body: R row-major 9, then p 3; x_now = R x_drawn + p); when njoints > 0,
 * n * njoints joint violations (max |constraint residual| of each joint). */
typedef struct {
    int n;
    int nbodies, njoints;
    MbsMonitors *monitors;
    double *poses;      /* NULL when nbodies == 0 */
    double *violations; /* NULL when njoints == 0 */
} EslRunHistory;

void esl_run_history_free(EslRunHistory *history);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(EslRunHistory, esl_run_history_free)

typedef struct EslProject EslProject;

/* Open (or, with create, make) a project file. */
EslProject *esl_project_open(const char *path, gboolean create, GError **error);
void esl_project_close(EslProject *project);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(EslProject, esl_project_close)

const char *esl_project_path(const EslProject *project);
/* How many runs were found "running" and marked "interrupted" by esl_project_open. */
int esl_project_interrupted_on_open(const EslProject *project);
/* How many runs esl_project_open's schema migration could not carry whole: they are kept,
 * marked failed with a message saying what was unreadable. */
int esl_project_unreadable_on_open(const EslProject *project);

/* Store a model file's text. Returns its id (> 0) or 0 with error set. */
gint64 esl_project_add_model(EslProject *project, const char *name, const char *path,
                             const char *json_text, GError **error);
/* The JSON text of a stored model (NULL with error when unknown). */
char *esl_project_model_json(EslProject *project, gint64 model_id, GError **error);

/* Create a run in status "running", with provenance (version, date, host). Returns its id or
 * 0 with error set. */
gint64 esl_project_begin_run(EslProject *project, const EslRunRequest *request, GError **error);

/* Append n samples in one transaction. poses: n * nbodies * 12 numbers (NULL when the run
 * stores no poses); violations: n * njoints numbers (NULL when it stores none). Refuses (and
 * writes nothing) when any number is not finite. */
gboolean esl_project_append_samples(EslProject *project, gint64 run_id,
                                    const MbsMonitors *monitors, const double *poses,
                                    const double *violations, int n, GError **error);

/* One accepted internal step of an error-controlled integrator (formulations with their own
 * steps, MbsFormulationClass.own_steps): it ended at time, had size and order. */
typedef struct {
    double time, size;
    int order;
} EslInternalStep;

/* Append n internal steps (the step-size history) in one transaction; refuses non-finite
 * numbers and runs that are not running. */
gboolean esl_project_append_internal_steps(EslProject *project, gint64 run_id,
                                           const EslInternalStep *steps, int n, GError **error);
/* A run's internal steps in order (a GArray of EslInternalStep, empty for formulations with
 * fixed steps), or NULL with error. */
GArray *esl_project_load_internal_steps(EslProject *project, gint64 run_id, GError **error);

/* Close a run: status, message (may be NULL), summary as a JSON object text (may be NULL),
 * wall time in seconds. */
gboolean esl_project_finish_run(EslProject *project, gint64 run_id, EslRunStatus status,
                                const char *message, const char *summary_json,
                                double wall_time, GError **error);

/* All runs, oldest first. Returns a GPtrArray of EslRunInfo* (owning) or NULL with error. */
GPtrArray *esl_project_list_runs(EslProject *project, GError **error);
EslRunInfo *esl_project_get_run(EslProject *project, gint64 run_id, GError **error);
EslRunHistory *esl_project_load_run(EslProject *project, gint64 run_id, GError **error);
gboolean esl_project_delete_run(EslProject *project, gint64 run_id, GError **error);
/* Give a run a name (NULL or blank: none); FALSE with error when there is no such run. */
gboolean esl_project_rename_run(EslProject *project, gint64 run_id, const char *name,
                                GError **error);
/* Bytes the project takes on disk (the file and its write-ahead log). */
gint64 esl_project_disk_size(EslProject *project);
/* Give the space of deleted runs back to the file system (SQLite keeps freed pages). */
gboolean esl_project_compact(EslProject *project, GError **error);

/* Write a consistent copy of the whole project to another file (File ▸ Save As). */
gboolean esl_project_save_copy(EslProject *project, const char *path, GError **error);

/* ---- sensitivity runs (schema 7) -------------------------------------------------------------
 * A sensitivity run is a run (esl_project_begin_run: model, formulation, settings; no poses)
 * with what was differentiated, psi and the gradient, and the history of the running psi and
 * gradient over time (the direct method's MbsSensitivityHistory). Gradients are stored row per
 * objective (nobjectives x nparameters), as in MbsSensitivityResult. */
typedef struct {
    const char *method;                 /* mbs_sensitivity_method_name */
    int nobjectives, nparameters;       /* 1 .. 2^16 each */
    const char *const *objectives;      /* names */
    const char *const *parameters;      /* names */
    const double *parameter_values;     /* nparameters, the values differentiated at */
    /* the method's own options (schema 9), a JSON object keyed by the names of its settings
     * table (esl_settings_options_to_json; "{}" for a method without one); NULL: not known */
    const char *method_options;
    int npoints;                        /* named points whose d r / d rho is stored (schema 9) */
    const char *const *points;          /* their names, "BODY:POINT" */
} EslSensitivityRequest;

/* A sensitivity run as stored (esl_sensitivity_run_free). psi and gradient are NULL until
 * the run is finished with them (an interrupted or failed run has its history only). */
typedef struct {
    char *method;
    char *method_options; /* JSON object text as stored, NULL for runs stored before schema 9 */
    int nobjectives, nparameters;
    GStrv objectives, parameters;
    double *parameter_values;
    double *psi;      /* nobjectives, or NULL */
    double *gradient; /* nobjectives x nparameters, or NULL */
    int n;            /* history rows */
    double *times;            /* n */
    double *history_psi;      /* n x nobjectives */
    double *history_gradient; /* n x nobjectives x nparameters */
    int nstate;               /* coordinates of history_state; 0 when none was stored */
    double *history_state;    /* n x nstate x nparameters (d q / d rho, column per parameter) */
    int state_rows;           /* rows that had them (all, or history_state is NULL) */
    int npoints;              /* named points (schema 9; 0: none) */
    GStrv points;             /* their names, "BODY:POINT" */
    double *history_points;   /* n x 3 npoints x nparameters (d r / d rho, column per
                                 parameter: x, y, z of each point); NULL when not every row
                                 has them */
} EslSensitivityRun;

void esl_sensitivity_run_free(EslSensitivityRun *run);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(EslSensitivityRun, esl_sensitivity_run_free)

/* Mark a running run as a sensitivity run (once, before any history). */
gboolean esl_project_begin_sensitivity(EslProject *project, gint64 run_id,
                                       const EslSensitivityRequest *request, GError **error);
/* Append n history rows (times n, psi n x nobjectives, gradient n x nobjectives x
 * nparameters) in one transaction; refuses non-finite numbers and runs not running. */
gboolean esl_project_append_sensitivity_history(EslProject *project, gint64 run_id,
                                                const double *times, const double *psi,
                                                const double *gradient, int n,
                                                GError **error);
/* The same with the coordinates' sensitivities of each row (state: n x nstate x nparameters,
 * column per parameter; nstate 0 and state NULL for none) and the points' (points: n x 3
 * npoints x nparameters for the run's npoints; NULL for none). */
#define ESL_PROJECT_MAX_STATE_SENSITIVITIES 100000
gboolean esl_project_append_sensitivity_rows(EslProject *project, gint64 run_id,
                                             const double *times, const double *psi,
                                             const double *gradient, const double *state,
                                             int nstate, const double *points, int n,
                                             GError **error);
/* Store the final psi and gradient (before esl_project_finish_run); refuses non-finite. */
gboolean esl_project_set_sensitivity_result(EslProject *project, gint64 run_id,
                                            const double *psi, const double *gradient,
                                            GError **error);
/* TRUE when the run is a sensitivity run. */
gboolean esl_project_run_is_sensitivity(EslProject *project, gint64 run_id);
/* The run's sensitivity record and history, or NULL with error (not a sensitivity run, or
 * stored sizes that do not match: ESL_PROJECT_ERROR_CORRUPT). */
EslSensitivityRun *esl_project_load_sensitivity(EslProject *project, gint64 run_id,
                                                GError **error);

/* ---- optimisation runs (schema 10) ---------------------------------------------------------
 * An optimisation (esl-optimizer.h) is a run (esl_project_begin_run: model, formulation,
 * settings; no poses) with what it minimised over what (objective, parameters with their
 * bounds and start, algorithm, gradient method and its options), every evaluation (psi, the
 * gradient and x, nparameters each) and the result (how it ended, the best psi, x and
 * gradient). Bounds must be finite, as every stored number. */
typedef struct {
    const char *objective;         /* name */
    const char *method;            /* mbs_sensitivity_method_name */
    const char *method_options;    /* JSON object text ("{}": none) or NULL: not known */
    const char *algorithm;         /* esl_optimizer_algorithm_name */
    int max_evaluations;
    double xtol;
    int nparameters;               /* 1 .. 2^16 */
    const char *const *parameters; /* names */
    const double *lower, *upper, *start; /* nparameters each */
} EslOptimizationRequest;

/* An optimisation as stored (esl_optimization_run_free). */
typedef struct {
    char *objective, *method, *method_options, *algorithm;
    int max_evaluations;
    double xtol;
    int nparameters;
    GStrv parameters;
    double *lower, *upper, *start;
    char *result;     /* esl_optimizer_status_name, or NULL (running or interrupted) */
    double psi;       /* the best, with its x and gradient (NULL when no result or no
                         evaluation was stored with it) */
    double *x, *gradient;
    int n;            /* evaluations */
    double *history_psi;      /* n */
    double *history_gradient; /* n x nparameters */
    double *history_x;        /* n x nparameters */
} EslOptimizationRun;

void esl_optimization_run_free(EslOptimizationRun *run);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(EslOptimizationRun, esl_optimization_run_free)

/* Mark a running run as an optimisation (once, before any evaluation). */
gboolean esl_project_begin_optimization(EslProject *project, gint64 run_id,
                                        const EslOptimizationRequest *request, GError **error);
/* Append one evaluation (its own transaction); refuses non-finite numbers and runs not
 * running. */
gboolean esl_project_append_optimization_evaluation(EslProject *project, gint64 run_id,
                                                    double psi, const double *gradient,
                                                    const double *x, GError **error);
/* Store how it ended (result: esl_optimizer_status_name) and the best point (x and gradient
 * NULL when no evaluation finished), before esl_project_finish_run. */
gboolean esl_project_set_optimization_result(EslProject *project, gint64 run_id,
                                             const char *result, double psi, const double *x,
                                             const double *gradient, GError **error);
gboolean esl_project_run_is_optimization(EslProject *project, gint64 run_id);
/* The run's optimisation and its evaluations, or NULL with error (not an optimisation, or
 * stored sizes that do not match: ESL_PROJECT_ERROR_CORRUPT). */
EslOptimizationRun *esl_project_load_optimization(EslProject *project, gint64 run_id,
                                                  GError **error);

/* ---- provenance and merging (schema 11; esl-project-merge.c) ---------------------------------
 * A run may carry an identity (any text unique to the run: a UUID) and a provenance JSON object
 * (a study's case, the Slurm job and task ids...). esl_project_merge copies runs between
 * projects keyed by that identity (or, for a run without one, by a digest of its host, process,
 * start time, model and settings), so that merging a shard twice adds nothing. */

/* Set (or replace the JSON of) a run's provenance; the identity of a run never changes. */
gboolean esl_project_set_provenance(EslProject *project, gint64 run_id, const char *identity,
                                    const char *json, GError **error);
/* The run's provenance JSON (and identity, merged_from when not NULL), or NULL: none stored
 * (error unset) or a database error (error set). */
char *esl_project_get_provenance(EslProject *project, gint64 run_id, char **identity,
                                 char **merged_from, GError **error);

/* What a shard holds, from esl_project_merge_inspect. */
typedef struct {
    char *model_sha256;   /* SHA-256 of the text of its one model; NULL when it stores none */
    char *model_name;
    int runs;             /* runs stored */
    char *partial;        /* why the shard is partial (a run that never ended: a killed task;
                             no run), or NULL when every run ended */
} EslShardInfo;

void esl_shard_info_clear(EslShardInfo *info);

/* Open a shard (refusing, byte-identical, a file that is not a project, is corrupt or has a
 * newer schema: esl_project_open) and say what it holds. FALSE with error when it cannot be
 * read or stores runs of more than one model. */
gboolean esl_project_merge_inspect(const char *shard, EslShardInfo *info, GError **error);

/* Copy every run of shard (with its model, samples, summary, sensitivity or optimisation
 * records and provenance) into project, in one transaction; a run whose identity the project
 * has already is not copied again. Refuses (writing nothing) a shard of another model than the
 * project's, a partial shard (info.partial) and the project's own file. copied and present
 * (when not NULL) receive how many runs were copied and how many were there already. */
gboolean esl_project_merge(EslProject *project, const char *shard, int *copied, int *present,
                           GError **error);

/* ---- the advisor's studies (schema 12; esl-project-advice.c) -------------------------------- */

typedef struct {
    gint64 id;
    char *created_at; /* ISO 8601, UTC */
    char *model;      /* the model advised on (its path or name as given) */
    char *quantity;   /* what the error measured ("points", "D:angle", ...) */
    char *json;       /* esl_advice_to_json's text */
} EslStoredAdvice;

void esl_stored_advice_free(EslStoredAdvice *advice);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(EslStoredAdvice, esl_stored_advice_free)

/* Store an advice (json: a JSON object); its id, 0 with error. */
gint64 esl_project_add_advice(EslProject *project, const char *model, const char *quantity,
                              const char *json, GError **error);
/* The advice stored, oldest first (EslStoredAdvice*); NULL with error. */
GPtrArray *esl_project_list_advice(EslProject *project, GError **error);

G_END_DECLS

#endif
