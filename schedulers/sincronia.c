/* sincronia.c - Sincronia (Agarwal et al., SIGCOMM'18): sincronia,
 * sincronia-online.  Not here: its BSSI core (sched-bssi.c).
 *
 * From the paper: BSSI (Algorithm 1) orders coflows from last to first by
 * repeatedly taking the bottleneck port and putting there the coflow with
 * the largest weighted processing time last; any order-preserving
 * work-conserving allocation is then within 4x of the optimal total CCT,
 * so strict priority by rank suffices; p priority levels hold the first
 * ranks, the rest share the lowest.
 * Our choices (docs/schedulers.md):
 *  - D11: a job's coflow is its per-iteration traffic; ports are all the
 *    links the running jobs use (network and intra-host), demand
 *    d_c^e = M_{c,e} / B_e (seconds, so ports of different speeds
 *    compare), weight 1; bottleneck ties to the lowest link id, coflow
 *    ties to arrival order (D18);
 *  - D12: ranks 1..K-1 get levels 0..K-2, the rest level K-1;
 *  - only coflows that share a link with another one are ranked (the
 *    others go to level K-1): see keep_contending();
 *  - paths stay ECMP (Sincronia does not route);
 *  - sincronia re-orders on every job start and end;
 *  - sincronia-online models "each iteration is an arriving coflow": at
 *    every start and end of a job's communication phase it re-orders the
 *    jobs that are communicating (their whole per-iteration demand, the
 *    engine does not expose remaining bytes) and puts the others on the
 *    lowest level.  Sincronia's exponential epochs, LP-based subset choice
 *    and orphan ordering are not modelled: with one coflow per job at a
 *    time the LP would admit every active coflow.
 * Cost: O(n^2 P) per ordering, P the ports BSSI can choose: the links two
 * members share and one private link per member (demand_matrix).  Paths and
 * capacities do not change between two reschedules and the running set
 * only changes at one, so each job's demand (by uid) and the levels of
 * each communicating set are kept until the next reschedule: a repeated
 * set costs O(n).  Which members share a link is kept incrementally (per
 * link: how many members use it and the XOR of their uids, so the one
 * user of a link is known): a phase start or end costs O(its links), not
 * O(links of every member).
 */
#include "sim/scheduler.h"

#include <stdlib.h>
#include <string.h>

#include "sched-private.h"

/* One job's demand d_c^e = M_{c,e}/B_e on the links it uses, by increasing
 * link id.  Paths and capacities do not change between two reschedules
 * (sincronia never moves a path), so it is computed once per job and kept
 * until the next reschedule. */
typedef struct sincronia_demand {
    size_t n_links;  /* entries in links and d_s */
    uint32_t *links; /* increasing link ids */
    double *d_s;     /* demand on links[k], seconds per iteration */
    uint32_t *by_d;  /* indices k by decreasing d_s[k], ties by increasing link */
    bool counted;    /* in the link counts (a member: see count_add) */
    size_t shared;   /* its links that another counted member also uses */
} sincronia_demand;

static void sincronia_demand_free(void *p)
{
    sincronia_demand *dm = p;
    g_free(dm->links);
    g_free(dm->d_s);
    g_free(dm->by_d);
    g_free(dm);
}

typedef struct sincronia_sched {
    bool online;
    GHashTable *active;  /* uids (as gint64 keys) in their communication phase */
    GHashTable *demand;  /* uid (gint64 key) -> sincronia_demand, since the last reschedule */
    GHashTable *memo;    /* GBytes of member uids (job order) -> int levels per member,
                          * since the last reschedule */
    GArray *job_uid;     /* per running job (index), its uid (gint64), since the last reschedule */
    GPtrArray *job_dm;   /* per running job, its demand (transfer none) or NULL before first use */
    GArray *members;     /* scratch: job indices being ordered (size_t) */
    GArray *member_uids; /* scratch: their uids (gint64) */
    /* per link, over the counted members (the active jobs of sincronia-online,
     * every running job of sincronia), kept as members come and go: */
    uint32_t *link_n;    /* how many use it */
    uint64_t *link_x;    /* XOR of their uid + 1: the one user's when link_n is 1 */
    size_t n_links;      /* entries of link_n and link_x */
} sincronia_sched;

/* Distinct communicating sets remembered between two reschedules, at most. */
enum { SINCRONIA_MEMO_MAX = 1 << 16 };

static void *sincronia_create(const sched_options *opts, GError **error)
{
    (void)opts;
    (void)error;
    sincronia_sched *s = g_new0(sincronia_sched, 1);
    s->active = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    s->demand = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, sincronia_demand_free);
    s->memo = g_hash_table_new_full(g_bytes_hash, g_bytes_equal, (GDestroyNotify)g_bytes_unref,
                                    g_free);
    s->job_uid = g_array_new(FALSE, FALSE, sizeof(gint64));
    s->job_dm = g_ptr_array_new();
    s->members = g_array_new(FALSE, FALSE, sizeof(size_t));
    s->member_uids = g_array_new(FALSE, FALSE, sizeof(gint64));
    return s;
}

static void *sincronia_online_create(const sched_options *opts, GError **error)
{
    sincronia_sched *s = sincronia_create(opts, error);
    s->online = true;
    return s;
}

static void sincronia_destroy(void *self)
{
    sincronia_sched *s = self;
    if (!s)
        return;
    g_hash_table_destroy(s->active);
    g_hash_table_destroy(s->demand);
    g_hash_table_destroy(s->memo);
    g_array_unref(s->job_uid);
    g_ptr_array_unref(s->job_dm);
    g_array_unref(s->members);
    g_array_unref(s->member_uids);
    g_free(s->link_n);
    g_free(s->link_x);
    g_free(s);
}

typedef struct link_demand {
    uint32_t link;
    double d_s;
} link_demand;

static int cmp_link_demand(const void *a, const void *b)
{
    uint32_t x = ((const link_demand *)a)->link, y = ((const link_demand *)b)->link;
    return (x > y) - (x < y);
}

/* Larger demand first, then the lower link id. */
static int cmp_demand_desc(const void *a, const void *b)
{
    const link_demand *x = a, *y = b;
    if (x->d_s != y->d_s)
        return x->d_s < y->d_s ? 1 : -1;
    return (x->link > y->link) - (x->link < y->link);
}

/* The cached demand of running job j, computed on first use. */
static sincronia_demand *job_demand(sincronia_sched *s, sched_ctx *ctx, size_t j)
{
    sincronia_demand *dm = g_ptr_array_index(s->job_dm, j);
    if (dm)
        return dm;
    gint64 uid = g_array_index(s->job_uid, gint64, j);
    g_autoptr(GArray) l = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_autoptr(GArray) b = g_array_new(FALSE, FALSE, sizeof(double));
    sched_job_link_bytes(ctx, j, l, b);
    g_autofree link_demand *ld = g_new(link_demand, l->len + 1);
    for (guint k = 0; k < l->len; k++) {
        uint32_t e = g_array_index(l, uint32_t, k);
        ld[k].link = e;
        ld[k].d_s = g_array_index(b, double, k) / sched_link_capacity_Bps(ctx, e);
    }
    qsort(ld, l->len, sizeof *ld, cmp_link_demand); /* links are distinct */
    dm = g_new0(sincronia_demand, 1);
    dm->n_links = l->len;
    dm->links = g_new(uint32_t, l->len + 1);
    dm->d_s = g_new(double, l->len + 1);
    dm->by_d = g_new(uint32_t, l->len + 1);
    for (guint k = 0; k < l->len; k++) {
        dm->links[k] = ld[k].link;
        dm->d_s[k] = ld[k].d_s;
        ld[k].link = k; /* reused below as the index into links */
    }
    qsort(ld, l->len, sizeof *ld, cmp_demand_desc); /* indices follow link order */
    for (guint k = 0; k < l->len; k++)
        dm->by_d[k] = ld[k].link;
    g_hash_table_insert(s->demand, g_memdup2(&uid, sizeof uid), dm);
    g_ptr_array_index(s->job_dm, j) = dm;
    return dm;
}

/* The port BSSI needs of member dm's private links (links no other
 * counted member uses): the one with the largest demand, the lowest link
 * id among equal ones; UINT32_MAX if it has no private link with demand.
 * Why one is enough: a private port's load is its member's demand there
 * while that member is unordered and 0 after, so on each round each of
 * the member's other private ports carries at most that port's load (and
 * has a higher id where equal): it can never be the bottleneck (the
 * largest load, lowest id among equal ones).  And a bottleneck port only
 * acts through the demands on it: a private one places its member last
 * and changes no other weight.  O(its links), usually O(1). */
static uint32_t private_port(const sincronia_sched *s, const sincronia_demand *dm)
{
    for (size_t r = 0; r < dm->n_links; r++) {
        size_t k = dm->by_d[r];
        if (!(dm->d_s[k] > 0.0))
            break;
        if (s->link_n[dm->links[k]] == 1)
            return dm->links[k];
    }
    return UINT32_MAX;
}

/* Demands d[i][p] = M_{i,e}/B_e of the jobs `members` (all counted) on the ports BSSI can choose, numbered by increasing link id
 * (D18 ties to the lowest link): every link two members use, and each
 * member's private_port().  The other links are private ports that can
 * never be the bottleneck, so BSSI orders the members as it would on all
 * their links (test `schedulers/sincronia_private_ports`); on a busy
 * cluster that is a few dozen ports instead of thousands (each job's
 * intra-host links).  Returns the matrix (m x *n_ports, transfer full). */
static double *demand_matrix(sincronia_sched *s, sched_ctx *ctx, const size_t *members, size_t m,
                             size_t *n_ports)
{
    g_autofree const sincronia_demand **dm = g_new(const sincronia_demand *, m + 1);
    g_autoptr(GArray) all = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (size_t i = 0; i < m; i++) {
        dm[i] = job_demand(s, ctx, members[i]);
        for (size_t k = 0; k < dm[i]->n_links; k++)
            if (s->link_n[dm[i]->links[k]] >= 2)
                g_array_append_val(all, dm[i]->links[k]);
        uint32_t own = private_port(s, dm[i]);
        if (own != UINT32_MAX)
            g_array_append_val(all, own);
    }
    g_array_sort(all, (GCompareFunc)sched__cmp_u32);
    size_t P = 0; /* distinct links, in increasing order */
    for (guint k = 0; k < all->len; k++)
        if (k == 0 || g_array_index(all, uint32_t, k) != g_array_index(all, uint32_t, P - 1))
            g_array_index(all, uint32_t, P++) = g_array_index(all, uint32_t, k);
    double *d = g_new0(double, m * P + 1);
    const uint32_t *port = (const uint32_t *)(void *)all->data;
    for (size_t i = 0; i < m; i++) {
        size_t p = 0; /* both lists increase: merge */
        for (size_t k = 0; k < dm[i]->n_links && p < P; k++) {
            while (p < P && port[p] < dm[i]->links[k])
                p++;
            if (p < P && port[p] == dm[i]->links[k])
                d[i * P + p] = dm[i]->d_s[k];
        }
    }
    *n_ports = P;
    return d;
}

static size_t uf_root(size_t *uf, size_t x)
{
    while (uf[x] != x)
        x = uf[x] = uf[uf[x]];
    return x;
}

/* sincronia-online's levels: BSSI and D12 per component of the members
 * (two members meet when both have demand on a port, directly or through
 * others).  BSSI's choices inside one component depend only on its own
 * ports and weights, so each component gets the relative order the whole
 * ordering gives it; but the ranks restart at 0 in each, so components
 * that cannot meet no longer share the K levels, and a member's level
 * depends only on the members it can meet.  out: one level per member. */
static void component_levels(const double *d, size_t m, size_t P, int K, int *out)
{
    g_autofree size_t *uf = g_new(size_t, m + 1);
    g_autofree size_t *first = g_new(size_t, P + 1); /* per port: its first member, or m */
    for (size_t i = 0; i < m; i++)
        uf[i] = i;
    for (size_t p = 0; p < P; p++)
        first[p] = m;
    for (size_t i = 0; i < m; i++)
        for (size_t p = 0; p < P; p++)
            if (d[i * P + p] > 0.0) {
                if (first[p] == m)
                    first[p] = i;
                else
                    uf[uf_root(uf, i)] = uf_root(uf, first[p]);
            }
    g_autofree size_t *idx = g_new(size_t, m + 1);
    g_autofree double *sub = g_new(double, m * P + 1);
    g_autofree size_t *order = g_new(size_t, m + 1);
    g_autofree int *lv = g_new(int, m + 1);
    g_autofree bool *done = g_new0(bool, m + 1);
    for (size_t r = 0; r < m; r++) {
        if (done[uf_root(uf, r)])
            continue;
        size_t root = uf_root(uf, r), mc = 0; /* its members, in member order */
        for (size_t i = r; i < m; i++)
            if (uf_root(uf, i) == root) {
                memcpy(sub + mc * P, d + i * P, P * sizeof *d);
                idx[mc++] = i;
            }
        done[root] = true;
        sched__bssi(mc, P, sub, NULL, false, order);
        sched__rank_levels(order, mc, K, lv);
        for (size_t k = 0; k < mc; k++)
            out[idx[k]] = lv[k];
    }
}

/* Levels (D12) of the jobs `members` (uids `uids`) ordered by BSSI, one
 * per member (sincronia-online: per component, component_levels);
 * remembered for this set of uids until the next reschedule. */
static const int *member_levels(sincronia_sched *s, sched_ctx *ctx, const size_t *members,
                                const gint64 *uids, size_t m)
{
    g_autoptr(GBytes) key = g_bytes_new(uids, m * sizeof *uids);
    const int *hit = g_hash_table_lookup(s->memo, key);
    if (hit)
        return hit;
    size_t P;
    g_autofree double *d = demand_matrix(s, ctx, members, m, &P);
    int *rank_level = g_new(int, m + 1);
    if (s->online) {
        component_levels(d, m, P, sched_priority_levels(ctx), rank_level);
    } else {
        g_autofree size_t *order = g_new(size_t, m + 1);
        sched__bssi(m, P, d, NULL, false, order);
        sched__rank_levels(order, m, sched_priority_levels(ctx), rank_level);
    }
    if (g_hash_table_size(s->memo) >= SINCRONIA_MEMO_MAX)
        g_hash_table_remove_all(s->memo);
    g_hash_table_insert(s->memo, g_bytes_ref(key), rank_level);
    return rank_level;
}

/* Order the jobs in s->members by BSSI and set their levels by D12; jobs
 * not in the members go to the lowest level. */
static void order_jobs(sincronia_sched *s, sched_ctx *ctx)
{
    size_t n = sched_job_count(ctx);
    int K = sched_priority_levels(ctx);
    size_t m = s->members->len;
    const size_t *members = (const size_t *)(void *)s->members->data;
    const int *rank_level =
        member_levels(s, ctx, members, (const gint64 *)(void *)s->member_uids->data, m);
    size_t i = 0; /* members increase */
    for (size_t j = 0; j < n; j++) {
        int level = K - 1;
        if (i < m && members[i] == j)
            level = rank_level[i++];
        sched_set_priority(ctx, j, level);
    }
}

/* Count member dm (uid) in: each of its links gains a user; a link going
 * from one user to two becomes shared for both.  O(its links). */
static void count_add(sincronia_sched *s, sched_ctx *ctx, sincronia_demand *dm, gint64 uid)
{
    size_t L = sched_link_count(ctx);
    if (s->n_links < L) {
        s->link_n = g_renew(uint32_t, s->link_n, L);
        s->link_x = g_renew(uint64_t, s->link_x, L);
        memset(s->link_n + s->n_links, 0, (L - s->n_links) * sizeof *s->link_n);
        memset(s->link_x + s->n_links, 0, (L - s->n_links) * sizeof *s->link_x);
        s->n_links = L;
    }
    uint64_t key = (uint64_t)uid + 1;
    for (size_t k = 0; k < dm->n_links; k++) {
        uint32_t e = dm->links[k];
        uint32_t before = s->link_n[e]++;
        if (before == 1) { /* the one user so far now shares e too */
            gint64 other = (gint64)(s->link_x[e] - 1);
            sincronia_demand *o = g_hash_table_lookup(s->demand, &other);
            g_assert(o && o->counted);
            o->shared++;
        }
        if (before >= 1)
            dm->shared++;
        s->link_x[e] ^= key;
    }
    dm->counted = true;
}

/* Count member dm (uid) out: the reverse of count_add. */
static void count_remove(sincronia_sched *s, sincronia_demand *dm, gint64 uid)
{
    uint64_t key = (uint64_t)uid + 1;
    for (size_t k = 0; k < dm->n_links; k++) {
        uint32_t e = dm->links[k];
        s->link_x[e] ^= key;
        uint32_t after = --s->link_n[e];
        if (after >= 1)
            dm->shared--;
        if (after == 1) { /* the one left no longer shares e */
            gint64 other = (gint64)(s->link_x[e] - 1);
            sincronia_demand *o = g_hash_table_lookup(s->demand, &other);
            g_assert(o && o->counted);
            o->shared--;
        }
    }
    dm->counted = false;
    dm->shared = 0;
}

/* Drop from s->members the jobs that share no link with another member.
 * Their order changes nobody's rate, and BSSI would rank them early (their
 * private ports carry little), taking the few distinct levels from the
 * coflows that do contend.  Removing them leaves the others' relative
 * order unchanged: on a private bottleneck port BSSI only places that
 * port's one coflow last and adjusts nobody else's weight.  The members
 * are exactly the counted jobs, so the link counts answer at once: O(m)
 * (they were rebuilt per phase before: O(links of all members)). */
static void keep_contending(sincronia_sched *s, sched_ctx *ctx)
{
    size_t m = s->members->len;
    const size_t *members = (const size_t *)(void *)s->members->data;
    const gint64 *uids = (const gint64 *)(void *)s->member_uids->data;
    size_t kept = 0;
    for (size_t i = 0; i < m; i++) {
        const sincronia_demand *dm = job_demand(s, ctx, members[i]);
        g_assert(dm->counted);
        if (dm->shared > 0) {
            g_array_index(s->members, size_t, kept) = members[i];
            g_array_index(s->member_uids, gint64, kept) = uids[i];
            kept++;
        }
    }
    g_array_set_size(s->members, kept);
    g_array_set_size(s->member_uids, kept);
}

/* The members are the counted jobs (count_add), in job order. */
static void sincronia_reorder(sincronia_sched *s, sched_ctx *ctx)
{
    g_array_set_size(s->members, 0);
    g_array_set_size(s->member_uids, 0);
    for (size_t j = 0; j < s->job_dm->len; j++) {
        const sincronia_demand *dm = g_ptr_array_index(s->job_dm, j);
        if (dm && dm->counted) {
            g_array_append_val(s->members, j);
            g_array_append_val(s->member_uids, g_array_index(s->job_uid, gint64, j));
        }
    }
    keep_contending(s, ctx);
    order_jobs(s, ctx);
}

static void sincronia_reschedule(void *self, sched_ctx *ctx)
{
    sincronia_sched *s = self;
    /* the running set changed: demands, counts and orders are recomputed */
    GHashTableIter it;
    gpointer key, val;
    g_hash_table_iter_init(&it, s->demand);
    while (g_hash_table_iter_next(&it, &key, &val)) {
        const sincronia_demand *dm = val;
        for (size_t k = 0; dm->counted && k < dm->n_links; k++)
            s->link_n[dm->links[k]] = 0, s->link_x[dm->links[k]] = 0;
    }
    g_hash_table_remove_all(s->demand);
    g_hash_table_remove_all(s->memo);
    size_t n = sched_job_count(ctx);
    g_array_set_size(s->job_uid, n);
    g_ptr_array_set_size(s->job_dm, 0);
    g_ptr_array_set_size(s->job_dm, (guint)n); /* all NULL */
    for (size_t j = 0; j < n; j++) {
        sched_job_info info;
        sched_job_get(ctx, j, &info);
        g_array_index(s->job_uid, gint64, j) = (gint64)info.uid;
    }
    if (s->online) { /* forget jobs that ended */
        g_autoptr(GHashTable) running = g_hash_table_new(g_int64_hash, g_int64_equal);
        for (size_t j = 0; j < n; j++)
            g_hash_table_add(running, &g_array_index(s->job_uid, gint64, j));
        GHashTableIter ia;
        gpointer ka;
        g_hash_table_iter_init(&ia, s->active);
        while (g_hash_table_iter_next(&ia, &ka, NULL))
            if (!g_hash_table_contains(running, ka))
                g_hash_table_iter_remove(&ia);
    }
    /* count the members again: the active jobs, or every running job */
    for (size_t j = 0; j < n; j++) {
        gint64 uid = g_array_index(s->job_uid, gint64, j);
        if (!s->online || g_hash_table_contains(s->active, &uid))
            count_add(s, ctx, job_demand(s, ctx, j), uid);
    }
    sincronia_reorder(s, ctx);
}

static void sincronia_on_comm(void *self, sched_ctx *ctx, size_t j, bool starting)
{
    sincronia_sched *s = self;
    g_assert(j < s->job_uid->len); /* the running set changes only at a reschedule */
    gint64 uid = g_array_index(s->job_uid, gint64, j);
    sincronia_demand *dm = job_demand(s, ctx, j);
    if (starting && !dm->counted) {
        g_hash_table_add(s->active, g_memdup2(&uid, sizeof uid));
        count_add(s, ctx, dm, uid);
    } else if (!starting && dm->counted) {
        g_hash_table_remove(s->active, &uid);
        count_remove(s, dm, uid);
    }
    sincronia_reorder(s, ctx);
}

const sched_ops sched_sincronia_ops = {
    .name = "sincronia",
    .summary = "Sincronia: BSSI order of per-iteration coflows, ECMP paths",
    .unlimited_levels = false,
    .create = sincronia_create,
    .destroy = sincronia_destroy,
    .reschedule = sincronia_reschedule,
    .on_comm = NULL,
};

const sched_ops sched_sincronia_online_ops = {
    .name = "sincronia-online",
    .summary = "Sincronia, re-ordering the communicating jobs at every communication phase",
    .unlimited_levels = false,
    .create = sincronia_online_create,
    .destroy = sincronia_destroy,
    .reschedule = sincronia_reschedule,
    .on_comm = sincronia_on_comm,
    .comm_hints = {
        /* a job sharing no link is never a contending member (keep_contending) */
        .ignores_isolated = true,
        /* nor is one whose link-sharing jobs are all out of their
         * communication phase: its phases then change no count and no level */
        .local = true,
        /* levels per component of the communicating members (component_levels),
         * which lies inside one group; the counts follow the phases */
        .grouped = true,
        /* it only sets levels, from which jobs are in their phase */
        .levels_only = true,
    },
};
