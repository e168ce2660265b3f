/* The Build page; see esl-model-editor.h. Each kind of element has a form: a list of inputs,
 * each named by the key of the edit's a{sv} (app/esl-model-build.h). The forms of the forces
 * are made from the force classes (engine/mbs_force.h): their geometry and their fields. */
#include "esl-model-editor.h"

#include <glib/gi18n.h>
#include <string.h>

#include "esl-number.h"
#include "esl-template.h"
#include "mbs_force.h"

/* What an input reads and how it becomes a value of the a{sv}. */
typedef enum {
    INPUT_TEXT,      /* s (empty: left out) */
    INPUT_NUMBER,    /* d (empty: left out) */
    INPUT_INTEGER,   /* i */
    INPUT_VECTOR,    /* ad of 3: "x y z" */
    INPUT_NUMBERS,   /* ad of any length */
    INPUT_ENDS,      /* ad of 6: two entries "x y z" */
    INPUT_NAMES,     /* as of 2: two entries (left out when both are empty) */
    INPUT_BODY,      /* s: a body of the model */
    INPUT_BODIES,    /* as of 2: two bodies */
    INPUT_JOINT,     /* s: a joint of the model */
    INPUT_CHOICE,    /* s: one of choices */
    INPUT_LOCATION,  /* "x y z" -> location ad, else a point name -> point s */
    INPUT_DIRECTION, /* "x y z" -> ad, else s (x, y, z or a vector name) */
    INPUT_VALUE,     /* a number -> d, else an expression -> s */
} InputType;

typedef struct {
    const char *key;
    InputType type;
    const char *label;   /* N_() */
    const char *initial; /* text shown first, or the choices separated by '|' */
    const char *shown_for; /* the form's "type" choices (separated by '|') it is shown and
                              read for; NULL: all */
} Input;

/* A kind of element the page adds: the action that adds it and its inputs. */
typedef struct {
    const char *title; /* N_() */
    const char *action;
    const char *shape; /* bodies: the shape */
    const char *force; /* forces: the class */
    const Input *inputs;
} Form;

#define END {NULL, 0, NULL, NULL, NULL}
static const Input bar_inputs[] = {
    {"name", INPUT_TEXT, N_("Name"), "bar", NULL},
    {"ends", INPUT_ENDS, N_("Ends (m)"), "0 0 0|0 1 0", NULL},
    {"end-names", INPUT_NAMES, N_("End names"), "P1|P2", NULL},
    {"density", INPUT_NUMBER, N_("Density (kg/m)"), "1", NULL},
    {"mass", INPUT_NUMBER, N_("or mass (kg)"), "", NULL},
    END};
static const Input box_inputs[] = {
    {"name", INPUT_TEXT, N_("Name"), "box", NULL},
    {"centre", INPUT_VECTOR, N_("Centre (m)"), "0 0 0", NULL},
    {"size", INPUT_VECTOR, N_("Edges along X, Y, Z (m)"), "0.1 0.1 0.1", NULL},
    {"density", INPUT_NUMBER, N_("Density (kg/m³)"), "1000", NULL},
    {"mass", INPUT_NUMBER, N_("or mass (kg)"), "", NULL},
    END};
static const Input point_mass_inputs[] = {
    {"name", INPUT_TEXT, N_("Name"), "mass", NULL},
    {"centre", INPUT_VECTOR, N_("Position (m)"), "0 0 0", NULL},
    {"mass", INPUT_NUMBER, N_("Mass (kg)"), "1", NULL},
    END};
static const Input joint_inputs[] = {
    {"name", INPUT_TEXT, N_("Name"), "J", NULL},
    {"type", INPUT_CHOICE, N_("Type"), "revolute|prismatic|spherical|universal|rod", NULL},
    {"bodies", INPUT_BODIES, N_("Bodies"), NULL, NULL},
    {"location", INPUT_LOCATION, N_("Point (name or x y z)"), "",
     "revolute|prismatic|spherical|universal"},
    {"axis", INPUT_DIRECTION, N_("Axis (x, y, z or 3 numbers)"), "x", "revolute|prismatic"},
    {"axis1", INPUT_DIRECTION, N_("Universal: axis on body 1"), "", "universal"},
    {"axis2", INPUT_DIRECTION, N_("Universal: axis on body 2"), "", "universal"},
    {"points", INPUT_NAMES, N_("Rod: end point names"), "|", "rod"},
    {"length", INPUT_NUMBER, N_("Rod: length (m, empty: as drawn)"), "", "rod"},
    END};
static const Input driver_inputs[] = {
    {"joint", INPUT_JOINT, N_("Joint"), NULL, NULL},
    {"type", INPUT_CHOICE, N_("Function"), "polynomial|sine|none", NULL},
    {"coefficients", INPUT_NUMBERS, N_("Polynomial coefficients"), "0 1", "polynomial"},
    {"offset", INPUT_NUMBER, N_("Sine: offset"), "", "sine"},
    {"amplitude", INPUT_NUMBER, N_("Sine: amplitude"), "", "sine"},
    {"omega", INPUT_NUMBER, N_("Sine: ω (rad/s)"), "", "sine"},
    {"phase", INPUT_NUMBER, N_("Sine: phase (rad)"), "", "sine"},
    END};
static const Input initial_inputs[] = {
    {"joint", INPUT_JOINT, N_("Joint"), NULL, NULL},
    {"coordinate", INPUT_INTEGER, N_("Coordinate (0, 1, 2)"), "0", NULL},
    {"position", INPUT_NUMBER, N_("Position (rad or m)"), "", NULL},
    {"velocity", INPUT_NUMBER, N_("Velocity (rad/s or m/s)"), "0", NULL},
    END};
static const Input parameter_inputs[] = {
    {"name", INPUT_TEXT, N_("Name"), "L", NULL},
    {"value", INPUT_VALUE, N_("Value or expression"), "1", NULL},
    END};
static const Input gravity_inputs[] = {
    {"vector", INPUT_VECTOR, N_("Gravity (m/s²)"), "0 0 -9.81", NULL},
    END};
#undef END

static const Form fixed_forms[] = {
    {N_("Bar between two points"), "win.add-body", "bar", NULL, bar_inputs},
    {N_("Box"), "win.add-body", "box", NULL, box_inputs},
    {N_("Point mass"), "win.add-body", "point-mass", NULL, point_mass_inputs},
    {N_("Joint"), "win.add-joint", NULL, NULL, joint_inputs},
};
static const Form last_forms[] = {
    {N_("Driver of a joint"), "win.set-driver", NULL, NULL, driver_inputs},
    {N_("Initial condition"), "win.set-initial", NULL, NULL, initial_inputs},
    {N_("Parameter"), "win.set-parameter", NULL, NULL, parameter_inputs},
    {N_("Gravity"), "win.set-gravity", NULL, NULL, gravity_inputs},
};

struct _EslModelEditor {
    GtkWidget parent_instance;
    GtkWidget *box, *status_label, *error_label, *undo_button, *redo_button, *kind_dropdown;
    GtkWidget *form_grid, *form_error;
    GArray *forms;      /* Form: the fixed ones, one per force class, the last ones */
    GPtrArray *fields;  /* the widgets of the form shown, one per input (GtkWidget*) */
    GPtrArray *strings; /* strings the force forms own */
    GStrv bodies, joints; /* names the pickers offer */
    int next_pick;        /* which of a pair of bodies a pick in the 3D view sets next */
};

G_DEFINE_FINAL_TYPE(EslModelEditor, esl_model_editor, GTK_TYPE_WIDGET)

/* ---- the forms ---------------------------------------------------------------------------------- */

/* A force class's form: where it acts (its geometry), then its fields, as it publishes them. */
static Input *force_inputs(const MbsForceClass *c, GPtrArray *strings)
{
    GArray *inputs = g_array_new(TRUE, TRUE, sizeof(Input));
    Input name = {"name", INPUT_TEXT, N_("Name (optional)"), "", NULL};
    g_array_append_val(inputs, name);
    static const Input line[] = {{"bodies", INPUT_BODIES, N_("Bodies"), NULL, NULL},
                                 {"points", INPUT_NAMES, N_("Point names"), "|", NULL},
                                 {"ends", INPUT_ENDS, N_("or points (m)"), "|", NULL}};
    static const Input joint = {"joint", INPUT_JOINT, N_("Joint"), NULL, NULL};
    static const Input body = {"body", INPUT_BODY, N_("Body"), NULL, NULL};
    static const Input at = {"location", INPUT_LOCATION, N_("Point (name or x y z)"), "", NULL};
    switch (c->geometry) {
    case MBS_FORCE_ON_LINE: g_array_append_vals(inputs, line, G_N_ELEMENTS(line)); break;
    case MBS_FORCE_ON_JOINT: g_array_append_val(inputs, joint); break;
    case MBS_FORCE_AT_POINT:
    case MBS_FORCE_ON_WHEEL: /* the wheel's centre (the linear tyre law unless the file says) */
        g_array_append_val(inputs, body);
        g_array_append_val(inputs, at);
        break;
    case MBS_FORCE_ON_BODY: g_array_append_val(inputs, body); break;
    case MBS_FORCE_CONTROL: /* a driver: the joint it drives, the chassis and its point */
        g_array_append_val(inputs, joint);
        g_array_append_val(inputs, body);
        g_array_append_val(inputs, at);
        break;
    }
    for (const MbsForceField *fd = c->fields; fd->name; fd++) {
        if (fd->flags & MBS_FIELD_TABLE)
            continue; /* a table is written in the model file */
        const char *words = _(fd->name);
        char *label = words != fd->name
                          ? g_strdup_printf("%s (%s)", words, fd->unit)
                          : g_strdup_printf("%s (%s)", fd->name, fd->unit);
        g_strdelimit(label, "_", ' ');
        g_ptr_array_add(strings, label);
        Input in = {fd->name, fd->count == 3 ? INPUT_VECTOR : INPUT_NUMBER, label,
                    fd->count == 3 ? "0 0 0" : "", NULL};
        g_array_append_val(inputs, in);
    }
    return (Input *)(void *)g_array_free(inputs, FALSE);
}

static void make_forms(EslModelEditor *self)
{
    self->forms = g_array_new(FALSE, TRUE, sizeof(Form));
    self->strings = g_ptr_array_new_with_free_func(g_free);
    g_array_append_vals(self->forms, fixed_forms, G_N_ELEMENTS(fixed_forms));
    for (int i = 0; i < mbs_force_class_count(); i++) {
        const MbsForceClass *c = mbs_force_class_at(i);
        Input *inputs = force_inputs(c, self->strings);
        g_ptr_array_add(self->strings, inputs);
        char *title = g_strdup_printf(_("Force: %s"), _(c->description));
        g_ptr_array_add(self->strings, title);
        Form f = {title, "win.add-force", NULL, c->name, inputs};
        g_array_append_val(self->forms, f);
    }
    g_array_append_vals(self->forms, last_forms, G_N_ELEMENTS(last_forms));
}

static const char *form_title(const Form *f)
{
    return f->force ? f->title : _(f->title);
}

static GtkWidget *name_picker(GStrv names)
{
    GtkWidget *d = gtk_drop_down_new_from_strings((const char *const *)(names ? names : (char *[]){NULL}));
    gtk_widget_set_hexpand(d, TRUE);
    return d;
}

static GtkWidget *entry_with(const char *text)
{
    GtkWidget *e = gtk_entry_new();
    gtk_editable_set_text(GTK_EDITABLE(e), text ? text : "");
    gtk_editable_set_width_chars(GTK_EDITABLE(e), 8);
    gtk_widget_set_hexpand(e, TRUE);
    return e;
}

/* Two widgets side by side (bodies, names, ends). */
static GtkWidget *pair_of(GtkWidget *a, GtkWidget *b)
{
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 4);
    gtk_box_append(GTK_BOX(box), a);
    gtk_box_append(GTK_BOX(box), b);
    return box;
}

/* base, or base2, base3, ... when names has it already: each form offers a new name. */
static char *new_name(GStrv names, const char *base)
{
    for (int i = 1;; i++) {
        char *name = i == 1 ? g_strdup(base) : g_strdup_printf("%s%d", base, i);
        if (!names || !g_strv_contains((const char *const *)names, name))
            return name;
        g_free(name);
    }
}

static GtkWidget *input_widget(EslModelEditor *self, const Form *form, const Input *in)
{
    g_auto(GStrv) parts = in->initial ? g_strsplit(in->initial, "|", 2) : NULL;
    if (in->type == INPUT_TEXT && g_str_equal(in->key, "name") && *in->initial) {
        g_autofree char *name =
            new_name(g_str_equal(form->action, "win.add-joint") ? self->joints : self->bodies,
                     in->initial);
        return entry_with(name);
    }
    switch (in->type) {
    case INPUT_BODY: return name_picker(self->bodies);
    case INPUT_JOINT: return name_picker(self->joints);
    case INPUT_BODIES: {
        GtkWidget *first = name_picker(self->bodies), *second = name_picker(self->bodies);
        guint n = self->bodies ? g_strv_length(self->bodies) : 0;
        if (n > 1) /* the newest body, joined to the one before it */
            gtk_drop_down_set_selected(GTK_DROP_DOWN(second), n - 1);
        if (n > 2)
            gtk_drop_down_set_selected(GTK_DROP_DOWN(first), n - 2);
        return pair_of(first, second);
    }
    case INPUT_CHOICE: {
        g_auto(GStrv) choices = g_strsplit(in->initial, "|", -1);
        GtkWidget *d = gtk_drop_down_new_from_strings((const char *const *)choices);
        gtk_widget_set_hexpand(d, TRUE);
        return d;
    }
    case INPUT_ENDS:
    case INPUT_NAMES:
        return pair_of(entry_with(parts && parts[0] ? parts[0] : ""),
                       entry_with(parts && parts[0] && parts[1] ? parts[1] : ""));
    default: return entry_with(in->initial);
    }
}

static const char *picked(GtkWidget *dropdown);

/* The choice of the form's "type" drop-down, or NULL when it has none. */
static const char *chosen_type(EslModelEditor *self, const Form *f)
{
    int i = 0;
    for (const Input *in = f->inputs; in->key; in++, i++)
        if (in->type == INPUT_CHOICE && g_str_equal(in->key, "type"))
            return picked(self->fields->pdata[i]);
    return NULL;
}

static gboolean input_shown(const Input *in, const char *type)
{
    if (!in->shown_for || !type)
        return TRUE;
    g_auto(GStrv) types = g_strsplit(in->shown_for, "|", -1);
    return g_strv_contains((const char *const *)types, type);
}

/* Only the inputs of the type chosen (a revolute joint's form had the universal joint's axes
 * and the rod's points and length). */
static void show_inputs_of_type(EslModelEditor *self)
{
    guint k = gtk_drop_down_get_selected(GTK_DROP_DOWN(self->kind_dropdown));
    if (k >= self->forms->len)
        return;
    const Form *f = &g_array_index(self->forms, Form, k);
    const char *type = chosen_type(self, f);
    int row = 0;
    for (const Input *in = f->inputs; in->key; in++, row++) {
        gboolean shown = input_shown(in, type);
        gtk_widget_set_visible(gtk_grid_get_child_at(GTK_GRID(self->form_grid), 0, row), shown);
        gtk_widget_set_visible(self->fields->pdata[row], shown);
    }
}

static void show_form(EslModelEditor *self)
{
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(self->form_grid)))
        gtk_grid_remove(GTK_GRID(self->form_grid), child);
    g_ptr_array_set_size(self->fields, 0);
    self->next_pick = 0;
    gtk_widget_set_visible(self->form_error, FALSE);
    guint k = gtk_drop_down_get_selected(GTK_DROP_DOWN(self->kind_dropdown));
    if (k >= self->forms->len)
        return;
    const Form *f = &g_array_index(self->forms, Form, k);
    int row = 0;
    for (const Input *in = f->inputs; in->key; in++, row++) {
        GtkWidget *label = gtk_label_new(_(in->label));
        gtk_label_set_xalign(GTK_LABEL(label), 0);
        gtk_label_set_wrap(GTK_LABEL(label), TRUE);
        gtk_label_set_max_width_chars(GTK_LABEL(label), 14);
        /* A fixed column: the form does not move when its pickers change width. */
        gtk_widget_set_size_request(label, 110, -1);
        GtkWidget *w = input_widget(self, f, in);
        gtk_grid_attach(GTK_GRID(self->form_grid), label, 0, row, 1, 1);
        gtk_grid_attach(GTK_GRID(self->form_grid), w, 1, row, 1, 1);
        g_ptr_array_add(self->fields, w);
        if (in->type == INPUT_CHOICE && g_str_equal(in->key, "type"))
            g_signal_connect_swapped(w, "notify::selected", G_CALLBACK(show_inputs_of_type),
                                     self);
    }
    show_inputs_of_type(self);
}

static void on_kind_changed(GObject *dropdown, GParamSpec *pspec, EslModelEditor *self)
{
    (void)dropdown;
    (void)pspec;
    show_form(self);
}

/* ---- reading a form ---------------------------------------------------------------------------- */

static const char *text_of(GtkWidget *entry)
{
    return gtk_editable_get_text(GTK_EDITABLE(entry));
}

/* Numbers separated by blanks or ';' (a comma may be the decimal separator). */
static gboolean read_numbers(const char *text, GArray *out)
{
    g_auto(GStrv) parts = g_strsplit_set(text, " \t;", -1);
    for (int i = 0; parts[i]; i++) {
        double v;
        if (!*parts[i])
            continue;
        if (!esl_number_from_text(parts[i], &v))
            return FALSE;
        g_array_append_val(out, v);
    }
    return TRUE;
}

static GVariant *numbers_variant(GArray *a)
{
    return g_variant_new_fixed_array(G_VARIANT_TYPE_DOUBLE, a->data, a->len, sizeof(double));
}

static const char *picked(GtkWidget *dropdown)
{
    GObject *item = gtk_drop_down_get_selected_item(GTK_DROP_DOWN(dropdown));
    return item ? gtk_string_object_get_string(GTK_STRING_OBJECT(item)) : NULL;
}

static gboolean is_blank(const char *text)
{
    for (; *text; text++)
        if (!g_ascii_isspace(*text))
            return FALSE;
    return TRUE;
}

/* The value of one input into b; FALSE with the reason in why. */
static gboolean read_input(const Input *in, GtkWidget *w, GVariantBuilder *b, char **why)
{
    g_autoptr(GArray) numbers = g_array_new(FALSE, FALSE, sizeof(double));
    const char *label = _(in->label);
    GtkWidget *first = gtk_widget_get_first_child(w);
    GtkWidget *second = first ? gtk_widget_get_next_sibling(first) : NULL;
    double v;
    switch (in->type) {
    case INPUT_TEXT:
        if (!is_blank(text_of(w)))
            g_variant_builder_add(b, "{sv}", in->key,
                                  g_variant_new_take_string(g_strstrip(g_strdup(text_of(w)))));
        return TRUE;
    case INPUT_NUMBER:
    case INPUT_INTEGER:
        if (is_blank(text_of(w)))
            return TRUE;
        if (!esl_number_from_text(text_of(w), &v) || (in->type == INPUT_INTEGER && v != (int)v)) {
            *why = g_strdup_printf(_("%s: “%s” is not a number."), label, text_of(w));
            return FALSE;
        }
        g_variant_builder_add(b, "{sv}", in->key,
                              in->type == INPUT_INTEGER ? g_variant_new_int32((gint32)v)
                                                        : g_variant_new_double(v));
        return TRUE;
    case INPUT_VECTOR:
    case INPUT_NUMBERS:
        if (in->type == INPUT_NUMBERS && is_blank(text_of(w)))
            return TRUE;
        if (!read_numbers(text_of(w), numbers) || (in->type == INPUT_VECTOR && numbers->len != 3)) {
            *why = g_strdup_printf(_("%s: write three numbers separated by spaces."), label);
            return FALSE;
        }
        g_variant_builder_add(b, "{sv}", in->key, numbers_variant(numbers));
        return TRUE;
    case INPUT_ENDS:
        if (is_blank(text_of(first)) && is_blank(text_of(second)))
            return TRUE;
        if (!read_numbers(text_of(first), numbers) || numbers->len != 3 ||
            !read_numbers(text_of(second), numbers) || numbers->len != 6) {
            *why = g_strdup_printf(_("%s: write three numbers in each."), label);
            return FALSE;
        }
        g_variant_builder_add(b, "{sv}", in->key, numbers_variant(numbers));
        return TRUE;
    case INPUT_NAMES:
        if (is_blank(text_of(first)) && is_blank(text_of(second)))
            return TRUE;
        {
            const char *names[2] = {text_of(first), text_of(second)};
            g_variant_builder_add(b, "{sv}", in->key, g_variant_new_strv(names, 2));
        }
        return TRUE;
    case INPUT_BODY:
    case INPUT_JOINT:
    case INPUT_CHOICE:
        if (!picked(w)) {
            *why = g_strdup_printf(_("%s: nothing to choose from yet."), label);
            return FALSE;
        }
        g_variant_builder_add(b, "{sv}", in->key, g_variant_new_string(picked(w)));
        return TRUE;
    case INPUT_BODIES:
        if (!picked(first) || !picked(second)) {
            *why = g_strdup_printf(_("%s: the model needs two bodies."), label);
            return FALSE;
        }
        {
            const char *names[2] = {picked(first), picked(second)};
            g_variant_builder_add(b, "{sv}", in->key, g_variant_new_strv(names, 2));
        }
        return TRUE;
    case INPUT_LOCATION:
    case INPUT_DIRECTION:
        if (is_blank(text_of(w)))
            return TRUE;
        if (read_numbers(text_of(w), numbers) && numbers->len == 3)
            g_variant_builder_add(b, "{sv}", in->type == INPUT_LOCATION ? "location" : in->key,
                                  numbers_variant(numbers));
        else
            g_variant_builder_add(b, "{sv}", in->type == INPUT_LOCATION ? "point" : in->key,
                                  g_variant_new_take_string(g_strstrip(g_strdup(text_of(w)))));
        return TRUE;
    case INPUT_VALUE:
        if (esl_number_from_text(text_of(w), &v))
            g_variant_builder_add(b, "{sv}", in->key, g_variant_new_double(v));
        else
            g_variant_builder_add(b, "{sv}", in->key, g_variant_new_string(text_of(w)));
        return TRUE;
    }
    return TRUE;
}

static void on_add_clicked(GtkButton *button, EslModelEditor *self)
{
    (void)button;
    guint k = gtk_drop_down_get_selected(GTK_DROP_DOWN(self->kind_dropdown));
    if (k >= self->forms->len)
        return;
    const Form *f = &g_array_index(self->forms, Form, k);
    GVariantBuilder b;
    g_variant_builder_init(&b, G_VARIANT_TYPE_VARDICT);
    if (f->shape)
        g_variant_builder_add(&b, "{sv}", "shape", g_variant_new_string(f->shape));
    if (f->force)
        g_variant_builder_add(&b, "{sv}", "type", g_variant_new_string(f->force));
    int i = 0;
    const char *type = chosen_type(self, f);
    for (const Input *in = f->inputs; in->key; in++, i++) {
        g_autofree char *why = NULL;
        if (!input_shown(in, type)) /* not of the type chosen: not read */
            continue;
        if (!read_input(in, self->fields->pdata[i], &b, &why)) {
            g_variant_builder_clear(&b);
            gtk_label_set_text(GTK_LABEL(self->form_error), why);
            gtk_widget_set_visible(self->form_error, TRUE);
            return;
        }
    }
    gtk_widget_set_visible(self->form_error, FALSE);
    gtk_widget_activate_action_variant(GTK_WIDGET(self), f->action, g_variant_builder_end(&b));
}

/* ---- state ---------------------------------------------------------------------------------------- */

void esl_model_editor_set_model(EslModelEditor *self, const MbsModel *model)
{
    g_clear_pointer(&self->bodies, g_strfreev);
    g_clear_pointer(&self->joints, g_strfreev);
    if (model) {
        g_autoptr(GStrvBuilder) bodies = g_strv_builder_new();
        g_autoptr(GStrvBuilder) joints = g_strv_builder_new();
        for (int i = 0; i < model->nbodies; i++)
            g_strv_builder_add(bodies, model->bodies[i].name);
        for (int i = 0; i < model->njoints; i++)
            g_strv_builder_add(joints, model->joints[i].name);
        self->bodies = g_strv_builder_end(bodies);
        self->joints = g_strv_builder_end(joints);
    }
    show_form(self);
}

/* The pickers of the form shown whose input is of type, in order. */
static GPtrArray *pickers(EslModelEditor *self, InputType type)
{
    GPtrArray *found = g_ptr_array_new();
    guint k = gtk_drop_down_get_selected(GTK_DROP_DOWN(self->kind_dropdown));
    if (k >= self->forms->len)
        return found;
    int i = 0;
    for (const Input *in = g_array_index(self->forms, Form, k).inputs; in->key; in++, i++) {
        GtkWidget *w = self->fields->pdata[i];
        if (in->type == type && type == INPUT_BODIES) {
            g_ptr_array_add(found, gtk_widget_get_first_child(w));
            g_ptr_array_add(found, gtk_widget_get_last_child(w));
        } else if (in->type == type) {
            g_ptr_array_add(found, w);
        }
    }
    return found;
}

gboolean esl_model_editor_pick(EslModelEditor *self, gboolean body, int index)
{
    if (index < 0)
        return FALSE;
    g_autoptr(GPtrArray) single = pickers(self, body ? INPUT_BODY : INPUT_JOINT);
    g_autoptr(GPtrArray) pair = body ? pickers(self, INPUT_BODIES) : g_ptr_array_new();
    GtkWidget *target = NULL;
    if (pair->len == 2) { /* body 1, then body 2, then body 1 again */
        target = pair->pdata[self->next_pick % 2];
        self->next_pick++;
    } else if (single->len > 0) {
        target = single->pdata[0];
    }
    if (!target)
        return FALSE;
    gtk_drop_down_set_selected(GTK_DROP_DOWN(target), (guint)index);
    return TRUE;
}

void esl_model_editor_set_check(EslModelEditor *self, gboolean checking,
                                const EslModelCheck *check)
{
    gtk_widget_set_visible(self->error_label, FALSE);
    if (checking) {
        gtk_label_set_text(GTK_LABEL(self->status_label), _("Checking the model…"));
        return;
    }
    if (!check) {
        gtk_label_set_text(GTK_LABEL(self->status_label), _("No model."));
        return;
    }
    if (check->error && check->ncoords < 0) {
        gtk_label_set_text(GTK_LABEL(self->status_label), _("The model does not load yet."));
    } else {
        g_autofree char *dof = g_strdup_printf(
            ngettext("%d degree of freedom", "%d degrees of freedom", check->dof), check->dof);
        g_autofree char *redundant = g_strdup_printf(
            ngettext("%d redundant constraint", "%d redundant constraints", check->redundant),
            check->redundant);
        /* TRANSLATORS: the two counts above */
        g_autofree char *text = g_strdup_printf(_("%s, %s"), dof, redundant);
        gtk_label_set_text(GTK_LABEL(self->status_label), text);
    }
    if (check->error) {
        gtk_label_set_text(GTK_LABEL(self->error_label), check->error);
        gtk_widget_set_visible(self->error_label, TRUE);
    }
}

void esl_model_editor_set_history(EslModelEditor *self, const char *undo_label,
                                  const char *redo_label)
{
    g_autofree char *undo = undo_label ? g_strdup_printf(_("Undo %s (Ctrl+Z)"), undo_label)
                                       : g_strdup(_("Nothing to undo"));
    g_autofree char *redo = redo_label
                                ? g_strdup_printf(_("Redo %s (Ctrl+Shift+Z)"), redo_label)
                                : g_strdup(_("Nothing to redo"));
    gtk_widget_set_tooltip_text(self->undo_button, undo);
    gtk_widget_set_tooltip_text(self->redo_button, redo);
}

const char *esl_model_editor_get_status(EslModelEditor *self)
{
    return gtk_label_get_text(GTK_LABEL(self->status_label));
}

/* ---- object ------------------------------------------------------------------------------------- */

static GtkWidget *heading(const char *text)
{
    GtkWidget *label = gtk_label_new(text);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_widget_add_css_class(label, "heading");
    return label;
}

static GtkWidget *action_button(const char *icon, const char *label, const char *action)
{
    GtkWidget *button = gtk_button_new();
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 4);
    gtk_box_append(GTK_BOX(box), gtk_image_new_from_icon_name(icon));
    gtk_box_append(GTK_BOX(box), gtk_label_new_with_mnemonic(label));
    gtk_button_set_child(GTK_BUTTON(button), box);
    gtk_actionable_set_action_name(GTK_ACTIONABLE(button), action);
    return button;
}

static void esl_model_editor_init(EslModelEditor *self)
{
    self->fields = g_ptr_array_new();
    make_forms(self);
    GtkWidget *scroll = gtk_scrolled_window_new();
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scroll), GTK_POLICY_NEVER,
                                   GTK_POLICY_AUTOMATIC);
    gtk_widget_set_parent(scroll, GTK_WIDGET(self));
    self->box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
    gtk_widget_set_margin_start(self->box, 10);
    gtk_widget_set_margin_end(self->box, 10);
    gtk_widget_set_margin_top(self->box, 8);
    gtk_widget_set_margin_bottom(self->box, 8);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroll), self->box);

    gtk_box_append(GTK_BOX(self->box), heading(_("Mechanism")));
    self->status_label = gtk_label_new(_("No model."));
    gtk_label_set_xalign(GTK_LABEL(self->status_label), 0);
    gtk_label_set_wrap(GTK_LABEL(self->status_label), TRUE);
    gtk_box_append(GTK_BOX(self->box), self->status_label);
    self->error_label = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(self->error_label), 0);
    gtk_label_set_wrap(GTK_LABEL(self->error_label), TRUE);
    gtk_label_set_wrap_mode(GTK_LABEL(self->error_label), PANGO_WRAP_WORD_CHAR);
    gtk_label_set_selectable(GTK_LABEL(self->error_label), TRUE);
    gtk_widget_add_css_class(self->error_label, "error");
    gtk_widget_set_visible(self->error_label, FALSE);

    GtkWidget *edit_row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    GtkWidget *history = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0);
    gtk_widget_add_css_class(history, "linked");
    self->undo_button = action_button("edit-undo-symbolic", _("_Undo"), "win.undo");
    self->redo_button = action_button("edit-redo-symbolic", _("_Redo"), "win.redo");
    gtk_box_append(GTK_BOX(history), self->undo_button);
    gtk_box_append(GTK_BOX(history), self->redo_button);
    gtk_box_append(GTK_BOX(edit_row), history);
    GtkWidget *remove = action_button("list-remove-symbolic", _("_Remove Selected"),
                                      "win.remove-selected");
    gtk_widget_set_tooltip_text(remove, _("Remove the element selected in the model list, with "
                                          "the joints and forces that need it"));
    gtk_box_append(GTK_BOX(edit_row), remove);
    gtk_box_append(GTK_BOX(self->box), edit_row);

    GtkWidget *add_heading = heading(_("Add"));
    gtk_widget_set_margin_top(add_heading, 8);
    gtk_box_append(GTK_BOX(self->box), add_heading);
    GtkStringList *titles = gtk_string_list_new(NULL);
    for (guint i = 0; i < self->forms->len; i++)
        gtk_string_list_append(titles, form_title(&g_array_index(self->forms, Form, i)));
    self->kind_dropdown = gtk_drop_down_new(G_LIST_MODEL(titles), NULL);
    g_signal_connect(self->kind_dropdown, "notify::selected", G_CALLBACK(on_kind_changed), self);
    gtk_box_append(GTK_BOX(self->box), self->kind_dropdown);
    self->form_grid = gtk_grid_new();
    gtk_grid_set_row_spacing(GTK_GRID(self->form_grid), 4);
    gtk_grid_set_column_spacing(GTK_GRID(self->form_grid), 8);
    gtk_box_append(GTK_BOX(self->box), self->form_grid);
    self->form_error = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(self->form_error), 0);
    gtk_label_set_wrap(GTK_LABEL(self->form_error), TRUE);
    gtk_widget_add_css_class(self->form_error, "error");
    gtk_widget_set_visible(self->form_error, FALSE);
    gtk_box_append(GTK_BOX(self->box), self->form_error);
    GtkWidget *add = gtk_button_new_with_mnemonic(_("_Add"));
    gtk_widget_add_css_class(add, "suggested-action");
    gtk_widget_set_halign(add, GTK_ALIGN_END);
    g_signal_connect(add, "clicked", G_CALLBACK(on_add_clicked), self);
    gtk_box_append(GTK_BOX(self->box), add);
    /* Under the form, so that an error does not move the form the user is filling. */
    gtk_box_append(GTK_BOX(self->box), self->error_label);
    GtkWidget *hint = gtk_label_new(_("Every edit is checked at once: the degrees of freedom "
                                      "above, errors at the element. Ctrl+Z undoes it."));
    gtk_label_set_wrap(GTK_LABEL(hint), TRUE);
    gtk_label_set_xalign(GTK_LABEL(hint), 0);
    gtk_widget_add_css_class(hint, "dim-label");
    gtk_widget_add_css_class(hint, "caption");
    gtk_box_append(GTK_BOX(self->box), hint);
    show_form(self);
}

static void esl_model_editor_dispose(GObject *object)
{
    EslModelEditor *self = ESL_MODEL_EDITOR(object);
    esl_template_unparent_children(GTK_WIDGET(object));
    g_clear_pointer(&self->fields, g_ptr_array_unref);
    g_clear_pointer(&self->strings, g_ptr_array_unref);
    if (self->forms)
        g_clear_pointer(&self->forms, g_array_unref);
    g_clear_pointer(&self->bodies, g_strfreev);
    g_clear_pointer(&self->joints, g_strfreev);
    G_OBJECT_CLASS(esl_model_editor_parent_class)->dispose(object);
}

static void esl_model_editor_class_init(EslModelEditorClass *klass)
{
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->dispose = esl_model_editor_dispose;
    gtk_widget_class_set_layout_manager_type(widget_class, GTK_TYPE_BIN_LAYOUT);
    gtk_widget_class_set_css_name(widget_class, "eslmodeleditor");
}
