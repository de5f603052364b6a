/* workload-private.h - what the workload*.c files share.  Nothing else
 * includes it.
 */
#ifndef CCSIM_TRACES_WORKLOAD_PRIVATE_H
#define CCSIM_TRACES_WORKLOAD_PRIVATE_H

#include "workload.h"

/* Parameters of the final norm and, unless tied, the output layer. */
double workload__head_params(const workload_arch *a);

/* One MiB, the unit of PyTorch DDP's bucket_cap_mb. */
#define WORKLOAD_MIB (1024.0 * 1024.0)

#endif /* CCSIM_TRACES_WORKLOAD_PRIVATE_H */
