/* export.c - (in progress) */
#include "topo-private.h"
