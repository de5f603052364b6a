/* steady-private.h - the wing's state and what its files share
 * (sim/steady/ only).  Calls go one way: steady.c (the face) calls the
 * others; steady_group.c calls steady_approx.c and steady_snap.c;
 * steady_approx.c calls steady_snap.c; steady_links.c calls
 * steady_bounds.c; steady_levels.c reads the link tables.
 */
#ifndef CCSIM_SIM_STEADY_STEADY_PRIVATE_H
#define CCSIM_SIM_STEADY_STEADY_PRIVATE_H

#include "steady.h"

typedef struct group group;

/* The most a job can ever put on one link of its plans (steady_bounds.c). */
typedef struct link_bound {
    uint32_t link;
    double Bps;
} link_bound;

/* The wing's side record of a running job (by uid, steady__rec). */
typedef struct steady_job {
    size_t slot;            /* its index in env.running as of the last update */
    bool isolated;          /* runs as alone: every link it shares with another running
                             * job can never saturate (§5b) */
    bool shares_links;      /* it does share a link with another running job */
    GArray *link_bounds;    /* link_bound per link of its plans (NULL: stale) */
    GPtrArray *tight_peers; /* job*: running jobs sharing a link with it that can saturate */
    group *group;           /* its group of jobs sharing links, or NULL (§5c) */
    bool levels_free;       /* it and every job linked to it through shared links run as
                             * alone: no level there changes a rate (§5b) */
    bool prio_deferred;     /* its running transfers not all at its net level: no level
                             * changes its rates while isolated (steady_levels.c) */
    guint level_group;      /* its group of jobs sharing links for the levels, and */
    uint64_t level_epoch;   /* when it was computed (steady_levels.c) */
    double approx_iter_bound; /* iterations its approximate jumps may be off by (§5d) */
    double approx_frac;     /* the fraction of an iteration they have not added yet */
    /* --steady approx: it brought a carried window into a group formed at
     * the change at post_from_s (post_wait), with its iteration then in
     * progress begun pre_s before it, and post_ctr holds its counters at
     * its first iteration boundary after the change, at post_t (post_valid;
     * steady__post_boundary): where that iteration's part before the change
     * is more than APPROX_EPS of the iterations the window from the change
     * holds, the window starts at that boundary (§5d).  The times and
     * counters move with the group's jumps, as its records do. */
    bool post_wait, post_valid;
    double post_from_s, post_t, pre_s;
    job_counters post_ctr;
} steady_job;

struct steady {
    steady_env env;            /* env.fast_forward: on now (steady_set_fast_path) */
    bool run_fast_forward;     /* on in this run at all */
    GPtrArray *rec;            /* steady_job* by job uid (NULL: none) */
    /* the link tables (steady_links.c), as of the last update */
    bool stale;                /* paths changed since they were computed */
    uint32_t *link_jobs;       /* per link: running jobs using it */
    double *link_bound_sum;    /* per link: the sum of their bounds */
    double *bound_acc;         /* 4 x links of zeroed scratch (steady_bounds.c) */
    uint32_t *bound_cnt;       /* 2 x links of zeroed scratch (steady_bounds.c) */
    GArray *links;             /* uint32: the running jobs' links, job after job */
    GArray *off;               /* guint: where running job i's links start in it */
    GArray *share_pairs;       /* (link, slot) uint32 pairs of the links two or more running
                                * jobs use, by link then slot (only under hints.local) */
    double end_min1, end_min2; /* the two earliest recorded ends of running jobs */
    const job *end_min1_job;   /* the job with end_min1 */
    /* the groups (steady_group.c, §5c) */
    GPtrArray *groups;         /* group* */
    uint32_t *first;           /* per link: scratch of the union (all NONE) */
    uint32_t *uf;              /* union-find parents over running slots */
    size_t cap_uf;
    /* the levels (steady_levels.c) */
    uint32_t *level_first;     /* per link: scratch of steady__levels_groups (all NONE) */
    uint64_t level_epoch;      /* the last steady__levels_groups */
    bool level_groups_stale;   /* a path changed since */
    steady_counters c;
};

#define NONE UINT32_MAX

/* Running job i's links in s->links: [*a, *b). */
static inline void steady__job_links(const steady *s, guint i, guint *a, guint *b)
{
    guint n = s->off->len;
    *a = g_array_index(s->off, guint, i);
    *b = i + 1 < n ? g_array_index(s->off, guint, i + 1) : s->links->len;
}

/* ---- steady_links.c: the side records, the link tables, who runs as
 * alone (§5b) ---- */

/* j's side record, created (zeroed) on first use. */
steady_job *steady__rec(steady *s, const job *j);
/* Is j the running job of slot rec->slot as of the last update (the
 * tables are about it)? */
bool steady__current(const steady *s, const job *j, const steady_job *rec);

/* Recount the link tables, each running job's isolation and peers, and
 * the (link, slot) pairs of shared links, from env.running. */
void steady__links_update(steady *s);
/* Can link e saturate (the running jobs' bounds on it exceed C_e)? */
bool steady__link_tight(const steady *s, uint32_t e);
/* The earliest change the groups must meet on the event path: an arrival,
 * the end of any running job, the window's end, and with ticks the next
 * interval tick. */
double steady__next_change(const steady *s, bool ticks);

/* ---- steady_bounds.c ---- */

/* Into out (link_bound, each link once): j's bound on every link of its
 * plans (§5b). */
void steady__job_bounds(steady *s, const job *j, GArray *out);

/* ---- steady_levels.c (docs/engine.md §4) ---- */

/* The groups of running jobs linked through shared links (level_group),
 * after steady__links_update. */
void steady__levels_groups(steady *s);
/* Give the running transfers the levels that change a rate. */
void steady__levels_commit(steady *s, bool wait);
/* Each running job's levels_free, after the isolation is updated. */
void steady__levels_free_update(steady *s);

/* ---- steady_snap.c: a group's snapshots and its jump ---- */

/* Snapshots kept per group: a period may span this many anchor
 * iterations. */
#define RING 8

typedef struct snap {
    double t;     /* the anchor boundary */
    GArray *vals; /* phase_val: the anchor's next start, then each member's phase */
    GArray *off;  /* guint per member: where its phase starts in vals */
    GArray *ctr;  /* job_counters per member */
    GArray *lst;  /* net_link_stats per group link, if has_links */
    GArray *since; /* rates only: double per member, the time since its iteration began */
    bool has_links;
    bool at_change; /* rates only: taken when the group formed, not at a boundary */
    bool kept;      /* rates only: a jump took the window it opened (counted once) */
} snap;

/* The snapshots taken at one member's iteration boundaries. */
typedef struct ring {
    snap *s[RING];  /* oldest first */
    int n;
    int boundaries; /* boundaries since the last repeat (or skip) or change */
    bool gave_up;
} ring;

struct group {
    GPtrArray *members; /* job*, arrival order */
    GArray *links;      /* uint32: the members' plan links, each once, sorted */
    job *anchor;        /* the longest isolated iteration: exact repeats */
    job *fast;          /* the shortest: repeats modulo long transfers */
    ring slow;          /* at the anchor's boundaries */
    ring quick;         /* at fast's, when fast is not the anchor */
    ring rates;         /* --steady approx: counters at the anchor's boundaries, kept
                         * across changes that leave the group as it was (§5d) */
    GArray *prio;       /* int per member: the rank of its level among the members'
                         * when the group was built (0 the highest; equal levels, one rank) */
    int rates_stride;   /* anchor iterations between two snapshots of rates (0: 1) */
    int rates_count;    /* anchor boundaries since the last one */
    bool rates_fresh;   /* a snapshot of rates came since the last check */
    bool rates_jumped;  /* --steady approx: the group jumped on its windows (its last
                         * two, or g->carried and its first) and no snapshot of rates
                         * came since: a change that keeps the group keeps that (§5d) */
    int drift_boundaries; /* fast's boundaries since the last repeat modulo long transfers */
    bool drift_gave_up;
    bool open;          /* a job runs as alone (§5b) on a link of it, or the
                         * scheduler's hook sees a member: no skips */
    bool links_own;     /* every transfer in flight uses group links only */
    GArray *carried;    /* --steady approx, a group formed at a change whose members
                         * but at most one had a window measured before it: job_counters
                         * per member, its increments over that window (iterations 0:
                         * the new member), checked against one window (§5d), kept
                         * until the group's second window; NULL: none */
    bool carried_wait;  /* --steady approx: at the first record after the change a member
                         * had ended no iteration since it: the carried window is checked
                         * against the window from the change to the next record; if that
                         * one does not decide either, the usual windows do at the next
                         * check (§5d) */
    GArray *gaps;       /* --steady approx: double per member, |m2 - m1| / m2 of its two
                         * windows at the last check on whole windows (NULL: none yet), */
    int gaps_stride;    /* and that check's rates_stride: a doubled window's disagreement
                         * that is not smaller stops the doubling (§5d) */
};

snap *steady__snap_new(void);
void steady__snap_free(snap *s);
void steady__ring_clear(ring *rg);
/* Keep s as the newest snapshot (the oldest one goes when the ring is full). */
void steady__ring_push(ring *rg, snap *s);
/* Drop the snapshots before e, move the others dt later and their counters
 * on by k times dc (per member) and dl (per group link). */
void steady__ring_shift(ring *rg, int e, double dt, double k, const GArray *dc,
                        const GArray *dl);
/* The group's members' phases at now_s, a boundary of member at (origin_s:
 * its next iteration's start), with what the scheduler's hook keeps about
 * each (env.hook_state), and their counters; not the links'. */
void steady__capture(steady *st, const group *g, const job *at, double origin_s, double now_s,
                     snap *s);
/* The members' counters at now_s and how long ago each began its
 * iteration in progress, without their phases. */
void steady__capture_counters(const group *g, double now_s, snap *s);
/* The group links' counters now, into s. */
void steady__capture_links(const steady *st, const group *g, snap *s);
/* S - E per member (dc, job_counters) and per group link (dl, net_link_stats). */
void steady__period_incr(const snap *E, const snap *S, GArray *dc, GArray *dl);
/* a - b, counter by counter. */
job_counters steady__ctr_diff(const job_counters *a, const job_counters *b);
/* Member i's increments from E to S (its job_counters). */
job_counters steady__member_incr(const snap *E, const snap *S, guint i);
/* to += k d (iterations, their time and busy time). */
void steady__ctr_add(job_counters *to, const job_counters *d, double k);
/* to += k d (carried, busy and tagged bytes). */
void steady__lst_add(net_link_stats *to, const net_link_stats *d, double k);
/* Whole periods P from now that end strictly before u. */
int64_t steady__periods_before(double now_s, double P, double u);
/* The time tolerance of a group's snapshots at t. */
double steady__time_tol(const group *g, double t);
/* Move the whole group dt ahead, counters advanced by dc (per member) and
 * dl (per group link); act, bytes: see steady_snap.c. */
void steady__jump(steady *st, group *g, double dt, double now_s, const job_counters *dc,
                  const net_link_stats *dl, const snap *S, const uint8_t *act,
                  const double *bytes);

/* ---- steady_group.c (§5c) ---- */

/* Rebuild the groups of running jobs that share links, after
 * steady__links_update. */
void steady__groups_update(steady *s);
void steady__groups_free(steady *s);
/* Groups may skip in this run at all. */
bool steady__groups_allowed(const steady *s);
/* steady_boundary, the groups allowed and current. */
double steady__group_boundary(steady *s, job *j, double origin_s, double now_s);

/* ---- steady_approx.c (§5d) ---- */

/* g was before this change (the same members, order of levels and links)
 * in old: its rates ring carries on, with the window it carried and
 * whether it jumped on them (§5d). */
void steady__keep_rates(group *g, GPtrArray *old);
/* g was not before this change (at now_s), but every member of it but at
 * most one was in a group of old with a window measured for it: per
 * member, the increments over that window become g->carried, and each
 * such member's next iteration boundary is recorded (post_wait, §5d). */
void steady__carry_rates(steady *s, group *g, GPtrArray *old, double now_s);
/* j ended an iteration at now_s: where its first boundary after a change
 * is wanted (post_wait), its counters now. */
void steady__post_boundary(steady *s, const job *j, double now_s);
/* At an anchor boundary: the counters and link counters, for the rates. */
void steady__rates_push(steady *s, group *g, double now_s);
/* A group formed at this change (its rates ring is empty): the counters
 * now open its first window. */
void steady__rates_open(steady *s, group *g, double now_s);
/* An approximate jump at a boundary of the fast member or the anchor: its
 * length, or 0. */
double steady__approx_step(steady *s, group *g, double now_s);

#endif /* CCSIM_SIM_STEADY_STEADY_PRIVATE_H */
