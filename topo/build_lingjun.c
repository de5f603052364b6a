/* build_lingjun.c - (in progress) */
#include "topo-private.h"

bool topo__build_lingjun(topo *t, topo__params *p, GError **error)
{
    (void)t;
    (void)p;
    g_set_error(error, CCS_ERROR, CCS_ERROR_UNSUPPORTED, "lingjun: not implemented yet");
    return false;
}
