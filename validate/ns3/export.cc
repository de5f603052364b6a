// export.cc - reading and checking the packet export (export.h).
#include "export.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace ccsim_packet
{

namespace
{

// One CSV file: its header and rows, cells by column name.
class Csv
{
  public:
    Csv(const std::string& dir, const std::string& name)
        : m_file(name)
    {
        std::ifstream in(dir + "/" + name);
        if (!in)
            throw ExportError(dir + "/" + name + ": cannot be read (is this a folder written by "
                                                 "`ccsim export-packet`?)");
        std::string line;
        if (!std::getline(in, line))
            throw ExportError(name + ":1: empty file, expected a header row");
        auto head = split(line);
        for (size_t i = 0; i < head.size(); i++)
            m_col[head[i]] = i;
        while (std::getline(in, line))
            if (!line.empty())
                m_rows.push_back(split(line));
    }

    size_t size() const { return m_rows.size(); }

    // "FILE:LINE: " of row r (the header is line 1).
    std::string where(size_t r) const { return m_file + ":" + std::to_string(r + 2) + ": "; }

    [[noreturn]] void fail(size_t r, const std::string& what) const
    {
        throw ExportError(where(r) + what);
    }

    const std::string& str(size_t r, const std::string& col) const
    {
        auto it = m_col.find(col);
        if (it == m_col.end())
            throw ExportError(m_file + ":1: no column " + col);
        if (it->second >= m_rows[r].size())
            fail(r, "missing cell " + col);
        return m_rows[r][it->second];
    }

    double num(size_t r, const std::string& col) const
    {
        const std::string& s = str(r, col);
        char* end = nullptr;
        errno = 0;
        double v = std::strtod(s.c_str(), &end);
        if (s.empty() || *end || errno || !std::isfinite(v))
            fail(r, col + ": expected a number, got \"" + s + "\"");
        return v;
    }

    int64_t integer(size_t r, const std::string& col) const
    {
        double v = num(r, col);
        if (v != std::floor(v) || std::fabs(v) > 9e15)
            fail(r, col + ": expected an integer, got \"" + str(r, col) + "\"");
        return static_cast<int64_t>(v);
    }

    // An index in [0, n).
    uint32_t index(size_t r, const std::string& col, size_t n, const std::string& what) const
    {
        int64_t v = integer(r, col);
        if (v < 0 || static_cast<uint64_t>(v) >= n)
            fail(r, what + " " + str(r, col) + " does not exist");
        return static_cast<uint32_t>(v);
    }

    std::vector<uint32_t> list(size_t r, const std::string& col) const
    {
        std::vector<uint32_t> out;
        std::istringstream is(str(r, col));
        std::string tok;
        while (is >> tok) {
            char* end = nullptr;
            unsigned long v = std::strtoul(tok.c_str(), &end, 10);
            if (*end || tok[0] == '-')
                fail(r, col + ": expected non-negative integers, got \"" + tok + "\"");
            out.push_back(static_cast<uint32_t>(v));
        }
        return out;
    }

  private:
    static std::vector<std::string> split(const std::string& line)
    {
        std::vector<std::string> cells(1);
        bool quoted = false;
        for (size_t i = 0; i < line.size(); i++) {
            char c = line[i];
            if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                cells.back() += '"';
                i++;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (c == ',' && !quoted) {
                cells.emplace_back();
            } else if (c != '\r') {
                cells.back() += c;
            }
        }
        return cells;
    }

    std::string m_file;
    std::map<std::string, size_t> m_col;
    std::vector<std::vector<std::string>> m_rows;
};

void read_topology(const std::string& dir, Export& x)
{
    Csv n(dir, "packet_nodes.csv");
    for (size_t r = 0; r < n.size(); r++) {
        if (n.integer(r, "node") != static_cast<int64_t>(r))
            n.fail(r, "nodes must be numbered 0, 1, 2, ... in order");
        x.nodes.push_back({n.str(r, "name"), n.str(r, "kind")});
    }
    Csv l(dir, "packet_links.csv");
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> by_ends;
    for (size_t r = 0; r < l.size(); r++) {
        if (l.integer(r, "link") != static_cast<int64_t>(r))
            l.fail(r, "links must be numbered 0, 1, 2, ... in order");
        Link k{l.index(r, "src", x.nodes.size(), "node"), l.index(r, "dst", x.nodes.size(), "node"),
               l.num(r, "rate_Bps"), l.num(r, "latency_s"), 0};
        if (!(k.rate_Bps > 0) || k.latency_s < 0)
            l.fail(r, "rate_Bps must be positive and latency_s not negative");
        if (!by_ends.emplace(std::make_pair(k.src, k.dst), r).second)
            l.fail(r, "a second link from node " + std::to_string(k.src) + " to node " +
                          std::to_string(k.dst));
        x.links.push_back(k);
    }
    for (size_t r = 0; r < x.links.size(); r++) {
        auto it = by_ends.find({x.links[r].dst, x.links[r].src});
        if (it == by_ends.end())
            l.fail(r, "link " + std::to_string(r) +
                          " has no reverse link (TCP needs a path back for its acknowledgements)");
        x.links[r].reverse = it->second;
    }
}

void read_run_and_jobs(const std::string& dir, Export& x)
{
    Csv run(dir, "packet_run.csv");
    if (run.size() != 1)
        throw ExportError("packet_run.csv: expected one row");
    x.scheduler = run.str(0, "scheduler");
    x.mode = run.str(0, "mode");
    x.sim_start_s = run.num(0, "sim_start_s");
    x.sim_end_s = run.num(0, "sim_end_s");
    Csv j(dir, "packet_jobs.csv");
    for (size_t r = 0; r < j.size(); r++) {
        Job job;
        job.id = j.str(r, "job_id");
        job.gpus = static_cast<int>(j.integer(r, "gpus"));
        job.start_s = j.num(r, "start_s");
        job.stop_s = j.num(r, "stop_s");
        job.target_iterations = j.integer(r, "target_iterations");
        if (!x.job_index.emplace(job.id, x.jobs.size()).second)
            j.fail(r, "job " + job.id + " listed twice");
        x.jobs.push_back(std::move(job));
    }
}

size_t job_of(const Csv& c, size_t r, const Export& x)
{
    auto it = x.job_index.find(c.str(r, "job_id"));
    if (it == x.job_index.end())
        c.fail(r, "job " + c.str(r, "job_id") + " is not in packet_jobs.csv");
    return it->second;
}

// Rows of one job must come numbered 0, 1, 2, ... in column col.
void check_next(const Csv& c, size_t r, const std::string& col, size_t expected)
{
    if (c.integer(r, col) != static_cast<int64_t>(expected))
        c.fail(r, col + " " + c.str(r, col) + " out of order (expected " +
                      std::to_string(expected) + ")");
}

void read_conns(const std::string& dir, Export& x)
{
    Csv c(dir, "packet_conns.csv");
    for (size_t r = 0; r < c.size(); r++) {
        Job& job = x.jobs[job_of(c, r, x)];
        check_next(c, r, "conn", job.conns.size());
        Conn k{c.index(r, "src_node", x.nodes.size(), "node"),
               c.index(r, "dst_node", x.nodes.size(), "node"), c.integer(r, "src_nic"),
               c.integer(r, "dst_nic")};
        if (k.src_nic >= static_cast<int64_t>(x.nodes.size()) ||
            k.dst_nic >= static_cast<int64_t>(x.nodes.size()))
            c.fail(r, "NIC node does not exist");
        job.conns.push_back(k);
    }
}

TaskKind kind_of(const Csv& c, size_t r)
{
    const std::string& k = c.str(r, "kind");
    if (k == "compute")
        return TaskKind::Compute;
    if (k == "wait")
        return TaskKind::Wait;
    if (k == "flow")
        return TaskKind::Flow;
    c.fail(r, "kind: expected compute, wait or flow, got \"" + k + "\"");
}

void read_tasks(const std::string& dir, Export& x)
{
    Csv c(dir, "packet_tasks.csv");
    for (size_t r = 0; r < c.size(); r++) {
        Job& job = x.jobs[job_of(c, r, x)];
        check_next(c, r, "task", job.tasks.size());
        Task t{kind_of(c, r), c.num(r, "duration_s"), static_cast<int>(c.integer(r, "gpus")),
               c.list(r, "deps"), c.integer(r, "transfer"), c.integer(r, "conn"),
               c.num(r, "bytes"), c.num(r, "delay_s")};
        for (uint32_t d : t.deps)
            if (d >= job.tasks.size())
                c.fail(r, "depends on task " + std::to_string(d) + ", not an earlier one");
        if (t.duration_s < 0 || t.delay_s < 0 || t.bytes < 0)
            c.fail(r, "negative duration_s, delay_s or bytes");
        if (t.kind == TaskKind::Flow &&
            (t.conn < 0 || static_cast<size_t>(t.conn) >= job.conns.size()))
            c.fail(r, "connection " + c.str(r, "conn") + " of job " + job.id +
                          " does not exist");
        if (t.kind == TaskKind::Flow && !(t.bytes > 0))
            c.fail(r, "a flow of no bytes");
        job.tasks.push_back(std::move(t));
    }
    Csv tr(dir, "packet_transfers.csv");
    for (size_t r = 0; r < tr.size(); r++) {
        Job& job = x.jobs[job_of(tr, r, x)];
        check_next(tr, r, "transfer", job.transfers.size());
        job.transfers.push_back({tr.index(r, "start_task", job.tasks.size(), "task"),
                                 tr.index(r, "end_task", job.tasks.size(), "task"),
                                 tr.num(r, "bytes")});
    }
}

void check_route(const Csv& c, size_t r, const Export& x, const Conn& k,
                 const std::vector<uint32_t>& links)
{
    if (links.empty())
        c.fail(r, "a route of no links");
    uint32_t at = k.src;
    for (uint32_t l : links) {
        if (l >= x.links.size())
            c.fail(r, "link " + std::to_string(l) + " does not exist");
        if (x.links[l].src != at)
            c.fail(r, "link " + std::to_string(l) + " does not start where the route is (node " +
                          std::to_string(at) + ")");
        at = x.links[l].dst;
    }
    if (at != k.dst)
        c.fail(r, "the route ends at node " + std::to_string(at) + ", not at the connection's "
                  "destination " + std::to_string(k.dst));
}

void read_decisions(const std::string& dir, Export& x)
{
    Csv c(dir, "packet_routes.csv");
    for (size_t r = 0; r < c.size(); r++) {
        size_t j = job_of(c, r, x);
        Route rt{static_cast<uint64_t>(c.integer(r, "epoch")), c.num(r, "time_s"), j,
                 c.index(r, "conn", x.jobs[j].conns.size(), "connection"), c.list(r, "links")};
        check_route(c, r, x, x.jobs[j].conns[rt.conn], rt.links);
        x.routes.push_back(std::move(rt));
    }
    Csv d(dir, "packet_decisions.csv");
    for (size_t r = 0; r < d.size(); r++) {
        Decision dc{static_cast<uint64_t>(d.integer(r, "epoch")), d.num(r, "time_s"),
                    job_of(d, r, x), static_cast<int>(d.integer(r, "priority")),
                    d.num(r, "shift_s")};
        if (dc.priority < 0 || dc.shift_s < 0)
            d.fail(r, "negative priority or shift_s");
        x.decisions.push_back(dc);
    }
    std::vector<std::vector<bool>> routed(x.jobs.size());
    for (size_t j = 0; j < x.jobs.size(); j++)
        routed[j].assign(x.jobs[j].conns.size(), false);
    for (const Route& rt : x.routes)
        routed[rt.job][rt.conn] = true;
    for (size_t j = 0; j < x.jobs.size(); j++)
        for (size_t k = 0; k < routed[j].size(); k++)
            if (!routed[j][k])
                throw ExportError("packet_routes.csv: no route for connection " +
                                  std::to_string(k) + " of job " + x.jobs[j].id);
}

} // namespace

Export read_export(const std::string& dir)
{
    Export x;
    read_topology(dir, x);
    read_run_and_jobs(dir, x);
    read_conns(dir, x);
    read_tasks(dir, x);
    read_decisions(dir, x);
    return x;
}

} // namespace ccsim_packet
