/* replay_compute.c - where a replayed job's compute time per iteration
 * comes from: the catalog's measured time for the replay's GPU, or MDOT
 * (an inline graph model always; every catalog model under sim.compute =
 * "mdot"), through one traces/mdot_compute.h object per replay, made at the
 * first job that needs it, and under "mdot" a structured job's stage times
 * (docs/mdot.md §5).  Not here: the job's other
 * figures (replay.c resolve_job).
 */
#include "replay-private.h"

#include <math.h>

#include "base/ccs.h"
#include "traces/mdot_compute.h"

mdot_compute *replay__mdot(replay *r, GError **error)
{
    if (r->mc)
        return r->mc;
    mdot_compute_options o = {r->cfg->sim.gpu, r->cfg->sim.mdot_weights,
                              r->cfg->sim.graph_library};
    r->mc = mdot_compute_new(&o, error);
    return r->mc;
}

bool replay__compute_s(replay *r, const catalog_model *m, catalog_gpu gpu, double *out,
                       GError **error)
{
    if (!m->graph_path && r->cfg->sim.compute != CONFIG_COMPUTE_MDOT) {
        *out = m->compute_s[gpu];
        return true;
    }
    mdot_compute *mc = replay__mdot(r, error);
    if (!mc)
        return false;
    if (m->graph_path) {
        *out = mdot_compute_graph_s(mc, m->graph_path, m->graph_batch, error);
        return *out >= 0;
    }
    bool from_catalog = false;
    *out = mdot_compute_catalog_s(mc, m, gpu, &from_catalog, error);
    return *out >= 0;
}

bool replay__mdot_structure(replay *r, const catalog_model *m, job_structure *s,
                            double micro_batch, GError **error)
{
    if (r->cfg->sim.compute != CONFIG_COMPUTE_MDOT)
        return true;
    mdot_compute *mc = replay__mdot(r, error);
    bool kept = false;
    if (!mc || !mdot_compute_structure(mc, m->name, micro_batch, s, &kept, error)) {
        g_prefix_error(error, "model %s: ", m->name);
        return false;
    }
    return true;
}

cJSON *replay__compute_json(const replay *r)
{
    cJSON *o = r->mc ? mdot_compute_to_json(r->mc) : cJSON_CreateObject();
    cJSON_AddStringToObject(o, "source", r->cfg->sim.compute == CONFIG_COMPUTE_MDOT ? "mdot"
                                         : r->mc ? "catalog+graphs" : "catalog");
    return o;
}

const GPtrArray *replay_compute_warnings(const replay *r)
{
    return r->mc ? mdot_compute_warnings(r->mc) : NULL;
}

char *replay_compute_unused(const replay *r)
{
    const config *c = r->cfg;
    bool mdot = c->sim.compute == CONFIG_COMPUTE_MDOT;
    if (c->sim.mdot_weights && !r->mc)
        return g_strdup("--mdot-weights (sim.mdot_weights) changed nothing: no job took its "
                        "compute time from MDOT (that needs --compute mdot or a graph model)");
    if (c->sim.graph_library && !(mdot && r->mc))
        return g_strdup("--graph-library (sim.graph_library) changed nothing: no catalog model "
                        "took its compute time from MDOT (that needs --compute mdot)");
    return NULL;
}
