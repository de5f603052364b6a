/* mdot_range.c - where a graph lies outside what an MDOT model was trained
 * on: batch, operator count, forward FLOPs, operator types no training row
 * used (docs/mdot.md §2).  Not here: the prediction itself (mdot_infer.c).
 *
 * Outside the training range the prediction still follows its
 * construction (linear in the batch, a sum over operators), but nothing
 * measured supports the learned corrections there; an unseen type's
 * encoding is the neutral zero vector.  The warnings say so, each naming
 * the value and the range.
 */
#include "mdot.h"

#include <math.h>
#include <stdbool.h>

#include "mdot-private.h"

/* One warning when v is outside r; counts print whole, FLOPs with 4
 * significant digits. */
static void check(GPtrArray *out, const char *what, double v, const double r[2], bool count,
                  const char *name, const char *consequence)
{
    if (v >= r[0] && v <= r[1])
        return;
    const char *f = count ? "%s: %s %.0f is outside the training range [%.0f, %.0f]%s"
                          : "%s: %s %.4g is outside the training range [%.4g, %.4g]%s";
    g_ptr_array_add(out, g_strdup_printf(f, name, what, v, r[0], r[1], consequence));
}

/* The types of g with no training operator, with their counts in g. */
static char *unseen_types(const mdot_model *m, const mdot_graph *g)
{
    g_autoptr(GHashTable) count = g_hash_table_new(g_str_hash, g_str_equal);
    g_autoptr(GPtrArray) order = g_ptr_array_new();
    for (size_t v = 0; v < g->n; v++) {
        const char *t = g->ops[v].type;
        size_t i = GPOINTER_TO_SIZE(g_hash_table_lookup(m->type_index, t));
        if (i == 0 || m->range.type_ops[i - 1] > 0)
            continue; /* unknown types are refused at prediction; trained ones are fine */
        gpointer c = g_hash_table_lookup(count, t);
        if (!c)
            g_ptr_array_add(order, (gpointer)t);
        g_hash_table_insert(count, (gpointer)t, GSIZE_TO_POINTER(GPOINTER_TO_SIZE(c) + 1));
    }
    if (order->len == 0)
        return NULL;
    GString *s = g_string_new(NULL);
    for (size_t k = 0; k < order->len; k++)
        g_string_append_printf(s, "%s%s (%zu)", k ? ", " : "", (char *)order->pdata[k],
                               GPOINTER_TO_SIZE(g_hash_table_lookup(count, order->pdata[k])));
    return g_string_free(s, FALSE);
}

GPtrArray *mdot_model_range_warnings(const mdot_model *m, const mdot_graph *g, int64_t batch)
{
    GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
    double flops = mdot_graph_flops(g) * (double)batch / (double)g->batch;
    check(out, "batch", (double)batch, m->range.batch, true, g->name,
          " (the prediction is linear in the batch there)");
    check(out, "operator count", (double)g->n, m->range.ops, true, g->name, "");
    check(out, "forward FLOPs per iteration", flops, m->range.flops, false, g->name, "");
    g_autofree char *unseen = unseen_types(m, g);
    if (unseen)
        g_ptr_array_add(out, g_strdup_printf("%s: operator types no training row of %s used "
                                             "(their type encoding is neutral): %s",
                                             g->name, m->device, unseen));
    return out;
}
