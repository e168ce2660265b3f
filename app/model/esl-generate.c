#include "esl-generate.h"

/* Node (i, j) of the lattice is at y = j, z = -i (metres); row i = 0 is fixed to the ground.
 * Bars: v_i_j from node (i, j) down to (i+1, j), h_i_j from (i, j) right to (i, j+1), i >= 1.
 * At every node the bar ends meeting there are pinned to one hub: the ground on the top row,
 * elsewhere the vertical bar coming from above. Joints are named after the node and the side
 * the joined bar leaves towards: n_i_j_down, n_i_j_left, n_i_j_right. */

static void add_item(GPtrArray *items, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void add_item(GPtrArray *items, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_ptr_array_add(items, g_strdup_vprintf(fmt, ap));
    va_end(ap);
}

/* "key": [\n    item,\n    item\n  ] */
static void append_list(GString *out, const char *key, GPtrArray *items, gboolean last)
{
    g_string_append_printf(out, "  \"%s\": [\n", key);
    for (guint i = 0; i < items->len; ++i)
        g_string_append_printf(out, "    %s%s\n", (char *)items->pdata[i],
                               i + 1 < items->len ? "," : "");
    g_string_append_printf(out, "  ]%s\n", last ? "" : ",");
}

static void add_bar(GPtrArray *bodies, const char *name, int i1, int j1, int i2, int j2)
{
    add_item(bodies,
             "{\"name\": \"%s\", \"mass\": 1, \"inertia\": {\"slender_rod\": [\"n_%d_%d\", "
             "\"n_%d_%d\"]}, \"points\": {\"n_%d_%d\": [0, %d, %d], \"n_%d_%d\": [0, %d, %d]}}",
             name, i1, j1, i2, j2, i1, j1, j1, -i1, i2, j2, j2, -i2);
}

static void add_pin(GPtrArray *joints, int i, int j, const char *side, const char *hub,
                    const char *bar)
{
    add_item(joints,
             "{\"name\": \"n_%d_%d_%s\", \"type\": \"revolute\", \"bodies\": [\"%s\", \"%s\"], "
             "\"point\": \"n_%d_%d\", \"axis\": \"x\"}",
             i, j, side, hub, bar, i, j);
}

char *esl_generate_multi_four_bar(int ny, int nz)
{
    if (ny < 1 || nz < 1 || ny > ESL_GENERATE_MAX_CELLS || nz > ESL_GENERATE_MAX_CELLS)
        return NULL;
    GPtrArray *bodies = g_ptr_array_new_with_free_func(g_free);
    GPtrArray *joints = g_ptr_array_new_with_free_func(g_free);
    GPtrArray *initial = g_ptr_array_new_with_free_func(g_free);
    char a[32], b[32];

    GString *ground = g_string_new("{\"name\": \"ground\", \"ground\": true, \"points\": {");
    for (int j = 0; j <= ny; ++j)
        g_string_append_printf(ground, "%s\"n_0_%d\": [0, %d, 0]", j ? ", " : "", j, j);
    g_string_append(ground, "}}");
    g_ptr_array_add(bodies, g_string_free(ground, FALSE));
    for (int i = 0; i < nz; ++i) {
        for (int j = 0; j <= ny; ++j) {
            g_snprintf(a, sizeof a, "v_%d_%d", i, j);
            add_bar(bodies, a, i, j, i + 1, j);
        }
        for (int j = 0; j < ny; ++j) {
            g_snprintf(a, sizeof a, "h_%d_%d", i + 1, j);
            add_bar(bodies, a, i + 1, j, i + 1, j + 1);
        }
    }

    for (int i = 0; i <= nz; ++i) {
        for (int j = 0; j <= ny; ++j) {
            if (i == 0) {
                g_snprintf(b, sizeof b, "v_0_%d", j);
                add_pin(joints, 0, j, "down", "ground", b);
                continue;
            }
            char hub[32];
            g_snprintf(hub, sizeof hub, "v_%d_%d", i - 1, j);
            if (j > 0) {
                g_snprintf(b, sizeof b, "h_%d_%d", i, j - 1);
                add_pin(joints, i, j, "left", hub, b);
            }
            if (j < ny) {
                g_snprintf(b, sizeof b, "h_%d_%d", i, j);
                add_pin(joints, i, j, "right", hub, b);
            }
            if (i < nz) {
                g_snprintf(b, sizeof b, "v_%d_%d", i, j);
                add_pin(joints, i, j, "down", hub, b);
            }
        }
    }

    /* Uniform shear: the top-left bar turns at pi/3 rad/s and every left vertical bar turns
     * with the one above it (zero relative velocity), which fixes all nz degrees of freedom. */
    add_item(initial, "{\"joint\": \"n_0_0_down\", \"velocity\": \"pi/3\"}");
    for (int i = 1; i < nz; ++i)
        add_item(initial, "{\"joint\": \"n_%d_0_down\", \"velocity\": 0}", i);

    GString *out = g_string_new("{\n");
    g_string_append(out, "  \"format\": \"eslabon-model\",\n  \"version\": 1,\n");
    g_string_append_printf(out, "  \"name\": \"multi-four-bar-%dx%d\",\n", ny, nz);
    g_string_append_printf(
        out,
        "  \"description\": \"Multiple four-bar linkage of paper 000 (Callejo et al. 2014): "
        "%d x %d quadrilaterals in the YZ plane, %d moving slender bars of 1 m and 1 kg hanging "
        "from %d ground joints, all joints revolute about X, gravity -Z. It has %d degrees of "
        "freedom; it starts in the drawn square lattice with a uniform shear velocity: every "
        "left vertical bar turns at pi/3 rad/s. Written by eslabon-cli generate multi-four-bar "
        "--ny %d --nz %d.\",\n",
        ny, nz, (2 * ny + 1) * nz, ny + 1, nz, ny, nz);
    g_string_append(out, "  \"gravity\": [0, 0, -9.81],\n");
    append_list(out, "bodies", bodies, FALSE);
    append_list(out, "joints", joints, FALSE);
    append_list(out, "initial", initial, TRUE);
    g_string_append(out, "}\n");

    g_ptr_array_free(bodies, TRUE);
    g_ptr_array_free(joints, TRUE);
    g_ptr_array_free(initial, TRUE);
    return g_string_free(out, FALSE);
}
