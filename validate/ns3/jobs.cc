// jobs.cc - the export's jobs over ns-3 TCP (jobs.h).
#include "jobs.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <set>
#include <sstream>
#include <unordered_map>

#include <ns3/applications-module.h>
#include <ns3/core-module.h>

using namespace ns3;

namespace ccsim_packet
{

namespace
{
const uint16_t kPort = 5000;

} // namespace

struct Jobs::Impl
{
    struct Connection
    {
        size_t job, index; // its job and its index among the job's connections
        Ptr<Socket> tx, rx, listener;
        uint64_t queued = 0, written = 0, received = 0;
        std::deque<std::pair<uint64_t, uint32_t>> pending; // (byte the flow ends at, task)
    };

    struct Run
    {
        const Job* spec;
        std::vector<std::vector<uint32_t>> dependents;
        std::vector<std::vector<size_t>> transfers_ending; // per task
        std::vector<uint32_t> conn_gid;                    // per connection of the job
        std::vector<uint32_t> remaining;
        std::vector<double> done_at; // ns-3 seconds
        uint32_t left = 0;
        double iter_start = 0;
        bool started = false, stopped = false;
        double pending_shift = 0;
        JobResult res;
    };

    const Export& x;
    Fabric& fabric;
    double offset;
    bool window;
    std::vector<Connection> conns;
    std::vector<Run> jobs;
    std::map<int, uint8_t> band_of; // priority level -> band
    std::unordered_map<Socket*, uint32_t> gid_of;
    std::string rows;

    Impl(const Export& ex, Fabric& f, double off)
        : x(ex),
          fabric(f),
          offset(off),
          window(ex.mode != "work")
    {
        std::set<int> levels;
        for (const Decision& d : x.decisions)
            levels.insert(d.priority);
        for (int l : levels)
            band_of[l] = static_cast<uint8_t>(band_of.size());
        jobs.resize(x.jobs.size());
        for (size_t j = 0; j < x.jobs.size(); j++)
            prepare(j);
        std::vector<bool> routed(conns.size(), false);
        for (const Route& r : x.routes) {
            uint32_t gid = jobs[r.job].conn_gid[r.conn];
            if (!routed[gid])
                fabric.set_route(gid, r.links);
            routed[gid] = true;
        }
        // at time 0, once the nodes are initialised (their queues need it)
        for (uint32_t gid = 0; gid < conns.size(); gid++)
            Simulator::ScheduleNow(&Impl::open, this, gid);
        schedule_epochs();
    }

    double ccsim_time(double ns3_s) const { return ns3_s - offset; }

    void prepare(size_t j)
    {
        Run& r = jobs[j];
        r.spec = &x.jobs[j];
        size_t n = r.spec->tasks.size();
        r.dependents.resize(n);
        r.transfers_ending.resize(n);
        for (uint32_t t = 0; t < n; t++)
            for (uint32_t d : r.spec->tasks[t].deps)
                r.dependents[d].push_back(t);
        for (size_t k = 0; k < r.spec->transfers.size(); k++)
            r.transfers_ending[r.spec->transfers[k].end_task].push_back(k);
        for (const Conn& c : r.spec->conns) {
            uint32_t gid = static_cast<uint32_t>(conns.size());
            conns.push_back(Connection{});
            conns.back().job = j;
            conns.back().index = r.conn_gid.size();
            fabric.add_connection(gid, c);
            r.conn_gid.push_back(gid);
        }
    }

    void open(uint32_t gid)
    {
        Connection& c = conns[gid];
        const Conn& spec = x.jobs[c.job].conns[c.index];
        c.listener = Socket::CreateSocket(fabric.node(spec.dst), TcpSocketFactory::GetTypeId());
        c.listener->Bind(InetSocketAddress(fabric.receiver_address(gid), kPort));
        c.listener->Listen();
        c.listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                      MakeCallback(&Impl::on_accept, this));
        c.tx = Socket::CreateSocket(fabric.node(spec.src), TcpSocketFactory::GetTypeId());
        c.tx->Bind(InetSocketAddress(fabric.sender_address(gid), kPort));
        c.tx->SetSendCallback(MakeCallback(&Impl::on_send, this));
        gid_of[PeekPointer(c.tx)] = gid;
        c.tx->Connect(InetSocketAddress(fabric.receiver_address(gid), kPort));
    }

    void on_accept(Ptr<Socket> s, const Address&)
    {
        Address local;
        s->GetSockName(local);
        uint32_t a = InetSocketAddress::ConvertFrom(local).GetIpv4().Get();
        uint32_t gid = (a - fabric.receiver_address(0).Get()) / 2;
        Connection& c = conns[gid];
        c.rx = s;
        gid_of[PeekPointer(s)] = gid;
        s->SetRecvCallback(MakeCallback(&Impl::on_recv, this));
    }

    void on_send(Ptr<Socket> s, uint32_t) { write(conns[gid_of.at(PeekPointer(s))]); }

    void write(Connection& c)
    {
        while (c.written < c.queued) {
            uint32_t avail = c.tx->GetTxAvailable();
            if (avail == 0)
                return;
            uint64_t n = std::min<uint64_t>({c.queued - c.written, avail, 1u << 20});
            int sent = c.tx->Send(Create<Packet>(static_cast<uint32_t>(n)));
            if (sent <= 0)
                return;
            c.written += static_cast<uint64_t>(sent);
        }
    }

    void on_recv(Ptr<Socket> s)
    {
        Connection& c = conns[gid_of.at(PeekPointer(s))];
        Ptr<Packet> p;
        while ((p = s->Recv()))
            c.received += p->GetSize();
        while (!c.pending.empty() && c.pending.front().first <= c.received) {
            uint32_t t = c.pending.front().second;
            c.pending.pop_front();
            task_done(c.job, t);
        }
    }

    // ---- decisions ----

    void schedule_epochs()
    {
        size_t d = 0, r = 0;
        while (d < x.decisions.size() || r < x.routes.size()) {
            uint64_t e = std::min(d < x.decisions.size() ? x.decisions[d].epoch : UINT64_MAX,
                                  r < x.routes.size() ? x.routes[r].epoch : UINT64_MAX);
            double t = d < x.decisions.size() && x.decisions[d].epoch == e ? x.decisions[d].time_s
                                                                          : x.routes[r].time_s;
            size_t d1 = d, r1 = r;
            while (d1 < x.decisions.size() && x.decisions[d1].epoch == e)
                d1++;
            while (r1 < x.routes.size() && x.routes[r1].epoch == e)
                r1++;
            Simulator::Schedule(Seconds(std::max(0.0, t + offset)), &Impl::epoch, this, d, d1, r,
                                r1);
            d = d1;
            r = r1;
        }
    }

    void epoch(size_t d0, size_t d1, size_t r0, size_t r1)
    {
        for (size_t r = r0; r < r1; r++)
            fabric.set_route(jobs[x.routes[r].job].conn_gid[x.routes[r].conn], x.routes[r].links);
        for (size_t d = d0; d < d1; d++) {
            const Decision& dc = x.decisions[d];
            Run& run = jobs[dc.job];
            run.pending_shift = dc.shift_s;
            set_band(run, band_of.at(dc.priority));
        }
        for (size_t d = d0; d < d1; d++) {
            Run& run = jobs[x.decisions[d].job];
            if (!run.started) {
                run.started = true;
                double at = consume_shift(run);
                Simulator::Schedule(Seconds(at), &Impl::start_iteration, this, x.decisions[d].job);
                if (window)
                    Simulator::Schedule(Seconds(std::max(0.0, run.spec->stop_s + offset -
                                                              Simulator::Now().GetSeconds())),
                                        &Impl::stop, this, x.decisions[d].job);
            }
        }
    }

    void set_band(Run& run, uint8_t band)
    {
        for (uint32_t gid : run.conn_gid)
            fabric.set_band(gid, band);
    }

    double consume_shift(Run& run)
    {
        double s = run.pending_shift;
        run.pending_shift = 0;
        return s;
    }

    // ---- the iteration ----

    void start_iteration(size_t j)
    {
        Run& r = jobs[j];
        if (r.stopped)
            return;
        size_t n = r.spec->tasks.size();
        r.iter_start = Simulator::Now().GetSeconds();
        r.left = static_cast<uint32_t>(n);
        r.remaining.resize(n);
        r.done_at.assign(n, 0);
        for (uint32_t t = 0; t < n; t++)
            r.remaining[t] = static_cast<uint32_t>(r.spec->tasks[t].deps.size());
        for (uint32_t t = 0; t < n; t++)
            if (r.remaining[t] == 0)
                start_task(j, t);
    }

    void start_task(size_t j, uint32_t t)
    {
        Run& r = jobs[j];
        const Task& k = r.spec->tasks[t];
        if (k.kind == TaskKind::Flow) {
            Simulator::Schedule(Seconds(k.delay_s), &Impl::send_flow, this, j, t);
            return;
        }
        if (k.gpus > 0) {
            double a = ccsim_time(Simulator::Now().GetSeconds()), b = a + k.duration_s;
            double hi = window ? r.spec->stop_s : std::numeric_limits<double>::infinity();
            a = std::max(a, r.spec->start_s);
            if (b > a)
                r.res.busy_gpu_s += k.gpus * (std::min(b, hi) - std::min(a, hi));
        }
        Simulator::Schedule(Seconds(k.duration_s), &Impl::task_done, this, j, t);
    }

    void send_flow(size_t j, uint32_t t)
    {
        Run& r = jobs[j];
        if (r.stopped)
            return;
        const Task& k = r.spec->tasks[t];
        Connection& c = conns[r.conn_gid[static_cast<size_t>(k.conn)]];
        c.queued += static_cast<uint64_t>(std::max(1.0, std::llround(k.bytes) * 1.0));
        c.pending.emplace_back(c.queued, t);
        write(c);
    }

    void task_done(size_t j, uint32_t t)
    {
        Run& r = jobs[j];
        if (r.stopped)
            return;
        double now = Simulator::Now().GetSeconds();
        r.done_at[t] = now;
        for (size_t k : r.transfers_ending[t]) {
            const Transfer& tr = r.spec->transfers[k];
            double start = r.done_at[tr.start_task];
            std::ostringstream os;
            os.precision(10);
            os << r.spec->id << ',' << r.res.iterations << ',' << k << ',' << ccsim_time(start)
               << ',' << ccsim_time(now) << ',' << now - start << '\n';
            rows += os.str();
        }
        for (uint32_t d : r.dependents[t])
            if (--r.remaining[d] == 0)
                start_task(j, d);
        if (--r.left == 0)
            end_iteration(j, now);
    }

    void end_iteration(size_t j, double now)
    {
        Run& r = jobs[j];
        r.res.iterations++;
        r.res.iter_time_sum_s += now - r.iter_start;
        if (!window && r.res.iterations >= r.spec->target_iterations) {
            stop(j);
            return;
        }
        Simulator::Schedule(Seconds(consume_shift(r)), &Impl::start_iteration, this, j);
    }

    void stop(size_t j)
    {
        Run& r = jobs[j];
        if (r.stopped)
            return;
        r.stopped = true;
        r.res.end_s = ccsim_time(Simulator::Now().GetSeconds());
    }
};

Jobs::Jobs(const Export& x, Fabric& f, double offset_s)
    : m(std::make_unique<Impl>(x, f, offset_s))
{
}

Jobs::~Jobs() = default;

const JobResult& Jobs::result(size_t j) const
{
    return m->jobs[j].res;
}

const std::string& Jobs::transfer_rows() const
{
    return m->rows;
}

} // namespace ccsim_packet
