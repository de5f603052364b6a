/* job_graph.c - building a structured job's iteration graph and its
 * operations (job_graph.h has the model).  Not here: running it
 * (job_graph_run.c).
 */
#include "job_graph.h"

#include <math.h>
#include <string.h>

#include "base/ccs.h"

#define NONE UINT32_MAX

struct job_graph {
    GArray *tasks;  /* job_graph_task */
    GArray *succ;   /* uint32 */
    bool has_comm;  /* some operation has a transfer */
    int reductions; /* reduction tasks */
    int gpus;
};

/* What an operation is, before it is built: its class, a variant (DP:
 * 0 dense, 1 expert gradients, 2 the tied embedding's copies on stages st
 * and st2; PARAM: 0 ZeRO-3 unit, 1 after the optimizer), its stage(s) and
 * how many collectives it merges. */
typedef struct op_key {
    int cls, variant, st, st2, count;
} op_key;

/* Where a pass starts and ends. */
typedef struct pass_ref {
    uint32_t first; /* its first compute piece: where its input is awaited */
    uint32_t last;  /* its last task (compute or its layers' collectives) */
    uint32_t out;   /* its send, or last */
} pass_ref;

typedef struct builder {
    const job_structure *s;
    job_graph *g;
    GArray *edges;      /* uint32 pairs (from, to) */
    GArray *keys;       /* op_key per operation */
    GArray *uses;       /* int per operation: tasks that run it */
    pass_ref *passes;   /* [((st 2 + fwd) vpp + chunk) m + mb] */
    uint32_t *prev_out; /* per stage: the out of its previous pass */
    uint32_t *ag_last;  /* per stage: its last parameter all-gather (ZeRO 3) */
    uint32_t *ag_gate;  /* per stage: what precedes its latest compute segment */
    uint32_t *done;     /* per stage: its last task before the optimizer */
    bool tp_cross, ep_cross; /* a TP / EP group spans hosts */
} builder;

void job_graph_free(job_graph *g)
{
    if (!g)
        return;
    g_array_free(g->tasks, TRUE);
    g_array_free(g->succ, TRUE);
    g_free(g);
}

size_t job_graph_task_count(const job_graph *g) { return g->tasks->len; }

const job_graph_task *job_graph_task_get(const job_graph *g, size_t i)
{
    return &g_array_index(g->tasks, job_graph_task, i);
}

const uint32_t *job_graph_succ(const job_graph *g, size_t i)
{
    return &g_array_index(g->succ, uint32_t, job_graph_task_get(g, i)->succ_off);
}

bool job_graph_has_comm(const job_graph *g) { return g->has_comm; }
int job_graph_reductions(const job_graph *g) { return g->reductions; }
int job_graph_gpus(const job_graph *g) { return g->gpus; }

/* ---- the schedule ---------------------------------------------------- */

static void put_pass(GArray *out, int fwd, int mb, int chunk)
{
    int v[3] = {fwd, mb, chunk};
    g_array_append_vals(out, v, 3);
}

/* Megatron-LM's microstep k of stage st: micro-batch and chunk
 * (schedules.py, get_model_chunk_id and get_microbatch_id_in_model_chunk). */
static void microstep(int pp, int vpp, int k, bool fwd, int *mb, int *chunk)
{
    int in_group = k % (pp * vpp);
    *chunk = fwd ? in_group / pp : vpp - 1 - in_group / pp;
    *mb = k / (pp * vpp) * pp + k % pp;
}

void job_graph_schedule(int pp, int vpp, int m, int st, GArray *out)
{
    g_array_set_size(out, 0);
    int total = m * vpp, warmup;
    if (vpp == 1)
        warmup = MIN(pp - st - 1, m);
    else if (m == pp)
        warmup = total; /* every forward first (Megatron: all warm-up) */
    else
        warmup = MIN((pp - st - 1) * 2 + (vpp - 1) * pp, total);
    int mb, c;
    for (int k = 0; k < warmup; k++) {
        microstep(pp, vpp, k, true, &mb, &c);
        put_pass(out, 1, mb, c);
    }
    for (int k = 0; k < total - warmup; k++) {
        microstep(pp, vpp, warmup + k, true, &mb, &c);
        put_pass(out, 1, mb, c);
        microstep(pp, vpp, k, false, &mb, &c);
        put_pass(out, 0, mb, c);
    }
    for (int k = total - warmup; k < total; k++) {
        microstep(pp, vpp, k, false, &mb, &c);
        put_pass(out, 0, mb, c);
    }
}

/* ---- tasks and edges ------------------------------------------------- */

static uint32_t add_task(builder *b, const job_graph_task *t)
{
    g_array_append_vals(b->g->tasks, t, 1);
    return b->g->tasks->len - 1;
}

static void edge(builder *b, uint32_t from, uint32_t to)
{
    if (from == NONE || to == NONE)
        return;
    uint32_t e[2] = {from, to};
    g_array_append_vals(b->edges, e, 2);
}

static uint32_t compute(builder *b, int st, double dur_s, int gpus)
{
    job_graph_task t = {.kind = JOB_GRAPH_COMPUTE, .stage = st, .op = -1, .dur_s = dur_s,
                        .gpus = gpus};
    return add_task(b, &t);
}

/* A communication task running the operation key (created on first use). */
static uint32_t comm(builder *b, op_key key, bool reduce)
{
    int op = -1;
    for (guint i = 0; i < b->keys->len && op < 0; i++)
        if (memcmp(&g_array_index(b->keys, op_key, i), &key, sizeof key) == 0)
            op = (int)i;
    if (op < 0) {
        g_array_append_val(b->keys, key);
        int zero = 0;
        g_array_append_val(b->uses, zero);
        op = (int)b->keys->len - 1;
    }
    g_array_index(b->uses, int, op)++;
    job_graph_task t = {.kind = JOB_GRAPH_COMM, .cls = (job_graph_class)key.cls,
                        .stage = key.st, .op = op, .reduce = reduce};
    if (reduce)
        b->g->reductions++;
    return add_task(b, &t);
}

/* Share k of n of total (the first shares take the remainder). */
static int share(int total, int n, int k) { return total / n + (k < total % n ? 1 : 0); }

/* Segments of a pass of L layers (M of them MoE): one per layer when a
 * TP or EP group crosses hosts, ZeRO 3's units, else one. */
static int segments(const builder *b, int L, int M)
{
    const job_structure *s = b->s;
    bool tp_net = b->tp_cross && s->tp > 1 && s->tp_bytes > 0;
    bool ep_net = b->ep_cross && M > 0 && s->ep > 1 && s->moe_a2a_bytes > 0;
    if (tp_net || ep_net)
        return L;
    return s->zero == STRUCTURE_ZERO_3 ? s->fsdp_units : 1;
}

/* The compute of segment k of n, cut at the bucket thresholds when
 * buckets > 0 (points on the grid 1/(n B): segment ends at multiples of
 * B, bucket ends at multiples of n); bucket_src[q] gets the piece ending
 * bucket q.  Returns its last piece. */
static uint32_t segment_compute(builder *b, int st, double total_s, int k, int n, int buckets,
                                uint32_t pred, uint32_t *bucket_src)
{
    int B = buckets > 0 ? buckets : 1, gpus = b->s->tp * b->s->dp;
    long D = (long)n * B, lo = (long)k * B, hi = (long)(k + 1) * B, at = lo;
    uint32_t last = pred;
    while (at < hi) {
        long next = hi;
        if (buckets > 0)
            next = MIN(hi, (at / n + 1) * n); /* the next multiple of n */
        uint32_t t = compute(b, st, (double)(next - at) / (double)D * total_s, gpus);
        edge(b, last, t);
        last = t;
        if (buckets > 0 && next % n == 0)
            bucket_src[next / n - 1] = t;
        at = next;
    }
    return last;
}

/* The share of stage sg's last backward pass done when bucket q of B is
 * complete: when its last byte, (q + 1) / B of the gradients in backward
 * order, is (structure.h: early bytes, then the rest evenly, then late
 * bytes).  Only for stages with early or late bytes. */
static double bucket_ready_at(const structure_stage *sg, int q, int B)
{
    double early = sg->grad_early_bytes, mid = sg->grad_bytes - early - sg->grad_late_bytes;
    double x = sg->grad_bytes * (q + 1) / B;
    if (x <= early)
        return sg->grad_early_at;
    if (q == B - 1 || x >= early + mid)
        return 1.0;
    return sg->grad_early_at + (x - early) / mid * (1.0 - sg->grad_early_at);
}

/* The segment of n that point r in (0, 1] of a pass ends in. */
static int segment_of(double r, int n) { return CLAMP((int)ceil(r * n) - 1, 0, n - 1); }

/* segment_compute with the buckets' points at[q] (bucket_ready_at): the
 * compute of segment k cut at those that fall in it.  Stages without
 * early or late bytes keep segment_compute's exact grid, so their graphs
 * (and every output of such a job) stay what they were. */
static uint32_t segment_compute_at(builder *b, int st, double total_s, int k, int n,
                                   const double *at, int buckets, uint32_t pred,
                                   uint32_t *bucket_src)
{
    int gpus = b->s->tp * b->s->dp;
    double done = (double)k / n, end = (double)(k + 1) / n;
    uint32_t last = pred;
    for (int q = 0; q < buckets; q++) {
        if (segment_of(at[q], n) != k)
            continue;
        double cut = MIN(at[q], end);
        if (cut > done) {
            uint32_t t = compute(b, st, (cut - done) * total_s, gpus);
            edge(b, last, t);
            last = t;
            done = cut;
        }
        bucket_src[q] = last;
    }
    if (done < end) {
        uint32_t t = compute(b, st, (end - done) * total_s, gpus);
        edge(b, last, t);
        last = t;
    }
    return last;
}

/* Pass (st, fwd, mb, chunk): its segments, their collectives, its send. */
static void build_pass(builder *b, int st, bool fwd, int mb, int c, bool last_bwd,
                       uint32_t *bucket_src)
{
    const job_structure *s = b->s;
    const structure_stage *sg = &s->stages[st];
    int L = share(sg->layers, s->vpp, c), M = share(sg->moe_layers, s->vpp, c);
    int n = segments(b, L, M);
    bool gather = s->zero == STRUCTURE_ZERO_3 && s->dp > 1 && sg->param_bytes > 0;
    int buckets = last_bwd && s->overlap_grad_reduce ? s->buckets : 0;
    g_autofree double *at = NULL;
    if (buckets > 0 && sg->grad_early_bytes + sg->grad_late_bytes > 0) {
        at = g_new(double, buckets);
        for (int q = 0; q < buckets; q++)
            at[q] = bucket_ready_at(sg, q, buckets);
    }
    double total_s = (fwd ? sg->fwd_s : sg->bwd_s) / s->vpp;
    pass_ref *pr = &b->passes[((st * 2 + (fwd ? 1 : 0)) * s->vpp + c) * s->micro_batches + mb];
    uint32_t prev = b->prev_out[st];
    pr->first = NONE;
    for (int k = 0; k < n; k++) {
        uint32_t ag = NONE;
        if (gather) {
            ag = comm(b, (op_key){JOB_GRAPH_PARAM, 0, st, st, 1}, false);
            edge(b, b->ag_last[st], ag);
            edge(b, b->ag_gate[st], ag);
            b->ag_last[st] = ag;
        }
        b->ag_gate[st] = prev;
        uint32_t first = b->g->tasks->len;
        prev = at ? segment_compute_at(b, st, total_s, k, n, at, buckets, prev, bucket_src)
                  : segment_compute(b, st, total_s, k, n, buckets, prev, bucket_src);
        edge(b, ag, first);
        if (pr->first == NONE)
            pr->first = first;
        int tp_n = share(L, n, k) * (fwd ? s->tp_colls_fwd : s->tp_colls_bwd);
        if (s->tp > 1 && s->tp_bytes > 0 && tp_n > 0) {
            uint32_t t = comm(b, (op_key){JOB_GRAPH_TP, 0, st, st, tp_n}, false);
            edge(b, prev, t);
            prev = t;
        }
        int moe_n = share(M, n, k) * (fwd ? s->moe_a2a_fwd : s->moe_a2a_bwd);
        if (s->ep > 1 && s->moe_a2a_bytes > 0 && moe_n > 0) {
            uint32_t t = comm(b, (op_key){JOB_GRAPH_MOE, 0, st, st, moe_n}, false);
            edge(b, prev, t);
            prev = t;
        }
    }
    pr->last = pr->out = prev;
    int pp = s->pp;
    bool has_dst = fwd ? (st < pp - 1 || c < s->vpp - 1) : (st > 0 || c > 0);
    if (has_dst && pp > 1 && s->act_bytes > 0) {
        int dst = fwd ? (st + 1) % pp : (st + pp - 1) % pp;
        pr->out = comm(b, (op_key){JOB_GRAPH_PP, 0, st, dst, 1}, false);
        edge(b, prev, pr->out);
    }
    b->prev_out[st] = pr->out;
}

/* Stage st's buckets after its last backward pass (bucket_src: the piece
 * each becomes ready at, or NONE: the pass's end). */
static void build_reductions(builder *b, int st, const pass_ref *last, const uint32_t *bucket_src)
{
    const job_structure *s = b->s;
    const structure_stage *sg = &s->stages[st];
    bool dense = s->dp > 1 && sg->grad_bytes > 0;
    bool expert = s->dp / s->ep > 1 && sg->expert_grad_bytes > 0;
    uint32_t prev = NONE;
    b->done[st] = last->out;
    for (int q = 0; q < s->buckets && (dense || expert); q++) {
        uint32_t ready = bucket_src[q] != NONE ? bucket_src[q] : last->last;
        uint32_t t;
        if (dense) {
            t = comm(b, (op_key){JOB_GRAPH_DP, 0, st, st, 1}, true);
            edge(b, ready, t);
            edge(b, prev, t);
            prev = t;
        }
        if (expert) {
            t = comm(b, (op_key){JOB_GRAPH_DP, 1, st, st, 1}, true);
            edge(b, ready, t);
            edge(b, prev, t);
            prev = t;
        }
        b->done[st] = prev;
    }
}

/* The tied embedding's gradient, all-reduced between its copies on the
 * first and the last stage once both stages' reductions are done; it
 * ends both stages. */
static void build_embedding_sync(builder *b)
{
    int last = b->s->pp - 1;
    if (!(b->s->embed_grad_bytes > 0) || last < 1)
        return;
    uint32_t t = comm(b, (op_key){JOB_GRAPH_DP, 2, 0, last, 1}, true);
    edge(b, b->done[0], t);
    edge(b, b->done[last], t);
    b->done[0] = b->done[last] = t;
}

/* Every stage's passes in its order, then its reductions. */
static void build_stages(builder *b)
{
    const job_structure *s = b->s;
    g_autoptr(GArray) order = g_array_new(FALSE, FALSE, sizeof(int));
    g_autofree uint32_t *bucket_src = g_new(uint32_t, s->buckets);
    for (int st = 0; st < s->pp; st++) {
        job_graph_schedule(s->pp, s->vpp, s->micro_batches, st, order);
        guint np = order->len / 3;
        for (int q = 0; q < s->buckets; q++)
            bucket_src[q] = NONE;
        const pass_ref *last = NULL;
        for (guint i = 0; i < np; i++) {
            const int *v = &g_array_index(order, int, 3 * i);
            build_pass(b, st, v[0] == 1, v[1], v[2], i + 1 == np, bucket_src);
            last = &b->passes[((st * 2 + v[0]) * s->vpp + v[2]) * s->micro_batches + v[1]];
        }
        build_reductions(b, st, last, bucket_src);
    }
}

/* The data dependencies between passes of different stages. */
static void build_data_edges(builder *b)
{
    const job_structure *s = b->s;
    int pp = s->pp, vpp = s->vpp, m = s->micro_batches;
#define PASS(st, fwd, c, mb) (&b->passes[(((st) * 2 + (fwd)) * vpp + (c)) * m + (mb)])
    for (int st = 0; st < pp; st++)
        for (int c = 0; c < vpp; c++)
            for (int mb = 0; mb < m; mb++) {
                if (st > 0)
                    edge(b, PASS(st - 1, 1, c, mb)->out, PASS(st, 1, c, mb)->first);
                else if (c > 0)
                    edge(b, PASS(pp - 1, 1, c - 1, mb)->out, PASS(st, 1, c, mb)->first);
                if (st < pp - 1)
                    edge(b, PASS(st + 1, 0, c, mb)->out, PASS(st, 0, c, mb)->first);
                else if (c < vpp - 1)
                    edge(b, PASS(0, 0, c + 1, mb)->out, PASS(st, 0, c, mb)->first);
                else
                    edge(b, PASS(st, 1, c, mb)->last, PASS(st, 0, c, mb)->first);
            }
#undef PASS
}

/* The optimizer after every stage's reductions; ZeRO 1/2's parameter
 * all-gathers after it. */
static void build_optimizer(builder *b)
{
    const job_structure *s = b->s;
    bool gather = (s->zero == STRUCTURE_ZERO_1 || s->zero == STRUCTURE_ZERO_2) && s->dp > 1;
    if (!(s->opt_s > 0) && !gather)
        return;
    uint32_t opt = compute(b, -1, s->opt_s, s->opt_s > 0 ? b->g->gpus : 0);
    for (int st = 0; st < s->pp; st++)
        if (st == 0 || b->done[st] != b->done[0]) /* the embedding sync ends two stages */
            edge(b, b->done[st], opt);
    for (int st = 0; st < s->pp && gather; st++)
        if (s->stages[st].param_bytes > 0)
            edge(b, opt, comm(b, (op_key){JOB_GRAPH_PARAM, 1, st, st, 1}, false));
}

/* Edges into successor lists (each task's in the order they were added)
 * and predecessor counts. */
static void finish_edges(builder *b)
{
    size_t ne = b->edges->len / 2;
    const uint32_t *e = (const uint32_t *)(void *)b->edges->data;
    GArray *tasks = b->g->tasks;
    g_autofree uint32_t *fill = g_new0(uint32_t, tasks->len + 1);
    for (size_t k = 0; k < ne; k++) {
        g_array_index(tasks, job_graph_task, e[2 * k]).n_succ++;
        g_array_index(tasks, job_graph_task, e[2 * k + 1]).n_pred++;
    }
    uint32_t off = 0;
    for (guint i = 0; i < tasks->len; i++) {
        job_graph_task *t = &g_array_index(tasks, job_graph_task, i);
        t->succ_off = off;
        fill[i] = off;
        off += t->n_succ;
    }
    g_array_set_size(b->g->succ, off);
    for (size_t k = 0; k < ne; k++)
        g_array_index(b->g->succ, uint32_t, fill[e[2 * k]]++) = e[2 * k + 1];
}

/* ---- operations ------------------------------------------------------ */

/* The GPUs at positions ps[0..k) of a as an allocation, hosts in order of
 * first appearance. */
static cluster_alloc *group_alloc(const cluster_alloc *a, const uint32_t *ps, size_t k)
{
    cluster_alloc *g = g_new0(cluster_alloc, 1);
    g->hosts = g_new0(uint32_t, k);
    g->gpu_off = g_new0(uint32_t, k + 1);
    g->gpus = g_new0(uint32_t, k);
    g_autofree size_t *host_of = g_new(size_t, k);
    for (size_t i = 0; i < k; i++)
        host_of[i] = cluster_alloc_host_of(a, ps[i]);
    for (size_t i = 0; i < k; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = host_of[j] == host_of[i];
        if (seen)
            continue;
        g->hosts[g->n_hosts] = a->hosts[host_of[i]];
        g->gpu_off[g->n_hosts] = (uint32_t)g->n_gpus;
        for (size_t j = i; j < k; j++)
            if (host_of[j] == host_of[i])
                g->gpus[g->n_gpus++] = a->gpus[ps[j]];
        g->n_hosts++;
    }
    g->gpu_off[g->n_hosts] = (uint32_t)g->n_gpus;
    return g;
}

/* Rank (t, d, st) -> position in a. */
typedef struct ranks {
    const uint32_t *pos;
    int tp, dp;
} ranks;

static uint32_t rank_pos(const ranks *rk, int t, int d, int st)
{
    return rk->pos[t + rk->tp * (d + rk->dp * st)];
}

/* The groups of operation key as allocations (appended to out). */
static void key_groups(const job_structure *s, const cluster_alloc *a, const ranks *rk,
                       const op_key *key, GPtrArray *out)
{
    int tp = s->tp, dp = s->dp, ep = s->ep, st = key->st;
    g_autofree uint32_t *ps = g_new(uint32_t, MAX(MAX(tp, dp), 2));
    bool pairs = key->cls == JOB_GRAPH_PP || (key->cls == JOB_GRAPH_DP && key->variant == 2);
    switch (pairs ? JOB_GRAPH_PP : key->cls) {
    case JOB_GRAPH_TP:
        for (int d = 0; d < dp; d++) {
            for (int t = 0; t < tp; t++)
                ps[t] = rank_pos(rk, t, d, st);
            g_ptr_array_add(out, group_alloc(a, ps, (size_t)tp));
        }
        break;
    case JOB_GRAPH_MOE:
        for (int t = 0; t < tp; t++)
            for (int blk = 0; blk < dp / ep; blk++) {
                for (int e = 0; e < ep; e++)
                    ps[e] = rank_pos(rk, t, blk * ep + e, st);
                g_ptr_array_add(out, group_alloc(a, ps, (size_t)ep));
            }
        break;
    case JOB_GRAPH_PP: /* each rank of stage st with its counterpart on st2 */
        for (int t = 0; t < tp; t++)
            for (int d = 0; d < dp; d++) {
                ps[0] = rank_pos(rk, t, d, st);
                ps[1] = rank_pos(rk, t, d, key->st2);
                g_ptr_array_add(out, group_alloc(a, ps, 2));
            }
        break;
    default: /* DP, expert DP, parameters: the DP groups (every ep-th rank for experts) */
        for (int t = 0; t < tp; t++) {
            int stride = key->cls == JOB_GRAPH_DP && key->variant == 1 ? ep : 1;
            for (int e = 0; e < stride; e++) {
                int k = 0;
                for (int d = e; d < dp; d += stride)
                    ps[k++] = rank_pos(rk, t, d, st);
                g_ptr_array_add(out, group_alloc(a, ps, (size_t)k));
            }
        }
        break;
    }
}

/* Kind, bytes per group and build options of operation key. */
static coll_kind key_kind(const job_structure *s, const op_key *key, double *S,
                          coll_op_options *oo)
{
    const structure_stage *sg = &s->stages[key->st];
    bool shard = s->zero != STRUCTURE_ZERO_0;
    oo->repeat = 1;
    oo->merge = true;
    switch (key->cls) {
    case JOB_GRAPH_TP:
        *S = key->count * s->tp_bytes;
        oo->repeat = key->count;
        return s->seq_parallel ? COLL_FSDP : COLL_ALLREDUCE; /* all-gather + reduce-scatter */
    case JOB_GRAPH_MOE:
        *S = key->count * s->moe_a2a_bytes;
        oo->repeat = key->count;
        return COLL_ALLTOALL;
    case JOB_GRAPH_PP:
        *S = s->act_bytes / s->tp;
        return COLL_P2P;
    case JOB_GRAPH_DP:
        if (key->variant == 2) { /* pairs, as the pipeline's */
            *S = s->embed_grad_bytes / s->tp;
            return COLL_ALLREDUCE;
        }
        oo->merge = false;
        *S = (key->variant ? sg->expert_grad_bytes : sg->grad_bytes) / (s->tp * s->buckets);
        return shard ? COLL_REDUCESCATTER : COLL_ALLREDUCE;
    default: /* JOB_GRAPH_PARAM */
        *S = key->variant ? sg->param_bytes / s->tp
                          : sg->param_bytes / ((double)s->tp * s->vpp * s->fsdp_units);
        return COLL_ALLGATHER;
    }
}

static bool build_ops(builder *b, const cluster_alloc *a, topo *t, const ranks *rk,
                      const coll_options *o, coll_plan *plan, GError **error)
{
    for (guint i = 0; i < b->keys->len; i++) {
        const op_key *key = &g_array_index(b->keys, op_key, i);
        g_autoptr(GPtrArray) groups = g_ptr_array_new_with_free_func(
            (GDestroyNotify)cluster_alloc_free);
        key_groups(b->s, a, rk, key, groups);
        double S;
        coll_op_options oo;
        coll_kind kind = key_kind(b->s, key, &S, &oo);
        oo.instances = g_array_index(b->uses, int, i);
        int op = coll_plan_add_op(plan, t, (const cluster_alloc *const *)groups->pdata,
                                  groups->len, kind, S, &oo, o, error);
        if (op < 0)
            return false;
        g_assert(op == (int)i);
        b->g->has_comm = b->g->has_comm || coll_plan_op_step_count(plan, (size_t)op) > 0;
    }
    if (o->merge_private) {
        /* serial: a stage's reductions run as one chain (build_reductions),
         * an operation of one task per iteration alone */
        g_autofree bool *serial = g_new0(bool, b->keys->len ? b->keys->len : 1);
        for (guint i = 0; i < b->keys->len; i++)
            serial[i] = g_array_index(b->keys, op_key, i).cls == JOB_GRAPH_DP ||
                        g_array_index(b->uses, int, i) == 1;
        coll_plan_merge_private(plan, t, serial);
    }
    return true;
}

/* Does a group of n consecutive-coordinate ranks along dim cross hosts? */
static bool groups_cross(const job_structure *s, const cluster_alloc *a, const ranks *rk,
                         bool ep)
{
    for (int st = 0; st < s->pp; st++)
        for (int t = 0; t < (ep ? s->tp : 1); t++)
            for (int d = 0; d < s->dp; d += ep ? s->ep : 1)
                for (int k = 1; k < (ep ? s->ep : s->tp); k++) {
                    uint32_t p0 = ep ? rank_pos(rk, t, d, st) : rank_pos(rk, 0, d, st);
                    uint32_t p1 = ep ? rank_pos(rk, t, d + k, st) : rank_pos(rk, k, d, st);
                    if (cluster_alloc_host_of(a, p0) != cluster_alloc_host_of(a, p1))
                        return true;
                }
    return false;
}

job_graph *job_graph_new(const job_structure *s, const cluster_alloc *a, topo *t,
                         const coll_options *o, coll_plan **plan, GError **error)
{
    g_return_val_if_fail(s && a && t && o && plan && structure_gpus(s) == a->n_gpus, NULL);
    g_autoptr(job_graph) g = g_new0(job_graph, 1);
    g->tasks = g_array_new(FALSE, FALSE, sizeof(job_graph_task));
    g->succ = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g->gpus = a->n_gpus;
    g_autofree uint32_t *pos = g_new(uint32_t, a->n_gpus);
    cluster_rank_positions(a, s->tp, s->dp, s->pp, s->order, pos);
    ranks rk = {pos, s->tp, s->dp};
    size_t np = (size_t)s->pp * 2 * s->vpp * s->micro_batches;
    builder b = {.s = s, .g = g};
    b.edges = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    b.keys = g_array_new(FALSE, FALSE, sizeof(op_key));
    b.uses = g_array_new(FALSE, FALSE, sizeof(int));
    b.passes = g_new0(pass_ref, np);
    b.prev_out = g_new(uint32_t, s->pp);
    b.ag_last = g_new(uint32_t, s->pp);
    b.ag_gate = g_new(uint32_t, s->pp);
    b.done = g_new(uint32_t, s->pp);
    for (int st = 0; st < s->pp; st++)
        b.prev_out[st] = b.ag_last[st] = b.ag_gate[st] = b.done[st] = NONE;
    b.tp_cross = groups_cross(s, a, &rk, false);
    b.ep_cross = s->ep > 1 && groups_cross(s, a, &rk, true);
    build_stages(&b);
    build_embedding_sync(&b);
    build_data_edges(&b);
    build_optimizer(&b);
    finish_edges(&b);
    g_autoptr(coll_plan) p = coll_plan_new_empty(o);
    bool ok = build_ops(&b, a, t, &rk, o, p, error);
    g_array_free(b.edges, TRUE);
    g_array_free(b.keys, TRUE);
    g_array_free(b.uses, TRUE);
    g_free(b.passes);
    g_free(b.prev_out);
    g_free(b.ag_last);
    g_free(b.ag_gate);
    g_free(b.done);
    if (!ok)
        return NULL;
    *plan = g_steal_pointer(&p);
    return g_steal_pointer(&g);
}
