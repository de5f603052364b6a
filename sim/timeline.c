/* timeline.c - record a run as Chrome/Perfetto trace events and flows.csv
 * (timeline.h).  Not here: deciding when the replay calls it (replay*.c).
 */
#include "timeline.h"

#include <math.h>
#include <string.h>

#include "base/ccs.h"

#define MAX_PATH_LINKS 256

typedef struct job_track {
    int pid;
    double busy_since, comm_since;
    bool busy, in_comm, comm_seen, busy_is_opt;
    int busy_gpus; /* of the job's GPUs (a structured job's stages compute apart) */
    int iteration;    /* compute slices started */
    double net_Bps;   /* sum of the current rates of its transfers that leave a host */
    double host_Bps;  /* the same of its transfers within one host (NVLink, PCIe) */
} job_track;

typedef struct xfer_track {
    const job *j;
    double start_s, last_s, rate_Bps, bytes;
    int prio;
    bool in_host;     /* every link NVLink or PCIe: never on the network */
    bool opened;      /* its "b" event was written (in the span) */
    bool closed;      /* its "e" event was written */
    char *path; /* link ids, ' '-separated */
} xfer_track;

typedef struct link_track {
    double last_carried, since_s; /* carried bytes at since_s */
} link_track;

struct timeline {
    timeline_options o;
    net *n;
    const topo *t;
    GHashTable *want;   /* job ids to record (NULL: all) */
    GString *ev;        /* the traceEvents, comma-joined */
    size_t n_events;
    bool truncated;
    GHashTable *jobs;   /* job* -> job_track* */
    GHashTable *xfers;  /* net_transfer_id (boxed) -> xfer_track* */
    GHashTable *links;  /* link id + 1 -> link_track* */
    GString *flows;     /* flows.csv rows */
    int next_pid;
    bool open;          /* the span is open (timeline_span_open) */
    double tick_s;      /* then: the last tick, and */
    double *tick_carried; /* every link's carried bytes at it */
};

static void xfer_free(gpointer p)
{
    xfer_track *x = p;
    g_free(x->path);
    g_free(x);
}

static guint id_hash(gconstpointer p) { return g_int64_hash(p); }
static gboolean id_equal(gconstpointer a, gconstpointer b) { return g_int64_equal(a, b); }

static void on_rate(void *obs, net_transfer_id id, void *user, double rate_Bps, bool done,
                    double now_s);
static void on_delay(void *obs, net_transfer_id id, void *user, double carried_B, double dt_s,
                     double now_s);

timeline *timeline_new(const timeline_options *o, net *n, const topo *t)
{
    timeline *tl = g_new0(timeline, 1);
    tl->o = *o;
    tl->o.file = g_strdup(o->file);
    tl->o.jobs = g_strdupv(o->jobs);
    tl->n = n;
    tl->t = t;
    if (o->jobs) {
        tl->want = g_hash_table_new(g_str_hash, g_str_equal);
        for (char **p = tl->o.jobs; *p; p++)
            g_hash_table_add(tl->want, *p);
    }
    tl->ev = g_string_new(NULL);
    tl->jobs = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    tl->xfers = g_hash_table_new_full(id_hash, id_equal, g_free, xfer_free);
    tl->links = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    tl->flows = g_string_new(NULL);
    tl->next_pid = 1;
    net_set_rate_observer(n, on_rate, tl);
    net_set_delay_observer(n, on_delay, tl);
    return tl;
}

void timeline_free(timeline *tl)
{
    if (!tl)
        return;
    net_set_rate_observer(tl->n, NULL, NULL);
    net_set_delay_observer(tl->n, NULL, NULL);
    g_free(tl->tick_carried);
    if (tl->want)
        g_hash_table_unref(tl->want);
    g_hash_table_unref(tl->jobs);
    g_hash_table_unref(tl->xfers);
    g_hash_table_unref(tl->links);
    g_string_free(tl->ev, TRUE);
    g_string_free(tl->flows, TRUE);
    g_free(tl->o.file);
    g_strfreev(tl->o.jobs);
    g_free(tl);
}

/* ---- events ------------------------------------------------------------- */

static bool in_span(const timeline *tl, double t_s)
{
    return t_s >= tl->o.start_s && t_s <= tl->o.end_s;
}

static double us(double t_s) { return t_s * 1e6; }

/* Append one event object (text without braces); false once full. */
static bool emit(timeline *tl, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static bool emit(timeline *tl, const char *fmt, ...)
{
    if (tl->n_events >= TIMELINE_MAX_EVENTS) {
        tl->truncated = true;
        return false;
    }
    va_list ap;
    va_start(ap, fmt);
    g_string_append(tl->ev, tl->n_events++ ? ",\n{" : "{");
    g_string_append_vprintf(tl->ev, fmt, ap);
    g_string_append_c(tl->ev, '}');
    va_end(ap);
    return true;
}

/* A JSON string literal of s (quotes escaped). */
static char *quoted(const char *s)
{
    GString *q = g_string_new("\"");
    for (const char *p = s; *p; p++) {
        if (*p == '"' || *p == '\\')
            g_string_append_c(q, '\\');
        if ((unsigned char)*p >= 0x20)
            g_string_append_c(q, *p);
    }
    g_string_append_c(q, '"');
    return g_string_free(q, FALSE);
}

static void emit_slice(timeline *tl, int pid, int tid, const char *name, double a, double b,
                       int iteration)
{
    a = fmax(a, tl->o.start_s);
    b = fmin(b, tl->o.end_s);
    if (b <= a)
        return; /* outside the span, or empty */
    emit(tl,
         "\"name\":\"%s\",\"cat\":\"phase\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,"
         "\"dur\":%.3f,\"args\":{\"iteration\":%d}",
         name, pid, tid, us(a), us(b) - us(a), iteration);
}

static void emit_meta(timeline *tl, int pid, int tid, const char *what, const char *name)
{
    g_autofree char *q = quoted(name);
    emit(tl, "\"name\":\"%s\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":%s}", what,
         pid, tid, q);
}

static bool wanted(const timeline *tl, const job *j)
{
    return !tl->want || g_hash_table_contains(tl->want, j->spec.id);
}

/* The job's track, made (with its process and thread names) on first
 * sight; NULL for a job not recorded. */
static job_track *track_of(timeline *tl, const job *j)
{
    job_track *k = g_hash_table_lookup(tl->jobs, j);
    if (k || !wanted(tl, j))
        return k;
    k = g_new0(job_track, 1);
    k->pid = tl->next_pid++;
    g_hash_table_insert(tl->jobs, (gpointer)j, k);
    g_autofree char *name =
        g_strdup_printf("job %s: %s, %d GPUs", j->spec.id, j->spec.model, j->spec.gpus);
    emit_meta(tl, k->pid, 0, "process_name", name);
    emit(tl, "\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"sort_index\":%d}",
         k->pid, k->pid);
    emit_meta(tl, k->pid, 1, "thread_name", "GPU group (compute, optimizer)");
    emit_meta(tl, k->pid, 2, "thread_name", "communication");
    return k;
}

/* ---- job phases ----------------------------------------------------------- */

/* A busy stretch is an iteration's compute, or its optimizer step: one
 * that starts after the iteration's communication ended, for a model with
 * an optimizer step (a compute still running when the communication ends
 * runs on into the optimizer step as one stretch).  A structured job's
 * stretch lasts while any of its GPUs computes. */
void timeline_busy(timeline *tl, const job *j, int delta, double now_s)
{
    job_track *k = track_of(tl, j);
    if (!k)
        return;
    int before = k->busy_gpus;
    k->busy_gpus += delta;
    if (delta > 0 && before == 0) {
        k->busy = true;
        k->busy_since = now_s;
        k->busy_is_opt = j->spec.opt_s > 0 && k->comm_seen && !k->in_comm;
        k->comm_seen = k->comm_seen && !k->busy_is_opt;
        if (!k->busy_is_opt) {
            /* the job's own count (a structured job's GPUs idle inside an
             * iteration too; a job may have run iterations unseen, fast-forwarded) */
            k->iteration = (int)(j->iterations + 1);
            k->comm_seen = false;
        }
    } else if (delta < 0 && k->busy && k->busy_gpus == 0) {
        k->busy = false;
        emit_slice(tl, k->pid, 1, k->busy_is_opt ? "optimizer" : "compute", k->busy_since, now_s,
                   k->iteration);
    }
}

void timeline_comm(timeline *tl, const job *j, bool starting, double now_s)
{
    job_track *k = track_of(tl, j);
    if (!k)
        return;
    if (starting && !k->in_comm) {
        k->in_comm = true;
        k->comm_seen = true;
        k->comm_since = now_s;
    } else if (!starting && k->in_comm) {
        k->in_comm = false;
        emit_slice(tl, k->pid, 2, "communication", k->comm_since, now_s, k->iteration);
    }
}

/* ---- transfers -------------------------------------------------------------- */

/* Are all of the transfer's links NVLink or PCIe (a transfer inside one
 * host)? */
static bool in_host_of(const timeline *tl, net_transfer_id id)
{
    net_link_id links[MAX_PATH_LINKS];
    size_t n = net_transfer_links(tl->n, id, links, MAX_PATH_LINKS);
    for (size_t i = 0; i < n && i < MAX_PATH_LINKS; i++) {
        topo_tier tier = topo_link_get(tl->t, links[i])->tier;
        if (tier != TOPO_TIER_NVLINK && tier != TOPO_TIER_PCIE)
            return false;
    }
    return true;
}

/* The transfer's links as text, made when first needed (in the span);
 * while the span is open its links get utilization counters, kept from
 * the last tick like those of the links seen before. */
static const char *xfer_path(timeline *tl, xfer_track *x, net_transfer_id id)
{
    if (x->path)
        return x->path;
    net_link_id links[MAX_PATH_LINKS];
    size_t n = net_transfer_links(tl->n, id, links, MAX_PATH_LINKS);
    GString *p = g_string_new(NULL);
    for (size_t i = 0; i < n && i < MAX_PATH_LINKS; i++) {
        g_string_append_printf(p, "%s%u", i ? " " : "", (unsigned)links[i]);
        gpointer key = GUINT_TO_POINTER((guint)links[i] + 1);
        if (!tl->open || g_hash_table_contains(tl->links, key))
            continue;
        link_track *lt = g_new0(link_track, 1);
        lt->last_carried = tl->tick_carried[links[i]];
        lt->since_s = tl->tick_s;
        g_hash_table_insert(tl->links, key, lt);
    }
    x->path = g_string_free(p, FALSE);
    return x->path;
}

/* The job's two rate counters: "network Gbps" (transfers that leave a
 * host) and "NVLink Gbps" (transfers within one host, NVLink or PCIe). */
static void job_rate_counter(timeline *tl, job_track *k, bool in_host, double now_s)
{
    if (in_span(tl, now_s))
        emit(tl, "\"name\":\"%s Gbps\",\"ph\":\"C\",\"pid\":%d,\"ts\":%.3f,\"args\":{\"Gbps\":%.6g}",
             in_host ? "NVLink" : "network", k->pid, us(now_s),
             (in_host ? k->host_Bps : k->net_Bps) * 8e-9);
}

static void flow_row(timeline *tl, xfer_track *x, net_transfer_id id, double end_s)
{
    if (!tl->o.flows || x->start_s > tl->o.end_s || end_s < tl->o.start_s)
        return;
    g_string_append_printf(tl->flows, "%s,%" G_GUINT64_FORMAT ",%.10g,%.10g,%.10g,%d,%s\n",
                           x->j->spec.id, (guint64)id, x->start_s, end_s, x->bytes, x->prio,
                           xfer_path(tl, x, id));
}

/* A transfer's async track, clipped to the span like the slices: "b" at
 * its first event in the span (at the span's start for one already
 * running; none for one starting at the span's end), "e" at its end, or
 * at the span's end when it runs past it. */
static void xfer_open(timeline *tl, xfer_track *x, job_track *k, net_transfer_id id,
                      double now_s)
{
    if (x->opened || now_s < tl->o.start_s || now_s > tl->o.end_s ||
        x->start_s >= tl->o.end_s)
        return; /* not in the span, or starting at its very end: nothing to show */
    x->opened = true;
    emit(tl,
         "\"name\":\"transfer\",\"cat\":\"transfer\",\"ph\":\"b\",\"id\":\"0x%" G_GINT64_MODIFIER
         "x\",\"pid\":%d,\"ts\":%.3f,\"args\":{\"priority\":%d,\"links\":\"%s\"}",
         (guint64)id, k->pid, us(fmax(x->start_s, tl->o.start_s)), x->prio,
         xfer_path(tl, x, id));
}

static void xfer_close(timeline *tl, xfer_track *x, job_track *k, guint64 id, double now_s)
{
    if (!x->opened || x->closed)
        return;
    x->closed = true;
    emit(tl,
         "\"name\":\"transfer\",\"cat\":\"transfer\",\"ph\":\"e\",\"id\":\"0x%" G_GINT64_MODIFIER
         "x\",\"pid\":%d,\"ts\":%.3f",
         id, k->pid, us(fmin(now_s, tl->o.end_s)));
}

static void on_rate(void *obs, net_transfer_id id, void *user, double rate_Bps, bool done,
                    double now_s)
{
    timeline *tl = obs;
    const job *j = user;
    job_track *k = j ? track_of(tl, j) : NULL;
    if (!k)
        return;
    guint64 key = (guint64)id;
    xfer_track *x = g_hash_table_lookup(tl->xfers, &key);
    if (!x && now_s > tl->o.end_s)
        return; /* after the span: nothing of it will show */
    if (!x) {
        x = g_new0(xfer_track, 1);
        x->j = j;
        x->start_s = x->last_s = now_s;
        x->prio = net_transfer_priority(tl->n, id);
        x->in_host = in_host_of(tl, id);
        g_hash_table_insert(tl->xfers, g_memdup2(&key, sizeof key), x);
    }
    x->bytes += x->rate_Bps * (now_s - x->last_s);
    x->last_s = now_s;
    double *sum = x->in_host ? &k->host_Bps : &k->net_Bps;
    *sum += rate_Bps - x->rate_Bps;
    x->rate_Bps = rate_Bps;
    if (now_s > tl->o.end_s) {
        xfer_close(tl, x, k, key, now_s); /* ran past the span */
    } else {
        xfer_open(tl, x, k, id, now_s);
        if (x->opened && !done)
            emit(tl,
                 "\"name\":\"rate\",\"cat\":\"transfer\",\"ph\":\"n\",\"id\":\"0x%" G_GINT64_MODIFIER
                 "x\",\"pid\":%d,\"ts\":%.3f,\"args\":{\"rate_Gbps\":%.6g}",
                 (guint64)id, k->pid, us(now_s), rate_Bps * 8e-9);
        if (done)
            xfer_close(tl, x, k, key, now_s);
    }
    job_rate_counter(tl, k, x->in_host, now_s);
    if (done) {
        flow_row(tl, x, id, now_s);
        g_hash_table_remove(tl->xfers, &key);
    }
}

/* A transfer moved into the future (a group of jobs skipped or jumped
 * whole periods, before the span): one that stood still is the copy of
 * itself that starts dt_s later; one that moved on carried carried_B. */
static void on_delay(void *obs, net_transfer_id id, void *user, double carried_B, double dt_s,
                     double now_s)
{
    timeline *tl = obs;
    (void)user;
    guint64 key = (guint64)id;
    xfer_track *x = g_hash_table_lookup(tl->xfers, &key);
    if (!x)
        return;
    x->bytes += x->rate_Bps * (now_s - x->last_s) + carried_B;
    if (carried_B == 0)
        x->start_s += dt_s;
    x->last_s = now_s + dt_s;
}

/* ---- links and the end -------------------------------------------------------- */

/* Every link's carried bytes now, while the span is open. */
static void snap_links(timeline *tl, double now_s)
{
    size_t L = topo_link_count(tl->t);
    if (!tl->tick_carried)
        tl->tick_carried = g_new0(double, L ? L : 1);
    for (size_t e = 0; e < L; e++) {
        net_link_stats st;
        tl->tick_carried[e] = net_link_stats_get(tl->n, (net_link_id)e, &st, NULL)
                                  ? st.carried_bytes
                                  : 0;
    }
    tl->tick_s = now_s;
}

void timeline_tick(timeline *tl, double now_s)
{
    GHashTableIter it;
    gpointer key, val;
    g_hash_table_iter_init(&it, tl->links);
    while (g_hash_table_iter_next(&it, &key, &val)) {
        net_link_id e = GPOINTER_TO_UINT(key) - 1;
        link_track *lt = val;
        net_link_stats st;
        if (!net_link_stats_get(tl->n, e, &st, NULL))
            continue;
        double since = lt->since_s, dt = now_s - since;
        double util = dt > 0 ? (st.carried_bytes - lt->last_carried) /
                                   (net_link_capacity_Bps(tl->n, e) * dt)
                             : NAN;
        lt->last_carried = st.carried_bytes;
        lt->since_s = now_s;
        if (!isfinite(util) || now_s < tl->o.start_s || since > tl->o.end_s)
            continue;
        const topo_link *l = topo_link_get(tl->t, e);
        emit(tl,
             "\"name\":\"link %u %s>%s util\",\"ph\":\"C\",\"pid\":0,\"ts\":%.3f,"
             "\"args\":{\"util_frac\":%.6g}",
             (unsigned)e, topo_node_name(tl->t, l->src), topo_node_name(tl->t, l->dst),
             us(fmax(since, tl->o.start_s)), util);
    }
    if (tl->open && tl->tick_s <= tl->o.end_s) /* up to the first tick after the span */
        snap_links(tl, now_s);
}

void timeline_span_open(timeline *tl, double now_s)
{
    tl->open = true;
    snap_links(tl, now_s);
    GHashTableIter it;
    gpointer key, val;
    g_hash_table_iter_init(&it, tl->xfers);
    while (g_hash_table_iter_next(&it, &key, &val)) {
        xfer_track *x = val;
        net_transfer_id id = (net_transfer_id) * (guint64 *)key;
        x->prio = net_transfer_priority(tl->n, id);
        g_free(x->path);
        x->path = NULL;
        xfer_path(tl, x, id); /* its links get counters */
    }
}

double timeline_span_start_s(const timeline *tl) { return tl->o.start_s; }

bool timeline_span_done(const timeline *tl, double now_s)
{
    if (now_s < tl->o.end_s)
        return false;
    GHashTableIter it;
    gpointer val;
    g_hash_table_iter_init(&it, tl->xfers);
    while (g_hash_table_iter_next(&it, NULL, &val))
        if (((const xfer_track *)val)->start_s <= tl->o.end_s)
            return false;
    return true;
}

void timeline_job_start(timeline *tl, const job *j)
{
    track_of(tl, j);
}

void timeline_job_end(timeline *tl, const job *j, double now_s)
{
    job_track *k = g_hash_table_lookup(tl->jobs, j);
    if (!k)
        return;
    if (k->in_comm) /* stopped in its communication phase */
        emit_slice(tl, k->pid, 2, "communication", k->comm_since, now_s, k->iteration);
    k->in_comm = false;
    GHashTableIter it;
    gpointer key, val;
    g_hash_table_iter_init(&it, tl->xfers);
    while (g_hash_table_iter_next(&it, &key, &val)) {
        xfer_track *x = val;
        if (x->j != j)
            continue;
        xfer_close(tl, x, k, *(guint64 *)key, now_s); /* cancelled: not in flows.csv */
        g_hash_table_iter_remove(&it);
    }
}

void timeline_finish(timeline *tl, double now_s)
{
    GHashTableIter it;
    gpointer key, val;
    g_hash_table_iter_init(&it, tl->jobs);
    while (g_hash_table_iter_next(&it, &key, &val)) {
        job_track *k = val;
        if (k->busy)
            emit_slice(tl, k->pid, 1, k->busy_is_opt ? "optimizer" : "compute", k->busy_since,
                       now_s, k->iteration);
        if (k->in_comm)
            emit_slice(tl, k->pid, 2, "communication", k->comm_since, now_s, k->iteration);
        k->busy = k->in_comm = false;
        k->busy_gpus = 0;
    }
    /* transfers cancelled at their job's end, or running past the span:
     * closed here (at the span's end at the latest), not in flows.csv */
    g_hash_table_iter_init(&it, tl->xfers);
    while (g_hash_table_iter_next(&it, &key, &val)) {
        xfer_track *x = val;
        job_track *k = g_hash_table_lookup(tl->jobs, x->j);
        if (k)
            xfer_close(tl, x, k, *(guint64 *)key, now_s);
    }
    g_hash_table_remove_all(tl->xfers);
}

bool timeline_write(timeline *tl, output_dir *d, bool gzip, GError **error)
{
    if (tl->o.file) {
        GString *out = g_string_new("{\"traceEvents\":[\n");
        emit_meta(tl, 0, 0, "process_name", "network links");
        g_string_append_len(out, tl->ev->str, (gssize)tl->ev->len);
        g_string_append_printf(out,
                               "],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"generator\":"
                               "\"ccsim %s\",\"events\":%zu,\"truncated\":%s}}\n",
                               ccs_version(), tl->n_events, tl->truncated ? "true" : "false");
        bool ok = output_text_write(d, tl->o.file, out->str, out->len, error);
        g_string_free(out, TRUE);
        if (!ok)
            return false;
    }
    if (!tl->o.flows)
        return true;
    static const char *const cols[] = {"job_id",  "transfer", "start_s", "end_s", "bytes",
                                       "priority", "path",     NULL};
    output_csv *c = output_csv_open(d, "flows.csv", gzip, cols, error);
    if (!c)
        return false;
    /* rows are already formatted: one cell each would re-quote the path */
    g_auto(GStrv) rows = g_strsplit(tl->flows->str, "\n", -1);
    for (char **r = rows; *r && **r; r++) {
        g_auto(GStrv) f = g_strsplit(*r, ",", 7);
        for (int i = 0; i < 7; i++)
            output_csv_str(c, f[i]);
        if (!output_csv_end_row(c, error))
            return false;
    }
    return true;
}
