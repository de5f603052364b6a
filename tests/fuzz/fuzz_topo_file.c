/* fuzz_topo_file.c - fuzz harness: topology files, the JSON object form
 * (topo_from_json) and GraphML (topo_build "file:F.graphml").  Not here:
 * spec strings (fuzz_topo_spec.c).
 *
 * An input starting with '<' is written to a temporary .graphml file and
 * built from it; any other input is parsed as JSON and built as an object.
 */
#include "fuzz.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include <igraph.h>

#include "base/ccs.h"
#include "base/json.h"
#include "topo/topo.h"

/* A built topology's links have finite positive capacities, finite
 * non-negative latencies and two different ends, whatever the file said
 * (NaN, inf, a self loop). */
static void check_links(const topo *t)
{
    for (size_t i = 0; t && i < topo_link_count(t); i++) {
        const topo_link *l = topo_link_get(t, (uint32_t)i);
        if (!(isfinite(l->cap_Bps) && l->cap_Bps > 0) ||
            !(isfinite(l->latency_s) && l->latency_s >= 0) || l->src == l->dst)
            abort();
    }
}

static void graphml(const uint8_t *data, size_t size)
{
    g_autofree char *path = NULL;
    int fd = g_file_open_tmp("fuzz-XXXXXX.graphml", &path, NULL);
    if (fd < 0)
        return;
    bool written = write(fd, data, size) == (ssize_t)size;
    close(fd);
    if (written) {
        g_autofree char *spec = g_strconcat("file:", path, NULL);
        GError *err = NULL;
        topo *t = topo_build(spec, NULL, &err);
        fuzz_check_names(t != NULL, err, path);
        check_links(t);
        topo_free(t);
    }
    g_unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* as the ccsim binary does (main.c): igraph's default handler aborts */
    igraph_set_error_handler(igraph_error_handler_ignore);
    igraph_set_warning_handler(igraph_warning_handler_ignore);
    if (size > 0 && data[0] == '<') {
        graphml(data, size);
        return 0;
    }
    GError *err = NULL;
    cJSON *root = ccs_json_parse((const char *)data, size, "t.json", &err);
    fuzz_check(root != NULL, err, "t.json");
    if (!root)
        return 0;
    fuzz_check_strict_json(data, size);
    topo *t = topo_from_json(root, "t.json", &err);
    fuzz_check_names(t != NULL, err, "t.json");
    check_links(t);
    topo_free(t);
    cJSON_Delete(root);
    return 0;
}
