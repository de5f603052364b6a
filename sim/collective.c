/* collective.c - collectives as transfers (collective.h has the maths).
 * Not here: running them (job_bucket.c), rates (net_solve.c).
 */
#include "collective.h"

#include <math.h>
#include <string.h>

#include "base/ccs.h"

/* One operation: steps run in order, each a GPtrArray of coll_xfer*. */
typedef struct coll_op {
    GPtrArray *steps;
    int instances; /* times it runs per iteration (buckets, micro-batches) */
} coll_op;

struct coll_plan {
    GPtrArray *ops;      /* coll_op*: op 0 is a plain job's one collective (a bucket) */
    GArray *flows;       /* coll_flow */
    int buckets;         /* B */
    int channels;        /* lock-step rings per rail */
    uint64_t version;    /* incremented by every path change (invalidates xfer caches) */
    GHashTable *twins;      /* link + 1: left out of coll_xfer_net_link_set, or NULL */
    uint64_t twins_version; /* incremented by every coll_plan_set_twins */
    GArray *fixed_links; /* uint32, distinct, increasing */
    GArray *fixed_bytes; /* double, per iteration */
    bool step_latency;   /* coll_options.step_latency */
};

/* Everything a builder needs about the job on its hosts. */
typedef struct members {
    topo *t;
    const cluster_alloc *a;
    size_t H;            /* hosts */
    size_t R;            /* rails used */
    uint32_t **rail_nic; /* [h][r] NIC index on host h */
    uint32_t **rail_gpu; /* [h][r] local GPU index behind that NIC */
    size_t channels;     /* lock-step rings per rail (NCCL channels), >= 1 */
    uint64_t uid, seed;
    bool flows_model;
    GHashTable **flow_index; /* [channel]: (src_nic, dst_nic) -> flow index + 1 */
    GPtrArray *steps;        /* the operation's steps the builders append to */
} members;

static void xfer_free(gpointer p)
{
    coll_xfer *x = p;
    if (!x)
        return; /* moved into another step (step_absorb) */
    g_array_free(x->fixed, TRUE);
    g_array_free(x->flows, TRUE);
    g_array_free(x->hops, TRUE);
    if (x->cache_links) {
        g_array_free(x->cache_links, TRUE);
        g_array_free(x->cache_mult, TRUE);
    }
    if (x->cache_net_links) {
        g_array_free(x->cache_net_links, TRUE);
        g_array_free(x->cache_net_mult, TRUE);
    }
    g_free(x);
}

static void flow_clear(gpointer p)
{
    coll_flow *f = p;
    if (f->links)
        g_array_free(f->links, TRUE);
}

static void op_free(gpointer p)
{
    coll_op *op = p;
    g_ptr_array_free(op->steps, TRUE);
    g_free(op);
}

void coll_plan_free(coll_plan *p)
{
    if (!p)
        return;
    g_ptr_array_free(p->ops, TRUE);
    g_array_free(p->flows, TRUE);
    g_array_free(p->fixed_links, TRUE);
    g_array_free(p->fixed_bytes, TRUE);
    if (p->twins)
        g_hash_table_destroy(p->twins);
    g_free(p);
}

const char *coll_kind_name(coll_kind k)
{
    static const char *const names[] = {"none",          "allreduce", "allgather",
                                        "reducescatter", "fsdp",      "alltoall", "p2p"};
    return names[k];
}

static coll_xfer *xfer_new(double bytes, int steps)
{
    coll_xfer *x = g_new0(coll_xfer, 1);
    x->bytes = bytes;
    x->steps = steps;
    x->repeat = 1;
    x->fixed = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    x->flows = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    x->hops = g_array_new(FALSE, FALSE, sizeof(coll_hop));
    return x;
}

/* A hop of x whose links are the n fixed links just appended to x->fixed
 * (before the flow's path: before of them), through flow (or
 * COLL_NO_FLOW); its ring goes on from x's previous hop (ring_close
 * closes it), or starts with it (first). */
static void hop_record(coll_xfer *x, size_t n, size_t before, uint32_t flow, bool first)
{
    uint32_t idx = x->hops->len;
    coll_hop h = {.first = x->fixed->len - (uint32_t)n, .before = (uint32_t)before,
                  .after = (uint32_t)(n - before), .flow = flow, .prev = first ? idx : idx - 1};
    g_array_append_val(x->hops, h);
}

/* The ring of x's hops from index start on is complete: its first hop
 * forwards what its last one sent. */
static void ring_close(coll_xfer *x, uint32_t start)
{
    g_array_index(x->hops, coll_hop, start).prev = x->hops->len - 1;
}

static GPtrArray *step_new(members *m)
{
    GPtrArray *s = g_ptr_array_new_with_free_func(xfer_free);
    g_ptr_array_add(m->steps, s);
    return s;
}

static double links_latency(topo *t, const uint32_t *l, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += topo_link_get(t, l[i])->latency_s;
    return s;
}

static void append_links(GArray *a, const uint32_t *l, size_t n)
{
    g_array_append_vals(a, l, (guint)n);
}

/* The flow from NIC rail r of host index i to host index k on channel c
 * (creating it).  Every (src NIC, dst NIC, channel) is its own connection,
 * hashed on its own: its key is the job's uid and the flow's index, which
 * the build order makes a function of (rail, channel, hop). */
static bool flow_get(coll_plan *p, members *m, size_t i, size_t k, size_t r, size_t c,
                     uint32_t *out, GError **error)
{
    const cluster_alloc *a = m->a;
    uint32_t src = topo_host_nic_node(m->t, a->hosts[i], m->rail_nic[i][r]);
    uint32_t dst = topo_host_nic_node(m->t, a->hosts[k], m->rail_nic[k][r]);
    gpointer key = GSIZE_TO_POINTER(((gsize)src << 32) | dst);
    gpointer v = g_hash_table_lookup(m->flow_index[c], key);
    if (v) {
        *out = (uint32_t)(GPOINTER_TO_SIZE(v) - 1);
        return true;
    }
    coll_flow f = {0};
    f.src_host = a->hosts[i];
    f.dst_host = a->hosts[k];
    f.src_nic = src;
    f.dst_nic = dst;
    f.n_paths = topo_path_count(m->t, src, dst, error);
    if (f.n_paths == 0)
        return false;
    f.path = topo_path_ecmp(m->t, src, dst, coll_flow_key(m->uid, p->flows->len), m->seed);
    f.links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_array_append_val(p->flows, f);
    uint32_t idx = p->flows->len - 1;
    if (!coll_plan_set_path(p, m->t, idx, f.path, error))
        return false;
    g_hash_table_insert(m->flow_index[c], key, GSIZE_TO_POINTER((gsize)idx + 1));
    *out = idx;
    return true;
}

/* Add the hop i -> k on rail r, channel c to x: PCIe out of i, the flow,
 * PCIe into k. */
static bool hop_add(coll_plan *p, members *m, coll_xfer *x, size_t i, size_t k, size_t r,
                    size_t c, GError **error)
{
    const uint32_t *l;
    size_t before = topo_path_gpu_to_nic(m->t, m->a->hosts[i], m->rail_gpu[i][r], &l);
    append_links(x->fixed, l, before);
    double lat = links_latency(m->t, l, before);
    size_t after = topo_path_nic_to_gpu(m->t, m->a->hosts[k], m->rail_gpu[k][r], &l);
    append_links(x->fixed, l, after);
    lat += links_latency(m->t, l, after);
    x->fixed_latency_s = fmax(x->fixed_latency_s, lat);
    uint32_t f;
    if (!flow_get(p, m, i, k, r, c, &f, error))
        return false;
    g_array_append_val(x->flows, f);
    hop_record(x, before + after, before, f, x->hops->len == 0);
    return true;
}

/* Network ring over all hosts on every rail, each hop carrying hop_bytes,
 * split over the channels: one lock-step ring of hop_bytes / channels per
 * (rail, channel). */
static bool add_net_ring(coll_plan *p, members *m, double hop_bytes, int steps, GError **error)
{
    if (m->H < 2 || hop_bytes <= 0)
        return true;
    GPtrArray *s = step_new(m);
    double ch_bytes = hop_bytes / (double)m->channels;
    for (size_t r = 0; r < m->R; r++)
        for (size_t c = 0; c < m->channels; c++) {
            coll_xfer *x = NULL;
            for (size_t i = 0; i < m->H; i++) {
                if (!x || m->flows_model) {
                    x = xfer_new(ch_bytes, steps);
                    g_ptr_array_add(s, x);
                }
                if (!hop_add(p, m, x, i, (i + 1) % m->H, r, c, error))
                    return false;
            }
            if (!m->flows_model)
                ring_close(x, 0);
        }
    return true;
}

/* NVLink ring on every host with >= 2 of the job's GPUs: bytes(g) per GPU. */
static void add_nvlink_ring(members *m, double frac_num_per_g, double S,
                            int steps_per_g, bool alltoall)
{
    GPtrArray *s = NULL;
    for (size_t i = 0; i < m->H; i++) {
        const cluster_alloc *a = m->a;
        uint32_t g = a->gpu_off[i + 1] - a->gpu_off[i];
        if (g < 2)
            continue;
        double bytes = alltoall ? (g - 1) * S : frac_num_per_g * (g - 1) / g * S;
        if (bytes <= 0)
            continue;
        if (!s)
            s = step_new(m);
        coll_xfer *x = xfer_new(bytes, alltoall ? 1 : steps_per_g * (int)(g - 1));
        for (uint32_t q = 0; q < g; q++) {
            const uint32_t *l;
            size_t n = topo_path_nvlink(m->t, a->hosts[i], a->gpus[a->gpu_off[i] + q],
                                        a->gpus[a->gpu_off[i] + (q + 1) % g], &l);
            append_links(x->fixed, l, n);
            hop_record(x, n, n, COLL_NO_FLOW, q == 0);
            x->fixed_latency_s = fmax(x->fixed_latency_s, links_latency(m->t, l, n));
        }
        ring_close(x, 0);
        g_ptr_array_add(s, x);
    }
}

static bool build_alltoall(coll_plan *p, members *m, double S, GError **error)
{
    const cluster_alloc *a = m->a;
    double n = a->n_gpus;
    add_nvlink_ring(m, 0, S / n, 0, true);
    if (m->H < 2)
        return true;
    GPtrArray *s = m->steps->len ? g_ptr_array_index(m->steps, m->steps->len - 1) : step_new(m);
    for (size_t i = 0; i < m->H; i++)
        for (size_t k = 0; k < m->H; k++) {
            if (i == k)
                continue;
            double ga = a->gpu_off[i + 1] - a->gpu_off[i], gb = a->gpu_off[k + 1] - a->gpu_off[k];
            for (size_t r = 0; r < m->R; r++) {
                coll_xfer *x = xfer_new(ga * gb * S / (n * (double)m->R), 1);
                g_ptr_array_add(s, x);
                if (!hop_add(p, m, x, i, k, r, 0, error))
                    return false;
            }
        }
    return true;
}

static bool build_p2p(coll_plan *p, members *m, double S, GError **error)
{
    const cluster_alloc *a = m->a;
    if (m->H == 1) {
        if (a->n_gpus < 2)
            return true;
        GPtrArray *s = step_new(m);
        coll_xfer *x = xfer_new(S, 1);
        const uint32_t *l;
        size_t n = topo_path_nvlink(m->t, a->hosts[0], a->gpus[0], a->gpus[1], &l);
        append_links(x->fixed, l, n);
        hop_record(x, n, n, COLL_NO_FLOW, true);
        x->fixed_latency_s = links_latency(m->t, l, n);
        g_ptr_array_add(s, x);
        return true;
    }
    GPtrArray *s = step_new(m);
    for (size_t i = 0; i + 1 < m->H; i++)
        for (size_t r = 0; r < m->R; r++) {
            coll_xfer *x = xfer_new(S / (double)m->R, 1);
            g_ptr_array_add(s, x);
            if (!hop_add(p, m, x, i, i + 1, r, 0, error))
                return false;
        }
    return true;
}

/* rails: the NICs the job's GPUs reach on each host, R = min over hosts. */
static void members_init(members *m, topo *t, const cluster_alloc *a)
{
    m->t = t;
    m->a = a;
    m->H = a->n_hosts;
    m->rail_nic = g_new0(uint32_t *, m->H);
    m->rail_gpu = g_new0(uint32_t *, m->H);
    m->R = SIZE_MAX;
    for (size_t i = 0; i < m->H; i++) {
        size_t nn = topo_host_nic_count(t, a->hosts[i]);
        m->rail_nic[i] = g_new0(uint32_t, nn ? nn : 1);
        m->rail_gpu[i] = g_new0(uint32_t, nn ? nn : 1);
        g_autofree int64_t *first = g_new(int64_t, nn ? nn : 1);
        for (size_t q = 0; q < nn; q++)
            first[q] = -1;
        for (uint32_t q = a->gpu_off[i]; q < a->gpu_off[i + 1]; q++) {
            size_t nic = topo_gpu_nic(t, a->hosts[i], a->gpus[q]);
            if (nic < nn && first[nic] < 0)
                first[nic] = a->gpus[q];
        }
        size_t r = 0;
        for (size_t q = 0; q < nn; q++)
            if (first[q] >= 0) {
                m->rail_nic[i][r] = (uint32_t)q;
                m->rail_gpu[i][r] = (uint32_t)first[q];
                r++;
            }
        if (r < m->R)
            m->R = r;
    }
    if (m->R == SIZE_MAX || m->R == 0)
        m->R = 1;
}

/* The flow tables, once the channel count is known. */
static void members_set_channels(members *m, size_t channels)
{
    m->channels = channels;
    m->flow_index = g_new(GHashTable *, channels);
    for (size_t c = 0; c < channels; c++)
        m->flow_index[c] = g_hash_table_new(g_direct_hash, g_direct_equal);
}

static void members_clear(members *m)
{
    for (size_t i = 0; i < m->H; i++) {
        g_free(m->rail_nic[i]);
        g_free(m->rail_gpu[i]);
    }
    g_free(m->rail_nic);
    g_free(m->rail_gpu);
    for (size_t c = 0; c < m->channels; c++)
        g_hash_table_destroy(m->flow_index[c]);
    g_free(m->flow_index);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Accumulate (link, value) into a link-indexed hash, then emit sorted. */
static void emit_sorted(GHashTable *acc, GArray *links, GArray *vals, bool as_u32)
{
    g_array_set_size(links, 0);
    g_array_set_size(vals, 0);
    guint n = g_hash_table_size(acc);
    g_autofree uint32_t *keys = g_new(uint32_t, n ? n : 1);
    GHashTableIter it;
    gpointer k, v;
    guint i = 0;
    g_hash_table_iter_init(&it, acc);
    while (g_hash_table_iter_next(&it, &k, &v))
        keys[i++] = (uint32_t)(GPOINTER_TO_SIZE(k) - 1);
    qsort(keys, n, sizeof *keys, cmp_u32);
    for (i = 0; i < n; i++) {
        double *val = g_hash_table_lookup(acc, GSIZE_TO_POINTER((gsize)keys[i] + 1));
        g_array_append_val(links, keys[i]);
        if (as_u32) {
            uint32_t m = (uint32_t)llround(*val);
            g_array_append_val(vals, m);
        } else
            g_array_append_val(vals, *val);
    }
}

static void acc_add(GHashTable *acc, uint32_t link, double v)
{
    gpointer key = GSIZE_TO_POINTER((gsize)link + 1);
    double *d = g_hash_table_lookup(acc, key);
    if (!d) {
        d = g_new0(double, 1);
        g_hash_table_insert(acc, key, d);
    }
    *d += v;
}

/* The bytes per iteration of the fixed links and flows (every op's
 * transfers times its instances). */
static void compute_fixed(coll_plan *p)
{
    g_autoptr(GHashTable) acc = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    for (guint f = 0; f < p->flows->len; f++)
        g_array_index(p->flows, coll_flow, f).bytes_per_iter = 0;
    for (guint o = 0; o < p->ops->len; o++) {
        const coll_op *op = g_ptr_array_index(p->ops, o);
        for (guint s = 0; s < op->steps->len; s++) {
            GPtrArray *st = g_ptr_array_index(op->steps, s);
            for (guint i = 0; i < st->len; i++) {
                coll_xfer *x = g_ptr_array_index(st, i);
                for (guint l = 0; l < x->fixed->len; l++)
                    acc_add(acc, g_array_index(x->fixed, uint32_t, l), x->bytes * op->instances);
                for (guint l = 0; l < x->flows->len; l++) {
                    coll_flow *f = &g_array_index(p->flows, coll_flow,
                                                  g_array_index(x->flows, uint32_t, l));
                    f->bytes_per_iter += x->bytes * op->instances;
                }
            }
        }
    }
    emit_sorted(acc, p->fixed_links, p->fixed_bytes, false);
}

coll_options coll_options_default(void)
{
    return (coll_options){.buckets = 1, .flows_model = false, .channels = 0, .sm90 = false,
                          .uid = 0, .seed = 1, .step_latency = false,
                          .merge_private = false};
}

int coll_channels_nccl(double nic_Bps, size_t rails, bool sm90)
{
    /* NCCL's inter-node search speeds (GB/s), src/graph/search.cc
     * speedArrayInter and sm90SpeedArrayInter */
    static const double steps[] = {48, 30, 28, 24, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3};
    static const double steps90[] = {48, 45, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3};
    const double *sp = sm90 ? steps90 : steps;
    size_t ns = sm90 ? G_N_ELEMENTS(steps90) : G_N_ELEMENTS(steps);
    double GBps = nic_Bps / 1e9, bw = 0;
    for (size_t i = 0; i < ns && bw == 0; i++)
        if (sp[i] <= GBps)
            bw = sp[i];
    size_t n = rails ? rails : 1; /* the search: one ring channel per NIC */
    if (bw >= 25.0 && !(sm90 && bw < 50.0 && n > 4))
        n *= 2; /* ncclTopoDupChannels */
    n *= 2;     /* ncclTopoPostset duplicates every ring channel */
    if (n > 32)
        n = 32; /* MAXCHANNELS */
    size_t per_rail = n / (rails ? rails : 1);
    return per_rail ? (int)per_rail : 1;
}

/* The NIC rate of the job's first rail (its link into the network). */
static bool nic_rate(members *m, double *out_Bps, GError **error)
{
    g_autoptr(GArray) l = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    uint32_t a = topo_host_nic_node(m->t, m->a->hosts[0], m->rail_nic[0][0]);
    uint32_t b = topo_host_nic_node(m->t, m->a->hosts[1], m->rail_nic[1][0]);
    if (topo_path_count(m->t, a, b, error) == 0 || !topo_path_links(m->t, a, b, 0, l, error))
        return false;
    *out_Bps = l->len ? topo_link_get(m->t, g_array_index(l, uint32_t, 0))->cap_Bps : 0;
    return true;
}

/* Channels per rail: the option, or NCCL's rule for a multi-host job. */
static bool resolve_channels(members *m, const coll_options *o, size_t *out, GError **error)
{
    *out = o->channels > 0 ? (size_t)o->channels : 1;
    if (o->channels > 0 || m->H < 2)
        return true;
    double Bps;
    if (!nic_rate(m, &Bps, error))
        return false;
    *out = (size_t)coll_channels_nccl(Bps, m->R, o->sm90);
    return true;
}

int coll_plan_channels(const coll_plan *p) { return p->channels; }

uint64_t coll_flow_key(uint64_t uid, size_t f)
{
    return topo_hash64(uid * 0x9E3779B97F4A7C15ULL + f);
}

static coll_plan *plan_new(int buckets, const coll_options *o)
{
    int channels = o->channels;
    coll_plan *p = g_new0(coll_plan, 1);
    p->ops = g_ptr_array_new_with_free_func(op_free);
    p->flows = g_array_new(FALSE, TRUE, sizeof(coll_flow));
    g_array_set_clear_func(p->flows, flow_clear);
    p->buckets = buckets;
    p->fixed_links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    p->fixed_bytes = g_array_new(FALSE, FALSE, sizeof(double));
    p->channels = channels > 0 ? channels : 1;
    p->step_latency = o->step_latency;
    return p;
}

static coll_op *op_new(coll_plan *p, int instances)
{
    coll_op *op = g_new0(coll_op, 1);
    op->steps = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
    op->instances = instances;
    g_ptr_array_add(p->ops, op);
    return op;
}

/* The steps of kind for S bytes over m's GPUs, appended to m->steps. */
static bool build_kind(coll_plan *p, members *m, coll_kind kind, double S, GError **error)
{
    double H = (double)m->H, R = (double)m->R;
    int Hs = (int)m->H - 1;
    bool ok = true;
    switch (kind) {
    case COLL_ALLREDUCE:
        if (m->H == 1) {
            add_nvlink_ring(m, 2.0, S, 2, false);
        } else {
            add_nvlink_ring(m, 1.0, S, 1, false);
            ok = add_net_ring(p, m, 2.0 * (H - 1) / H * S / R, 2 * Hs, error);
            add_nvlink_ring(m, 1.0, S, 1, false);
        }
        break;
    case COLL_ALLGATHER:
        ok = add_net_ring(p, m, (H - 1) / H * S / R, Hs, error);
        add_nvlink_ring(m, 1.0, S, 1, false);
        break;
    case COLL_REDUCESCATTER:
        add_nvlink_ring(m, 1.0, S, 1, false);
        ok = add_net_ring(p, m, (H - 1) / H * S / R, Hs, error);
        break;
    case COLL_FSDP:
        ok = add_net_ring(p, m, (H - 1) / H * S / R, Hs, error);
        add_nvlink_ring(m, 1.0, S, 1, false);
        add_nvlink_ring(m, 1.0, S, 1, false);
        ok = ok && add_net_ring(p, m, (H - 1) / H * S / R, Hs, error);
        break;
    case COLL_ALLTOALL:
        ok = build_alltoall(p, m, S, error);
        break;
    case COLL_P2P:
        ok = build_p2p(p, m, S, error);
        break;
    case COLL_NONE:
        break;
    }
    return ok;
}

/* Build kind for S bytes over the GPUs of alloc into steps: the group's
 * members, its channels (resolved, into *channels), its flows. */
static bool build_group(coll_plan *p, topo *t, const cluster_alloc *alloc, coll_kind kind,
                        double S, const coll_options *o, GPtrArray *steps, size_t *channels,
                        GError **error)
{
    members m = {0};
    members_init(&m, t, alloc);
    if (!resolve_channels(&m, o, channels, error)) {
        members_clear(&m);
        return false;
    }
    members_set_channels(&m, *channels);
    m.uid = o->uid;
    m.seed = o->seed;
    m.flows_model = o->flows_model;
    m.steps = steps;
    bool ok = build_kind(p, &m, kind, S, error);
    members_clear(&m);
    return ok;
}

coll_plan *coll_plan_new(topo *t, const cluster_alloc *alloc, coll_kind kind, double S_bytes,
                         const coll_options *o, GError **error)
{
    g_return_val_if_fail(t && alloc && o && o->buckets >= 1 && o->channels >= 0, NULL);
    int buckets = o->buckets;
    g_autoptr(coll_plan) p = plan_new(buckets, o);
    coll_op *op = op_new(p, buckets);
    if (kind == COLL_NONE || alloc->n_gpus < 2 || !(S_bytes > 0))
        return g_steal_pointer(&p);
    size_t channels;
    if (!build_group(p, t, alloc, kind, S_bytes / buckets, o, op->steps, &channels, error))
        return NULL;
    p->channels = (int)channels;
    compute_fixed(p);
    return g_steal_pointer(&p);
}

coll_plan *coll_plan_new_empty(const coll_options *o)
{
    g_return_val_if_fail(o && o->channels >= 0, NULL);
    return plan_new(1, o);
}

/* x's hops, links and flows join y, a transfer of the same size and
 * lock-steps: one lock-step transfer over both. */
static void xfer_join(coll_xfer *y, const coll_xfer *x)
{
    guint hops0 = y->hops->len;
    for (guint h = 0; h < x->hops->len; h++) {
        coll_hop hop = g_array_index(x->hops, coll_hop, h);
        hop.first += y->fixed->len;
        hop.prev += hops0;
        g_array_append_val(y->hops, hop);
    }
    g_array_append_vals(y->fixed, x->fixed->data, x->fixed->len);
    g_array_append_vals(y->flows, x->flows->data, x->flows->len);
    y->fixed_latency_s = fmax(y->fixed_latency_s, x->fixed_latency_s);
    y->cache_version = 0; /* its cached link sets (if any) are stale */
    y->cache_net_version = 0;
}

/* Move the transfers of a group's step into the op's step: as they are,
 * or (merge) into a transfer of the same size and lock-steps, whose links
 * and flows they join. */
static void step_absorb(GPtrArray *into, GPtrArray *from, bool merge)
{
    for (guint i = 0; i < from->len; i++) {
        coll_xfer *x = g_ptr_array_index(from, i);
        coll_xfer *y = NULL;
        for (guint k = 0; merge && k < into->len && !y; k++) {
            coll_xfer *c = g_ptr_array_index(into, k);
            if (c->steps == x->steps && fabs(c->bytes - x->bytes) <= 1e-12 * c->bytes)
                y = c;
        }
        if (!y) {
            g_ptr_array_add(into, x);
            from->pdata[i] = NULL;
            continue;
        }
        xfer_join(y, x);
    }
}

int coll_plan_add_op(coll_plan *p, topo *t, const cluster_alloc *const *groups, size_t n_groups,
                     coll_kind kind, double S_bytes, const coll_op_options *oo,
                     const coll_options *o, GError **error)
{
    g_return_val_if_fail(p && t && oo && o && oo->repeat >= 1 && oo->instances >= 1, -1);
    coll_op *op = op_new(p, oo->instances);
    int idx = (int)p->ops->len - 1;
    for (size_t g = 0; g < n_groups; g++) {
        if (kind == COLL_NONE || groups[g]->n_gpus < 2 || !(S_bytes > 0))
            continue;
        g_autoptr(GPtrArray) tmp =
            g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
        size_t channels;
        if (!build_group(p, t, groups[g], kind, S_bytes, o, tmp, &channels, error))
            return -1;
        if (g == 0)
            p->channels = (int)channels;
        for (guint st = 0; st < tmp->len; st++) {
            if (st >= op->steps->len)
                g_ptr_array_add(op->steps, g_ptr_array_new_with_free_func(xfer_free));
            GPtrArray *from = g_ptr_array_index(tmp, st);
            step_absorb(g_ptr_array_index(op->steps, st), from, oo->merge);
        }
    }
    for (guint st = 0; st < op->steps->len; st++) {
        GPtrArray *xs = g_ptr_array_index(op->steps, st);
        for (guint i = 0; i < xs->len; i++)
            ((coll_xfer *)g_ptr_array_index(xs, i))->repeat = oo->repeat;
    }
    compute_fixed(p);
    return idx;
}

/* ---- private in-host rings merged (docs/model.md §4b) -------------- */

#define MANY_OPS UINT32_MAX

/* Every fixed link of the plan -> the index + 1 of the one operation
 * whose transfers use it, or MANY_OPS. */
static GHashTable *link_owners(const coll_plan *p)
{
    GHashTable *own = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (guint o = 0; o < p->ops->len; o++) {
        const coll_op *op = g_ptr_array_index(p->ops, o);
        for (guint s = 0; s < op->steps->len; s++) {
            GPtrArray *st = g_ptr_array_index(op->steps, s);
            for (guint i = 0; i < st->len; i++) {
                const coll_xfer *x = g_ptr_array_index(st, i);
                for (guint l = 0; l < x->fixed->len; l++) {
                    gpointer k = GUINT_TO_POINTER(g_array_index(x->fixed, uint32_t, l) + 1);
                    guint v = GPOINTER_TO_UINT(g_hash_table_lookup(own, k));
                    g_hash_table_insert(own, k, GUINT_TO_POINTER(v == 0 || v == o + 1
                                                                     ? o + 1 : MANY_OPS));
                }
            }
        }
    }
    return own;
}

/* Is x a private ring of operation op: no network flow, every link an
 * NVLink (GPU <-> NVSwitch) link that no other operation uses?  Then
 * *rate_Bps = its rate alone, min over its links of capacity /
 * multiplicity. */
static bool private_ring(const topo *t, GHashTable *own, guint op, const coll_xfer *x,
                         double *rate_Bps)
{
    if (x->flows->len || !x->fixed->len)
        return false;
    g_autofree uint32_t *l = g_memdup2(x->fixed->data, x->fixed->len * sizeof *l);
    qsort(l, x->fixed->len, sizeof *l, cmp_u32);
    *rate_Bps = INFINITY;
    for (guint i = 0, run = 1; i < x->fixed->len; i++, run++) {
        const topo_link *e = topo_link_get(t, l[i]);
        if (e->tier != TOPO_TIER_NVLINK ||
            GPOINTER_TO_UINT(g_hash_table_lookup(own, GUINT_TO_POINTER(l[i] + 1))) != op + 1)
            return false;
        if (i + 1 < x->fixed->len && l[i + 1] == l[i])
            continue;
        *rate_Bps = fmin(*rate_Bps, e->cap_Bps / run);
        run = 0;
    }
    return true;
}

/* Do two transfers of step st share a link?  Marks in shared[i] the
 * transfers that do. */
static void step_shared(GPtrArray *st, bool *shared)
{
    g_autoptr(GHashTable) first = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (guint i = 0; i < st->len; i++) {
        const coll_xfer *x = g_ptr_array_index(st, i);
        for (guint l = 0; l < x->fixed->len; l++) {
            gpointer k = GUINT_TO_POINTER(g_array_index(x->fixed, uint32_t, l) + 1);
            guint v = GPOINTER_TO_UINT(g_hash_table_lookup(first, k));
            if (v == 0)
                g_hash_table_insert(first, k, GUINT_TO_POINTER(i + 1));
            else if (v != i + 1)
                shared[v - 1] = shared[i] = true;
        }
    }
}

/* Merge step st's private rings of operation op that move alike: same
 * bytes, lock-steps, repeats, startup latency and rate alone. */
static size_t merge_step(const topo *t, GHashTable *own, guint op, GPtrArray *st)
{
    g_autofree bool *shared = g_new0(bool, st->len ? st->len : 1);
    g_autofree double *rate = g_new0(double, st->len ? st->len : 1);
    step_shared(st, shared);
    size_t merged = 0;
    for (guint i = 0; i < st->len; i++) {
        coll_xfer *x = g_ptr_array_index(st, i);
        if (shared[i] || !private_ring(t, own, op, x, &rate[i])) {
            shared[i] = true; /* not a candidate */
            continue;
        }
        coll_xfer *y = NULL;
        for (guint k = 0; k < i && !y; k++) {
            coll_xfer *c = g_ptr_array_index(st, k);
            if (!shared[k] && c->bytes == x->bytes && c->steps == x->steps &&
                c->repeat == x->repeat && c->fixed_latency_s == x->fixed_latency_s &&
                rate[k] == rate[i])
                y = c;
        }
        if (!y)
            continue;
        xfer_join(y, x);
        g_ptr_array_remove_index(st, i); /* frees x */
        memmove(shared + i, shared + i + 1, (st->len - i) * sizeof *shared);
        memmove(rate + i, rate + i + 1, (st->len - i) * sizeof *rate);
        i--;
        merged++;
    }
    return merged;
}

size_t coll_plan_merge_private(coll_plan *p, const topo *t, const bool *serial)
{
    g_return_val_if_fail(p && t && serial, 0);
    g_autoptr(GHashTable) own = link_owners(p);
    size_t merged = 0;
    for (guint o = 0; o < p->ops->len; o++) {
        const coll_op *op = g_ptr_array_index(p->ops, o);
        for (guint s = 0; s < op->steps->len && serial[o]; s++)
            merged += merge_step(t, own, o, g_ptr_array_index(op->steps, s));
    }
    if (merged)
        compute_fixed(p);
    return merged;
}

/* ---- links that never bind ------------------------------------------ */

/* Record by as the dominator of each link of the path l[0..n); a link
 * that two NIC links would dominate gets none (0). */
static void dominated_path(const topo *t, const uint32_t *l, size_t n, uint32_t by,
                           GHashTable *dom)
{
    for (size_t i = 0; i < n; i++) {
        gpointer k = GUINT_TO_POINTER(l[i] + 1), v;
        bool tighter = topo_link_get(t, l[i])->cap_Bps >= topo_link_get(t, by)->cap_Bps;
        if (!g_hash_table_lookup_extended(dom, k, NULL, &v))
            g_hash_table_insert(dom, k, GUINT_TO_POINTER(tighter ? by + 1 : 0));
        else if (GPOINTER_TO_UINT(v) != by + 1)
            g_hash_table_insert(dom, k, GUINT_TO_POINTER(0));
    }
}

void coll_dominated_links(const topo *t, GArray *pairs)
{
    g_return_if_fail(t && pairs);
    g_autoptr(GHashTable) dom = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (size_t h = 0; h < topo_host_count(t); h++)
        for (size_t g = 0; g < topo_host_gpu_count(t, h); g++) {
            uint32_t nic = topo_host_nic_node(t, h, topo_gpu_nic(t, h, g)), up, down;
            if (!topo_nic_links(t, nic, &up, &down))
                continue;
            const uint32_t *l;
            size_t n = topo_path_gpu_to_nic(t, h, g, &l);
            dominated_path(t, l, n, up, dom);
            n = topo_path_nic_to_gpu(t, h, g, &l);
            dominated_path(t, l, n, down, dom);
        }
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, dom);
    while (g_hash_table_iter_next(&it, &k, &v))
        if (GPOINTER_TO_UINT(v) != 0) {
            uint32_t pair[2] = {GPOINTER_TO_UINT(k) - 1, GPOINTER_TO_UINT(v) - 1};
            g_array_append_vals(pairs, pair, 2);
        }
}

/* A NIC link (either way) of one of the job's hosts and the NIC uplinks
 * that every transfer of the plan crossing it has crossed as often, so far. */
typedef struct nic_cand {
    uint32_t link;
    bool seen;    /* some transfer crosses it */
    GArray *ups;  /* uint32_t: the uplinks left, ascending */
} nic_cand;

static void nic_cand_clear(gpointer c) { g_clear_pointer(&((nic_cand *)c)->ups, g_array_unref); }

static void nic_cand_add(GArray *c, GHashTable *at, uint32_t link)
{
    if (g_hash_table_contains(at, GUINT_TO_POINTER(link + 1)))
        return;
    g_array_append_val(c, ((nic_cand){.link = link}));
    g_hash_table_insert(at, GUINT_TO_POINTER(link + 1), GUINT_TO_POINTER(c->len));
}

/* The NIC links, down then up, of a's hosts whose GPUs are all the job's
 * (indexed in *at: link + 1 -> index + 1) and the uplinks of all its NICs
 * (in ups: link + 1). */
static GArray *nic_cands(const topo *t, const cluster_alloc *a, GHashTable *at, GHashTable *ups)
{
    GArray *c = g_array_new(FALSE, TRUE, sizeof(nic_cand));
    g_array_set_clear_func(c, nic_cand_clear);
    for (size_t i = 0; i < a->n_hosts; i++) {
        size_t h = a->hosts[i];
        bool whole = a->gpu_off[i + 1] - a->gpu_off[i] == topo_host_gpu_count(t, h);
        for (size_t k = 0; k < topo_host_nic_count(t, h); k++) {
            uint32_t up, down;
            if (!topo_nic_links(t, topo_host_nic_node(t, h, k), &up, &down))
                continue;
            g_hash_table_add(ups, GUINT_TO_POINTER(up + 1));
            if (whole) {
                nic_cand_add(c, at, down);
                nic_cand_add(c, at, up);
            }
        }
    }
    return c;
}

/* Narrow each candidate link of transfer x to the uplinks x crosses at
 * least as often. */
static void nic_cands_narrow(GArray *c, GHashTable *at, GHashTable *ups, const coll_plan *p,
                             const coll_xfer *x)
{
    const uint32_t *l, *m;
    size_t n = coll_xfer_link_set(p, x, &l, &m);
    for (size_t i = 0; i < n; i++) {
        guint ci = GPOINTER_TO_UINT(g_hash_table_lookup(at, GUINT_TO_POINTER(l[i] + 1)));
        if (ci == 0)
            continue;
        nic_cand *cd = &g_array_index(c, nic_cand, ci - 1);
        if (!cd->seen) { /* every other uplink of x as often: l is ascending */
            cd->seen = true;
            cd->ups = g_array_new(FALSE, FALSE, sizeof(uint32_t));
            for (size_t j = 0; j < n; j++)
                if (j != i && m[j] >= m[i] &&
                    g_hash_table_contains(ups, GUINT_TO_POINTER(l[j] + 1)))
                    g_array_append_val(cd->ups, l[j]);
            continue;
        }
        guint keep = 0;
        for (guint u = 0; u < cd->ups->len; u++) {
            uint32_t e = g_array_index(cd->ups, uint32_t, u);
            const uint32_t *hit = bsearch(&e, l, n, sizeof *l, cmp_u32);
            if (hit && m[hit - l] >= m[i])
                g_array_index(cd->ups, uint32_t, keep++) = e;
        }
        g_array_set_size(cd->ups, keep);
    }
}

/* A link's role in coll_plan_nic_links (absent from the table: none yet). */
enum { NIC_DOMINATOR = 1, NIC_DOMINATED };

/* The dominator for cd among its uplinks (capacity not above its link's,
 * not dominated itself: dominators do not chain): one that already
 * dominates, else the lowest; or none. */
static bool nic_pick(const topo *t, const nic_cand *cd, GHashTable *role, uint32_t *out)
{
    double cap = topo_link_get(t, cd->link)->cap_Bps;
    bool found = false;
    for (guint u = 0; u < cd->ups->len; u++) {
        uint32_t e = g_array_index(cd->ups, uint32_t, u);
        int r = GPOINTER_TO_INT(g_hash_table_lookup(role, GUINT_TO_POINTER(e + 1)));
        if (r == NIC_DOMINATED || topo_link_get(t, e)->cap_Bps > cap)
            continue;
        if (r == NIC_DOMINATOR) {
            *out = e;
            return true;
        }
        if (!found)
            *out = e;
        found = true;
    }
    return found;
}

/* A link of the job's whole hosts (a NIC's link to or from its switch, a
 * GPU's NVLink, or a link of a GPU's path to or from its NIC) and the
 * transfers of the plan that cross it: (transfer's ordinal, multiplicity)
 * pairs, in plan order. */
typedef struct twin_cand {
    uint32_t link;
    bool can_lead; /* not on a GPU's path to or from its NIC: others may be its twins */
    double cap;
    GArray *sig; /* uint32_t pairs */
} twin_cand;

static void twin_cand_free(gpointer p)
{
    twin_cand *c = p;
    g_array_unref(c->sig);
    g_free(c);
}

static void twin_cand_add(GPtrArray *c, GHashTable *at, const topo *t, uint32_t link,
                          bool can_lead)
{
    if (g_hash_table_contains(at, GUINT_TO_POINTER(link + 1)))
        return;
    twin_cand *cd = g_new0(twin_cand, 1);
    *cd = (twin_cand){.link = link, .can_lead = can_lead, .cap = topo_link_get(t, link)->cap_Bps,
                      .sig = g_array_new(FALSE, FALSE, sizeof(uint32_t))};
    g_ptr_array_add(c, cd);
    g_hash_table_insert(at, GUINT_TO_POINTER(link + 1), cd);
}

/* The links of a's hosts whose GPUs are all the job's, indexed in *at. */
static GPtrArray *twin_cands(const topo *t, const cluster_alloc *a, GHashTable *at)
{
    GPtrArray *c = g_ptr_array_new_with_free_func(twin_cand_free);
    for (size_t i = 0; i < a->n_hosts; i++) {
        size_t h = a->hosts[i];
        if (a->gpu_off[i + 1] - a->gpu_off[i] != topo_host_gpu_count(t, h))
            continue;
        for (size_t k = 0; k < topo_host_nic_count(t, h); k++) {
            uint32_t up, down;
            if (topo_nic_links(t, topo_host_nic_node(t, h, k), &up, &down)) {
                twin_cand_add(c, at, t, down, true);
                twin_cand_add(c, at, t, up, true);
            }
        }
        size_t G = topo_host_gpu_count(t, h);
        for (size_t g = 0; g < G; g++) {
            const uint32_t *l;
            size_t n = topo_path_nvlink(t, h, g, (g + 1) % G, &l); /* g's out, g + 1's in */
            for (size_t j = 0; j < n; j++)
                twin_cand_add(c, at, t, l[j], true);
            n = topo_path_gpu_to_nic(t, h, g, &l);
            for (size_t j = 0; j < n; j++)
                twin_cand_add(c, at, t, l[j], false);
            n = topo_path_nic_to_gpu(t, h, g, &l);
            for (size_t j = 0; j < n; j++)
                twin_cand_add(c, at, t, l[j], false);
        }
    }
    return c;
}

/* Order: by signature, then the links that can lead first, by capacity, by id. */
static gint twin_cmp(gconstpointer pa, gconstpointer pb)
{
    const twin_cand *a = *(twin_cand *const *)pa, *b = *(twin_cand *const *)pb;
    if (a->sig->len != b->sig->len)
        return a->sig->len < b->sig->len ? -1 : 1;
    int c = a->sig->len ? memcmp(a->sig->data, b->sig->data, a->sig->len * sizeof(uint32_t)) : 0;
    if (c != 0)
        return c;
    if (a->can_lead != b->can_lead)
        return a->can_lead ? -1 : 1;
    if (a->cap != b->cap)
        return a->cap < b->cap ? -1 : 1;
    return a->link < b->link ? -1 : a->link > b->link;
}

static bool twin_same(const twin_cand *a, const twin_cand *b)
{
    return a->sig->len == b->sig->len &&
           (a->sig->len == 0 ||
            memcmp(a->sig->data, b->sig->data, a->sig->len * sizeof(uint32_t)) == 0);
}

/* Add transfer x, the plan's ord-th, to the signatures of its links among
 * the twin candidates (indexed in at). */
static void twin_sign(GHashTable *at, const coll_plan *p, const coll_xfer *x, uint32_t ord)
{
    const uint32_t *l, *m;
    size_t n = coll_xfer_link_set(p, x, &l, &m);
    for (size_t j = 0; j < n; j++) {
        twin_cand *cd = g_hash_table_lookup(at, GUINT_TO_POINTER(l[j] + 1));
        if (cd) {
            uint32_t pair[2] = {ord, m[j]};
            g_array_append_vals(cd->sig, pair, 2);
        }
    }
}

/* The twins among the signed candidates c (coll_plan_nic_links): in each set
 * of links that the same transfers cross as often, the NIC link or NVLink
 * of lowest capacity (then id) is the others' twin (a link of a GPU's path
 * to or from its NIC is dominated by that NIC's link for the whole run: it
 * is in no solve); role marks both. */
static void plan_twins(GPtrArray *c, GHashTable *role, GArray *twins)
{
    g_ptr_array_sort(c, twin_cmp);
    for (guint k = 0; k < c->len;) {
        const twin_cand *b = g_ptr_array_index(c, k);
        guint end = k + 1;
        while (end < c->len && twin_same(b, g_ptr_array_index(c, end)))
            end++;
        for (guint j = k + 1; b->can_lead && b->sig->len > 0 && j < end; j++) {
            const twin_cand *x = g_ptr_array_index(c, j);
            if (x->cap < b->cap)
                continue;
            uint32_t pair[2] = {x->link, b->link};
            g_array_append_vals(twins, pair, 2);
            g_hash_table_insert(role, GUINT_TO_POINTER(x->link + 1),
                                GINT_TO_POINTER(NIC_DOMINATED));
            g_hash_table_insert(role, GUINT_TO_POINTER(b->link + 1),
                                GINT_TO_POINTER(NIC_DOMINATOR));
        }
        k = end;
    }
}

void coll_plan_nic_links(const coll_plan *p, const topo *t, const cluster_alloc *a,
                         GArray *twins, GArray *pairs)
{
    g_return_if_fail(p && t && a && twins && pairs);
    g_autoptr(GHashTable) tat = g_hash_table_new(g_direct_hash, g_direct_equal);
    g_autoptr(GHashTable) at = g_hash_table_new(g_direct_hash, g_direct_equal);
    g_autoptr(GHashTable) ups = g_hash_table_new(g_direct_hash, g_direct_equal);
    g_autoptr(GHashTable) role = g_hash_table_new(g_direct_hash, g_direct_equal);
    g_autoptr(GPtrArray) tc = twin_cands(t, a, tat);
    g_autoptr(GArray) c = nic_cands(t, a, at, ups);
    uint32_t ord = 0; /* one pass over the plan's transfers for both analyses */
    for (size_t o = 0; o < coll_plan_op_count(p); o++)
        for (size_t s = 0; s < coll_plan_op_step_count(p, o); s++)
            for (size_t i = 0; i < coll_plan_op_xfer_count(p, o, s); i++, ord++) {
                const coll_xfer *x = coll_plan_op_xfer(p, o, s, i);
                twin_sign(tat, p, x, ord);
                nic_cands_narrow(c, at, ups, p, x);
            }
    plan_twins(tc, role, twins); /* first: twins are never dominated */
    for (guint k = 0; k < c->len; k++) {
        const nic_cand *cd = &g_array_index(c, nic_cand, k);
        uint32_t u = 0;
        gpointer key = GUINT_TO_POINTER(cd->link + 1);
        if (!cd->seen || g_hash_table_lookup(role, key) || !nic_pick(t, cd, role, &u))
            continue;
        g_hash_table_insert(role, key, GINT_TO_POINTER(NIC_DOMINATED));
        g_hash_table_insert(role, GUINT_TO_POINTER(u + 1), GINT_TO_POINTER(NIC_DOMINATOR));
        uint32_t pair[2] = {cd->link, u};
        g_array_append_vals(pairs, pair, 2);
    }
}

size_t coll_plan_op_count(const coll_plan *p) { return p->ops->len; }

static const coll_op *op_get(const coll_plan *p, size_t op)
{
    return g_ptr_array_index(p->ops, op);
}

size_t coll_plan_op_step_count(const coll_plan *p, size_t op)
{
    return op_get(p, op)->steps->len;
}

size_t coll_plan_op_xfer_count(const coll_plan *p, size_t op, size_t step)
{
    return ((GPtrArray *)g_ptr_array_index(op_get(p, op)->steps, step))->len;
}

const coll_xfer *coll_plan_op_xfer(const coll_plan *p, size_t op, size_t step, size_t i)
{
    return g_ptr_array_index((GPtrArray *)g_ptr_array_index(op_get(p, op)->steps, step), i);
}

size_t coll_plan_op_step_xfers(const coll_plan *p, size_t op, size_t step,
                               const coll_xfer *const **xfers)
{
    const GPtrArray *st = g_ptr_array_index(op_get(p, op)->steps, step);
    *xfers = (const coll_xfer *const *)st->pdata;
    return st->len;
}

size_t coll_plan_step_count(const coll_plan *p)
{
    return p->ops->len ? coll_plan_op_step_count(p, 0) : 0;
}

size_t coll_plan_xfer_count(const coll_plan *p, size_t step)
{
    return coll_plan_op_xfer_count(p, 0, step);
}

const coll_xfer *coll_plan_xfer(const coll_plan *p, size_t step, size_t i)
{
    return coll_plan_op_xfer(p, 0, step, i);
}

int coll_plan_buckets(const coll_plan *p) { return p->buckets; }
size_t coll_plan_flow_count(const coll_plan *p) { return p->flows->len; }

const coll_flow *coll_plan_flow(const coll_plan *p, size_t f)
{
    return &g_array_index(p->flows, coll_flow, f);
}

bool coll_plan_set_path(coll_plan *p, topo *t, size_t fi, size_t path, GError **error)
{
    coll_flow *f = &g_array_index(p->flows, coll_flow, fi);
    g_return_val_if_fail(path < f->n_paths, false);
    if (!topo_path_links(t, f->src_nic, f->dst_nic, path, f->links, error))
        return false;
    f->path = path;
    p->version++;
    f->latency_s = links_latency(t, (const uint32_t *)(void *)f->links->data, f->links->len);
    return true;
}

size_t coll_plan_fixed_links(const coll_plan *p, const uint32_t **links, const double **bytes)
{
    *links = (const uint32_t *)(void *)p->fixed_links->data;
    *bytes = (const double *)(void *)p->fixed_bytes->data;
    return p->fixed_links->len;
}

size_t coll_xfer_link_set(const coll_plan *p, const coll_xfer *x, const uint32_t **links,
                          const uint32_t **mult)
{
    /* the cache is logically part of the plan's state: p and x are const
     * to callers, the cached set is a pure function of them */
    coll_xfer *mx = (coll_xfer *)x;
    if (!mx->cache_links || mx->cache_version != p->version + 1) {
        if (!mx->cache_links) {
            mx->cache_links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
            mx->cache_mult = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        }
        g_autoptr(GHashTable) acc =
            g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
        for (guint l = 0; l < x->fixed->len; l++)
            acc_add(acc, g_array_index(x->fixed, uint32_t, l), 1.0);
        for (guint i = 0; i < x->flows->len; i++) {
            const coll_flow *f = coll_plan_flow(p, g_array_index(x->flows, uint32_t, i));
            for (guint l = 0; l < f->links->len; l++)
                acc_add(acc, g_array_index(f->links, uint32_t, l), 1.0);
        }
        emit_sorted(acc, mx->cache_links, mx->cache_mult, true);
        double lat = 0;
        for (guint i = 0; i < x->flows->len; i++)
            lat = fmax(lat, coll_plan_flow(p, g_array_index(x->flows, uint32_t, i))->latency_s);
        mx->cache_latency_s = lat + x->fixed_latency_s;
        mx->cache_version = p->version + 1;
    }
    *links = (const uint32_t *)(void *)mx->cache_links->data;
    *mult = (const uint32_t *)(void *)mx->cache_mult->data;
    return mx->cache_links->len;
}

size_t coll_xfer_net_link_set(const coll_plan *p, const coll_xfer *x, const uint32_t **links,
                              const uint32_t **mult)
{
    size_t n = coll_xfer_link_set(p, x, links, mult);
    if (!p->twins)
        return n;
    coll_xfer *mx = (coll_xfer *)x; /* (a cache, as coll_xfer_link_set's) */
    if (!mx->cache_net_links || mx->cache_net_version != p->version + 1 ||
        mx->cache_net_twins != p->twins_version) {
        if (!mx->cache_net_links) {
            mx->cache_net_links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
            mx->cache_net_mult = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        }
        g_array_set_size(mx->cache_net_links, 0);
        g_array_set_size(mx->cache_net_mult, 0);
        for (size_t i = 0; i < n; i++)
            if (!g_hash_table_contains(p->twins, GUINT_TO_POINTER((*links)[i] + 1))) {
                g_array_append_val(mx->cache_net_links, (*links)[i]);
                g_array_append_val(mx->cache_net_mult, (*mult)[i]);
            }
        mx->cache_net_version = p->version + 1;
        mx->cache_net_twins = p->twins_version;
    }
    *links = (const uint32_t *)(void *)mx->cache_net_links->data;
    *mult = (const uint32_t *)(void *)mx->cache_net_mult->data;
    return mx->cache_net_links->len;
}

uint64_t coll_plan_links_version(const coll_plan *p)
{
    return p->version + p->twins_version; /* (both only grow) */
}

void coll_plan_set_twins(coll_plan *p, const uint32_t *links, size_t n)
{
    g_return_if_fail(p && (links || n == 0));
    g_clear_pointer(&p->twins, g_hash_table_destroy);
    if (n > 0)
        p->twins = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (size_t i = 0; i < n; i++)
        g_hash_table_add(p->twins, GUINT_TO_POINTER(links[i] + 1));
    p->twins_version++;
}

void coll_xfer_links(const coll_plan *p, const coll_xfer *x, GArray *links, GArray *mult)
{
    const uint32_t *l, *m;
    size_t n = coll_xfer_link_set(p, x, &l, &m);
    g_array_set_size(links, 0);
    g_array_set_size(mult, 0);
    g_array_append_vals(links, l, (guint)n);
    g_array_append_vals(mult, m, (guint)n);
}

double coll_xfer_startup_s(const coll_plan *p, const coll_xfer *x, double alpha_s)
{
    const uint32_t *l, *m;
    coll_xfer_link_set(p, x, &l, &m); /* (brings the cached latency up to date) */
    double lat = x->cache_latency_s;
    return x->repeat * (p->step_latency ? x->steps * (alpha_s + lat) : x->steps * alpha_s + lat);
}

void coll_plan_link_bytes(const coll_plan *p, GArray *links, GArray *bytes)
{
    g_autoptr(GHashTable) acc = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    for (guint l = 0; l < p->fixed_links->len; l++)
        acc_add(acc, g_array_index(p->fixed_links, uint32_t, l),
                g_array_index(p->fixed_bytes, double, l));
    for (guint i = 0; i < p->flows->len; i++) {
        const coll_flow *f = coll_plan_flow(p, i);
        for (guint l = 0; l < f->links->len; l++)
            acc_add(acc, g_array_index(f->links, uint32_t, l), f->bytes_per_iter);
    }
    emit_sorted(acc, links, bytes, false);
}

bool coll_plan_spread_paths(coll_plan *p, topo *t, GError **error)
{
    g_autoptr(GHashTable) load = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    for (guint l = 0; l < p->fixed_links->len; l++)
        acc_add(load, g_array_index(p->fixed_links, uint32_t, l),
                g_array_index(p->fixed_bytes, double, l));
    g_autoptr(GArray) cand = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (guint fi = 0; fi < p->flows->len; fi++) {
        coll_flow *f = &g_array_index(p->flows, coll_flow, fi);
        size_t best = f->path;
        double best_score = INFINITY, best_sum = INFINITY;
        for (size_t c = 0; c < f->n_paths && f->n_paths > 1; c++) {
            if (!topo_path_links(t, f->src_nic, f->dst_nic, c, cand, error))
                return false;
            double score = 0, sum = 0;
            for (guint l = 0; l < cand->len; l++) {
                uint32_t e = g_array_index(cand, uint32_t, l);
                double *v = g_hash_table_lookup(load, GSIZE_TO_POINTER((gsize)e + 1));
                double u = ((v ? *v : 0) + f->bytes_per_iter) / topo_link_get(t, e)->cap_Bps;
                score = fmax(score, u);
                sum += u;
            }
            /* relative slack so float noise does not decide ties */
            if (score < best_score * (1 - 1e-12) ||
                (score <= best_score * (1 + 1e-12) && sum < best_sum * (1 - 1e-12))) {
                best_score = score;
                best_sum = sum;
                best = c;
            }
        }
        if (best != f->path && !coll_plan_set_path(p, t, fi, best, error))
            return false;
        for (guint l = 0; l < f->links->len; l++)
            acc_add(load, g_array_index(f->links, uint32_t, l), f->bytes_per_iter);
    }
    return true;
}
