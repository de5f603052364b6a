/* build_file.c - (in progress) */
#include "topo-private.h"

bool topo__build_file(topo *t, topo__params *p, GError **error)
{
    (void)t;
    (void)p;
    g_set_error(error, CCS_ERROR, CCS_ERROR_UNSUPPORTED, "file: not implemented yet");
    return false;
}

bool topo__build_json(topo *t, const cJSON *obj, GError **error)
{
    (void)t;
    (void)obj;
    g_set_error(error, CCS_ERROR, CCS_ERROR_UNSUPPORTED, "json: not implemented yet");
    return false;
}
