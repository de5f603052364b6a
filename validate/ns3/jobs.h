// jobs.h - the export's jobs run over ns-3 TCP (docs/validation.md, "The
// replayer").  Not here: the network (fabric.h).
//
// Each connection of a job is one TCP connection (the transport chosen in
// main.cc), opened before the run starts and kept for its whole length,
// as NCCL keeps its connections.  A flow task writes its bytes into its
// connection when its dependencies are done and its delay has passed; it
// is done when the receiver has read its last byte (the stream is in
// order, so a connection's flows end in the order they were written).
// Compute and wait tasks are timers.  An iteration starts with the tasks
// that depend on nothing and ends when every task has; the next starts at
// once, later by a pending time shift (consumed once, as ccsim does).
// Decisions apply at their epochs, in file order: priority levels (the
// distinct levels of the run, in order, are the bands 0, 1, ...; a job's
// band is its connections' band in every port, Fabric::set_band), shifts
// and routes; a job starts at the epoch it first appears in.
// A job stops at its stop time (window mode; its transfers in flight are
// left to drain) or after its target iterations (work mode).
#ifndef CCSIM_VALIDATE_NS3_JOBS_H
#define CCSIM_VALIDATE_NS3_JOBS_H

#include <memory>
#include <string>

#include "export.h"
#include "fabric.h"

namespace ccsim_packet
{

struct JobResult
{
    int64_t iterations = 0;
    double iter_time_sum_s = 0;
    double busy_gpu_s = 0;
    double end_s = 0; // when it stopped
};

class Jobs
{
  public:
    // Set up every connection and schedule every decision; ns-3 time t is
    // ccsim time t + offset_s.
    Jobs(const Export& x, Fabric& f, double offset_s);
    ~Jobs();

    const JobResult& result(size_t j) const;
    // Rows "job_id,iteration,transfer,start_s,end_s,fct_s\n" of every
    // transfer that ended, in ccsim time.
    const std::string& transfer_rows() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> m;
};

} // namespace ccsim_packet

#endif
