/* EslStudy: a study (issue 25) is a case manifest — one model (its text and content hash), a
 * design over some of its parameters (full factorial, Latin hypercube, random), one
 * formulation with its settings, what each case evaluates — written once by `study plan` and
 * read by every process that runs a case. Each case runs into its own shard project next to
 * the manifest (study.json -> study.shards/case-0007.eslabon), so that processes of a local
 * pool or tasks of a Slurm array never share a file; the shards are merged afterwards
 * (esl_project_merge).
 *
 * GLib-level, no GTK.
 */
#ifndef ESL_STUDY_H
#define ESL_STUDY_H

#include <glib.h>

#include "mbs_formulation.h"

G_BEGIN_DECLS

#define ESL_STUDY_ERROR (esl_study_error_quark())
GQuark esl_study_error_quark(void);

typedef enum {
    ESL_STUDY_ERROR_INVALID, /* a bad design, parameter, objective or manifest */
    ESL_STUDY_ERROR_IO,      /* a file that cannot be read or written */
    ESL_STUDY_ERROR_RUN,     /* the case could not be stored */
} EslStudyError;

typedef enum {
    ESL_STUDY_DESIGN_FULL,   /* every combination of the parameters' levels */
    ESL_STUDY_DESIGN_LHS,    /* Latin hypercube: one sample per stratum of each parameter */
    ESL_STUDY_DESIGN_RANDOM, /* independent uniform samples */
} EslStudyDesign;

#define ESL_STUDY_N_DESIGNS 3

const char *esl_study_design_name(EslStudyDesign design);
/* -1 for an unknown name. */
int esl_study_design_from_name(const char *name);

typedef struct {
    char *name;
    double lower, upper;
    int levels; /* full factorial: values lower .. upper evenly; 0 for the sampled designs */
} EslStudyParameter;

typedef struct {
    char *manifest_path; /* where it was loaded from or saved to */
    char *sha256;        /* of the manifest text: the study's identity */
    char *model_name, *model_path, *model_text, *model_sha256;
    EslStudyDesign design;
    int samples;         /* lhs, random */
    guint32 seed;
    int nparameters;
    EslStudyParameter *parameters;
    char *formulation;
    MbsSettings settings;
    GStrv objectives;    /* "final:VAR", "max:VAR", "min:VAR" (VAR of esl-variables.h) */
    int ncases;
    double *values;      /* ncases x nparameters */
} EslStudy;

void esl_study_free(EslStudy *study);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(EslStudy, esl_study_free)

/* "NAME=a:b:n" (full) or "NAME=a:b" (lhs, random) into p; FALSE with error. */
gboolean esl_study_parameter_parse(const char *spec, EslStudyDesign design,
                                   EslStudyParameter *p, GError **error);

/* A study of the model file model_path: checks that the parameters are the model's free
 * parameters and the objectives its variables, and draws the cases. Takes the parameters
 * (their names too). NULL with error. */
EslStudy *esl_study_plan(const char *model_path, EslStudyDesign design, int samples,
                         guint32 seed, EslStudyParameter *parameters, int nparameters,
                         const char *formulation, const MbsSettings *settings,
                         const char *const *objectives, GError **error);

/* The study of `eslabon-cli study plan` and of the application's plan dialog, from the same
 * words: the design's name (NULL: full), "NAME=LOWER:UPPER[:LEVELS]" per parameter, the seed
 * (0 to 2^32 - 1), a formulation of the registry and its settings (completed with the
 * formulation's defaults, checked for a run), the objectives "final:VAR,max:VAR,..." (NULL or
 * "": none). NULL with error naming the word refused. */
EslStudy *esl_study_plan_from_words(const char *model_path, const char *design, int samples,
                                    gint64 seed, const char *const *parameters,
                                    const char *formulation, MbsSettings *settings,
                                    const char *objectives, GError **error);

/* Write the manifest (atomically: a reader never sees half of it); sets manifest_path and
 * sha256. */
gboolean esl_study_save(EslStudy *study, const char *path, GError **error);
EslStudy *esl_study_load(const char *path, GError **error);

/* study.json -> study.shards; case k's shard inside it. */
char *esl_study_shards_dir(const EslStudy *study);
char *esl_study_shard_path(const EslStudy *study, int k);

typedef enum {
    ESL_CASE_NOT_RUN,
    ESL_CASE_FINISHED,
    ESL_CASE_FAILED,  /* its run ended failed: done, not run again */
    ESL_CASE_PARTIAL, /* a shard whose run never ended (a killed process) or unreadable */
} EslCaseState;

/* What case k's shard says (detail: why partial, may be NULL). */
EslCaseState esl_study_case_state(const EslStudy *study, int k, char **detail);

/* Run case k into its shard, unless it is done (*state says what it found or ended in): a
 * partial shard is removed first. Stores the provenance (study, case, host, version, Slurm
 * job and task ids from the environment) and the objectives' values. FALSE with error when the
 * shard cannot be written; a case whose run fails is stored as failed (TRUE, *state FAILED). */
gboolean esl_study_run_case(const EslStudy *study, int k, EslCaseState *state,
                            GError **error);

/* Run every case not done yet on jobs processes (argv: the command that runs one case, its
 * last element replaced by the case number), at most jobs at a time; progress(done, failed,
 * total, seconds left estimate or -1, data) after each case ends. Returns the cases that ran
 * (ran_out) and that failed or were killed (failed_out). FALSE with error when a process cannot
 * be started. */
typedef void (*EslStudyProgress)(int done, int failed, int total, double seconds_left,
                                 gpointer data);
gboolean esl_study_run_pool(const EslStudy *study, char **argv, int jobs,
                            EslStudyProgress progress, gpointer data, int *ran_out,
                            int *failed_out, GError **error);

G_END_DECLS

#endif
