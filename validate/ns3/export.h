// export.h - the packet export of a ccsim run (docs/validation.md,
// "The export"), read and checked.  Not here: the ns-3 network (fabric.h),
// the jobs (jobs.h).
//
// Every reader checks what the replay relies on and throws ExportError
// with "FILE:LINE: what is wrong": a link or node that does not exist, a
// route that is not a chain of links from the connection's source to its
// destination, a dependency on a later task, a link without its reverse
// (TCP needs a path back for its acknowledgements).
#ifndef CCSIM_VALIDATE_NS3_EXPORT_H
#define CCSIM_VALIDATE_NS3_EXPORT_H

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace ccsim_packet
{

struct ExportError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

struct Node
{
    std::string name, kind; // kind: gpu, nvswitch, pcie, nic, tor, agg, core, rail, switch
};

struct Link
{
    uint32_t src, dst;
    double rate_Bps, latency_s;
    uint32_t reverse; // the link dst -> src
};

enum class TaskKind
{
    Compute, // gpus busy for duration_s
    Wait,    // a timer or a barrier
    Flow,    // bytes on a connection, sent delay_s after its dependencies
};

struct Task
{
    TaskKind kind;
    double duration_s;
    int gpus;
    std::vector<uint32_t> deps; // earlier tasks of the same iteration
    int64_t transfer;           // flows: the ccsim transfer they belong to
    int64_t conn;               // flows: the connection
    double bytes;
    double delay_s;
};

struct Conn
{
    uint32_t src, dst;        // GPU nodes
    int64_t src_nic, dst_nic; // -1 inside a host
};

struct Transfer
{
    uint32_t start_task, end_task; // issued when start_task ends, done when end_task ends
    double bytes;
};

struct Job
{
    std::string id;
    int gpus;
    double start_s, stop_s;
    int64_t target_iterations; // work mode; 0 in window mode
    std::vector<Task> tasks;
    std::vector<Conn> conns;
    std::vector<Transfer> transfers;
};

struct Route
{
    uint64_t epoch;
    double time_s;
    size_t job;
    uint32_t conn;
    std::vector<uint32_t> links;
};

struct Decision
{
    uint64_t epoch;
    double time_s;
    size_t job;
    int priority;
    double shift_s;
};

struct Export
{
    std::string scheduler, mode;
    double sim_start_s = 0, sim_end_s = 0;
    std::vector<Node> nodes;
    std::vector<Link> links;
    std::vector<Job> jobs;
    std::map<std::string, size_t> job_index;
    std::vector<Route> routes;       // in file order (epochs ascending)
    std::vector<Decision> decisions; // idem
};

// Read the export in dir.  Throws ExportError.
Export read_export(const std::string& dir);

} // namespace ccsim_packet

#endif
