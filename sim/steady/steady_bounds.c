/* steady_bounds.c - the most a job can ever put on each link of its plans,
 * its bounds (docs/engine.md §5b).  Not here: what they decide
 * (steady_links.c).
 */
#include <math.h>

#include "steady-private.h"

/* The most job j can put on each link of its plan, its *bound* b_je
 * (docs/engine.md §5b), used only through "the running jobs' bounds on e
 * add up to at most C_e", so each must hold in every allocation x the
 * solver may give (every level's included: feasible, each link's load at
 * most its capacity), whatever the other jobs do.
 *
 * A job runs one step of its plan at a time, so b_je = max over steps of
 * a bound of the step's load on e.  Transfer i of the step moves at x_i,
 * putting m_if x_i on each link f of its own (m_if its multiplicity), so
 * x_i <= s_i = min_f C_f / m_if (its solo rate).  Give i a *covering link*
 * f*(i), an argmin of C_f / m_if (ties: the link carried by the most of
 * the step's transfers, then the lowest id), so s_i = C_f* / m_if*.  Split
 * the step's transfers on e into classes K by covering link f; for the
 * class, every i in K crosses f, and the job's own load on f is at most
 * C_f in any feasible allocation (the other jobs' loads are >= 0):
 *
 *   sum_{i in K} m_ie x_i = sum_{i in K} (m_ie / m_if) m_if x_i
 *                        <= (max_{i in K} m_ie / m_if) sum_{i in K} m_if x_i
 *                        <= ratio_K C_f,
 *
 * and also <= sum_{i in K} m_ie s_i.  So the step's load on e is at most
 * the sum over its classes of min(sum m_ie s_i, ratio_K C_f): channels of
 * one rail, which share their NICs, count one NIC's worth on an uplink
 * that two of them cross, not two.  Only feasibility is used, never what
 * the job would get alone: max-min is not monotone (a job can get more on
 * e when others take a link elsewhere), so the alone rates bound nothing.
 * Cost O(transfer-link pairs) per plan, kept until the job's paths change. */

/* One transfer of a step (steady__job_bounds). */
typedef struct xfer_cover {
    guint off, len;      /* its links in the step's concatenated arrays */
    double solo_Bps;     /* s_i */
    uint32_t cover;      /* f*(i) */
    uint32_t cover_mult; /* m_if* */
    uint32_t next;       /* the next transfer of its class + 1; 0 ends the class */
} xfer_cover;

/* steady__job_bounds' work space: per-link arrays zeroed on entry and left
 * zeroed (the wing's), step arrays its own. */
typedef struct bound_scratch {
    double *acc, *ratio;  /* per link: the class's sum of m_ie s_i, its max m_ie / m_if */
    double *step, *peak;  /* per link: the step's bound, the max over the operation's steps */
    double *total;        /* per link: the sum of the operations' peaks so far */
    uint32_t *cnt;        /* per link: the step's transfers on it */
    uint32_t *head;       /* per covering link: its class's first transfer + 1 */
    GArray *links, *mult; /* uint32: the step's transfers' links, one after the other */
    GArray *xfers;        /* xfer_cover per transfer of the step */
    GArray *step_links;   /* uint32: the step's distinct links */
    GArray *covers;       /* uint32: the step's distinct covering links */
    GArray *class_links;  /* uint32: the class's distinct links */
} bound_scratch;

/* The links of the transfers of step st of operation op into s, counting
 * the transfers on each link (cnt). */
static void step_load(const coll_plan *p, size_t op, size_t st, bound_scratch *s)
{
    g_autoptr(GArray) links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_autoptr(GArray) mult = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_array_set_size(s->links, 0);
    g_array_set_size(s->mult, 0);
    g_array_set_size(s->xfers, 0);
    g_array_set_size(s->step_links, 0);
    for (size_t i = 0; i < coll_plan_op_xfer_count(p, op, st); i++) {
        coll_xfer_links(p, coll_plan_op_xfer(p, op, st, i), links, mult);
        xfer_cover x = {.off = s->links->len, .len = links->len};
        g_array_append_vals(s->links, links->data, links->len);
        g_array_append_vals(s->mult, mult->data, mult->len);
        g_array_append_val(s->xfers, x);
        for (guint k = 0; k < links->len; k++) {
            uint32_t e = g_array_index(links, uint32_t, k);
            if (s->cnt[e]++ == 0)
                g_array_append_val(s->step_links, e);
        }
    }
}

/* Each transfer's solo rate and covering link (links come in increasing
 * order, so keeping the first best keeps the lowest id), and the classes:
 * the distinct covering links (covers), each with its transfers chained
 * from head. */
static void step_covers(const topo *t, bound_scratch *s)
{
    const uint32_t *lv = (const uint32_t *)(void *)s->links->data;
    const uint32_t *mv = (const uint32_t *)(void *)s->mult->data;
    g_array_set_size(s->covers, 0);
    for (guint i = 0; i < s->xfers->len; i++) {
        xfer_cover *x = &g_array_index(s->xfers, xfer_cover, i);
        x->solo_Bps = INFINITY;
        for (guint k = x->off; k < x->off + x->len; k++) {
            double rate = topo_link_get(t, lv[k])->cap_Bps / mv[k];
            if (rate < x->solo_Bps || (rate == x->solo_Bps && s->cnt[lv[k]] > s->cnt[x->cover])) {
                x->solo_Bps = rate;
                x->cover = lv[k];
                x->cover_mult = mv[k];
            }
        }
        if (x->len == 0)
            continue;
        if (s->head[x->cover] == 0)
            g_array_append_val(s->covers, x->cover);
        x->next = s->head[x->cover];
        s->head[x->cover] = i + 1;
    }
}

/* Adds to step[e], for every link e of the class covered by f, the class's
 * bound min(sum m_ie s_i, ratio C_f). */
static void class_bound(const topo *t, bound_scratch *s, uint32_t f)
{
    const uint32_t *lv = (const uint32_t *)(void *)s->links->data;
    const uint32_t *mv = (const uint32_t *)(void *)s->mult->data;
    g_array_set_size(s->class_links, 0);
    for (uint32_t i1 = s->head[f]; i1 != 0;) {
        const xfer_cover *x = &g_array_index(s->xfers, xfer_cover, i1 - 1);
        for (guint k = x->off; k < x->off + x->len; k++) {
            uint32_t e = lv[k];
            if (s->ratio[e] == 0)
                g_array_append_val(s->class_links, e);
            s->acc[e] += mv[k] * x->solo_Bps;
            s->ratio[e] = fmax(s->ratio[e], (double)mv[k] / x->cover_mult);
        }
        i1 = x->next;
    }
    s->head[f] = 0;
    double cap = topo_link_get(t, f)->cap_Bps;
    for (guint k = 0; k < s->class_links->len; k++) {
        uint32_t e = g_array_index(s->class_links, uint32_t, k);
        s->step[e] += fmin(s->acc[e], s->ratio[e] * cap);
        s->acc[e] = s->ratio[e] = 0;
    }
}

/* Step st of operation op of p into s->peak (per link: the most over the
 * operation's steps so far), the links it reaches first into op_links. */
static void step_peaks(const topo *t, const coll_plan *p, size_t op, size_t st,
                       bound_scratch *s, GArray *op_links)
{
    step_load(p, op, st, s);
    step_covers(t, s);
    for (guint k = 0; k < s->covers->len; k++)
        class_bound(t, s, g_array_index(s->covers, uint32_t, k));
    for (guint k = 0; k < s->step_links->len; k++) {
        uint32_t e = g_array_index(s->step_links, uint32_t, k);
        if (s->peak[e] == 0)
            g_array_append_val(op_links, e);
        s->peak[e] = fmax(s->peak[e], s->step[e]);
        s->step[e] = 0;
        s->cnt[e] = 0;
    }
}

/* A job's plans, and a plan's operations, may run at one time
 * (job_comm_plan; a structured job's plan holds several operations), each
 * operation one step at a time: its bound on e is the sum over its plans'
 * operations of the operation's largest step bound on e. */
void steady__job_bounds(steady *st, const job *j, GArray *out)
{
    const topo *t = st->env.t;
    size_t L = topo_link_count(t);
    double *acc = st->bound_acc;
    bound_scratch s = {
        .acc = acc, .ratio = acc + L, .step = acc + 2 * L, .peak = acc + 3 * L,
        .total = acc + 4 * L, .cnt = st->bound_cnt, .head = st->bound_cnt + L,
    };
    GArray **arrays[] = {&s.links, &s.mult, &s.step_links, &s.covers, &s.class_links};
    for (size_t i = 0; i < G_N_ELEMENTS(arrays); i++)
        *arrays[i] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    s.xfers = g_array_new(FALSE, FALSE, sizeof(xfer_cover));
    GArray *op_links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_array_set_size(out, 0);
    for (size_t pi = 0; pi < job_comm_plan_count(j); pi++) {
        const coll_plan *p = job_comm_plan(j, pi);
        for (size_t op = 0; op < coll_plan_op_count(p); op++) {
            g_array_set_size(op_links, 0);
            for (size_t k = 0; k < coll_plan_op_step_count(p, op); k++)
                step_peaks(t, p, op, k, &s, op_links);
            for (guint k = 0; k < op_links->len; k++) {
                uint32_t e = g_array_index(op_links, uint32_t, k);
                if (s.total[e] == 0) {
                    link_bound b = {e, 0};
                    g_array_append_val(out, b);
                }
                s.total[e] += s.peak[e];
                s.peak[e] = 0;
            }
        }
    }
    for (guint k = 0; k < out->len; k++) {
        link_bound *b = &g_array_index(out, link_bound, k);
        b->Bps = s.total[b->link];
        s.total[b->link] = 0;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(arrays); i++)
        g_array_unref(*arrays[i]);
    g_array_unref(s.xfers);
    g_array_unref(op_links);
}
