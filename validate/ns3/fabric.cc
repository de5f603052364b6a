// fabric.cc - the export's network in ns-3 (fabric.h).
#include "fabric.h"

#include <deque>
#include <unordered_map>

#include <ns3/point-to-point-module.h>

using namespace ns3;

namespace ccsim_packet
{

namespace
{

const uint32_t kConnNet = 11; // connection addresses: 11.0.0.0/8

// Exact-match routes on the destination address (fabric.h), and at a
// switch in ECMP mode a five-tuple hash among equal-cost interfaces.
class FlowRouting : public Ipv4RoutingProtocol
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ccsim::FlowRouting")
                                .SetParent<Ipv4RoutingProtocol>()
                                .AddConstructor<FlowRouting>();
        return tid;
    }

    void set_route(Ipv4Address dst, uint32_t iface) { m_routes[dst.Get()] = iface; }
    void set_ecmp(Ipv4Address dst, std::vector<uint32_t> ifaces, uint64_t salt)
    {
        m_ecmp[dst.Get()] = std::move(ifaces);
        m_salt = salt;
    }

    Ptr<Ipv4Route> RouteOutput(Ptr<Packet> p, const Ipv4Header& h, Ptr<NetDevice> oif,
                               Socket::SocketErrno& err) override
    {
        (void)oif;
        int32_t iface = lookup(p, h);
        if (iface < 0) {
            err = Socket::ERROR_NOROUTETOHOST;
            return nullptr;
        }
        err = Socket::ERROR_NOTERROR;
        return route(h, static_cast<uint32_t>(iface));
    }

    bool RouteInput(Ptr<const Packet> p, const Ipv4Header& h, Ptr<const NetDevice> idev,
                    UnicastForwardCallback ucb, MulticastForwardCallback mcb,
                    LocalDeliverCallback lcb, ErrorCallback ecb) override
    {
        (void)mcb;
        uint32_t iif = m_ipv4->GetInterfaceForDevice(idev);
        if (m_ipv4->IsDestinationAddress(h.GetDestination(), iif)) {
            lcb(p, h, iif);
            return true;
        }
        int32_t iface = lookup(p, h);
        if (iface < 0) {
            ecb(p, h, Socket::ERROR_NOROUTETOHOST);
            return false;
        }
        ucb(route(h, static_cast<uint32_t>(iface)), p, h);
        return true;
    }

    void NotifyInterfaceUp(uint32_t) override {}
    void NotifyInterfaceDown(uint32_t) override {}
    void NotifyAddAddress(uint32_t, Ipv4InterfaceAddress) override {}
    void NotifyRemoveAddress(uint32_t, Ipv4InterfaceAddress) override {}
    void SetIpv4(Ptr<Ipv4> ipv4) override { m_ipv4 = ipv4; }
    void PrintRoutingTable(Ptr<OutputStreamWrapper> s, Time::Unit) const override
    {
        *s->GetStream() << m_routes.size() << " routes, " << m_ecmp.size() << " ECMP entries\n";
    }

  private:
    static uint64_t mix(uint64_t x)
    {
        x += 0x9E3779B97F4A7C15ULL;
        x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
        x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
        return x ^ (x >> 31);
    }

    int32_t lookup(Ptr<const Packet> p, const Ipv4Header& h) const
    {
        uint32_t dst = h.GetDestination().Get();
        auto e = m_ecmp.find(dst);
        if (e != m_ecmp.end() && !e->second.empty()) {
            uint64_t key = (static_cast<uint64_t>(h.GetSource().Get()) << 32) | dst;
            key = mix(key ^ m_salt) ^ h.GetProtocol();
            TcpHeader th;
            if (p && h.GetProtocol() == 6 && p->PeekHeader(th))
                key = mix(key ^ (static_cast<uint64_t>(th.GetSourcePort()) << 16 |
                                 th.GetDestinationPort()));
            return static_cast<int32_t>(e->second[mix(key) % e->second.size()]);
        }
        auto r = m_routes.find(dst);
        return r == m_routes.end() ? -1 : static_cast<int32_t>(r->second);
    }

    // The source a packet leaves with.  TCP asks for a route without one;
    // a connection's two addresses are 2k and 2k + 1 (Fabric's), so the
    // local end of the connection to dst is dst with its last bit flipped.
    Ipv4Address source(const Ipv4Header& h, uint32_t iface) const
    {
        Ipv4Address s = h.GetSource();
        if (s != Ipv4Address() && s != Ipv4Address::GetAny())
            return s;
        uint32_t d = h.GetDestination().Get();
        if ((d >> 24) == kConnNet)
            return Ipv4Address(d ^ 1u);
        return m_ipv4->GetAddress(iface, 0).GetLocal();
    }

    Ptr<Ipv4Route> route(const Ipv4Header& h, uint32_t iface) const
    {
        Ptr<Ipv4Route> rt = Create<Ipv4Route>();
        rt->SetDestination(h.GetDestination());
        rt->SetSource(source(h, iface));
        rt->SetGateway(Ipv4Address::GetAny());
        rt->SetOutputDevice(m_ipv4->GetNetDevice(iface));
        return rt;
    }

    Ptr<Ipv4> m_ipv4;
    std::unordered_map<uint32_t, uint32_t> m_routes;
    std::unordered_map<uint32_t, std::vector<uint32_t>> m_ecmp;
    uint64_t m_salt = 0;
};

// A port's queues (fabric.h): strict priority over a control band (TCP
// segments without payload: acknowledgements, SYN, FIN) and `Bands` data
// bands by the packet's connection (its job's band, Fabric::set_band); in each data band DCTCP's
// marking (Alizadeh et al., SIGCOMM'10, §3.1): an ECN-capable packet
// arriving to a band holding at least K bytes is marked; a packet is
// dropped only when its band is full.  Why not ns-3's PrioQueueDisc over
// RED: RED drops the packets that are not ECN-capable (the
// acknowledgements) from its threshold on, and acknowledgements queued
// behind data arrive in bursts that make DCTCP mark a link it does not
// fill (ACK compression: a 2-host ring, data one way and acknowledgements
// the other on every cable, moved at 80% of the line rate).  RoCE fabrics
// likewise give their congestion notifications and acknowledgements a
// class of their own.
class PrioMarkQueueDisc : public QueueDisc
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ccsim::PrioMarkQueueDisc")
                .SetParent<QueueDisc>()
                .AddConstructor<PrioMarkQueueDisc>()
                .AddAttribute("Bands", "Data bands (strict priority, 0 first)", UintegerValue(1),
                              MakeUintegerAccessor(&PrioMarkQueueDisc::m_bands),
                              MakeUintegerChecker<uint32_t>(1, 16))
                .AddAttribute("K", "Mark arrivals to a band of at least K bytes",
                              UintegerValue(65536), MakeUintegerAccessor(&PrioMarkQueueDisc::m_k),
                              MakeUintegerChecker<uint32_t>())
                .AddAttribute("BandBytes", "The most bytes a band holds", UintegerValue(1 << 20),
                              MakeUintegerAccessor(&PrioMarkQueueDisc::m_band_bytes),
                              MakeUintegerChecker<uint32_t>());
        return tid;
    }

    PrioMarkQueueDisc()
        : QueueDisc(QueueDiscSizePolicy::MULTIPLE_QUEUES, QueueSizeUnit::BYTES)
    {
    }

    // The band of each connection (by its index), kept by the Fabric.
    void set_conn_bands(const std::vector<uint8_t>* bands) { m_conn_bands = bands; }

  private:
    uint32_t conn_band(Ipv4Address dst) const
    {
        uint32_t a = dst.Get();
        if ((a >> 24) != kConnNet || !m_conn_bands)
            return 0;
        uint32_t gid = (a & 0xffffffu) >> 1;
        return gid < m_conn_bands->size() ? (*m_conn_bands)[gid] : 0;
    }

    static bool is_control(Ptr<const Packet> p)
    {
        TcpHeader th;
        return p->PeekHeader(th) && p->GetSize() <= th.GetSerializedSize();
    }

    bool DoEnqueue(Ptr<QueueDiscItem> item) override
    {
        uint32_t band = 0;
        Ptr<Ipv4QueueDiscItem> ip = DynamicCast<Ipv4QueueDiscItem>(item);
        if (ip && !is_control(item->GetPacket()))
            band = 1 + std::min<uint32_t>(conn_band(ip->GetHeader().GetDestination()),
                                          m_bands - 1);
        Ptr<InternalQueue> q = GetInternalQueue(band);
        if (band > 0 && q->GetNBytes() >= m_k)
            Mark(item, "band of K bytes or more");
        if (q->GetNBytes() + item->GetSize() > m_band_bytes) {
            DropBeforeEnqueue(item, "band full");
            return false;
        }
        return q->Enqueue(item);
    }

    Ptr<QueueDiscItem> DoDequeue() override
    {
        for (uint32_t b = 0; b < GetNInternalQueues(); b++)
            if (Ptr<QueueDiscItem> item = GetInternalQueue(b)->Dequeue())
                return item;
        return nullptr;
    }

    bool CheckConfig() override
    {
        for (uint32_t b = GetNInternalQueues(); b <= m_bands; b++)
            AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
                "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, m_band_bytes))));
        return GetNQueueDiscClasses() == 0 && GetNPacketFilters() == 0;
    }

    void InitializeParams() override {}

    uint32_t m_bands = 1, m_k = 65536, m_band_bytes = 1 << 20;
    const std::vector<uint8_t>* m_conn_bands = nullptr;
};

NS_OBJECT_ENSURE_REGISTERED(PrioMarkQueueDisc);

class FlowRoutingHelper : public Ipv4RoutingHelper
{
  public:
    Ipv4RoutingHelper* Copy() const override { return new FlowRoutingHelper(*this); }
    Ptr<Ipv4RoutingProtocol> Create(Ptr<ns3::Node>) const override
    {
        return CreateObject<FlowRouting>();
    }
};

Ptr<FlowRouting> routing_of(Ptr<ns3::Node> n)
{
    return DynamicCast<FlowRouting>(n->GetObject<Ipv4>()->GetRoutingProtocol());
}

bool is_switch(const std::string& kind)
{
    return kind == "tor" || kind == "agg" || kind == "core" || kind == "rail" ||
           kind == "switch";
}

} // namespace

Fabric::Fabric(const Export& x, const FabricOptions& o)
    : m_x(x),
      m_ecmp(o.ecmp)
{
    m_nodes.Create(static_cast<uint32_t>(x.nodes.size()));
    InternetStackHelper stack;
    stack.SetIpv6StackInstall(false);
    FlowRoutingHelper routing;
    stack.SetRoutingHelper(routing);
    stack.Install(m_nodes);
    build_links(o);
}

void Fabric::install_queues(NetDeviceContainer& devs, const FabricOptions& o)
{
    for (uint32_t i = 0; i < devs.GetN(); i++) {
        DataRateValue rate;
        devs.Get(i)->GetAttribute("DataRate", rate);
        // K: what the port drains in ecn_k_s, at most half the band (a
        // 300 GB/s NVLink port drains 1.5 MB in 5 us, more than its band
        // holds: it would drop and never mark), at least two full packets
        double band = static_cast<double>(o.buffer_pkts) * o.mtu;
        double k = std::max(2.0 * o.mtu,
                            std::min(band / 2, rate.Get().GetBitRate() / 8.0 * o.ecn_k_s));
        TrafficControlHelper tch;
        tch.SetRootQueueDisc("ccsim::PrioMarkQueueDisc", "Bands",
                             UintegerValue(static_cast<uint32_t>(o.bands)), "K",
                             UintegerValue(static_cast<uint32_t>(k)), "BandBytes",
                             UintegerValue(o.buffer_pkts * o.mtu));
        QueueDiscContainer q = tch.Install(devs.Get(i));
        DynamicCast<PrioMarkQueueDisc>(q.Get(0))->set_conn_bands(&m_bands);
        m_qdiscs.push_back(q.Get(0));
    }
}

void Fabric::build_links(const FabricOptions& o)
{
    m_out_if.assign(m_x.links.size(), 0);
    m_link_qdisc.assign(m_x.links.size(), 0);
    uint32_t subnet = 0x0A000000; // 10.0.0.0/8, a /30 per cable
    for (uint32_t l = 0; l < m_x.links.size(); l++) {
        const Link& a = m_x.links[l];
        if (a.reverse < l)
            continue;
        const Link& b = m_x.links[a.reverse];
        if (a.latency_s != b.latency_s)
            throw ExportError("packet_links.csv:" + std::to_string(l + 2) + ": link " +
                              std::to_string(l) + " and its reverse have different latencies "
                              "(a point-to-point cable has one)");
        PointToPointHelper p2p;
        p2p.SetChannelAttribute("Delay", TimeValue(Seconds(a.latency_s)));
        p2p.SetDeviceAttribute("Mtu", UintegerValue(o.mtu));
        p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("1p")));
        NetDeviceContainer devs = p2p.Install(m_nodes.Get(a.src), m_nodes.Get(a.dst));
        devs.Get(0)->SetAttribute("DataRate", DataRateValue(DataRate(
                                                  static_cast<uint64_t>(a.rate_Bps * 8))));
        devs.Get(1)->SetAttribute("DataRate", DataRateValue(DataRate(
                                                  static_cast<uint64_t>(b.rate_Bps * 8))));
        install_queues(devs, o);
        m_link_qdisc[l] = static_cast<uint32_t>(m_qdiscs.size() - 2);
        m_link_qdisc[a.reverse] = static_cast<uint32_t>(m_qdiscs.size() - 1);
        Ipv4AddressHelper addr;
        addr.SetBase(Ipv4Address(subnet), Ipv4Mask("255.255.255.252"));
        subnet += 4;
        addr.Assign(devs);
        m_out_if[l] = m_nodes.Get(a.src)->GetObject<Ipv4>()->GetInterfaceForDevice(devs.Get(0));
        m_out_if[a.reverse] =
            m_nodes.Get(a.dst)->GetObject<Ipv4>()->GetInterfaceForDevice(devs.Get(1));
    }
}

Ipv4Address Fabric::sender_address(uint32_t gid) const
{
    return Ipv4Address((kConnNet << 24) + 2 * gid);
}

Ipv4Address Fabric::receiver_address(uint32_t gid) const
{
    return Ipv4Address((kConnNet << 24) + 2 * gid + 1);
}

void Fabric::set_band(uint32_t gid, uint8_t band)
{
    m_bands.at(gid) = band;
}

void Fabric::add_connection(uint32_t gid, const Conn& c)
{
    if (m_bands.size() <= gid)
        m_bands.resize(gid + 1, 0);
    Ptr<Ipv4> s = m_nodes.Get(c.src)->GetObject<Ipv4>();
    Ptr<Ipv4> d = m_nodes.Get(c.dst)->GetObject<Ipv4>();
    Ipv4Mask host("255.255.255.255");
    s->AddAddress(1, Ipv4InterfaceAddress(sender_address(gid), host));
    d->AddAddress(1, Ipv4InterfaceAddress(receiver_address(gid), host));
    if (m_ecmp && c.dst_nic >= 0 && c.src_nic >= 0) {
        ecmp_entries(receiver_address(gid), static_cast<uint32_t>(c.dst_nic));
        ecmp_entries(sender_address(gid), static_cast<uint32_t>(c.src_nic));
    }
}

// At every switch that reaches nic through switches, the interfaces one
// hop closer to it.
void Fabric::ecmp_entries(Ipv4Address addr, uint32_t nic)
{
    auto it = m_dist.find(nic);
    if (it == m_dist.end()) {
        std::vector<int> dist(m_x.nodes.size(), -1);
        std::vector<std::vector<uint32_t>> in(m_x.nodes.size());
        for (uint32_t l = 0; l < m_x.links.size(); l++)
            in[m_x.links[l].dst].push_back(l);
        std::deque<uint32_t> q{nic};
        dist[nic] = 0;
        while (!q.empty()) {
            uint32_t v = q.front();
            q.pop_front();
            for (uint32_t l : in[v]) {
                uint32_t u = m_x.links[l].src;
                if (dist[u] < 0 && is_switch(m_x.nodes[u].kind)) {
                    dist[u] = dist[v] + 1;
                    q.push_back(u);
                }
            }
        }
        it = m_dist.emplace(nic, std::move(dist)).first;
    }
    const std::vector<int>& dist = it->second;
    std::vector<std::vector<uint32_t>> next(m_x.nodes.size());
    for (uint32_t l = 0; l < m_x.links.size(); l++) {
        const Link& k = m_x.links[l];
        if (is_switch(m_x.nodes[k.src].kind) && dist[k.src] > 0 && dist[k.dst] == dist[k.src] - 1)
            next[k.src].push_back(m_out_if[l]);
    }
    for (uint32_t v = 0; v < next.size(); v++)
        if (!next[v].empty())
            routing_of(m_nodes.Get(v))->set_ecmp(addr, next[v], 0x5A17ULL * (v + 1));
}

void Fabric::set_route(uint32_t gid, const std::vector<uint32_t>& links)
{
    for (uint32_t l : links) {
        const Link& k = m_x.links[l];
        routing_of(m_nodes.Get(k.src))->set_route(receiver_address(gid), m_out_if[l]);
        routing_of(m_nodes.Get(k.dst))->set_route(sender_address(gid), m_out_if[k.reverse]);
    }
}

uint64_t Fabric::drops() const
{
    uint64_t n = 0;
    for (const auto& q : m_qdiscs)
        n += q->GetStats().nTotalDroppedPackets;
    return n;
}

uint64_t Fabric::marks() const
{
    uint64_t n = 0;
    for (const auto& q : m_qdiscs)
        n += q->GetStats().nTotalMarkedPackets;
    return n;
}

uint64_t Fabric::link_drops(uint32_t link) const
{
    return m_qdiscs[m_link_qdisc[link]]->GetStats().nTotalDroppedPackets;
}

uint64_t Fabric::link_marks(uint32_t link) const
{
    return m_qdiscs[m_link_qdisc[link]]->GetStats().nTotalMarkedPackets;
}

} // namespace ccsim_packet
