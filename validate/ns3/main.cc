// main.cc - ccsim-packet: replay a `ccsim export-packet` folder in ns-3
// (docs/validation.md, "Packet-level cross-check").
//
//   ccsim-packet EXPORT_DIR -o OUT [--routing ccsim|ecmp] [--transport dctcp|cubic|newreno]
//                [--mtu BYTES] [--buffer-pkts N] [--ecn-k-us US] [--min-rto-us US]
//
// Writes into OUT (created if needed): transfers.csv (every transfer that
// ended: job_id, iteration, transfer, start_s, end_s, fct_s, as
// ccsim_transfers.csv), jobs.csv (job_id, gpus, start_s, stop_s,
// iterations, busy_gpu_s, mean_iter_s, completion_s), summary.csv (the
// run's GPU utilization, drops, ECN marks, events, wall and CPU seconds)
// and links.csv (link, src, dst, drops, ecn_marks: the port each directed
// link leaves by, to tell where packets were lost),
// each through a temporary file renamed at the end.  Bad input: "ccsim-packet:
// FILE:LINE: what is wrong", exit 1, no output; bad usage: exit 2.
//
// Transport.  DCTCP (ns-3's TcpDctcp) with ECN marking at every port: the
// closest mainline ns-3 analogue of the DCQCN that RoCE fabrics run (both
// cut the rate in proportion to the fraction of ECN-marked packets).
// What differs (docs/validation.md): DCQCN is rate-based at the NIC with
// no window and no slow start, runs over a lossless (PFC) fabric and uses
// go-back-N; DCTCP is window-based, starts in slow start (10 segments),
// recovers losses with SACK and retransmission timeouts, and acknowledges
// every second segment.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "export.h"
#include "fabric.h"
#include "jobs.h"

#include <ns3/core-module.h>
#include <ns3/internet-module.h>

using namespace ns3;
using namespace ccsim_packet;

namespace
{

struct Options
{
    std::string in, out, routing = "ccsim", transport = "dctcp";
    FabricOptions fabric;
    double min_rto_s = 1e-3;
};

[[noreturn]] void usage(const std::string& what)
{
    std::cerr << "ccsim-packet: " << what
              << "\nusage: ccsim-packet EXPORT_DIR -o OUT [--routing ccsim|ecmp] "
                 "[--transport dctcp|cubic|newreno] [--mtu BYTES] [--buffer-pkts N] "
                 "[--ecn-k-us US] [--min-rto-us US]\n";
    std::exit(2);
}

double number(const std::string& opt, const char* v, double lo, double hi)
{
    char* end = nullptr;
    double d = std::strtod(v, &end);
    if (!*v || *end || !(d >= lo && d <= hi))
        usage(opt + ": expected a number in [" + std::to_string(lo) + ", " + std::to_string(hi) +
              "], got \"" + v + "\"");
    return d;
}

Options parse(int argc, char** argv)
{
    Options o;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "-h" || a == "--help")
            usage("replay a `ccsim export-packet` folder in ns-3");
        bool has = i + 1 < argc;
        if (a[0] == '-' && !has)
            usage(a + ": needs a value");
        if (a == "-o" || a == "--out")
            o.out = argv[++i];
        else if (a == "--routing")
            o.routing = argv[++i];
        else if (a == "--transport")
            o.transport = argv[++i];
        else if (a == "--mtu")
            o.fabric.mtu = static_cast<uint32_t>(number(a, argv[++i], 576, 9216));
        else if (a == "--buffer-pkts")
            o.fabric.buffer_pkts = static_cast<uint32_t>(number(a, argv[++i], 4, 1e6));
        else if (a == "--ecn-k-us")
            o.fabric.ecn_k_s = number(a, argv[++i], 0, 1e6) * 1e-6;
        else if (a == "--min-rto-us")
            o.min_rto_s = number(a, argv[++i], 1, 1e7) * 1e-6;
        else if (a[0] == '-')
            usage("unknown option " + a);
        else if (o.in.empty())
            o.in = a;
        else
            usage("unexpected argument " + a);
    }
    if (o.in.empty() || o.out.empty())
        usage("give an EXPORT_DIR and -o OUT");
    if (o.routing != "ccsim" && o.routing != "ecmp")
        usage("--routing: ccsim or ecmp, got " + o.routing);
    if (o.transport != "dctcp" && o.transport != "cubic" && o.transport != "newreno")
        usage("--transport: dctcp, cubic or newreno, got " + o.transport);
    o.fabric.ecmp = o.routing == "ecmp";
    return o;
}

void configure_tcp(const Options& o)
{
    const char* cc = o.transport == "dctcp"   ? "ns3::TcpDctcp"
                     : o.transport == "cubic" ? "ns3::TcpCubic"
                                              : "ns3::TcpNewReno";
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TypeId::LookupByName(cc)));
    // MTU - 20 (IPv4) - 20 (TCP) - 12 (timestamp option)
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(o.fabric.mtu - 52));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1u << 24));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1u << 24));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MicroSeconds(50)));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(o.min_rto_s)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MicroSeconds(1)));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn", EnumValue(TcpSocketState::On));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(MicroSeconds(100)));
}

// Write text as dir/name through a temporary file.
void write_file(const std::string& dir, const std::string& name, const std::string& text)
{
    std::string tmp = dir + "/." + name + ".tmp";
    std::ofstream f(tmp);
    f << text;
    f.close();
    if (!f)
        throw std::runtime_error(tmp + ": cannot be written");
    std::filesystem::rename(tmp, dir + "/" + name);
}

double cpu_s()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

std::string num(double v)
{
    std::ostringstream os;
    os.precision(10);
    os << v;
    return os.str();
}

void write_results(const Options& o, const Export& x, const Jobs& jobs, const Fabric& f,
                   double wall_s)
{
    std::string jcsv = "job_id,gpus,start_s,stop_s,iterations,busy_gpu_s,mean_iter_s,completion_s\n";
    double busy = 0, alloc = 0;
    int64_t iters = 0;
    for (size_t j = 0; j < x.jobs.size(); j++) {
        const Job& s = x.jobs[j];
        const JobResult& r = jobs.result(j);
        double stop = x.mode == "work" ? r.end_s : s.stop_s;
        busy += r.busy_gpu_s;
        alloc += s.gpus * (stop - s.start_s);
        iters += r.iterations;
        jcsv += s.id + "," + std::to_string(s.gpus) + "," + num(s.start_s) + "," + num(stop) +
                "," + std::to_string(r.iterations) + "," + num(r.busy_gpu_s) + "," +
                (r.iterations ? num(r.iter_time_sum_s / r.iterations) : "") + "," +
                (x.mode == "work" ? num(stop - s.start_s) : "") + "\n";
    }
    std::string scsv = "scheduler,routing,transport,mode,sim_start_s,sim_end_s,jobs,busy_gpu_s,"
                       "alloc_gpu_s,gpu_util_allocated_frac,iterations,drops,ecn_marks,events,"
                       "wall_s,cpu_s\n";
    scsv += x.scheduler + "," + o.routing + "," + o.transport + "," + x.mode + "," +
            num(x.sim_start_s) + "," + num(x.sim_end_s) + "," + std::to_string(x.jobs.size()) +
            "," + num(busy) + "," + num(alloc) + "," + num(alloc > 0 ? busy / alloc : 0) + "," +
            std::to_string(iters) + "," + std::to_string(f.drops()) + "," +
            std::to_string(f.marks()) + "," + std::to_string(Simulator::GetEventCount()) + "," +
            num(wall_s) + "," + num(cpu_s()) + "\n";
    std::string lcsv = "link,src,dst,drops,ecn_marks\n";
    for (uint32_t l = 0; l < x.links.size(); l++)
        lcsv += std::to_string(l) + "," + x.nodes[x.links[l].src].name + "," +
                x.nodes[x.links[l].dst].name + "," + std::to_string(f.link_drops(l)) + "," +
                std::to_string(f.link_marks(l)) + "\n";
    std::filesystem::create_directories(o.out);
    write_file(o.out, "transfers.csv",
               "job_id,iteration,transfer,start_s,end_s,fct_s\n" + jobs.transfer_rows());
    write_file(o.out, "jobs.csv", jcsv);
    write_file(o.out, "summary.csv", scsv);
    write_file(o.out, "links.csv", lcsv);
}

} // namespace

int main(int argc, char** argv)
{
    Options o = parse(argc, argv);
    try {
        auto t0 = std::chrono::steady_clock::now();
        Export x = read_export(o.in);
        configure_tcp(o);
        std::set<int> levels;
        for (const Decision& d : x.decisions)
            levels.insert(d.priority);
        o.fabric.bands = std::max<int>(1, static_cast<int>(levels.size()));
        if (o.fabric.bands > 16)
            throw ExportError("packet_decisions.csv: " + std::to_string(levels.size()) +
                              " priority levels; ns-3's priority queue has at most 16 bands");
        Fabric fabric(x, o.fabric);
        // ns-3 time 0 is 1 ms before the window: the connections open then
        double offset = 1e-3 - x.sim_start_s;
        Jobs jobs(x, fabric, offset);
        double span = x.sim_end_s - x.sim_start_s;
        Simulator::Stop(Seconds(offset + x.sim_end_s + (x.mode == "work" ? 99 * span : 0)));
        Simulator::Run();
        double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        write_results(o, x, jobs, fabric, wall);
        Simulator::Destroy();
    } catch (const std::exception& e) {
        std::cerr << "ccsim-packet: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
