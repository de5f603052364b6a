/* test_net_slots.c - "net" suite: a transfer slot's link block is kept when
 * the slot is freed and serves its next transfers, grown when one names more
 * links (sim/net.c, net_transfer_start).  Not here: the rates of other
 * shapes (test_net.c).
 */
#include "sim/net.h"
#include "test_net.h"
#include "test_util.h"

/* Links L0..L69: L0 .. L68 at 100 B/s, L69 at 10 B/s; all latencies 0.
 * a: 100 B on {L0}: alone at 100 B/s, done at t = 1; its slot is free.
 * b (started from then on, the slot a left): on all 70 links with L0
 *   listed twice (m = 2 there): bounds 100 / 2 = 50 on L0, 100 on L1..L68,
 *   10 on L69: b = 10 B/s.  Its block must hold 70 links: it grows.
 * c beside b, on {L69}: L69 is shared, 10 / 2 = 5 each; L0 is still b's
 *   alone (2 x 5 = 10 < 100).  Cancel c: b is 10 again.
 * Cancel b; d (in the freed slot, 3 links in a block of 70, the bits of
 *   b's 70 links cleared) on {L0, L0, L0}: m = 3, d = 100 / 3 B/s; and e on
 *   {L1}: 100 B/s, L1's load is e's alone: b's links were taken off. */
void test_net_slot_reuse(void)
{
    g_autoptr(evq) q = evq_new();
    net_options o = net_options_default();
    o.prio_levels = 1;
    g_autoptr(net) n = net_new(&o, q, NULL);
    net_link_id ls[71];
    for (int i = 0; i < 70; i++)
        CU_ASSERT_TRUE_FATAL(net_link_add(n, i == 69 ? 10 : 100, 0, &ls[i], NULL));
    net_transfer_spec sp = {.size_bytes = 100, .links = ls, .n_links = 1, .weight = 1};
    net_transfer_id a, b, c, d, e;
    CU_ASSERT_TRUE_FATAL(net_transfer_start(n, &sp, &a, NULL));
    evq_run_until(q, 2);
    CU_ASSERT_FALSE(net_transfer_is_active(n, a)); /* done at 1 */
    ls[70] = ls[0];
    sp.size_bytes = 1e30;
    sp.n_links = 71;
    CU_ASSERT_TRUE_FATAL(net_transfer_start(n, &sp, &b, NULL));
    net_flush(n);
    CU_ASSERT_DOUBLE_EQUAL(net_transfer_rate_Bps(n, b), 10, 1e-12);
    sp.links = &ls[69];
    sp.n_links = 1;
    CU_ASSERT_TRUE_FATAL(net_transfer_start(n, &sp, &c, NULL));
    net_flush(n);
    CU_ASSERT_DOUBLE_EQUAL(net_transfer_rate_Bps(n, b), 5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(net_transfer_rate_Bps(n, c), 5, 1e-12);
    net_link_stats st;
    CU_ASSERT_TRUE(net_link_stats_get(n, ls[0], &st, NULL));
    CU_ASSERT_DOUBLE_EQUAL(st.load_Bps, 10, 1e-12);
    CU_ASSERT_TRUE(net_transfer_cancel(n, c, NULL));
    net_flush(n);
    CU_ASSERT_DOUBLE_EQUAL(net_transfer_rate_Bps(n, b), 10, 1e-12);
    CU_ASSERT_TRUE(net_transfer_cancel(n, b, NULL));
    const net_link_id l000[] = {ls[0], ls[0], ls[0]};
    sp.links = l000;
    sp.n_links = 3;
    CU_ASSERT_TRUE_FATAL(net_transfer_start(n, &sp, &d, NULL));
    sp.links = &ls[1];
    sp.n_links = 1;
    CU_ASSERT_TRUE_FATAL(net_transfer_start(n, &sp, &e, NULL));
    net_flush(n);
    CU_ASSERT_DOUBLE_EQUAL(net_transfer_rate_Bps(n, d), 100.0 / 3, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(net_transfer_rate_Bps(n, e), 100, 1e-12);
    CU_ASSERT_TRUE(net_link_stats_get(n, ls[1], &st, NULL));
    CU_ASSERT_DOUBLE_EQUAL(st.load_Bps, 100, 1e-12);
    CU_ASSERT_TRUE(net_link_stats_get(n, ls[0], &st, NULL));
    CU_ASSERT_DOUBLE_EQUAL(st.load_Bps, 100, 1e-12);
    CU_ASSERT_TRUE(net_link_stats_get(n, ls[69], &st, NULL));
    CU_ASSERT_DOUBLE_EQUAL(st.load_Bps, 0, 1e-12);
}
