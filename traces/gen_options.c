/* gen_options.c - the generator's options and entry point: checks, topology,
 * the steps in order.  Not here: the draws (gen.c, gen_place.c, gen_rows.c).
 */
#include "gen-private.h"

#include <math.h>
#include <string.h>

#include "base/ccs.h"
#include "base/input.h"
#include "base/limits.h"

trace_gen_options trace_gen_options_default(void)
{
    trace_gen_options o = {.seed = 1, .days = 16, .scale = 1, .topo_path = NULL, .gzip = false,
                           .gpu_run_tilt = 0.7, .gpu_cap = 2000,
                           .topo_aware = false};
    return o;
}

bool trace_gen_options_check(const trace_gen_options *o, GError **error)
{
    if (!ccs_limit_check(CCS_LIMIT_GEN_DAYS, o->days, "gen-trace: days", error) ||
        !ccs_limit_check(CCS_LIMIT_GEN_SCALE, o->scale, "gen-trace: scale", error) ||
        !ccs_limit_check(CCS_LIMIT_GEN_TILT, o->gpu_run_tilt, "gen-trace: gpu_run_tilt", error) ||
        !ccs_limit_check(CCS_LIMIT_JOB_GPUS, o->gpu_cap, "gen-trace: gpu_cap", error))
        return false;
    if (lround(GEN_JOBS * o->scale * o->days / 16.0) < 1) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "gen-trace: days x scale too small for a single job");
        return false;
    }
    return true;
}

bool trace__gen_tables(trace__tables *out, const trace_gen_options *opts, GError **error)
{
    trace_gen_options o = opts ? *opts : trace_gen_options_default();
    memset(out, 0, sizeof *out);
    if (!trace_gen_options_check(&o, error))
        return false;
    out->jobs = g_ptr_array_new_with_free_func((GDestroyNotify)trace__row_free);
    out->workers = g_ptr_array_new_with_free_func((GDestroyNotify)trace__row_free);
    out->topo = g_ptr_array_new_with_free_func((GDestroyNotify)trace__row_free);
    if (o.topo_path) {
        trace__tables tt;
        g_autoptr(GBytes) b = ccs_input_read(o.topo_path, true, error);
        if (!b)
            return false;
        size_t len;
        const char *s = g_bytes_get_data(b, &len);
        static const char job_hdr[] = "job_name,model,status,gmt_job_running,gmt_job_finished\n";
        static const char worker_hdr[] = "job_name,host_ip,RES\n";
        if (!trace__tables_parse(&tt, job_hdr, strlen(job_hdr), "(none)", worker_hdr,
                                 strlen(worker_hdr), "(none)", s, len, o.topo_path, false, error)) {
            trace__tables_clear(&tt);
            return false;
        }
        g_ptr_array_unref(out->topo);
        out->topo = g_ptr_array_ref(tt.topo);
        trace__tables_clear(&tt);
        if (out->topo->len == 0) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: no hosts", o.topo_path);
            return false;
        }
    } else {
        gen__synth_topology(out->topo);
    }
    gen G = {.o = o, .f = o.scale * o.days / 16.0};
    G.r = g_rand_new_with_seed(o.seed);
    /* T0 = 2023-07-15 00:00 UTC+8 */
    G.t0 = trace__days_from_civil(2023, 7, 15) * 86400 - TRACE__TZ_OFFSET_S;
    G.t_end = G.t0 + (int64_t)llround(o.days * 86400);
    G.t_dump = G.t_end + 7 * 86400;
    G.jobs = g_array_new(FALSE, TRUE, sizeof(gjob));
    G.bursts = g_array_new(FALSE, TRUE, sizeof(gburst));
    G.topo_rows = out->topo;
    G.outside_hosts = g_ptr_array_new_with_free_func(g_free);
    for (guint64 h = 0; h < GEN_OUTSIDE_HOSTS; h++)
        g_ptr_array_add(G.outside_hosts, gen__hash_hex("outside-host", 0, h));
    gen__populate(&G);
    gen__choose_outside(&G);
    gen__place_jobs(&G);
    gen__make_rows(&G, out);
    for (size_t i = 0; i < G.jobs->len; i++)
        g_strfreev(J(&G, i)->hosts);
    g_array_unref(G.jobs);
    g_array_unref(G.bursts);
    g_ptr_array_unref(G.outside_hosts);
    g_rand_free(G.r);
    return true;
}
