// fabric.h - the export's network in ns-3 (docs/validation.md, "The
// replayer"): one node per ccsim node, one point-to-point link per pair
// of directed links, strict-priority queues with ECN marking on every
// port, and connection routes.  Not here: the jobs and their transport
// (jobs.h).
//
// Routing.  Every connection has its own two addresses (its sender's and
// its receiver's end) on its two GPUs, so a route is an exact match on the
// destination address at every node of the path, both ways (the way back
// carries the acknowledgements).  In ccsim mode every node follows the
// route ccsim chose.  In ECMP mode the switches instead pick among the
// equal-cost next hops towards the destination NIC by a hash of the
// packet's five-tuple and a salt of the switch (what a switch does; ns-3's
// own global routing only sprays packets at random), and the nodes inside
// hosts still follow ccsim's route.
//
// Queues.  Each port: strict priority over a control band (TCP segments
// without payload) and `bands` data bands, a packet's by its connection
// (set_band; ns-3 rewrites a forwarded packet's priority from its TOS, and
// its TCP clears the ECN bits of a socket with a TOS of its own); in
// each data band DCTCP's marking: an ECN-capable packet arriving to a band
// of at least K bytes (what the port drains in ecn_k_s, at most half the
// band, at least two full packets) is marked; a band holds buffer_pkts full packets and drops only
// when full (fabric.cc says why not ns-3's RED).  The device queue holds
// one packet, so the queue discipline decides the order.
#ifndef CCSIM_VALIDATE_NS3_FABRIC_H
#define CCSIM_VALIDATE_NS3_FABRIC_H

#include "export.h"

#include <ns3/internet-module.h>
#include <ns3/network-module.h>
#include <ns3/traffic-control-module.h>

namespace ccsim_packet
{

struct FabricOptions
{
    bool ecmp = false;          // switches hash five-tuples instead of following ccsim's routes
    uint32_t mtu = 9000;        // bytes, every link
    int bands = 1;              // strict priority levels
    uint32_t buffer_pkts = 128; // full packets per band and port
    double ecn_k_s = 5e-6;      // marking threshold as the port's drain time
};

class Fabric
{
  public:
    Fabric(const Export& x, const FabricOptions& o);

    // Connection gid (numbered by the caller from 0) from node src to node
    // dst; the NICs it leaves and enters by (-1: inside a host).
    void add_connection(uint32_t gid, const Conn& c);
    ns3::Ipv4Address sender_address(uint32_t gid) const;
    ns3::Ipv4Address receiver_address(uint32_t gid) const;
    // Connection gid's data goes in band `band` (0 first) of every port.
    void set_band(uint32_t gid, uint8_t band);
    // Route connection gid over links (forward; the acknowledgements take
    // the reverse links).  In ECMP mode the switches' entries are unused.
    void set_route(uint32_t gid, const std::vector<uint32_t>& links);

    ns3::Ptr<ns3::Node> node(uint32_t v) const { return m_nodes.Get(v); }
    // Packets dropped and ECN-marked by every queue so far.
    uint64_t drops() const;
    uint64_t marks() const;
    // The same for the port of one directed link (at its src): which queue dropped.
    uint64_t link_drops(uint32_t link) const;
    uint64_t link_marks(uint32_t link) const;

  private:
    void build_links(const FabricOptions& o);
    void install_queues(ns3::NetDeviceContainer& devs, const FabricOptions& o);
    void ecmp_entries(ns3::Ipv4Address addr, uint32_t nic);

    const Export& m_x;
    bool m_ecmp;
    ns3::NodeContainer m_nodes;
    std::vector<uint32_t> m_out_if;              // per directed link: interface at its src
    std::vector<ns3::Ptr<ns3::QueueDisc>> m_qdiscs;
    std::vector<uint32_t> m_link_qdisc;          // per directed link: its port's index in m_qdiscs
    std::vector<uint8_t> m_bands;                // per connection: its band
    std::map<uint32_t, std::vector<int>> m_dist; // NIC -> hops from each node (-1: none)
};

} // namespace ccsim_packet

#endif
