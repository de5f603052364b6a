/* optimal_gap_journal.c - the optimal-gap journal: finished cases survive
 * an interruption (`--resume`).  Not here: running or reporting cases.
 */
#include "optimal-gap-private.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "base/ccs.h"
#include "base/input.h"

/* The journal: with --output DIR, every finished case is appended to
 * DIR/cases.journal (one line, full precision, flushed), so an interrupted
 * run can go on with --resume and give the same files as one uninterrupted
 * run.  Its first line names what the results depend on; the file is
 * removed once the outputs are written. */

static char *journal_header(const og_bench *sh)
{
    GString *h = g_string_new(NULL);
    g_string_append_printf(h, "# ccsim optimal-gap journal: seed=%" G_GINT64_FORMAT
                              " window=%.17g levels=%d link_gbps=%.17g schedulers=",
                           sh->o->seed, sh->o->window_s, sh->o->levels, sh->o->link_gbps);
    for (guint s = 0; s < sh->sched_names->len; s++)
        g_string_append_printf(h, "%s%s", s ? "," : "", (const char *)sh->sched_names->pdata[s]);
    return g_string_free(h, FALSE);
}

void og__journal_write(const og_bench *sh, const og_case *c)
{
    if (!sh->journal || !c->ok)
        return;
    fprintf(sh->journal, "%zu,%zu,%zu,%.17g", c->index, c->runs, c->replays, c->opt);
    for (int m = 0; m < OG_N_MECH; m++)
        fprintf(sh->journal, ",%.17g,%.17g", c->best[m], c->crux_util[m]);
    for (guint s = 0; s < sh->sched_names->len; s++)
        fprintf(sh->journal, ",%.17g", c->sched_util[s]);
    fputc('\n', sh->journal);
    fflush(sh->journal);
}

/* One journal line into cases[index] (ok, results); false if malformed
 * (e.g. cut short by a kill) or out of range. */
static bool journal_parse(const char *line, og_case *cases, size_t n, size_t n_sched)
{
    g_auto(GStrv) f = g_strsplit(line, ",", -1);
    size_t want = 4 + 2 * OG_N_MECH + n_sched;
    if (g_strv_length(f) != want)
        return false;
    double v[64];
    if (want > G_N_ELEMENTS(v))
        return false;
    for (size_t k = 0; k < want; k++) {
        char *end;
        v[k] = g_ascii_strtod(f[k], &end);
        if (end == f[k] || *end != '\0')
            return false;
    }
    if (v[0] < 0 || v[0] >= (double)n || v[0] != floor(v[0]))
        return false;
    og_case *c = &cases[(size_t)v[0]];
    c->runs = (size_t)v[1];
    c->replays = (size_t)v[2];
    c->opt = v[3];
    for (int m = 0; m < OG_N_MECH; m++) {
        c->best[m] = v[4 + 2 * m];
        c->crux_util[m] = v[5 + 2 * m];
    }
    g_free(c->sched_util);
    c->sched_util = g_new(double, n_sched);
    for (size_t s = 0; s < n_sched; s++)
        c->sched_util[s] = v[4 + 2 * OG_N_MECH + s];
    c->ok = true;
    return true;
}

/* Open DIR/cases.journal: with --resume, first take the cases it holds
 * (its header must match this run's); without, refuse to overwrite one. */
bool og__journal_open(og_bench *sh, og_case *cases, size_t n, size_t *resumed,
                      GError **error)
{
    *resumed = 0;
    if (!sh->o->output)
        return true;
    if (g_mkdir_with_parents(sh->o->output, 0755) != 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot create folder: %s",
                    sh->o->output, g_strerror(errno));
        return false;
    }
    g_autofree char *path = g_build_filename(sh->o->output, OG_JOURNAL, NULL);
    g_autofree char *header = journal_header(sh);
    g_autofree char *text = NULL;
    gsize len = 0;
    bool exists = g_file_test(path, G_FILE_TEST_EXISTS);
    if (exists && !sh->o->resume) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: an interrupted run's journal; add --resume to go on with it, or "
                    "remove it",
                    path);
        return false;
    }
    if (exists) {
        g_autoptr(GBytes) bytes = ccs_input_read(path, true, error); /* a CCS_ERROR naming path */
        if (!bytes)
            return false;
        text = g_strndup(g_bytes_get_data(bytes, &len), g_bytes_get_size(bytes));
        g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
        if (!lines[0] || strcmp(lines[0], header) != 0) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s:1: written by a run with other settings (%s); this run: %s", path,
                        lines[0] ? lines[0] : "", header);
            return false;
        }
        for (size_t i = 1; lines[i]; i++)
            if (lines[i][0] && journal_parse(lines[i], cases, n, sh->sched_names->len))
                (*resumed)++;
    }
    /* rewrite it from what was taken (drops a line cut short) */
    sh->journal = fopen(path, "w");
    if (!sh->journal) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: %s", path, g_strerror(errno));
        return false;
    }
    fprintf(sh->journal, "%s\n", header);
    for (size_t i = 0; i < n; i++)
        og__journal_write(sh, &cases[i]);
    return true;
}

void og__journal_remove(og_bench *sh)
{
    if (!sh->journal)
        return;
    fclose(sh->journal);
    sh->journal = NULL;
    g_autofree char *path = g_build_filename(sh->o->output, OG_JOURNAL, NULL);
    g_unlink(path);
}
