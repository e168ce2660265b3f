/* The objective editor; see esl-objective-editor.h. The list is made again from the model
 * compiled from the edited text after every change (in an idle: a drop-down is not destroyed
 * inside its own signal); what each control offers comes from the model and from
 * app/esl-objective-edit.h (quantities: mbs_quantity_name; measures: esl_objective_measures;
 * targets: esl_objective_target). */
#include "esl-objective-editor.h"

#include <glib/gi18n.h>

#include "esl-drop-down.h"
#include "esl-model-file.h"
#include "esl-number.h"
#include "esl-objective-edit.h"
#include "esl-point-sensitivity.h"
#include "mbs_objective.h"

struct _EslObjectiveEditor {
    GtkWindow parent_instance;
    /* template */
    GtkWidget *scroller, *objectives_box, *new_name_entry, *add_button, *error_label, *status_label;
    GtkWidget *revert_button, *apply_button;

    char *base_json; /* the model's text as given or last applied */
    char *json;      /* as edited */
    char *origin;
    MbsModel *model; /* compiled from json; NULL when it does not load */
    char *error;     /* the last change refused, or NULL */
    GHashTable *controls; /* "o/t/which" -> widget of the list shown (borrowed) */
    GtkSizeGroup *columns[7]; /* the terms' columns, aligned across the objectives' cards */
    guint rebuild_id;
    guint scroll_tick; /* the list's scroll position set once it is laid out (0: none) */
    int scroll_frames;
    double scroll_value;
    char *focus_key; /* the control that takes the focus once the list is made again (an
                        objective just added: its quantity), else the one that had it */
    gboolean building; /* the list is being made: its signals are not edits */
    GtkWidget *confirm; /* "apply the changes?" while closing with some not applied */
    gboolean close_confirmed;
};

G_DEFINE_FINAL_TYPE(EslObjectiveEditor, esl_objective_editor, GTK_TYPE_WINDOW)

enum { SIGNAL_APPLY, N_SIGNALS };
static guint signals[N_SIGNALS];

/* ---- state ----------------------------------------------------------------------------------- */

static void show_error(EslObjectiveEditor *self, const char *message)
{
    g_free(self->error);
    self->error = g_strdup(message);
    gtk_label_set_text(GTK_LABEL(self->error_label), message ? message : "");
    gtk_widget_set_visible(self->error_label, message != NULL);
}

static void update_state(EslObjectiveEditor *self)
{
    gboolean modified = g_strcmp0(self->json, self->base_json) != 0;
    gtk_widget_set_sensitive(self->apply_button, modified && self->model);
    gtk_widget_set_sensitive(self->revert_button, modified);
    gtk_widget_set_sensitive(self->add_button, self->model != NULL);
    gtk_widget_set_sensitive(self->new_name_entry, self->model != NULL);
    gtk_label_set_text(GTK_LABEL(self->status_label),
                       modified ? _("Changes not applied to the model yet.") : "");
}

static void rebuild(EslObjectiveEditor *self);

static gboolean rebuild_idle(gpointer data)
{
    EslObjectiveEditor *self = data;
    self->rebuild_id = 0;
    rebuild(self);
    return G_SOURCE_REMOVE;
}

static void schedule_rebuild(EslObjectiveEditor *self)
{
    if (!self->rebuild_id)
        self->rebuild_id = g_idle_add(rebuild_idle, self);
}

/* The edit kind with inputs spec (floating, sunk here) on the text as edited: the new text and
 * its model, or the loader's message with the text unchanged. The list is made again either
 * way (a refused choice goes back to what the text says). */
static void apply_edit(EslObjectiveEditor *self, const char *kind, GVariant *spec)
{
    g_variant_ref_sink(spec);
    g_autoptr(GError) error = NULL;
    MbsModel *model = NULL;
    char *text = self->json ? esl_objective_edit(self->json, self->origin, kind, spec, &model,
                                                 &error)
                            : NULL;
    g_variant_unref(spec);
    if (text) {
        g_free(self->json);
        self->json = text;
        mbs_model_free(self->model);
        self->model = model;
        show_error(self, NULL);
    } else {
        show_error(self, error ? error->message : _("No model to edit."));
    }
    update_state(self);
    schedule_rebuild(self);
}

/* ---- what a term can read -------------------------------------------------------------------- */

/* The targets offered for a quantity (point, joint or body indices): points of moving bodies,
 * revolute and prismatic joints of the tree, moving bodies; plus the term's own (current >=
 * 0) when it is none of them. */
static GArray *targets_for(const MbsModel *m, EslObjectiveTarget kind, int current)
{
    GArray *targets = g_array_new(FALSE, FALSE, sizeof(int));
    int n = kind == ESL_OBJECTIVE_TARGET_POINT   ? m->npoints
            : kind == ESL_OBJECTIVE_TARGET_JOINT ? m->njoints
                                                 : m->nbodies;
    for (int i = 0; i < n; i++) {
        gboolean offered = kind == ESL_OBJECTIVE_TARGET_POINT   ? m->points[i].body != m->ground
                           : kind == ESL_OBJECTIVE_TARGET_JOINT ? esl_objective_joint_offered(m, i)
                                                                : i != m->ground;
        if (offered || i == current)
            g_array_append_val(targets, i);
    }
    return targets;
}

static char *target_label(const MbsModel *m, EslObjectiveTarget kind, int i)
{
    if (kind == ESL_OBJECTIVE_TARGET_POINT)
        return esl_point_name(m, i);
    return g_strdup(kind == ESL_OBJECTIVE_TARGET_JOINT ? m->joints[i].name : m->bodies[i].name);
}

static int term_target(const MbsObjectiveTerm *t)
{
    switch (esl_objective_target(t->quantity)) {
    case ESL_OBJECTIVE_TARGET_POINT:
        return t->point;
    case ESL_OBJECTIVE_TARGET_JOINT:
        return t->joint;
    case ESL_OBJECTIVE_TARGET_BODY:
        break;
    }
    return t->body;
}

/* The target's keys into d. */
static void insert_target(GVariantDict *d, const MbsModel *m, EslObjectiveTarget kind, int i)
{
    if (kind == ESL_OBJECTIVE_TARGET_POINT) {
        g_variant_dict_insert(d, "body", "s", m->bodies[m->points[i].body].name);
        g_variant_dict_insert(d, "point", "s", m->points[i].name);
    } else if (kind == ESL_OBJECTIVE_TARGET_JOINT) {
        g_variant_dict_insert(d, "joint", "s", m->joints[i].name);
    } else {
        g_variant_dict_insert(d, "body", "s", m->bodies[i].name);
    }
}

/* A first term for a new objective or an added one: the position of the first point of a
 * moving body, else the angular velocity of a moving body. FALSE when the model has neither. */
static gboolean insert_default_term(GVariantDict *d, const MbsModel *m)
{
    static const MbsQuantityKind choices[] = {MBS_QUANTITY_POSITION,
                                              MBS_QUANTITY_ANGULAR_VELOCITY};
    for (size_t k = 0; k < G_N_ELEMENTS(choices); k++) {
        EslObjectiveTarget kind = esl_objective_target(choices[k]);
        g_autoptr(GArray) targets = targets_for(m, kind, -1);
        if (targets->len == 0)
            continue;
        g_variant_dict_insert(d, "quantity", "s", mbs_quantity_name(choices[k]));
        insert_target(d, m, kind, g_array_index(targets, int, 0));
        return TRUE;
    }
    return FALSE;
}

/* ---- the controls' edits --------------------------------------------------------------------- */

static int data_int(gpointer widget, const char *key)
{
    return GPOINTER_TO_INT(g_object_get_data(G_OBJECT(widget), key));
}

/* The term a control belongs to (o and t of its data), or NULL. */
static const MbsObjectiveTerm *control_term(EslObjectiveEditor *self, gpointer widget, int *o,
                                            int *t)
{
    *o = data_int(widget, "objective");
    *t = data_int(widget, "term");
    const MbsModel *m = self->model;
    if (!m || *o < 0 || *o >= m->nobjectives || *t < 0 || *t >= m->objectives[*o].nterms)
        return NULL;
    return &m->objective_terms[m->objectives[*o].first_term + *t];
}

/* The edit kind of the objective of widget (its name under key) with the other inputs in d. */
static void objective_edit(EslObjectiveEditor *self, gpointer widget, const char *kind,
                           const char *key, GVariantDict *d)
{
    int o = data_int(widget, "objective");
    if (!self->model || o < 0 || o >= self->model->nobjectives) {
        g_variant_dict_clear(d);
        return;
    }
    g_variant_dict_insert(d, key, "s", self->model->objectives[o].name);
    apply_edit(self, kind, g_variant_dict_end(d));
}

/* The same for the term of widget. */
static void term_edit(EslObjectiveEditor *self, gpointer widget, const char *kind,
                      GVariantDict *d)
{
    int o, t;
    if (!control_term(self, widget, &o, &t)) {
        g_variant_dict_clear(d);
        return;
    }
    g_variant_dict_insert(d, "term", "i", t);
    objective_edit(self, widget, kind, "objective", d);
}

static void set_term(EslObjectiveEditor *self, gpointer widget, GVariantDict *d)
{
    term_edit(self, widget, "set-term", d);
}

/* The index (in the drop-down's "choices", a GArray of int) of its selected item, or -1. */
static int selected_choice(GtkDropDown *dropdown)
{
    GArray *choices = g_object_get_data(G_OBJECT(dropdown), "choices");
    guint i = gtk_drop_down_get_selected(dropdown);
    return choices && i < choices->len ? g_array_index(choices, int, i) : -1;
}

static void on_part_selected(GtkDropDown *dropdown, GParamSpec *pspec, EslObjectiveEditor *self)
{
    (void)pspec;
    if (self->building)
        return;
    GVariantDict d;
    g_variant_dict_init(&d, NULL);
    g_variant_dict_insert(&d, "part", "s",
                          esl_objective_part_name((int)gtk_drop_down_get_selected(dropdown)));
    set_term(self, dropdown, &d);
}

/* A new quantity keeps the target when it reads the same kind (else the first offered) and the
 * measure when it has it (else the squared norm). */
static void on_quantity_selected(GtkDropDown *dropdown, GParamSpec *pspec,
                                 EslObjectiveEditor *self)
{
    (void)pspec;
    int o, t, q = selected_choice(dropdown);
    const MbsObjectiveTerm *term = control_term(self, dropdown, &o, &t);
    if (self->building || !term || q < 0 || q == (int)term->quantity)
        return;
    GVariantDict d;
    g_variant_dict_init(&d, NULL);
    g_variant_dict_insert(&d, "quantity", "s", mbs_quantity_name(q));
    EslObjectiveTarget kind = esl_objective_target(q);
    if (kind != esl_objective_target(term->quantity)) {
        g_autoptr(GArray) targets = targets_for(self->model, kind, -1);
        if (targets->len > 0)
            insert_target(&d, self->model, kind, g_array_index(targets, int, 0));
    }
    MbsMeasure measure;
    int component;
    if (!esl_objective_measure_parse(q, esl_objective_measure_name(term), &measure, &component))
        g_variant_dict_insert(&d, "measure", "s", esl_objective_measures(q)[0]);
    set_term(self, dropdown, &d);
}

static void on_target_selected(GtkDropDown *dropdown, GParamSpec *pspec, EslObjectiveEditor *self)
{
    (void)pspec;
    int o, t, target = selected_choice(dropdown);
    const MbsObjectiveTerm *term = control_term(self, dropdown, &o, &t);
    if (self->building || !term || target < 0)
        return;
    GVariantDict d;
    g_variant_dict_init(&d, NULL);
    insert_target(&d, self->model, esl_objective_target(term->quantity), target);
    set_term(self, dropdown, &d);
}

static void on_measure_selected(GtkDropDown *dropdown, GParamSpec *pspec,
                                EslObjectiveEditor *self)
{
    (void)pspec;
    int o, t;
    const MbsObjectiveTerm *term = control_term(self, dropdown, &o, &t);
    guint i = gtk_drop_down_get_selected(dropdown);
    if (self->building || !term || i == GTK_INVALID_LIST_POSITION)
        return;
    GVariantDict d;
    g_variant_dict_init(&d, NULL);
    g_variant_dict_insert(&d, "measure", "s", esl_objective_measures(term->quantity)[i]);
    set_term(self, dropdown, &d);
}

/* An entry's text when it differs from what the list showed (NULL: nothing to do). */
static const char *changed_text(EslObjectiveEditor *self, GtkEditable *entry)
{
    const char *text = gtk_editable_get_text(entry);
    if (self->building || g_strcmp0(text, g_object_get_data(G_OBJECT(entry), "shown")) == 0)
        return NULL;
    /* shown now: leaving the entry after Enter does not edit again */
    g_object_set_data_full(G_OBJECT(entry), "shown", g_strdup(text), g_free);
    return text;
}

static void on_weight_entered(GtkEditable *entry, EslObjectiveEditor *self)
{
    const char *text = changed_text(self, entry);
    double weight;
    if (!text)
        return;
    if (!esl_number_from_text(text, &weight)) {
        g_autofree char *message = g_strdup_printf(_("“%s” is not a number."), text);
        show_error(self, message);
        schedule_rebuild(self);
        return;
    }
    GVariantDict d;
    g_variant_dict_init(&d, NULL);
    g_variant_dict_insert(&d, "weight", "d", weight);
    set_term(self, entry, &d);
}

/* The reference as numbers separated by blanks (the locale's decimal comma or a point);
 * empty: none. */
static void on_reference_entered(GtkEditable *entry, EslObjectiveEditor *self)
{
    const char *text = changed_text(self, entry);
    if (!text)
        return;
    g_auto(GStrv) words = g_strsplit_set(text, " \t", -1);
    g_autoptr(GArray) values = g_array_new(FALSE, FALSE, sizeof(double));
    for (int i = 0; words[i]; i++) {
        double v;
        if (!*words[i])
            continue;
        if (!esl_number_from_text(words[i], &v)) {
            g_autofree char *message = g_strdup_printf(_("“%s” is not a number."), words[i]);
            show_error(self, message);
            schedule_rebuild(self);
            return;
        }
        g_array_append_val(values, v);
    }
    GVariantDict d;
    g_variant_dict_init(&d, NULL);
    g_variant_dict_insert_value(&d, "reference",
                                g_variant_new_fixed_array(G_VARIANT_TYPE_DOUBLE, values->data,
                                                          values->len, sizeof(double)));
    set_term(self, entry, &d);
}

static void on_name_entered(GtkEditable *entry, EslObjectiveEditor *self)
{
    const char *text = changed_text(self, entry);
    if (!text)
        return;
    GVariantDict d;
    g_variant_dict_init(&d, NULL);
    g_variant_dict_insert(&d, "new-name", "s", text);
    objective_edit(self, entry, "rename", "name", &d);
}

/* Enter, or leaving the entry, edits. */
static void on_entry_left(GtkEventControllerFocus *focus, EslObjectiveEditor *self)
{
    GtkWidget *entry = gtk_event_controller_get_widget(GTK_EVENT_CONTROLLER(focus));
    void (*entered)(GtkEditable *, EslObjectiveEditor *) =
        g_object_get_data(G_OBJECT(entry), "entered");
    if (entered && gtk_widget_get_root(entry))
        entered(GTK_EDITABLE(entry), self);
}

static void on_remove_term_clicked(GtkButton *button, EslObjectiveEditor *self)
{
    GVariantDict d;
    g_variant_dict_init(&d, NULL);
    term_edit(self, button, "remove-term", &d);
}

static void on_add_term_clicked(GtkButton *button, EslObjectiveEditor *self)
{
    GVariantDict d;
    g_variant_dict_init(&d, NULL);
    if (self->model)
        insert_default_term(&d, self->model);
    objective_edit(self, button, "add-term", "objective", &d);
}

static void on_remove_objective_clicked(GtkButton *button, EslObjectiveEditor *self)
{
    GVariantDict d;
    g_variant_dict_init(&d, NULL);
    objective_edit(self, button, "remove", "name", &d);
}

static void on_add_clicked(GtkWidget *widget, EslObjectiveEditor *self)
{
    (void)widget;
    if (!self->model)
        return;
    g_autofree char *name = g_strstrip(g_strdup(gtk_editable_get_text(
        GTK_EDITABLE(self->new_name_entry))));
    if (!*name) {
        g_free(name);
        name = esl_objective_free_name(self->model, "psi");
    }
    GVariantDict d;
    g_variant_dict_init(&d, NULL);
    g_variant_dict_insert(&d, "name", "s", name);
    insert_default_term(&d, self->model);
    apply_edit(self, "add", g_variant_dict_end(&d));
    if (!self->error) {
        gtk_editable_set_text(GTK_EDITABLE(self->new_name_entry), "");
        g_free(self->focus_key); /* in view: next, its quantity */
        self->focus_key = g_strdup_printf("%d/0/quantity", self->model->nobjectives - 1);
    }
}

static void on_revert_clicked(GtkButton *button, EslObjectiveEditor *self)
{
    (void)button;
    g_autofree char *base = g_strdup(self->base_json);
    g_autofree char *origin = g_strdup(self->origin);
    esl_objective_editor_set_model(self, base, origin);
}

static void on_apply_clicked(GtkButton *button, EslObjectiveEditor *self)
{
    (void)button;
    if (!self->model || g_strcmp0(self->json, self->base_json) == 0)
        return;
    g_autoptr(GError) error = NULL;
    gboolean ok = FALSE;
    g_signal_emit(self, signals[SIGNAL_APPLY], 0, self->base_json, self->json, &error, &ok);
    if (!ok) {
        show_error(self, error ? error->message : _("The window did not take the objectives."));
        return;
    }
    g_free(self->base_json);
    self->base_json = g_strdup(self->json);
    show_error(self, NULL);
    update_state(self);
    gtk_label_set_text(GTK_LABEL(self->status_label),
                       _("Applied: the run panel offers these objectives."));
}

/* ---- closing with changes not applied ------------------------------------------------------ */

static void on_close_answer(GtkDialog *dialog, int response, EslObjectiveEditor *self)
{
    self->confirm = NULL;
    gtk_window_destroy(GTK_WINDOW(dialog));
    if (response == GTK_RESPONSE_ACCEPT) {
        on_apply_clicked(NULL, self);
        if (g_strcmp0(self->json, self->base_json) != 0)
            return; /* refused: the editor stays, with the reason */
    } else if (response == GTK_RESPONSE_REJECT) {
        on_revert_clicked(NULL, self);
    } else {
        return;
    }
    self->close_confirmed = TRUE;
    gtk_window_close(GTK_WINDOW(self));
    self->close_confirmed = FALSE;
}

/* Closing with changes not applied asks whether to apply them, as a text editor asks to save. */
static gboolean esl_objective_editor_close_request(GtkWindow *window)
{
    EslObjectiveEditor *self = ESL_OBJECTIVE_EDITOR(window);
    if (self->confirm)
        return TRUE;
    if (self->close_confirmed || g_strcmp0(self->json, self->base_json) == 0)
        return GTK_WINDOW_CLASS(esl_objective_editor_parent_class)->close_request(window);
    self->confirm = gtk_message_dialog_new(
        window, GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT, GTK_MESSAGE_QUESTION,
        GTK_BUTTONS_NONE, _("Apply the changes to the objectives?"));
    gtk_message_dialog_format_secondary_text(
        GTK_MESSAGE_DIALOG(self->confirm), _("If you do not apply them, they are lost."));
    gtk_dialog_add_button(GTK_DIALOG(self->confirm), _("_Cancel"), GTK_RESPONSE_CANCEL);
    GtkWidget *discard =
        gtk_dialog_add_button(GTK_DIALOG(self->confirm), _("_Discard"), GTK_RESPONSE_REJECT);
    gtk_widget_add_css_class(discard, "destructive-action");
    GtkWidget *apply =
        gtk_dialog_add_button(GTK_DIALOG(self->confirm), _("_Apply"), GTK_RESPONSE_ACCEPT);
    gtk_widget_add_css_class(apply, "suggested-action");
    gtk_widget_set_sensitive(apply, self->model != NULL);
    gtk_dialog_set_default_response(GTK_DIALOG(self->confirm), GTK_RESPONSE_CANCEL);
    g_signal_connect(self->confirm, "response", G_CALLBACK(on_close_answer), self);
    gtk_window_present(GTK_WINDOW(self->confirm));
    return TRUE;
}

/* ---- the list -------------------------------------------------------------------------------- */

static void keep_control(EslObjectiveEditor *self, int o, int t, const char *which,
                         GtkWidget *widget)
{
    g_object_set_data(G_OBJECT(widget), "objective", GINT_TO_POINTER(o));
    g_object_set_data(G_OBJECT(widget), "term", GINT_TO_POINTER(t));
    g_hash_table_insert(self->controls, g_strdup_printf("%d/%d/%s", o, t, which), widget);
}

/* A drop-down of labels (taken), with the item shown. */
static GtkWidget *drop_down(GPtrArray *labels, guint selected, const char *tooltip,
                            GCallback changed, EslObjectiveEditor *self)
{
    g_ptr_array_add(labels, NULL);
    GtkWidget *dropdown =
        esl_drop_down_new(gtk_string_list_new((const char *const *)labels->pdata));
    g_ptr_array_unref(labels);
    gtk_drop_down_set_selected(GTK_DROP_DOWN(dropdown), selected);
    gtk_widget_set_tooltip_text(dropdown, tooltip);
    g_signal_connect(dropdown, "notify::selected", changed, self);
    return dropdown;
}

/* An entry that edits on Enter and when left, showing text. */
static GtkWidget *edit_entry(const char *text, int width, const char *tooltip,
                             void (*entered)(GtkEditable *, EslObjectiveEditor *),
                             EslObjectiveEditor *self)
{
    GtkWidget *entry = gtk_entry_new();
    gtk_editable_set_text(GTK_EDITABLE(entry), text);
    gtk_editable_set_width_chars(GTK_EDITABLE(entry), width);
    gtk_editable_set_max_width_chars(GTK_EDITABLE(entry), width);
    gtk_widget_set_tooltip_text(entry, tooltip);
    g_object_set_data_full(G_OBJECT(entry), "shown", g_strdup(text), g_free);
    g_object_set_data(G_OBJECT(entry), "entered", entered);
    g_signal_connect(entry, "activate", G_CALLBACK(entered), self);
    GtkEventController *focus = gtk_event_controller_focus_new();
    g_signal_connect(focus, "leave", G_CALLBACK(on_entry_left), self);
    gtk_widget_add_controller(entry, focus);
    return entry;
}

static GtkWidget *icon_button(const char *icon, const char *tooltip, GCallback clicked,
                              EslObjectiveEditor *self)
{
    GtkWidget *button = gtk_button_new_from_icon_name(icon);
    gtk_widget_set_tooltip_text(button, tooltip);
    gtk_widget_set_valign(button, GTK_ALIGN_CENTER);
    g_signal_connect(button, "clicked", clicked, self);
    return button;
}

/* The row of term t of objective o in grid row `row`. */
static void add_term_row(EslObjectiveEditor *self, GtkGrid *grid, int o, int t, int row)
{
    const MbsModel *m = self->model;
    const MbsObjectiveTerm *term = &m->objective_terms[m->objectives[o].first_term + t];
    EslObjectiveTarget kind = esl_objective_target(term->quantity);
    GtkWidget *w[7];

    GPtrArray *labels = g_ptr_array_new_with_free_func(g_free);
    for (int f = 0; f < 2; f++)
        g_ptr_array_add(labels, g_strdup(f ? _("final") : _("integrand")));
    w[0] = drop_down(labels, (guint)term->final,
                     _("Integrand: integrated over the run; final: at the final time"),
                     G_CALLBACK(on_part_selected), self);
    keep_control(self, o, t, "part", w[0]);

    /* quantities whose kind of target the model has */
    GArray *quantities = g_array_new(FALSE, FALSE, sizeof(int));
    labels = g_ptr_array_new_with_free_func(g_free);
    guint selected = 0;
    for (int q = 0; q < MBS_QUANTITY_COUNT; q++) {
        g_autoptr(GArray) targets = targets_for(m, esl_objective_target(q), -1);
        if (targets->len == 0 && q != (int)term->quantity)
            continue;
        if (q == (int)term->quantity)
            selected = quantities->len;
        g_array_append_val(quantities, q);
        g_ptr_array_add(labels, g_strdup(mbs_quantity_name(q)));
    }
    w[1] = drop_down(labels, selected, _("What the term reads (docs/model-format.md)"),
                     G_CALLBACK(on_quantity_selected), self);
    g_object_set_data_full(G_OBJECT(w[1]), "choices", quantities, (GDestroyNotify)g_array_unref);
    keep_control(self, o, t, "quantity", w[1]);

    int current = term_target(term);
    GArray *targets = targets_for(m, kind, current);
    labels = g_ptr_array_new_with_free_func(g_free);
    selected = 0;
    for (guint i = 0; i < targets->len; i++) {
        if (g_array_index(targets, int, i) == current)
            selected = i;
        g_ptr_array_add(labels, target_label(m, kind, g_array_index(targets, int, i)));
    }
    w[2] = drop_down(labels, selected,
                     kind == ESL_OBJECTIVE_TARGET_POINT   ? _("The point (body:point)")
                     : kind == ESL_OBJECTIVE_TARGET_JOINT ? _("The joint (revolute or prismatic, "
                                                              "of the spanning tree)")
                                                          : _("The body"),
                     G_CALLBACK(on_target_selected), self);
    g_object_set_data_full(G_OBJECT(w[2]), "choices", targets, (GDestroyNotify)g_array_unref);
    keep_control(self, o, t, "target", w[2]);

    const char *const *measures = esl_objective_measures(term->quantity);
    const char *measure = esl_objective_measure_name(term);
    labels = g_ptr_array_new_with_free_func(g_free);
    selected = 0;
    for (guint i = 0; measures[i]; i++) {
        if (g_str_equal(measures[i], measure))
            selected = i;
        g_ptr_array_add(labels, g_strdup(measures[i]));
    }
    w[3] = drop_down(labels, selected,
                     _("squared_norm: |y|² (y² for a scalar); x, y, z: a component; value: the "
                       "scalar itself"),
                     G_CALLBACK(on_measure_selected), self);
    keep_control(self, o, t, "measure", w[3]);

    g_autofree char *weight = esl_number_to_text(term->weight, 0, NULL);
    w[4] = edit_entry(weight, 8, _("The term's weight (Enter or leave the field to set it)"),
                      on_weight_entered, self);
    keep_control(self, o, t, "weight", w[4]);

    GString *reference = g_string_new(NULL);
    for (int k = 0; k < mbs_quantity_size(term->quantity); k++) {
        g_autofree char *x = esl_number_to_text(term->reference[k], 0, NULL);
        g_string_append_printf(reference, "%s%s", k ? " " : "", x);
    }
    gboolean any = FALSE;
    for (int k = 0; k < 3; k++)
        any |= term->reference[k] != 0.0;
    w[5] = edit_entry(any ? reference->str : "", 12,
                      _("Numbers subtracted from the quantity first, separated by spaces (empty: "
                        "none)"),
                      on_reference_entered, self);
    g_string_free(reference, TRUE);
    keep_control(self, o, t, "reference", w[5]);

    w[6] = icon_button("list-remove-symbolic", _("Remove the term"),
                       G_CALLBACK(on_remove_term_clicked), self);
    keep_control(self, o, t, "remove", w[6]);
    for (int c = 0; c < 7; c++) {
        gtk_size_group_add_widget(self->columns[c], w[c]);
        gtk_grid_attach(grid, w[c], c, row, 1, 1);
    }
}

static GtkWidget *caption(const char *text)
{
    GtkWidget *label = gtk_label_new(text);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_widget_add_css_class(label, "caption-heading");
    return label;
}

static GtkWidget *objective_card(EslObjectiveEditor *self, int o)
{
    const MbsObjective *objective = &self->model->objectives[o];
    GtkWidget *card = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
    gtk_widget_add_css_class(card, "card");
    gtk_widget_add_css_class(card, "objective-card");

    GtkWidget *head = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    GtkWidget *name = edit_entry(objective->name, 16,
                                 _("The objective's name (Enter or leave the field to rename it)"),
                                 on_name_entered, self);
    keep_control(self, o, -1, "name", name);
    gtk_box_append(GTK_BOX(head), name);
    GtkWidget *spacer = gtk_label_new(NULL);
    gtk_widget_set_hexpand(spacer, TRUE);
    gtk_box_append(GTK_BOX(head), spacer);
    GtkWidget *add = gtk_button_new_with_label(_("Add Term"));
    g_signal_connect(add, "clicked", G_CALLBACK(on_add_term_clicked), self);
    keep_control(self, o, -1, "add-term", add);
    gtk_box_append(GTK_BOX(head), add);
    GtkWidget *remove = icon_button("user-trash-symbolic", _("Remove the objective"),
                                    G_CALLBACK(on_remove_objective_clicked), self);
    keep_control(self, o, -1, "remove", remove);
    gtk_box_append(GTK_BOX(head), remove);
    gtk_box_append(GTK_BOX(card), head);

    GtkWidget *grid = gtk_grid_new();
    gtk_grid_set_row_spacing(GTK_GRID(grid), 4);
    gtk_grid_set_column_spacing(GTK_GRID(grid), 6);
    const char *headings[] = {_("Part"),    _("Quantity"), _("Of"),
                              _("Measure"), _("Weight"),   _("Reference")};
    for (int c = 0; c < (int)G_N_ELEMENTS(headings); c++) {
        GtkWidget *heading = caption(headings[c]);
        gtk_size_group_add_widget(self->columns[c], heading);
        gtk_grid_attach(GTK_GRID(grid), heading, c, 0, 1, 1);
    }
    for (int t = 0; t < objective->nterms; t++)
        add_term_row(self, GTK_GRID(grid), o, t, t + 1);
    gtk_box_append(GTK_BOX(card), grid);
    return card;
}

/* Where the list is scrolled once it is made again (scroll_value): where it was, or its end
 * (< 0: an objective was just added). Set at the second frame: a tick comes before the
 * frame's layout. */
static gboolean scroll_list(GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
    (void)clock;
    EslObjectiveEditor *self = data;
    if (++self->scroll_frames < 2)
        return G_SOURCE_CONTINUE;
    self->scroll_tick = 0;
    GtkAdjustment *v = gtk_scrolled_window_get_vadjustment(GTK_SCROLLED_WINDOW(widget));
    gtk_adjustment_set_value(v, self->scroll_value >= 0 ? self->scroll_value
                                                        : gtk_adjustment_get_upper(v) -
                                                              gtk_adjustment_get_page_size(v));
    return G_SOURCE_REMOVE;
}

/* The key of the control that has the focus, or NULL. */
static char *focused_control(EslObjectiveEditor *self)
{
    GtkWidget *focus = gtk_root_get_focus(GTK_ROOT(self));
    GHashTableIter i;
    gpointer key, widget;
    g_hash_table_iter_init(&i, self->controls);
    while (focus && g_hash_table_iter_next(&i, &key, &widget))
        if (focus == widget || gtk_widget_is_ancestor(focus, widget))
            return g_strdup(key);
    return NULL;
}

static void rebuild(EslObjectiveEditor *self)
{
    g_clear_handle_id(&self->rebuild_id, g_source_remove);
    self->building = TRUE;
    /* the focus and the scroll position stay: the focus does not wander to the first entry
     * while the controls go (scrolling the list there) */
    if (self->focus_key)
        self->scroll_value = -1.0;
    else if (!self->scroll_tick) /* else the position still to be set stays */
        self->scroll_value = gtk_adjustment_get_value(
            gtk_scrolled_window_get_vadjustment(GTK_SCROLLED_WINDOW(self->scroller)));
    g_autofree char *focus_key = self->focus_key ? g_steal_pointer(&self->focus_key)
                                                 : focused_control(self);
    gtk_window_set_focus(GTK_WINDOW(self), NULL);
    g_hash_table_remove_all(self->controls);
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(self->objectives_box)))
        gtk_box_remove(GTK_BOX(self->objectives_box), child);
    const MbsModel *m = self->model;
    for (int o = 0; m && o < m->nobjectives; o++)
        gtk_box_append(GTK_BOX(self->objectives_box), objective_card(self, o));
    if (m && m->nobjectives == 0) {
        GtkWidget *none = gtk_label_new(_("The model declares no objectives: add one below."));
        gtk_widget_add_css_class(none, "dim-label");
        gtk_box_append(GTK_BOX(self->objectives_box), none);
    }
    g_autofree char *title = m ? g_strdup_printf(_("Objectives of %s"), m->name)
                               : g_strdup(_("Objectives"));
    gtk_window_set_title(GTK_WINDOW(self), title);
    self->building = FALSE;
    GtkWidget *focus = focus_key ? g_hash_table_lookup(self->controls, focus_key) : NULL;
    if (focus)
        gtk_widget_grab_focus(focus);
    self->scroll_frames = 0;
    if (!self->scroll_tick)
        self->scroll_tick = gtk_widget_add_tick_callback(self->scroller, scroll_list, self, NULL);
}

/* ---- public ---------------------------------------------------------------------------------- */

gboolean esl_objective_editor_set_model(EslObjectiveEditor *self, const char *json,
                                        const char *origin)
{
    g_autoptr(GError) error = NULL;
    MbsModel *model = json ? esl_model_load_string(json, origin, NULL, 0, &error) : NULL;
    mbs_model_free(self->model);
    self->model = model;
    g_free(self->base_json);
    self->base_json = g_strdup(json);
    g_free(self->json);
    self->json = g_strdup(json);
    g_free(self->origin);
    self->origin = g_strdup(origin);
    gtk_editable_set_text(GTK_EDITABLE(self->new_name_entry), "");
    if (model)
        show_error(self, NULL);
    else if (error)
        show_error(self, error->message);
    else
        show_error(self, _("No model to edit."));
    update_state(self);
    rebuild(self);
    /* not the first objective's name, whose text a key would replace */
    gtk_window_set_focus(GTK_WINDOW(self), self->new_name_entry);
    return model != NULL;
}

const char *esl_objective_editor_get_json(EslObjectiveEditor *self)
{
    return self->json;
}

const char *esl_objective_editor_get_base_json(EslObjectiveEditor *self)
{
    return self->base_json;
}

const char *esl_objective_editor_get_error(EslObjectiveEditor *self)
{
    return self->error;
}

GtkWidget *esl_objective_editor_get_control(EslObjectiveEditor *self, int objective, int term,
                                            const char *which)
{
    if (objective < 0) {
        static const char *const names[] = {"new-name", "add", "apply", "revert", "confirm"};
        GtkWidget *widgets[] = {self->new_name_entry, self->add_button, self->apply_button,
                                self->revert_button, self->confirm};
        for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
            if (g_strcmp0(which, names[i]) == 0)
                return widgets[i];
        return NULL;
    }
    g_autofree char *key = g_strdup_printf("%d/%d/%s", objective, term, which);
    return g_hash_table_lookup(self->controls, key);
}

EslObjectiveEditor *esl_objective_editor_new(GtkWindow *parent)
{
    return g_object_new(ESL_TYPE_OBJECTIVE_EDITOR, "transient-for", parent, NULL);
}

/* ---- object ---------------------------------------------------------------------------------- */

static void esl_objective_editor_dispose(GObject *object)
{
    EslObjectiveEditor *self = ESL_OBJECTIVE_EDITOR(object);
    g_clear_handle_id(&self->rebuild_id, g_source_remove);
    if (self->scroll_tick && self->scroller)
        gtk_widget_remove_tick_callback(self->scroller, self->scroll_tick);
    self->scroll_tick = 0;
    gtk_widget_dispose_template(GTK_WIDGET(object), ESL_TYPE_OBJECTIVE_EDITOR);
    G_OBJECT_CLASS(esl_objective_editor_parent_class)->dispose(object);
}

static void esl_objective_editor_finalize(GObject *object)
{
    EslObjectiveEditor *self = ESL_OBJECTIVE_EDITOR(object);
    g_free(self->base_json);
    g_free(self->json);
    g_free(self->origin);
    g_free(self->error);
    g_free(self->focus_key);
    mbs_model_free(self->model);
    g_hash_table_unref(self->controls);
    for (size_t c = 0; c < G_N_ELEMENTS(self->columns); c++)
        g_object_unref(self->columns[c]);
    G_OBJECT_CLASS(esl_objective_editor_parent_class)->finalize(object);
}

static void esl_objective_editor_class_init(EslObjectiveEditorClass *klass)
{
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->dispose = esl_objective_editor_dispose;
    G_OBJECT_CLASS(klass)->finalize = esl_objective_editor_finalize;
    GTK_WINDOW_CLASS(klass)->close_request = esl_objective_editor_close_request;
    gtk_widget_class_set_template_from_resource(
        widget_class, "/org/eslabon/Eslabon/ui/esl-objective-editor.ui");
#define CHILD(name) gtk_widget_class_bind_template_child(widget_class, EslObjectiveEditor, name)
    CHILD(scroller);
    CHILD(objectives_box);
    CHILD(new_name_entry);
    CHILD(add_button);
    CHILD(error_label);
    CHILD(status_label);
    CHILD(revert_button);
    CHILD(apply_button);
#undef CHILD
    gtk_widget_class_bind_template_callback(widget_class, on_add_clicked);
    gtk_widget_class_bind_template_callback(widget_class, on_revert_clicked);
    gtk_widget_class_bind_template_callback(widget_class, on_apply_clicked);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
    signals[SIGNAL_APPLY] =
        g_signal_new("apply", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
                     g_signal_accumulator_first_wins, NULL, NULL, G_TYPE_BOOLEAN, 3,
                     G_TYPE_STRING, G_TYPE_STRING, G_TYPE_POINTER);
}

static void esl_objective_editor_init(EslObjectiveEditor *self)
{
    gtk_widget_init_template(GTK_WIDGET(self));
    self->controls = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (size_t c = 0; c < G_N_ELEMENTS(self->columns); c++)
        self->columns[c] = gtk_size_group_new(GTK_SIZE_GROUP_HORIZONTAL);
    update_state(self);
}
