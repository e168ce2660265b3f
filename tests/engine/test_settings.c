/* Settings tables (engine/mbs_settings.c): defaults as the tables declare, exact text round
 * trips of every setting of every table, refusal of out-of-range values naming the setting,
 * matrix-r's list of independent coordinates (JSON form and command-line items), the tables
 * listing what the formulations read (applies), and check_settings. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "form_matrix_r.h"
#include "mbs_formulation.h"
#include "tap.h"
#include "test_models.h"

static void test_defaults_and_text(void)
{
    for (int k = 0; k < mbs_formulation_count(); k++) {
        const MbsFormulationClass *klass = mbs_formulation_class(k);
        MbsSettings s;
        mbs_settings_defaults(&s);
        mbs_settings_for(&s, klass);
        MbsSettingRef all[MBS_SETTINGS_MAX];
        int n = mbs_settings_list(klass->settings, all), defaults = 0, round_trips = 0;
        for (int i = 0; i < n; i++) {
            const MbsSetting *d = all[i].setting;
            defaults += d->type == MBS_SETTING_LIST || mbs_setting_get_number(&s, &all[i]) ==
                                                           d->default_value;
            char text[1024];
            mbs_setting_format(&s, &all[i], text, sizeof text);
            MbsSettings t;
            mbs_settings_defaults(&t);
            mbs_settings_for(&t, klass);
            /* a value away from the default, through its text */
            if (d->type == MBS_SETTING_NUMBER)
                mbs_setting_set_number(&s, &all[i], d->default_value * 6.0 / 7.0 +
                                                        (d->default_value == 0 ? 1e-3 : 0), NULL);
            else if (d->type != MBS_SETTING_LIST)
                mbs_setting_set_number(&s, &all[i],
                                       d->type == MBS_SETTING_CHOICE
                                           ? ((int)d->default_value + 1) % mbs_setting_choice_count(d)
                                           : d->default_value + 1,
                                       NULL);
            mbs_setting_format(&s, &all[i], text, sizeof text);
            MbsError err = {0};
            char back[1024];
            if (mbs_setting_set_text(&t, &all[i], text, &err) == 0 &&
                (mbs_setting_format(&t, &all[i], back, sizeof back), !strcmp(back, text)))
                round_trips++;
            else
                tap_diag("%s %s: '%s' %s", klass->name, d->name, text, err.message);
        }
        tap_ok(defaults == n && round_trips == n && mbs_settings_validate(&s, NULL) == 0,
               "%s: its %d settings start at their declared defaults and round trip as text",
               klass->name, n);
    }
}

static void test_ranges(void)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    MbsError err = {0};
    int refused = mbs_settings_set_for(&s, "ali3p", "newmark-gamma", "0.4", &err);
    tap_ok(refused && strstr(err.message, "newmark-gamma") && strstr(err.message, "[0.5, 1]") &&
               mbs_settings_number(&s, "newmark-gamma") == 0.5,
           "gamma below 0.5 is refused naming the setting and its range: %s", err.message);
    refused = mbs_settings_set_for(&s, "ali3p", "projection", "1", &err);
    tap_ok(refused && strstr(err.message, "mass, mdk or mass-unit-zeta"),
           "a choice is a name: %s", err.message);
    refused = mbs_settings_set_for(&s, "matrix-r", "alpha", "1e8", &err);
    tap_ok(refused && strstr(err.message, "alpha"), "matrix-r has no penalty factor: %s",
           err.message);
    refused = mbs_settings_set_for(&s, "penalty", "step", "0", &err);
    tap_ok(refused && strstr(err.message, "(0, 1000]"), "a step of 0 is refused: %s",
           err.message);
    MbsModel *m = build_four_bar();
    *(int *)mbs_settings_value_for(&s, "penalty", "newton-iterations") = 0;
    MbsFormulation *f = mbs_formulation_new("penalty", m, &s, &err);
    tap_ok(!f && strstr(err.message, "newton-iterations"),
           "a value written past the table's range is refused by mbs_formulation_new: %s",
           err.message);
    mbs_formulation_free(f);
    mbs_model_free(m);
}

static void test_dof_list(void)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    MbsError err = {0};
    const char *json = "[{\"joint\": 3, \"coordinate\": 1}, {\"point\": 4, \"axis\": 2}]";
    int st = mbs_settings_set_for(&s, "matrix-r", "dof", json, &err);
    const MbsDofList *l = mbs_settings_value_for(&s, "matrix-r", "dof");
    MbsSettingRef r;
    mbs_settings_find(s.options_table, "dof", &r);
    char back[256];
    mbs_setting_format(&s, &r, back, sizeof back);
    tap_ok(st == 0 && l->count == 2 && l->items[0].joint == 3 && l->items[0].coordinate == 1 &&
               l->items[1].joint == -1 && l->items[1].point == 4 && l->items[1].axis == 2 &&
               !strcmp(back, json),
           "the project's JSON form of the coordinates reads and writes back: %s", back);
    mbs_settings_set_for(&s, "matrix-r", "dof", "[]", NULL);
    tap_ok(l->count == MBS_MATRIX_R_AUTOMATIC, "[] is the automatic partition");
    mbs_settings_set_for(&s, "matrix-r", "dof", "null", NULL);
    tap_ok(l->count == 0, "null is the model's own list");
    st = mbs_settings_set_for(&s, "matrix-r", "dof", "[{\"joint\": 3,", &err);
    tap_ok(st != 0 && strstr(err.message, "dof"), "malformed JSON is refused: %s", err.message);

    MbsModel *m = build_four_bar();
    const MbsSetting *d = r.setting;
    MbsDofList items = {0};
    int a = d->list->add_item(m, "D", &items, &err);
    int b = d->list->add_item(m, "follower:follower.2:y", &items, &err); /* point C */
    int C = mbs_model_find_point(m, mbs_model_find_body(m, "follower"), "follower.2");
    tap_ok(!a && !b && C >= 0 && items.count == 2 &&
               items.items[0].joint == mbs_model_find_joint(m, "D") &&
               items.items[1].point == C && items.items[1].axis == 1,
           "command-line items: a joint, and a point coordinate BODY:POINT:y %s", err.message);
    tap_ok(d->list->add_item(m, "auto", &items, &err) != 0 && strstr(err.message, "alone") &&
               d->list->add_item(m, "nowhere", &items, &err) != 0 &&
               strstr(err.message, "nowhere"),
           "auto goes alone, an unknown name is refused: %s", err.message);

    /* check_settings: the number chosen against the model's degrees of freedom */
    mbs_settings_set_for(&s, "matrix-r", "dof", "[{\"joint\": 0, \"coordinate\": 0}, "
                                                "{\"joint\": 3, \"coordinate\": 0}]", NULL);
    const MbsFormulationClass *k = mbs_formulation_find("matrix-r");
    st = mbs_formulation_check_settings(k, m, &s, &err);
    tap_ok(st != 0 && strstr(err.message, "1 degrees of freedom but 2") &&
               mbs_matrix_r_degrees_of_freedom(m, &s) == 1,
           "two coordinates for the four-bar: check_settings refuses them: %s", err.message);
    mbs_settings_set_for(&s, "matrix-r", "dof", "[{\"joint\": 3, \"coordinate\": 0}]", NULL);
    tap_ok(mbs_formulation_check_settings(k, m, &s, &err) == 0, "one is accepted");
    mbs_model_free(m);
}

/* What each table lists is what the formulation reads (the flat struct got two wrong). */
static void test_tables_list_what_is_read(void)
{
    MbsSettingRef r;
    const MbsFormulationClass *ali3p = mbs_formulation_find("ali3p"),
                              *matrix_r = mbs_formulation_find("matrix-r");
    tap_ok(mbs_settings_find(ali3p->settings, "threads", &r) == 0 &&
               mbs_settings_find(ali3p->settings, "jacobian", &r) == 0,
           "ali3p lists the Jacobian method and threads (its K and C columns are parallel)");
    MbsSettings s;
    mbs_settings_defaults(&s);
    mbs_settings_for(&s, matrix_r);
    int found = mbs_settings_find(matrix_r->settings, "jacobian-reuse", &r) == 0;
    int rk4 = mbs_setting_applies(&r, NULL, &s);
    mbs_settings_set_for(&s, "matrix-r", "integrator", "trapezoidal", NULL);
    int trapezoidal = mbs_setting_applies(&r, NULL, &s);
    int method = mbs_settings_find(matrix_r->settings, "jacobian", &r) == 0 &&
                 mbs_setting_applies(&r, NULL, &s);
    tap_ok(found && !rk4 && trapezoidal && method &&
               mbs_settings_find(matrix_r->settings, "threads", &r) != 0,
           "matrix-r lists jacobian-reuse and the Jacobian method, read by its trapezoidal rule "
           "only, and no threads (its tangent is serial)");
}

/* Settings each in range but together a run nobody can wait for, or one of no step. */
static void test_run_length(void)
{
    MbsSettings s;
    MbsError err = {0};
    mbs_settings_defaults(&s);
    s.duration = 1e9; /* 1e11 steps of 10 ms */
    tap_ok(mbs_settings_validate(&s, &err) < 0 && strstr(err.message, "at most 1e+09 steps"),
           "--duration 1e9 at 10 ms is refused naming the step count: \"%s\"", err.message);
    s.duration = 1.0;
    s.step = 1e-300;
    tap_ok(mbs_settings_validate(&s, &err) < 0 && strstr(err.message, "1e+300 steps"),
           "--step 1e-300 is refused before any step count is converted: \"%s\"", err.message);
    s.step = 2.0;
    tap_ok(mbs_settings_validate(&s, &err) == 0 && mbs_settings_check_run(&s, &err) < 0 &&
               strstr(err.message, "longer than the duration"),
           "a step longer than the duration: valid settings, but no run: \"%s\"", err.message);
    s.duration = 0.0;
    tap_ok(mbs_settings_check_run(&s, &err) == 0, "a duration of 0 (the initial state) runs");
    s.duration = 1e7;
    s.step = 0.01;
    tap_ok(mbs_settings_check_run(&s, &err) == 0, "exactly 1e9 steps are accepted");
}

/* Masses so large that the initial energies overflow: refused before anyone stores a NaN. */
static void test_non_finite_initial_state(void)
{
    static const char *const names[] = {"penalty", "ali3p", "matrix-r"};
    for (int i = 0; i < 3; i++) {
        MbsModel *m = build_double_pendulum(M_PI / 2, M_PI / 2, 0);
        MbsError err = {0};
        m->gravity[2] = -1e308;
        if (mbs_model_compile(m, &err)) {
            tap_ok(0, "%s: the model compiles: %s", names[i], err.message);
            mbs_model_free(m);
            continue;
        }
        MbsSettings s;
        mbs_settings_defaults(&s);
        MbsFormulation *f = mbs_formulation_new(names[i], m, &s, &err);
        int refused = !f && strstr(err.message, "not finite");
        int finite = f && isfinite(f->monitors.total) && isfinite(f->monitors.ddphi_norm) &&
                     isfinite(f->monitors.kinetic);
        tap_ok(refused || finite,
               "%s with gravity 1e308: refused naming a non-finite initial state, or finite "
               "(\"%s\")", names[i], err.message);
        mbs_formulation_free(f);
        mbs_model_free(m);
    }
}

int main(void)
{
    test_run_length();
    test_non_finite_initial_state();
    test_defaults_and_text();
    test_ranges();
    test_dof_list();
    test_tables_list_what_is_read();
    return tap_done();
}
