/* fuzz_lingjun.c - fuzz harness for the Lingjun, timestamp, JSON-trace and
 * catalog parsers (suite "fuzz").  Not here: unit cases (test_lingjun.c).
 *
 * As a normal executable: `fuzz_lingjun [ITERATIONS [SEED]]` (default
 * 2000 iterations, seed 1) takes slices of the bundled sample and the
 * embedded catalog, applies random mutations (byte flips, inserted quotes,
 * commas, newlines and digits, deleted or repeated ranges, truncation) and
 * feeds them to the parsers from memory, strict and --lenient.  It checks
 * that every call either fails with a CCS_ERROR message starting with the
 * file name or returns a well-formed trace (sorted, GPUs > 0, end >= start,
 * host GPUs adding up).  A crash or a sanitizer report is a failure.
 *
 * libFuzzer (clang): compile with -DCCSIM_LIBFUZZER -fsanitize=fuzzer,address
 * and link libccsim; the input is split at NUL bytes into job.csv,
 * worker.csv and topo.csv (see docs/traces.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ccs.h"
#include "base/input.h"
#include "traces/trace.h"
#include "traces/traces-private.h"

static bool check_trace(const trace *t)
{
    bool ok = true;
    for (size_t i = 0; i < trace_job_count(t); i++) {
        const trace_job *j = trace_job_get(t, i);
        ok = ok && j->gpus > 0 && j->end_s >= j->start_s && j->id != NULL;
        if (i > 0)
            ok = ok && j->start_s >= trace_job_get(t, i - 1)->start_s;
        int sum = 0;
        for (size_t h = 0; h < j->n_hosts; h++)
            sum += j->host_gpus[h];
        ok = ok && (j->n_hosts == 0 || sum == j->gpus);
    }
    const trace_stats *s = trace_get_stats(t);
    ok = ok && s->jobs_loaded == trace_job_count(t);
    ok = ok && s->jobs_loaded + s->skipped_never_ran + s->skipped_running + s->skipped_cpu_only +
                       s->skipped_bad_time + s->skipped_malformed + s->skipped_outside_topo +
                       s->skipped_duplicate ==
                   s->job_rows;
    return ok;
}

/* Parse the three buffers strict and lenient; false on a broken contract. */
static bool feed(const char *job, size_t jl, const char *worker, size_t wl, const char *topo,
                 size_t tl)
{
    bool ok = true;
    for (int lenient = 0; lenient < 2; lenient++) {
        trace_lingjun_options o = trace_lingjun_options_default();
        o.lenient = lenient;
        GError *err = NULL;
        trace *t = trace_lingjun_parse(job, jl, worker, wl, topo, tl, "fz", &o, &err);
        if (t) {
            ok = ok && err == NULL && check_trace(t);
        } else {
            ok = ok && err != NULL && err->domain == CCS_ERROR &&
                 g_str_has_prefix(err->message, "fz/");
            if (err && !ok)
                fprintf(stderr, "bad error: %s\n", err->message);
        }
        g_clear_error(&err);
        trace_free(t);
    }
    return ok;
}

#ifdef CCSIM_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data, *parts[3] = {"", "", ""};
    size_t lens[3] = {0, 0, 0}, k = 0, start = 0;
    for (size_t i = 0; i <= size && k < 3; i++) {
        if (i == size || p[i] == '\0') {
            parts[k] = p + start;
            lens[k++] = i - start;
            start = i + 1;
        }
    }
    if (!feed(parts[0], lens[0], parts[1], lens[1], parts[2], lens[2]))
        abort();
    return 0;
}
#else

/* The first max_lines lines of a bundled file (transfer full). */
static GString *slice(const char *resource, int max_lines)
{
    GError *err = NULL;
    g_autoptr(GBytes) gz = trace__resource_bytes(resource, &err);
    g_autoptr(GBytes) b = gz ? ccs_input_decode(gz, resource, true, &err) : NULL;
    if (!b) {
        fprintf(stderr, "fuzz_lingjun: %s\n", err->message);
        exit(1);
    }
    size_t n;
    const char *s = g_bytes_get_data(b, &n);
    GString *out = g_string_new(NULL);
    int lines = 0;
    for (size_t i = 0; i < n && lines < max_lines; i++) {
        g_string_append_c(out, s[i]);
        lines += s[i] == '\n';
    }
    return out;
}

static void mutate(GString *s, GRand *r)
{
    static const char pieces[][8] = {"\"", ",", "\n", "\r\n", "\"\"", "0", "9", "/", ":", " ",
                                     "{", "}", "\\", "-1", "2023/", "\xff", "nvidia"};
    int n = g_rand_int_range(r, 1, 6);
    for (int k = 0; k < n; k++) {
        gsize len = s->len;
        gsize pos = len ? (gsize)g_rand_int_range(r, 0, (gint32)len) : 0;
        switch (g_rand_int_range(r, 0, 6)) {
        case 0:
            if (len)
                s->str[pos] = (char)g_rand_int_range(r, 1, 256);
            break;
        case 1:
            g_string_insert(s, (gssize)pos, pieces[g_rand_int_range(r, 0, G_N_ELEMENTS(pieces))]);
            break;
        case 2: {
            gssize cut = g_rand_int_range(r, 1, 40);
            g_string_erase(s, (gssize)pos, MIN((gssize)(len - pos), cut));
            break;
        }
        case 3: {
            gsize want = (gsize)g_rand_int_range(r, 1, 200);
            gsize l = MIN(len - pos, want);
            g_autofree char *copy = g_strndup(s->str + pos, l);
            g_string_insert(s, (gssize)(len ? g_rand_int_range(r, 0, (gint32)len) : 0), copy);
            break;
        }
        case 4:
            g_string_truncate(s, pos);
            break;
        default:
            if (len)
                s->str[pos] = "\",\n0"[g_rand_int_range(r, 0, 4)];
            break;
        }
    }
}

int main(int argc, char **argv)
{
    long iterations = argc > 1 ? strtol(argv[1], NULL, 10) : 2000;
    guint32 seed = argc > 2 ? (guint32)strtoul(argv[2], NULL, 10) : 1;
    g_autoptr(GRand) r = g_rand_new_with_seed(seed);
    g_autoptr(GString) job0 = slice("/ccsim/traces/data/job.csv.gz", 40);
    g_autoptr(GString) worker0 = slice("/ccsim/traces/data/worker.csv.gz", 200);
    g_autoptr(GString) topo0 = slice("/ccsim/traces/data/topo.csv.gz", 300);
    g_autoptr(GBytes) cat = trace__resource_bytes("/ccsim/traces/models.json", NULL);
    long failures = 0;
    /* the unmutated slices load */
    if (!feed(job0->str, job0->len, worker0->str, worker0->len, topo0->str, topo0->len))
        failures++;
    for (long it = 0; it < iterations; it++) {
        g_autoptr(GString) job = g_string_new_len(job0->str, (gssize)job0->len);
        g_autoptr(GString) worker = g_string_new_len(worker0->str, (gssize)worker0->len);
        g_autoptr(GString) topo = g_string_new_len(topo0->str, (gssize)topo0->len);
        int which = g_rand_int_range(r, 0, 8);
        if (which & 1)
            mutate(job, r);
        if (which & 2)
            mutate(worker, r);
        if (which & 4 || which == 0)
            mutate(topo, r);
        if (!feed(job->str, job->len, worker->str, worker->len, topo->str, topo->len)) {
            fprintf(stderr, "fuzz_lingjun: iteration %ld (seed %u) broke the contract\n", it, seed);
            failures++;
        }
        /* timestamps */
        char ts[24];
        char buf[32];
        trace__time_format((int64_t)g_rand_int_range(r, 0, G_MAXINT32), buf);
        g_strlcpy(ts, buf, sizeof ts);
        for (int k = 0; k < 2; k++)
            ts[g_rand_int_range(r, 0, (gint32)strlen(ts) + 1)] = (char)g_rand_int_range(r, 32, 127);
        int64_t t;
        (void)trace__time_parse(ts, &t);
        /* catalog and JSON jobs */
        if (it % 10 == 0 && cat) {
            size_t n;
            const char *c = g_bytes_get_data(cat, &n);
            g_autoptr(GString) cs = g_string_new_len(c, (gssize)n);
            mutate(cs, r);
            GError *err = NULL;
            catalog *cl = catalog_load_json(cs->str, cs->len, "fz.json", &err);
            if (!cl && (!err || !g_str_has_prefix(err->message, "fz.json"))) {
                fprintf(stderr, "fuzz_lingjun: catalog error \"%s\"\n", err ? err->message : "-");
                failures++;
            }
            g_clear_error(&err);
            catalog_free(cl);
            g_autoptr(GString) js = g_string_new(
                "[{\"id\": \"a\", \"gpus\": 10, \"hosts\": [\"h1\", \"h2\"], \"start_s\": 0, "
                "\"end_s\": 12, \"model\": {\"compute_s\": 1, \"comm_bytes\": 1e9}}]");
            mutate(js, r);
            cJSON *a = cJSON_ParseWithLength(js->str, js->len);
            trace *tj = trace_json_from_cjson(a, "fz.json", &err);
            if (tj ? !check_trace(tj) : (!err || !g_str_has_prefix(err->message, "fz.json"))) {
                fprintf(stderr, "fuzz_lingjun: JSON trace \"%s\": %s\n", js->str,
                        err ? err->message : "a broken trace");
                failures++;
            }
            g_clear_error(&err);
            trace_free(tj);
            cJSON_Delete(a);
        }
    }
    printf("fuzz_lingjun: %ld iterations, seed %u, %ld failures\n", iterations, seed, failures);
    return failures ? 1 : 0;
}
#endif
