/* describe.c - (in progress) */
#include "topo-private.h"
