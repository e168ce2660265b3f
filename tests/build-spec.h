/* The a{sv} of a model edit (app/esl-model-build.h), written in tests as a user's form fills
 * it: dict("name", g_variant_new_string("crank"), ..., NULL). */
#ifndef ESL_TEST_BUILD_SPEC_H
#define ESL_TEST_BUILD_SPEC_H

#include <glib.h>
#include <stdarg.h>

/* Floating a{sv} of the key, value pairs up to NULL. */
static inline GVariant *dict(const char *first, ...)
{
    GVariantBuilder b;
    g_variant_builder_init(&b, G_VARIANT_TYPE_VARDICT);
    va_list ap;
    va_start(ap, first);
    for (const char *key = first; key; key = va_arg(ap, const char *))
        g_variant_builder_add(&b, "{sv}", key, va_arg(ap, GVariant *));
    va_end(ap);
    return g_variant_builder_end(&b);
}

static inline GVariant *doubles(int n, const double *x)
{
    return g_variant_new_fixed_array(G_VARIANT_TYPE_DOUBLE, x, (gsize)n, sizeof(double));
}

static inline GVariant *pair(const char *a, const char *b)
{
    const char *v[2] = {a, b};
    return g_variant_new_strv(v, 2);
}

/* The first widget of type under widget (itself included), depth first. */
#ifdef GTK_MAJOR_VERSION
static inline GtkWidget *find_widget_of_type(GtkWidget *widget, GType type)
{
    if (G_TYPE_CHECK_INSTANCE_TYPE(widget, type))
        return widget;
    for (GtkWidget *c = gtk_widget_get_first_child(widget); c;
         c = gtk_widget_get_next_sibling(c)) {
        GtkWidget *found = find_widget_of_type(c, type);
        if (found)
            return found;
    }
    return NULL;
}
#endif

#endif
