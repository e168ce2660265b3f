/* The variable browser; see esl-variable-browser.h. */
#include "esl-variable-browser.h"

#include <glib/gi18n.h>

#include "esl-variables.h"
#include "mbs_force.h"

/* ---- a node of the tree: an element (with children) or a variable (with a name) -------- */

#define ESL_TYPE_VARIABLE_NODE (esl_variable_node_get_type())
G_DECLARE_FINAL_TYPE(EslVariableNode, esl_variable_node, ESL, VARIABLE_NODE, GObject)

struct _EslVariableNode {
    GObject parent_instance;
    char *label;      /* what the row shows */
    char *name;       /* the variable's name (esl_variable_name), NULL for an element */
    char *detail;     /* unit and description of a variable */
    GListStore *children; /* EslVariableNode, NULL for a variable */
    gboolean checked; /* plotted in the current plot */
};

G_DEFINE_FINAL_TYPE(EslVariableNode, esl_variable_node, G_TYPE_OBJECT)

enum { NODE_PROP_CHECKED = 1, NODE_N_PROPS };
static GParamSpec *node_props[NODE_N_PROPS];

static void node_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
    if (id == NODE_PROP_CHECKED)
        g_value_set_boolean(value, ESL_VARIABLE_NODE(object)->checked);
    else
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
}

static void node_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
    EslVariableNode *node = ESL_VARIABLE_NODE(object);
    if (id != NODE_PROP_CHECKED) {
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
        return;
    }
    if (node->checked != g_value_get_boolean(value)) {
        node->checked = g_value_get_boolean(value);
        g_object_notify_by_pspec(object, pspec);
    }
}

static void esl_variable_node_finalize(GObject *object)
{
    EslVariableNode *node = ESL_VARIABLE_NODE(object);
    g_free(node->label);
    g_free(node->name);
    g_free(node->detail);
    g_clear_object(&node->children);
    G_OBJECT_CLASS(esl_variable_node_parent_class)->finalize(object);
}

static void esl_variable_node_class_init(EslVariableNodeClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    object_class->finalize = esl_variable_node_finalize;
    object_class->get_property = node_get_property;
    object_class->set_property = node_set_property;
    node_props[NODE_PROP_CHECKED] =
        g_param_spec_boolean("checked", NULL, NULL, FALSE, G_PARAM_READWRITE);
    g_object_class_install_properties(object_class, NODE_N_PROPS, node_props);
}

static void esl_variable_node_init(EslVariableNode *node)
{
    (void)node;
}

static EslVariableNode *node_new(const char *label, const char *name, const char *detail)
{
    EslVariableNode *node = g_object_new(ESL_TYPE_VARIABLE_NODE, NULL);
    node->label = g_strdup(label);
    node->name = g_strdup(name);
    node->detail = g_strdup(detail);
    if (!name)
        node->children = g_list_store_new(ESL_TYPE_VARIABLE_NODE);
    return node;
}

/* ---- the browser ----------------------------------------------------------------------- */

struct _EslVariableBrowser {
    GtkWindow parent_instance;
    GtkWidget *plot_choice, *add_plot_button, *remove_plot_button, *search_entry, *list_view;
    GtkWidget *note_label;
    EslPlotBoard *board;
    GListStore *tree;      /* the whole tree: EslVariableNode groups */
    GPtrArray *variables;  /* every variable node of the tree (borrowed from it) */
    gboolean syncing;      /* checks are being set from the board: no "variable-toggled" */
    gulong plots_changed_id;
    guint resync_id;       /* idle source that re-reads the checks after a toggle */
    int plots_listed;      /* plots in the chooser's list (-1: none yet) */
};

G_DEFINE_FINAL_TYPE(EslVariableBrowser, esl_variable_browser, GTK_TYPE_WINDOW)

enum { SIGNAL_VARIABLE_TOGGLED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void sync_from_board(EslVariableBrowser *self);

static void resync(gpointer data)
{
    EslVariableBrowser *self = data;
    self->resync_id = 0;
    sync_from_board(self);
}

static void on_node_checked(EslVariableNode *node, GParamSpec *pspec, EslVariableBrowser *self)
{
    (void)pspec;
    if (self->syncing)
        return;
    g_signal_emit(self, signals[SIGNAL_VARIABLE_TOGGLED], 0, node->name, node->checked);
    /* a variable that could not be plotted (no run shown) does not stay checked: read the
     * board again once the toggle is over (not inside the check's own notification) */
    if (!self->resync_id)
        self->resync_id = g_idle_add_once(resync, self);
}

static void add_variable_node(EslVariableBrowser *self, GListStore *parent, const MbsModel *m,
                              const EslVariableKind *kind, int index)
{
    EslVariable v = {kind, index};
    g_autofree char *name = esl_variable_name(m, &v);
    g_autofree char *detail = kind->unit[0] ? g_strdup_printf("%s (%s)", _(kind->description),
                                                              kind->unit)
                                            : g_strdup(_(kind->description));
    g_autoptr(EslVariableNode) node = node_new(kind->suffix, name, detail);
    g_signal_connect(node, "notify::checked", G_CALLBACK(on_node_checked), self);
    g_ptr_array_add(self->variables, node);
    g_list_store_append(parent, node);
}

/* Every variable of element `element` and index `index` that exists, in table order. */
static void add_variables_of(EslVariableBrowser *self, GListStore *parent, const MbsModel *m,
                             EslVariableElement element, int index)
{
    for (int k = 0; k < esl_variable_kind_count; k++)
        if (esl_variable_kinds[k].element == element &&
            esl_variable_applies(m, &esl_variable_kinds[k], index))
            add_variable_node(self, parent, m, &esl_variable_kinds[k], index);
}

static void build_tree(EslVariableBrowser *self, const MbsModel *m)
{
    g_list_store_remove_all(self->tree);
    g_ptr_array_set_size(self->variables, 0);
    if (!m)
        return;
    g_autoptr(EslVariableNode) bodies = node_new(_("Bodies"), NULL, NULL);
    for (int b = 0; b < m->nbodies; b++) {
        if (b == m->ground)
            continue;
        g_autoptr(EslVariableNode) body = node_new(m->bodies[b].name, NULL, _("body"));
        add_variables_of(self, body->children, m, ESL_VARIABLE_BODY, b);
        for (int p = 0; p < m->npoints; p++) {
            if (m->points[p].body != b)
                continue;
            g_autoptr(EslVariableNode) point = node_new(m->points[p].name, NULL, _("point"));
            add_variables_of(self, point->children, m, ESL_VARIABLE_POINT, p);
            g_list_store_append(body->children, point);
        }
        g_list_store_append(bodies->children, body);
    }
    g_autoptr(EslVariableNode) joints = node_new(_("Joints"), NULL, NULL);
    for (int j = 0; j < m->njoints; j++) {
        g_autofree char *detail = g_strdup_printf(_("joint (%s)"),
                                                  mbs_joint_type_name(m->joints[j].type));
        g_autoptr(EslVariableNode) joint = node_new(m->joints[j].name, NULL, detail);
        add_variables_of(self, joint->children, m, ESL_VARIABLE_JOINT, j);
        g_list_store_append(joints->children, joint);
    }
    g_list_store_append(self->tree, bodies);
    g_list_store_append(self->tree, joints);
    /* force elements with variables of their own: wheels, drivers (vehicles, issue 24) */
    g_autoptr(EslVariableNode) forces = node_new(_("Forces"), NULL, NULL);
    for (int f = 0; f < m->nforces; f++) {
        const MbsForceClass *c = mbs_force_class(m->forces[f].type);
        g_autoptr(EslVariableNode) force = node_new(m->forces[f].name, NULL,
                                                    c ? _(c->description) : NULL);
        add_variables_of(self, force->children, m, ESL_VARIABLE_FORCE, f);
        if (g_list_model_get_n_items(G_LIST_MODEL(force->children)) > 0)
            g_list_store_append(forces->children, force);
    }
    if (g_list_model_get_n_items(G_LIST_MODEL(forces->children)) > 0)
        g_list_store_append(self->tree, forces);
}

/* A copy of the nodes under store whose variable names contain every word of the search
 * (case-folded), with the elements that lead to them; NULL when none does. */
static GListStore *filter_tree(GListStore *store, char **words)
{
    GListStore *out = g_list_store_new(ESL_TYPE_VARIABLE_NODE);
    guint n = g_list_model_get_n_items(G_LIST_MODEL(store));
    for (guint i = 0; i < n; i++) {
        g_autoptr(EslVariableNode) node = g_list_model_get_item(G_LIST_MODEL(store), i);
        if (node->name) {
            g_autofree char *folded = g_utf8_casefold(node->name, -1);
            gboolean all = TRUE;
            for (int w = 0; words[w] && all; w++)
                all = strstr(folded, words[w]) != NULL;
            if (all)
                g_list_store_append(out, node);
            continue;
        }
        g_autoptr(GListStore) children = filter_tree(node->children, words);
        if (!children)
            continue;
        EslVariableNode *copy = node_new(node->label, NULL, node->detail);
        g_set_object(&copy->children, children);
        g_list_store_append(out, copy);
        g_object_unref(copy);
    }
    if (g_list_model_get_n_items(G_LIST_MODEL(out)) == 0)
        g_clear_object(&out);
    return out;
}

static GListModel *create_children(gpointer item, gpointer data)
{
    (void)data;
    EslVariableNode *node = item;
    return node->children ? g_object_ref(G_LIST_MODEL(node->children)) : NULL;
}

/* Show the tree, or with a search its matching part, expanded. */
static void show_tree(EslVariableBrowser *self)
{
    const char *text = gtk_editable_get_text(GTK_EDITABLE(self->search_entry));
    g_autofree char *folded = g_utf8_casefold(text, -1);
    g_auto(GStrv) words = g_strsplit_set(g_strstrip(folded), " ", -1);
    gboolean searching = words[0] && words[0][0];
    GListStore *root = searching ? filter_tree(self->tree, words) : g_object_ref(self->tree);
    if (!root)
        root = g_list_store_new(ESL_TYPE_VARIABLE_NODE);
    GtkTreeListModel *tree = gtk_tree_list_model_new(G_LIST_MODEL(root), FALSE, searching,
                                                     create_children, NULL, NULL);
    GtkSelectionModel *selection = GTK_SELECTION_MODEL(gtk_no_selection_new(G_LIST_MODEL(tree)));
    gtk_list_view_set_model(GTK_LIST_VIEW(self->list_view), selection);
    g_object_unref(selection);
}

static void on_search_changed(GtkSearchEntry *entry, EslVariableBrowser *self)
{
    (void)entry;
    show_tree(self);
}

/* The checks and the plot chooser as the board is now. */
static void sync_from_board(EslVariableBrowser *self)
{
    self->syncing = TRUE;
    for (guint i = 0; i < self->variables->len; i++) {
        EslVariableNode *node = self->variables->pdata[i];
        g_object_set(node, "checked", esl_plot_board_has_variable(self->board, node->name),
                     NULL);
    }
    int n = esl_plot_board_get_n_plots(self->board);
    if (n != self->plots_listed) {
        g_autoptr(GtkStringList) names = gtk_string_list_new(NULL);
        for (int i = 0; i < n; i++) {
            /* the plot's own title without the "current" mark */
            g_autofree char *title = i == 0 ? g_strdup(_("Variables"))
                                            : g_strdup_printf(_("Variables %d"), i + 1);
            gtk_string_list_append(names, title);
        }
        if (n == 0)
            gtk_string_list_append(names, _("Variables (new)"));
        gtk_drop_down_set_model(GTK_DROP_DOWN(self->plot_choice), G_LIST_MODEL(names));
        self->plots_listed = n;
    }
    int current = esl_plot_board_get_current_plot(self->board);
    gtk_drop_down_set_selected(GTK_DROP_DOWN(self->plot_choice), current >= 0 ? (guint)current : 0);
    gtk_widget_set_sensitive(self->remove_plot_button, n > 0);
    gtk_widget_set_sensitive(self->add_plot_button, n < ESL_PLOT_BOARD_MAX_VARIABLE_PLOTS);
    self->syncing = FALSE;
}

static void on_plot_chosen(GtkDropDown *drop, GParamSpec *pspec, EslVariableBrowser *self)
{
    (void)pspec;
    guint chosen = gtk_drop_down_get_selected(drop);
    if (self->syncing || !self->board || chosen == GTK_INVALID_LIST_POSITION ||
        (int)chosen >= esl_plot_board_get_n_plots(self->board))
        return;
    esl_plot_board_set_current_plot(self->board, (int)chosen);
}

static void on_add_plot_clicked(GtkButton *button, EslVariableBrowser *self)
{
    (void)button;
    esl_plot_board_add_plot(self->board);
}

static void on_remove_plot_clicked(GtkButton *button, EslVariableBrowser *self)
{
    (void)button;
    int current = esl_plot_board_get_current_plot(self->board);
    if (current >= 0)
        esl_plot_board_remove_plot(self->board, current);
}

/* Rows: an expander with a check (variables only), the label and the detail. */
static void setup_row(GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
    (void)factory;
    (void)data;
    GtkWidget *expander = gtk_tree_expander_new();
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    GtkWidget *check = gtk_check_button_new();
    GtkWidget *label = gtk_label_new(NULL);
    GtkWidget *detail = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_label_set_xalign(GTK_LABEL(detail), 0);
    gtk_label_set_ellipsize(GTK_LABEL(detail), PANGO_ELLIPSIZE_END);
    gtk_widget_set_hexpand(detail, TRUE);
    gtk_widget_add_css_class(detail, "dim-label");
    gtk_box_append(GTK_BOX(box), check);
    gtk_box_append(GTK_BOX(box), label);
    gtk_box_append(GTK_BOX(box), detail);
    gtk_tree_expander_set_child(GTK_TREE_EXPANDER(expander), box);
    gtk_list_item_set_child(item, expander);
    gtk_list_item_set_activatable(item, FALSE);
}

static void bind_row(GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
    (void)factory;
    (void)data;
    GtkTreeListRow *row = gtk_list_item_get_item(item);
    EslVariableNode *node = gtk_tree_list_row_get_item(row);
    GtkWidget *expander = gtk_list_item_get_child(item);
    GtkWidget *box = gtk_tree_expander_get_child(GTK_TREE_EXPANDER(expander));
    GtkWidget *check = gtk_widget_get_first_child(box);
    GtkWidget *label = gtk_widget_get_next_sibling(check);
    GtkWidget *detail = gtk_widget_get_next_sibling(label);
    gtk_tree_expander_set_list_row(GTK_TREE_EXPANDER(expander), row);
    gtk_label_set_text(GTK_LABEL(label), node->label);
    gtk_label_set_text(GTK_LABEL(detail), node->detail ? node->detail : "");
    gtk_widget_set_visible(check, node->name != NULL);
    if (node->name) {
        gtk_widget_set_tooltip_text(check, node->name);
        GBinding *binding = g_object_bind_property(node, "checked", check, "active",
                                                   G_BINDING_BIDIRECTIONAL |
                                                       G_BINDING_SYNC_CREATE);
        g_object_set_data(G_OBJECT(item), "binding", binding);
    }
    g_object_unref(node);
}

static void unbind_row(GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
    (void)factory;
    (void)data;
    GBinding *binding = g_object_get_data(G_OBJECT(item), "binding");
    if (binding)
        g_binding_unbind(binding);
    g_object_set_data(G_OBJECT(item), "binding", NULL);
}

EslVariableBrowser *esl_variable_browser_new(GtkWindow *parent, EslPlotBoard *board)
{
    EslVariableBrowser *self = g_object_new(ESL_TYPE_VARIABLE_BROWSER, "transient-for", parent,
                                            NULL);
    self->board = board;
    self->plots_changed_id = g_signal_connect_swapped(board, "plots-changed",
                                                      G_CALLBACK(sync_from_board), self);
    sync_from_board(self);
    return self;
}

void esl_variable_browser_set_model(EslVariableBrowser *self, const MbsModel *m)
{
    build_tree(self, m);
    show_tree(self);
    sync_from_board(self);
}

GtkWidget *esl_variable_browser_get_search_entry(EslVariableBrowser *self)
{
    return self->search_entry;
}

guint esl_variable_browser_count_rows(EslVariableBrowser *self)
{
    GtkSelectionModel *model = gtk_list_view_get_model(GTK_LIST_VIEW(self->list_view));
    return model ? g_list_model_get_n_items(G_LIST_MODEL(model)) : 0;
}

static void esl_variable_browser_dispose(GObject *object)
{
    EslVariableBrowser *self = ESL_VARIABLE_BROWSER(object);
    if (self->board && self->plots_changed_id)
        g_signal_handler_disconnect(self->board, self->plots_changed_id);
    self->plots_changed_id = 0;
    self->board = NULL;
    g_clear_handle_id(&self->resync_id, g_source_remove);
    gtk_widget_dispose_template(GTK_WIDGET(object), ESL_TYPE_VARIABLE_BROWSER);
    G_OBJECT_CLASS(esl_variable_browser_parent_class)->dispose(object);
}

static void esl_variable_browser_finalize(GObject *object)
{
    EslVariableBrowser *self = ESL_VARIABLE_BROWSER(object);
    g_clear_pointer(&self->variables, g_ptr_array_unref);
    g_clear_object(&self->tree);
    G_OBJECT_CLASS(esl_variable_browser_parent_class)->finalize(object);
}

static void esl_variable_browser_class_init(EslVariableBrowserClass *klass)
{
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->dispose = esl_variable_browser_dispose;
    G_OBJECT_CLASS(klass)->finalize = esl_variable_browser_finalize;
    gtk_widget_class_set_template_from_resource(
        widget_class, "/org/eslabon/Eslabon/ui/esl-variable-browser.ui");
    gtk_widget_class_bind_template_child(widget_class, EslVariableBrowser, plot_choice);
    gtk_widget_class_bind_template_child(widget_class, EslVariableBrowser, add_plot_button);
    gtk_widget_class_bind_template_child(widget_class, EslVariableBrowser, remove_plot_button);
    gtk_widget_class_bind_template_child(widget_class, EslVariableBrowser, search_entry);
    gtk_widget_class_bind_template_child(widget_class, EslVariableBrowser, list_view);
    gtk_widget_class_bind_template_child(widget_class, EslVariableBrowser, note_label);
    gtk_widget_class_bind_template_callback(widget_class, on_search_changed);
    gtk_widget_class_bind_template_callback(widget_class, on_plot_chosen);
    gtk_widget_class_bind_template_callback(widget_class, on_add_plot_clicked);
    gtk_widget_class_bind_template_callback(widget_class, on_remove_plot_clicked);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
    signals[SIGNAL_VARIABLE_TOGGLED] =
        g_signal_new("variable-toggled", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
                     NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_BOOLEAN);
}

static void esl_variable_browser_init(EslVariableBrowser *self)
{
    gtk_widget_init_template(GTK_WIDGET(self));
    self->tree = g_list_store_new(ESL_TYPE_VARIABLE_NODE);
    self->variables = g_ptr_array_new();
    self->plots_listed = -1;
    GtkListItemFactory *factory = gtk_signal_list_item_factory_new();
    g_signal_connect(factory, "setup", G_CALLBACK(setup_row), NULL);
    g_signal_connect(factory, "bind", G_CALLBACK(bind_row), NULL);
    g_signal_connect(factory, "unbind", G_CALLBACK(unbind_row), NULL);
    gtk_list_view_set_factory(GTK_LIST_VIEW(self->list_view), factory);
    g_object_unref(factory);
    show_tree(self);
}
