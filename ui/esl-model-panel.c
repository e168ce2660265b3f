/* The model panel; see esl-model-panel.h. */
#include "esl-model-panel.h"
#include "esl-menu-label.h"
#include "esl-number.h"
#include "esl-template.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "esl-model-edit.h"
#include "esl-variables.h"
#include "esl-scene.h"
#include "mbs_force.h"
#include "mbs_tyre_model.h"

struct _EslModelPanel {
    GtkWidget parent_instance;
    /* template */
    GtkWidget *model_search, *model_list, *inspector_label, *inspector_fields;

    const MbsModel *model; /* borrowed from the window */
    const char *model_json;
    GtkWidget *violation_label; /* the selected joint's violation in the state shown */
    GtkWidget *plot_menu;       /* right-click on an element: what of it can be plotted */
    GArray *violations;         /* of the state shown (double per joint), empty: none */
};

G_DEFINE_FINAL_TYPE(EslModelPanel, esl_model_panel, GTK_TYPE_WIDGET)

enum { SIGNAL_ELEMENT_SELECTED, SIGNAL_EDIT_FIELD, N_SIGNALS };
static guint signals[N_SIGNALS];

/* ---- model list --------------------------------------------------------------------------- */

static void clear_list_box(GtkWidget *list)
{
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(list)))
        gtk_list_box_remove(GTK_LIST_BOX(list), child);
}

static void add_section(GtkWidget *list, const char *title, int count)
{
    g_autofree char *text = g_strdup_printf("%s (%d)", title, count);
    GtkWidget *label = gtk_label_new(text);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_widget_add_css_class(label, "heading");
    gtk_widget_set_margin_top(label, 8);
    GtkWidget *row = gtk_list_box_row_new();
    gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row), label);
    gtk_list_box_row_set_selectable(GTK_LIST_BOX_ROW(row), FALSE);
    gtk_list_box_row_set_activatable(GTK_LIST_BOX_ROW(row), FALSE);
    gtk_list_box_append(GTK_LIST_BOX(list), row);
}

static void add_element(GtkWidget *list, int source, int index, const char *name,
                        const char *kind)
{
    g_autofree char *markup = g_markup_printf_escaped("%s  <span alpha=\"60%%\">%s</span>", name,
                                                      kind);
    GtkWidget *label = gtk_label_new(NULL);
    gtk_label_set_markup(GTK_LABEL(label), markup);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_widget_set_margin_start(label, 12);
    GtkWidget *row = gtk_list_box_row_new();
    gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row), label);
    g_object_set_data(G_OBJECT(row), "source", GINT_TO_POINTER(source));
    g_object_set_data(G_OBJECT(row), "index", GINT_TO_POINTER(index));
    g_autofree char *text = g_strconcat(name, " ", kind, NULL);
    g_object_set_data_full(G_OBJECT(row), "filter-text", g_utf8_casefold(text, -1), g_free);
    gtk_list_box_append(GTK_LIST_BOX(list), row);
}

/* Rows of elements whose name or kind contains the search text; section headings stay. */
static gboolean model_row_visible(GtkListBoxRow *row, gpointer data)
{
    EslModelPanel *self = data;
    const char *text = g_object_get_data(G_OBJECT(row), "filter-text");
    const char *search = gtk_editable_get_text(GTK_EDITABLE(self->model_search));
    if (!text || !search || !*search)
        return TRUE;
    g_autofree char *folded = g_utf8_casefold(search, -1);
    return strstr(text, folded) != NULL;
}

static void on_model_search_changed(GtkSearchEntry *entry, EslModelPanel *self)
{
    (void)entry;
    gtk_list_box_invalidate_filter(GTK_LIST_BOX(self->model_list));
}

/* The kind of a force element, from its class (engine/mbs_force.h): a new kind needs no edit
 * here. */
static const char *force_kind(MbsForceType t)
{
    const MbsForceClass *c = mbs_force_class(t);
    return c ? _(c->description) : "?";
}

/* A field of a force class in words: its translation, else its model-file key with spaces. */
static char *force_field_words(const MbsForceField *field)
{
    const char *words = _(field->name);
    return words != field->name ? g_strdup(words) : g_strdelimit(g_strdup(field->name), "_", ' ');
}

static const MbsForceField *force_field_named(const MbsForce *f, const char *name)
{
    const MbsForceClass *c = mbs_force_class(f->type);
    for (const MbsForceField *fd = c ? c->fields : NULL; fd && fd->name; fd++)
        if (g_str_equal(fd->name, name))
            return fd;
    return NULL;
}

static const char *joint_kind(MbsJointType t)
{
    switch (t) {
    case MBS_JOINT_REVOLUTE: return _("revolute");
    case MBS_JOINT_PRISMATIC: return _("prismatic");
    case MBS_JOINT_SPHERICAL: return _("spherical");
    case MBS_JOINT_UNIVERSAL: return _("universal");
    case MBS_JOINT_ROD: return _("rod");
    case MBS_JOINT_TYPE_COUNT: break;
    }
    return "?";
}

static void fill_model_list(EslModelPanel *self)
{
    clear_list_box(self->model_list);
    const MbsModel *m = self->model;
    if (!m)
        return;
    add_section(self->model_list, _("Bodies"), m->nbodies);
    for (int i = 0; i < m->nbodies; i++)
        add_element(self->model_list, ESL_SOURCE_BODY, i, m->bodies[i].name,
                    m->bodies[i].is_ground ? _("ground") : "");
    add_section(self->model_list, _("Joints"), m->njoints);
    for (int i = 0; i < m->njoints; i++)
        add_element(self->model_list, ESL_SOURCE_JOINT, i, m->joints[i].name,
                    joint_kind(m->joints[i].type));
    add_section(self->model_list, _("Forces"), m->nforces);
    for (int i = 0; i < m->nforces; i++)
        add_element(self->model_list, ESL_SOURCE_FORCE, i, m->forces[i].name,
                    force_kind(m->forces[i].type));
    add_section(self->model_list, _("Parameters"), m->nparameters);
    for (int i = 0; i < m->nparameters; i++) {
        g_autofree char *value = g_strdup_printf("= %g", m->parameters[i].value);
        add_element(self->model_list, ESL_MODEL_PANEL_PARAMETER, i, m->parameters[i].name, value);
    }
}

static void append_vector(GString *s, const char *label, const double v[3], const char *unit)
{
    g_string_append_printf(s, "%s: (%.6g, %.6g, %.6g) %s\n", label, v[0], v[1], v[2], unit);
}

static char *describe_element(const MbsModel *m, int source, int index)
{
    GString *s = g_string_new(NULL);
    if (source == ESL_SOURCE_BODY) {
        const MbsBody *b = &m->bodies[index];
        g_string_append_printf(s, _("Body %s%s\n\n"), b->name, b->is_ground ? _(" (ground)") : "");
        if (!b->is_ground) {
            g_string_append_printf(s, _("mass: %.6g kg\n"), b->mass);
            append_vector(s, _("centre of mass"), b->com, "m");
            g_string_append_printf(s, _("inertia about the centre of mass (kg·m²):\n"));
            for (int r = 0; r < 3; r++)
                g_string_append_printf(s, "  %10.4g %10.4g %10.4g\n", b->inertia[3 * r],
                                       b->inertia[3 * r + 1], b->inertia[3 * r + 2]);
        }
        int npoints = 0;
        for (int i = 0; i < m->npoints; i++)
            if (m->points[i].body == index) {
                if (npoints++ == 0)
                    g_string_append(s, _("\npoints (drawn configuration):\n"));
                g_string_append_printf(s, "  %s: (%.6g, %.6g, %.6g) m\n", m->points[i].name,
                                       m->points[i].pos[0], m->points[i].pos[1],
                                       m->points[i].pos[2]);
            }
    } else if (source == ESL_SOURCE_JOINT) {
        const MbsJoint *j = &m->joints[index];
        g_string_append_printf(s, _("Joint %s (%s)\n\n"), j->name, joint_kind(j->type));
        g_string_append_printf(s, _("bodies: %s → %s\n"), m->bodies[j->body1].name,
                               m->bodies[j->body2].name);
        append_vector(s, _("point"), j->point1, "m");
        if (j->type == MBS_JOINT_ROD) {
            append_vector(s, _("point 2"), j->point2, "m");
            g_string_append_printf(s, _("length: %.6g m\n"), j->length);
        }
        if (j->type == MBS_JOINT_REVOLUTE || j->type == MBS_JOINT_PRISMATIC ||
            j->type == MBS_JOINT_UNIVERSAL)
            append_vector(s, _("axis"), j->axis1, "");
        if (j->type == MBS_JOINT_UNIVERSAL)
            append_vector(s, _("axis 2"), j->axis2, "");
        if (j->driven)
            g_string_append(s, _("driven: its coordinate follows a function of time\n"));
    } else if (source == ESL_SOURCE_FORCE) {
        const MbsForce *f = &m->forces[index];
        g_string_append_printf(s, _("Force %s (%s)\n\n"), f->name, force_kind(f->type));
        const MbsForceClass *c = mbs_force_class(f->type);
        /* where it acts: the class's geometry (four cases, never the kinds) */
        switch (c ? c->geometry : MBS_FORCE_ON_BODY) {
        case MBS_FORCE_ON_LINE:
            g_string_append_printf(s, _("between %s and %s\n"), m->bodies[f->body1].name,
                                   m->bodies[f->body2].name);
            append_vector(s, _("point 1"), f->point1, "m");
            append_vector(s, _("point 2"), f->point2, "m");
            break;
        case MBS_FORCE_ON_JOINT:
            g_string_append_printf(s, _("on joint %s\n"), m->joints[f->joint].name);
            break;
        case MBS_FORCE_AT_POINT:
        case MBS_FORCE_ON_WHEEL:
            g_string_append_printf(s, _("on body %s\n"), m->bodies[f->body1].name);
            append_vector(s, _("point"), f->point1, "m");
            break;
        case MBS_FORCE_ON_BODY:
            g_string_append_printf(s, _("on body %s\n"), m->bodies[f->body1].name);
            break;
        case MBS_FORCE_CONTROL: /* a driver: drives the joint, reads the body's point */
            g_string_append_printf(s, _("on joint %s\n"), m->joints[f->joint].name);
            g_string_append_printf(s, _("on body %s\n"), m->bodies[f->body1].name);
            append_vector(s, _("point"), f->point1, "m");
            break;
        }
        /* what it is: the class's fields with their units */
        for (const MbsForceField *fd = c ? c->fields : NULL; fd && fd->name; fd++) {
            g_autofree char *words = force_field_words(fd);
            const double *x = mbs_force_field_values(f, fd);
            if (fd->flags & MBS_FIELD_TABLE) /* its pairs: x from, to */
                g_string_append_printf(s, "%s: %d × [%s] %.6g … %.6g\n", words, f->ntable,
                                       fd->unit, x[0], x[2 * (f->ntable - 1)]);
            else if (fd->count == 3)
                append_vector(s, words, x, fd->unit);
            else
                g_string_append_printf(s, "%s: %.6g %s\n", words, x[0], fd->unit);
        }
    } else if (source == ESL_MODEL_PANEL_PARAMETER) {
        g_string_append_printf(s, _("Parameter %s = %.10g\n"), m->parameters[index].name,
                               m->parameters[index].value);
    }
    return g_string_free(s, FALSE);
}

/* ---- inspector ---------------------------------------------------------------------------- */

static const char *axis_name(int k)
{
    return k == 0 ? "x" : k == 1 ? "y" : "z";
}

/* Label of an editable number, with its unit. */
static char *field_label(const MbsModel *m, int source, int index, const EslModelField *f)
{
    const char *k = f->key;
    if (source == ESL_SOURCE_FORCE) { /* the class's field, its unit and the vector's axis */
        const MbsForceField *fd = force_field_named(&m->forces[index], k);
        if (fd) {
            g_autofree char *words = force_field_words(fd);
            return fd->count == 3
                       ? g_strdup_printf("%s, %s (%s)", words, axis_name(f->component), fd->unit)
                       : g_strdup_printf("%s (%s)", words, fd->unit);
        }
    }
    if (g_str_equal(k, "mass"))
        return g_strdup(_("mass (kg)"));
    if (g_str_equal(k, "points"))
        return g_strdup_printf(_("point %s, %s (m)"), f->sub, axis_name(f->component));
    if (g_str_equal(k, "length"))
        return g_strdup(_("length (m)"));
    if (g_str_equal(k, "position") || g_str_equal(k, "velocity")) {
        gboolean linear = m->joints[index].type == MBS_JOINT_PRISMATIC;
        gboolean velocity = g_str_equal(k, "velocity");
        const char *unit = velocity ? (linear ? "m/s" : "rad/s") : (linear ? "m" : "rad");
        return g_strdup_printf(velocity ? _("initial velocity %d (%s)")
                                        : _("initial position %d (%s)"),
                               f->coordinate + 1, unit);
    }
    return g_strdup(_("value"));
}

static EslElementKind element_kind(int source)
{
    return source == ESL_SOURCE_BODY    ? ESL_ELEMENT_BODY
           : source == ESL_SOURCE_JOINT ? ESL_ELEMENT_JOINT
           : source == ESL_SOURCE_FORCE ? ESL_ELEMENT_FORCE
                                        : ESL_ELEMENT_PARAMETER;
}

static void show_field_error(GtkWidget *entry, const char *message)
{
    GtkWidget *error_label = g_object_get_data(G_OBJECT(entry), "error-label");
    gtk_label_set_text(GTK_LABEL(error_label), message ? message : "");
    gtk_widget_set_visible(error_label, TRUE);
    gtk_widget_add_css_class(entry, "error");
}

gboolean esl_model_panel_show_field_error(EslModelPanel *self, const char *path,
                                          const char *message)
{
    for (GtkWidget *child = gtk_widget_get_first_child(self->inspector_fields); child;
         child = gtk_widget_get_next_sibling(child))
        if (GTK_IS_ENTRY(child) && g_strcmp0(g_object_get_data(G_OBJECT(child), "path"), path) == 0) {
            show_field_error(child, message);
            return TRUE;
        }
    return FALSE;
}

/* Enter in a field: the edit, or its error under the field (the model then stays as it was). */
static void on_field_activate(GtkEntry *entry, EslModelPanel *self)
{
    /* Copies: the entry is replaced when the inspector is rebuilt after the edit. */
    g_autofree char *path = g_strdup(g_object_get_data(G_OBJECT(entry), "path"));
    g_autofree char *label = g_strdup(g_object_get_data(G_OBJECT(entry), "label"));
    const char *text = gtk_editable_get_text(GTK_EDITABLE(entry));
    /* Shown with the locale's decimal separator; a comma or a point is accepted. */
    double value = 0;
    g_autoptr(GError) error = NULL;
    gboolean ok = FALSE;
    if (!esl_number_from_text(text, &value)) {
        g_set_error(&error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("“%s” is not a number."),
                    text);
    } else {
        g_signal_emit(self, signals[SIGNAL_EDIT_FIELD], 0, path, label, value, &error, &ok);
    }
    if (!ok)
        show_field_error(GTK_WIDGET(entry), error ? error->message : "");
}

static void on_field_changed(GtkEditable *editable, gpointer data)
{
    (void)data;
    GtkWidget *error_label = g_object_get_data(G_OBJECT(editable), "error-label");
    gtk_widget_set_visible(error_label, FALSE);
    gtk_widget_remove_css_class(GTK_WIDGET(editable), "error");
}

static void fill_inspector_fields(EslModelPanel *self, int source, int index)
{
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(self->inspector_fields)))
        gtk_grid_remove(GTK_GRID(self->inspector_fields), child);
    if (!self->model || !self->model_json || source < 0)
        return;
    g_autoptr(GPtrArray) fields =
        esl_model_edit_fields(self->model, self->model_json, element_kind(source), index);
    int row = 0;
    if (fields->len > 0) {
        GtkWidget *hint = gtk_label_new(_("Edit a number and press Enter: the model is rebuilt "
                                          "and re-assembled."));
        gtk_label_set_wrap(GTK_LABEL(hint), TRUE);
        gtk_label_set_xalign(GTK_LABEL(hint), 0);
        gtk_widget_add_css_class(hint, "dim-label");
        gtk_widget_add_css_class(hint, "caption");
        gtk_grid_attach(GTK_GRID(self->inspector_fields), hint, 0, row++, 2, 1);
    }
    for (guint i = 0; i < fields->len; i++) {
        const EslModelField *f = fields->pdata[i];
        g_autofree char *label_text = field_label(self->model, source, index, f);
        GtkWidget *label = gtk_label_new(label_text);
        gtk_label_set_xalign(GTK_LABEL(label), 0);
        GtkWidget *entry = gtk_entry_new();
        g_autofree char *value = esl_number_to_text(f->value, 10, NULL);
        gtk_editable_set_text(GTK_EDITABLE(entry), value);
        gtk_editable_set_width_chars(GTK_EDITABLE(entry), 10);
        gtk_widget_set_hexpand(entry, TRUE);
        gtk_widget_add_css_class(entry, "numeric");
        if (f->expression) {
            g_autofree char *tip = g_strdup_printf(
                _("The file gives this value as the expression “%s”; a number typed here "
                  "replaces it."),
                f->expression);
            gtk_widget_set_tooltip_text(entry, tip);
        }
        GtkWidget *error_label = gtk_label_new(NULL);
        gtk_label_set_wrap(GTK_LABEL(error_label), TRUE);
        gtk_label_set_xalign(GTK_LABEL(error_label), 0);
        gtk_label_set_selectable(GTK_LABEL(error_label), TRUE);
        gtk_widget_add_css_class(error_label, "error");
        gtk_widget_add_css_class(error_label, "caption");
        gtk_widget_set_visible(error_label, FALSE);
        g_object_set_data_full(G_OBJECT(entry), "path", g_strdup(f->path), g_free);
        g_object_set_data_full(G_OBJECT(entry), "label", g_strdup(label_text), g_free);
        g_object_set_data(G_OBJECT(entry), "source", GINT_TO_POINTER(source));
        g_object_set_data(G_OBJECT(entry), "index", GINT_TO_POINTER(index));
        g_object_set_data(G_OBJECT(entry), "error-label", error_label);
        g_signal_connect(entry, "activate", G_CALLBACK(on_field_activate), self);
        g_signal_connect(entry, "changed", G_CALLBACK(on_field_changed), NULL);
        gtk_grid_attach(GTK_GRID(self->inspector_fields), label, 0, row, 1, 1);
        gtk_grid_attach(GTK_GRID(self->inspector_fields), entry, 1, row++, 1, 1);
        gtk_grid_attach(GTK_GRID(self->inspector_fields), error_label, 0, row++, 2, 1);
    }
}

/* "Violation now" of the selected joint, in the state shown. */
static void show_violation(EslModelPanel *self)
{
    int source = -1, index = -1;
    esl_model_panel_get_selected(self, &source, &index);
    gboolean known = source == ESL_SOURCE_JOINT && index >= 0 &&
                     (guint)index < self->violations->len;
    gtk_widget_set_visible(self->violation_label, known);
    if (!known)
        return;
    double v = g_array_index(self->violations, double, index);
    g_autofree char *text = g_strdup_printf(
        _("Violation now: %.3g (largest |Φ| of its constraints; 0 for a joint of the spanning "
          "tree)"),
        v);
    gtk_label_set_text(GTK_LABEL(self->violation_label), text);
}

/* The element's variables (app/esl-variables.h) as "Plot …" items of win.plot-variable, whose
 * target is a comma-separated list of variable names. */
static GMenu *plot_menu_for(const MbsModel *m, int source, int index)
{
    GMenu *menu = g_menu_new();
    /* a wheel with a PAC2002 tyre: its curves (win.tyre-curves, ui/esl-window-vehicle.c) */
    if (source == ESL_SOURCE_FORCE && index >= 0 && index < m->nforces &&
        m->forces[index].type == MBS_FORCE_WHEEL &&
        m->forces[index].tyre_law == mbs_tyre_model_class_index("pac2002")) {
        g_autofree char *shown = esl_menu_label_escape(m->forces[index].name);
        g_autofree char *label = g_strdup_printf(_("Tyre Curves of %s…"), shown);
        g_autoptr(GMenuItem) item = g_menu_item_new(label, NULL);
        g_menu_item_set_action_and_target_value(item, "win.tyre-curves",
                                                g_variant_new_int32(index));
        g_menu_append_item(menu, item);
    }
    static const char *const groups[] = {N_("Plot %s: Position"), N_("Plot %s: Velocity"),
                                         N_("Plot %s: Acceleration")};
    for (int k = 0; k < esl_variable_kind_count; k++) {
        const EslVariableKind *kind = &esl_variable_kinds[k];
        gboolean joint = source == ESL_SOURCE_JOINT && kind->element == ESL_VARIABLE_JOINT;
        gboolean body = source == ESL_SOURCE_BODY && kind->element == ESL_VARIABLE_BODY;
        if ((joint || body) && esl_variable_applies(m, kind, index)) {
            EslVariable v = {kind, index};
            g_autofree char *name = esl_variable_name(m, &v);
            g_autofree char *shown =
                esl_menu_label_escape(joint ? m->joints[index].name : m->bodies[index].name);
            g_autofree char *label =
                g_strdup_printf(_("Plot %s: %s"), shown, _(kind->description));
            g_autoptr(GMenuItem) item = g_menu_item_new(label, NULL);
            g_menu_item_set_action_and_target_value(item, "win.plot-variable",
                                                    g_variant_new_string(name));
            g_menu_append_item(menu, item);
        }
        /* a point's three components in one plot: position, velocity, acceleration */
        if (source != ESL_SOURCE_BODY || kind->element != ESL_VARIABLE_POINT ||
            kind->component % 3 != 0)
            continue;
        for (int p = 0; p < m->npoints; p++) {
            if (m->points[p].body != index)
                continue;
            GString *names = g_string_new(NULL);
            for (int c = 0; c < 3 && k + c < esl_variable_kind_count; c++) {
                EslVariable v = {&esl_variable_kinds[k + c], p};
                g_autofree char *name = esl_variable_name(m, &v);
                g_string_append_printf(names, "%s%s", c ? "," : "", name);
            }
            g_autofree char *shown = esl_menu_label_escape(m->points[p].name);
            g_autofree char *label = g_strdup_printf(_(groups[kind->component / 3 % 3]), shown);
            g_autoptr(GMenuItem) item = g_menu_item_new(label, NULL);
            g_menu_item_set_action_and_target_value(item, "win.plot-variable",
                                                    g_variant_new_string(names->str));
            g_menu_append_item(menu, item);
            g_string_free(names, TRUE);
        }
    }
    return menu;
}

static void on_list_right_click(GtkGestureClick *gesture, int n_press, double x, double y,
                                EslModelPanel *self)
{
    (void)n_press;
    GtkListBoxRow *row = gtk_list_box_get_row_at_y(GTK_LIST_BOX(self->model_list), (int)y);
    if (!row || !self->model || !gtk_list_box_row_get_selectable(row))
        return;
    gtk_list_box_select_row(GTK_LIST_BOX(self->model_list), row);
    int source = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(row), "source"));
    int index = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(row), "index"));
    g_autoptr(GMenu) menu = plot_menu_for(self->model, source, index);
    if (g_menu_model_get_n_items(G_MENU_MODEL(menu)) == 0)
        return;
    gtk_popover_menu_set_menu_model(GTK_POPOVER_MENU(self->plot_menu), G_MENU_MODEL(menu));
    graphene_point_t at;
    if (!gtk_widget_compute_point(self->model_list, GTK_WIDGET(self),
                                  &GRAPHENE_POINT_INIT((float)x, (float)y), &at))
        return;
    gtk_popover_set_pointing_to(GTK_POPOVER(self->plot_menu),
                                &(GdkRectangle){(int)at.x, (int)at.y, 1, 1});
    gtk_popover_popup(GTK_POPOVER(self->plot_menu));
    gtk_gesture_set_state(GTK_GESTURE(gesture), GTK_EVENT_SEQUENCE_CLAIMED);
}

void esl_model_panel_set_violations(EslModelPanel *self, const double *violations, int n)
{
    g_array_set_size(self->violations, 0);
    if (violations && n > 0)
        g_array_append_vals(self->violations, violations, (guint)n);
    show_violation(self);
}

/* The inspector with nothing selected: the prompt, no fields, no violation. */
static void show_nothing_selected(EslModelPanel *self)
{
    gtk_label_set_text(GTK_LABEL(self->inspector_label),
                       _("Select a body, joint, force or parameter (in the list or in the 3D "
                         "view) to inspect it."));
    fill_inspector_fields(self, -1, -1);
    gtk_widget_set_visible(self->violation_label, FALSE);
}

static void on_model_row_selected(GtkListBox *list, GtkListBoxRow *row, EslModelPanel *self)
{
    (void)list;
    if (!self->model)
        return;
    if (!row) {
        show_nothing_selected(self);
        g_signal_emit(self, signals[SIGNAL_ELEMENT_SELECTED], 0, -1, -1);
        return;
    }
    int source = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(row), "source"));
    int index = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(row), "index"));
    g_autofree char *text = describe_element(self->model, source, index);
    gtk_label_set_text(GTK_LABEL(self->inspector_label), text);
    fill_inspector_fields(self, source, index);
    show_violation(self);
    g_signal_emit(self, signals[SIGNAL_ELEMENT_SELECTED], 0, source, index);
}

void esl_model_panel_set_model(EslModelPanel *self, const MbsModel *model, const char *json)
{
    self->model = model;
    self->model_json = json;
    fill_model_list(self);
    show_nothing_selected(self);
}

/* Scroll the model list to show the selected row once it is laid out (the legend's worst
 * joint, a pick in the 3D view: a joint of a long list was selected out of sight). */
static gboolean reveal_selected_row(GtkWidget *list, GdkFrameClock *clock, gpointer data)
{
    (void)clock, (void)data;
    GtkListBoxRow *row = gtk_list_box_get_selected_row(GTK_LIST_BOX(list));
    GtkWidget *scrolled = gtk_widget_get_ancestor(list, GTK_TYPE_SCROLLED_WINDOW);
    graphene_rect_t r; /* the row where the scrolled window shows it */
    if (!row || !scrolled)
        return G_SOURCE_REMOVE;
    if (gtk_widget_get_height(GTK_WIDGET(row)) == 0 ||
        !gtk_widget_compute_bounds(GTK_WIDGET(row), scrolled, &r))
        return G_SOURCE_CONTINUE; /* not laid out yet */
    GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment(GTK_SCROLLED_WINDOW(scrolled));
    double value = gtk_adjustment_get_value(adj), shown = gtk_widget_get_height(scrolled);
    if (r.origin.y < 0)
        gtk_adjustment_set_value(adj, value + r.origin.y);
    else if (r.origin.y + r.size.height > shown)
        gtk_adjustment_set_value(adj, value + r.origin.y + r.size.height - shown);
    return G_SOURCE_REMOVE;
}

void esl_model_panel_select(EslModelPanel *self, int source, int index)
{
    if (source < 0) {
        /* unselect_all emits no row-selected: the inspector and the window are told here (a
         * click on empty space in the 3D view, the release that ends an orbit) */
        gboolean had = gtk_list_box_get_selected_row(GTK_LIST_BOX(self->model_list)) != NULL;
        gtk_list_box_unselect_all(GTK_LIST_BOX(self->model_list));
        if (had && self->model)
            on_model_row_selected(GTK_LIST_BOX(self->model_list), NULL, self);
        return;
    }
    for (GtkWidget *row = gtk_widget_get_first_child(self->model_list); row;
         row = gtk_widget_get_next_sibling(row)) {
        if (GPOINTER_TO_INT(g_object_get_data(G_OBJECT(row), "source")) == source &&
            GPOINTER_TO_INT(g_object_get_data(G_OBJECT(row), "index")) == index &&
            gtk_list_box_row_get_selectable(GTK_LIST_BOX_ROW(row))) {
            gtk_list_box_select_row(GTK_LIST_BOX(self->model_list), GTK_LIST_BOX_ROW(row));
            gtk_widget_add_tick_callback(self->model_list, reveal_selected_row, NULL, NULL);
            GtkWidget *notebook = gtk_widget_get_ancestor(GTK_WIDGET(self), GTK_TYPE_NOTEBOOK);
            if (notebook)
                gtk_notebook_set_current_page(GTK_NOTEBOOK(notebook), 0);
            return;
        }
    }
}

gboolean esl_model_panel_get_selected(EslModelPanel *self, int *source, int *index)
{
    GtkListBoxRow *row = gtk_list_box_get_selected_row(GTK_LIST_BOX(self->model_list));
    *source = row ? GPOINTER_TO_INT(g_object_get_data(G_OBJECT(row), "source")) : -1;
    *index = row ? GPOINTER_TO_INT(g_object_get_data(G_OBJECT(row), "index")) : -1;
    return row != NULL;
}

void esl_model_panel_set_editable(EslModelPanel *self, gboolean editable)
{
    gtk_widget_set_sensitive(self->inspector_fields, editable);
}

static void esl_model_panel_size_allocate(GtkWidget *widget, int width, int height,
                                          int baseline)
{
    GTK_WIDGET_CLASS(esl_model_panel_parent_class)->size_allocate(widget, width, height, baseline);
    EslModelPanel *self = ESL_MODEL_PANEL(widget);
    if (self->plot_menu)
        gtk_popover_present(GTK_POPOVER(self->plot_menu));
}

static void esl_model_panel_dispose(GObject *object)
{
    EslModelPanel *self = ESL_MODEL_PANEL(object);
    /* The list's rows go with the template: its "row-selected" (no row) must not write to the
     * inspector's labels, gone already (a GLib-CRITICAL on exit, issue 26). */
    self->model = NULL;
    g_clear_pointer(&self->violations, g_array_unref);
    g_clear_pointer(&self->plot_menu, gtk_widget_unparent);
    gtk_widget_dispose_template(GTK_WIDGET(object), ESL_TYPE_MODEL_PANEL);
    esl_template_unparent_children(GTK_WIDGET(object));
    G_OBJECT_CLASS(esl_model_panel_parent_class)->dispose(object);
}

static void esl_model_panel_class_init(EslModelPanelClass *klass)
{
    GTK_WIDGET_CLASS(klass)->size_allocate = esl_model_panel_size_allocate;
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->dispose = esl_model_panel_dispose;
    gtk_widget_class_set_layout_manager_type(widget_class, GTK_TYPE_BIN_LAYOUT);
    gtk_widget_class_set_css_name(widget_class, "eslmodelpanel");
    gtk_widget_class_set_template_from_resource(widget_class,
                                                "/org/eslabon/Eslabon/ui/esl-model-panel.ui");
#define CHILD(name) gtk_widget_class_bind_template_child(widget_class, EslModelPanel, name)
    CHILD(model_search);
    CHILD(model_list);
    CHILD(inspector_label);
    CHILD(inspector_fields);
#undef CHILD
    gtk_widget_class_bind_template_callback(widget_class, on_model_search_changed);
    gtk_widget_class_bind_template_callback(widget_class, on_model_row_selected);
    signals[SIGNAL_ELEMENT_SELECTED] =
        g_signal_new("element-selected", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
                     NULL, NULL, G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_INT);
    signals[SIGNAL_EDIT_FIELD] =
        g_signal_new("edit-field", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
                     g_signal_accumulator_first_wins, NULL, NULL, G_TYPE_BOOLEAN, 4,
                     G_TYPE_STRING, G_TYPE_STRING, G_TYPE_DOUBLE, G_TYPE_POINTER);
}

static void esl_model_panel_init(EslModelPanel *self)
{
    gtk_widget_init_template(GTK_WIDGET(self));
    gtk_list_box_set_filter_func(GTK_LIST_BOX(self->model_list), model_row_visible, self, NULL);
    self->violations = g_array_new(FALSE, FALSE, sizeof(double));
    self->violation_label = gtk_label_new(NULL);
    gtk_label_set_wrap(GTK_LABEL(self->violation_label), TRUE);
    gtk_label_set_xalign(GTK_LABEL(self->violation_label), 0);
    gtk_widget_set_margin_start(self->violation_label, 10);
    gtk_widget_set_margin_end(self->violation_label, 10);
    gtk_widget_set_margin_bottom(self->violation_label, 8);
    gtk_widget_add_css_class(self->violation_label, "numeric");
    gtk_widget_set_visible(self->violation_label, FALSE);
    gtk_box_insert_child_after(GTK_BOX(gtk_widget_get_parent(self->inspector_label)),
                               self->violation_label, self->inspector_label);
    /* right-click on an element: plot its variables (a point's position, a joint's violation) */
    self->plot_menu = gtk_popover_menu_new_from_model(NULL);
    gtk_popover_set_has_arrow(GTK_POPOVER(self->plot_menu), FALSE);
    gtk_widget_set_parent(self->plot_menu, GTK_WIDGET(self));
    GtkGesture *right = gtk_gesture_click_new();
    gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(right), GDK_BUTTON_SECONDARY);
    g_signal_connect(right, "pressed", G_CALLBACK(on_list_right_click), self);
    gtk_widget_add_controller(self->model_list, GTK_EVENT_CONTROLLER(right));
}
