/* steady-private.h - the groups of jobs sharing links, their snapshots and
 * their jumps, shared by steady_group.c (exact repeats, §5c) and
 * steady_approx.c (--steady approx, §5d).  Not here: jobs alone (steady.c).
 */
#ifndef CCSIM_SIM_STEADY_PRIVATE_H
#define CCSIM_SIM_STEADY_PRIVATE_H

#include "replay-private.h"

/* Snapshots kept per group: a period may span this many anchor
 * iterations. */
#define RING 8

typedef struct snap {
    double t;     /* the anchor boundary */
    GArray *vals; /* phase_val: the anchor's next start, then each member's phase */
    GArray *off;  /* guint per member: where its phase starts in vals */
    GArray *ctr;  /* job_counters per member */
    GArray *lst;  /* net_link_stats per group link, if has_links */
    bool has_links;
    bool at_change; /* rates only: taken when the group formed, not at a boundary */
} snap;

/* The snapshots taken at one member's iteration boundaries. */
typedef struct ring {
    snap *s[RING];  /* oldest first */
    int n;
    int boundaries; /* boundaries since the last repeat (or skip) or change */
    bool gave_up;
} ring;

typedef struct steady_group {
    GPtrArray *members; /* job*, arrival order */
    GArray *links;      /* uint32: the members' plan links, each once */
    job *anchor;        /* the longest isolated iteration: exact repeats */
    job *fast;          /* the shortest: repeats modulo long transfers */
    ring slow;          /* at the anchor's boundaries */
    ring quick;         /* at fast's, when fast is not the anchor */
    ring rates;         /* --steady approx: counters at the anchor's boundaries, kept
                         * across changes that leave the group as it was (§5d) */
    GArray *prio;       /* int per member: its level when the group was built */
    int rates_stride;   /* anchor iterations between two snapshots of rates (0: 1) */
    int rates_count;    /* anchor boundaries since the last one */
    bool rates_fresh;   /* a snapshot of rates came since the last check */
    int drift_boundaries; /* fast's boundaries since the last repeat modulo long transfers */
    bool drift_gave_up;
    bool open;          /* a job runs as alone (steady.c) on a link of it, or the
                         * scheduler's hook sees a member: no skips */
    bool links_own;     /* every transfer in flight uses group links only */
} group;

snap *steady__snap_new(void);
void steady__snap_free(snap *s);
void steady__ring_clear(ring *rg);
/* Keep s as the newest snapshot (the oldest one goes when the ring is full). */
void steady__ring_push(ring *rg, snap *s);
/* Drop the snapshots before e, move the others dt later and their counters
 * on by k times dc (per member) and dl (per group link). */
void steady__ring_shift(ring *rg, int e, double dt, double k, const GArray *dc,
                        const GArray *dl);
/* The group links' counters now, into s. */
void steady__capture_links(const struct replay *r, const group *g, snap *s);
/* S - E per member (dc, job_counters) and per group link (dl, net_link_stats). */
void steady__period_incr(const snap *E, const snap *S, GArray *dc, GArray *dl);
/* to += k d (carried, busy and tagged bytes). */
void steady__lst_add(net_link_stats *to, const net_link_stats *d, double k);
/* Whole periods P from now that end strictly before u. */
int64_t steady__periods_before(double now_s, double P, double u);
/* Move the whole group dt ahead, counters advanced by dc (per member) and
 * dl (per group link); act, bytes: see steady_group.c. */
void steady__jump(struct replay *r, group *g, double dt, double now_s, const job_counters *dc,
                  const net_link_stats *dl, const snap *S, const uint8_t *act,
                  const double *bytes);

/* steady_approx.c */
/* g was before this change (the same members, levels and links) in old:
 * its rates ring carries on. */
void steady__keep_rates(group *g, GPtrArray *old);
/* At an anchor boundary: the counters and link counters, for the rates. */
void steady__rates_push(const struct replay *r, group *g, double now_s);
/* A group formed at this change (its rates ring is empty): the counters
 * now open its first window. */
void steady__rates_open(struct replay *r, group *g, double now_s);
/* An approximate jump at a boundary of the fast member or the anchor: its
 * length, or 0. */
double steady__approx_step(struct replay *r, group *g, double now_s);

#endif /* CCSIM_SIM_STEADY_PRIVATE_H */
