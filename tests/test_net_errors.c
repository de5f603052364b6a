/* test_net_errors.c - "net" suite: bad inputs give CCS_ERROR_INVALID.
 * Not here: valid workloads (test_net.c, test_net_property.c).
 *
 * "net" suite: bad inputs give CCS_ERROR_INVALID with a clear message (a
 * table {name, input, expected code}, as json-glib's tests/invalid.c does).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/ccs.h"
#include "sim/net.h"
#include "test_net.h"
#include "test_util.h"

typedef enum { OP_LINK, OP_TRANSFER, OP_NET } err_op;

typedef struct err_case {
    const char *name;
    err_op op;
    /* OP_LINK */
    double cap_Bps, latency_s;
    /* OP_TRANSFER: links from {0, 1, 2 (removed), 7 (unknown)} */
    double size_bytes;
    size_t n_links;
    net_link_id link;
    uint32_t mult;
    int prio;
    double weight, startup_s, tag;
    /* OP_NET */
    int prio_levels;
    double rel_eps;
    /* expectation */
    int code;
    const char *message_part; /* must occur in the message */
} err_case;

/* GOOD_T is a valid transfer; a row overrides one field after it (C allows
 * a later designated initializer to override an earlier one). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
#define GOOD_T .size_bytes = 10, .n_links = 1, .link = 0, .mult = 1, .prio = 0, .weight = 1

static const err_case cases[] = {
    {"zero capacity", OP_LINK, .cap_Bps = 0, .code = CCS_ERROR_INVALID, .message_part = "capacity"},
    {"negative capacity", OP_LINK, .cap_Bps = -5, .code = CCS_ERROR_INVALID, .message_part = "-5"},
    {"NaN capacity", OP_LINK, .cap_Bps = NAN, .code = CCS_ERROR_INVALID, .message_part = "nan"},
    {"infinite capacity", OP_LINK, .cap_Bps = INFINITY, .code = CCS_ERROR_INVALID,
     .message_part = "capacity"},
    {"NaN latency", OP_LINK, .cap_Bps = 1, .latency_s = NAN, .code = CCS_ERROR_INVALID,
     .message_part = "latency"},
    {"negative latency", OP_LINK, .cap_Bps = 1, .latency_s = -1e-6, .code = CCS_ERROR_INVALID,
     .message_part = "latency"},
    {"no links", OP_TRANSFER, GOOD_T, .n_links = 0, .code = CCS_ERROR_INVALID,
     .message_part = "no links"},
    {"link out of range", OP_TRANSFER, GOOD_T, .link = 7, .code = CCS_ERROR_INVALID,
     .message_part = "link 7 does not exist"},
    {"removed link", OP_TRANSFER, GOOD_T, .link = 2, .code = CCS_ERROR_INVALID,
     .message_part = "removed"},
    {"zero bytes", OP_TRANSFER, GOOD_T, .size_bytes = 0, .code = CCS_ERROR_INVALID,
     .message_part = "size"},
    {"negative bytes", OP_TRANSFER, GOOD_T, .size_bytes = -1, .code = CCS_ERROR_INVALID,
     .message_part = "size"},
    {"NaN bytes", OP_TRANSFER, GOOD_T, .size_bytes = NAN, .code = CCS_ERROR_INVALID,
     .message_part = "size"},
    {"zero weight", OP_TRANSFER, GOOD_T, .weight = 0, .code = CCS_ERROR_INVALID,
     .message_part = "weight"},
    {"negative weight", OP_TRANSFER, GOOD_T, .weight = -2, .code = CCS_ERROR_INVALID,
     .message_part = "weight"},
    {"NaN weight", OP_TRANSFER, GOOD_T, .weight = NAN, .code = CCS_ERROR_INVALID,
     .message_part = "weight"},
    {"multiplicity 0", OP_TRANSFER, GOOD_T, .mult = 0, .code = CCS_ERROR_INVALID,
     .message_part = "multiplicity"},
    {"priority -1", OP_TRANSFER, GOOD_T, .prio = -1, .code = CCS_ERROR_INVALID,
     .message_part = "priority must be in 0..7"},
    {"priority K", OP_TRANSFER, GOOD_T, .prio = 8, .code = CCS_ERROR_INVALID,
     .message_part = "priority"},
    {"NaN startup", OP_TRANSFER, GOOD_T, .startup_s = NAN, .code = CCS_ERROR_INVALID,
     .message_part = "startup"},
    {"negative startup", OP_TRANSFER, GOOD_T, .startup_s = -1, .code = CCS_ERROR_INVALID,
     .message_part = "startup"},
    {"NaN tag", OP_TRANSFER, GOOD_T, .tag = NAN, .code = CCS_ERROR_INVALID,
     .message_part = "tag"},
    {"zero levels", OP_NET, .prio_levels = 0, .rel_eps = 1e-11, .code = CCS_ERROR_INVALID,
     .message_part = "prio_levels"},
    {"too many levels", OP_NET, .prio_levels = NET_MAX_PRIO_LEVELS + 1, .rel_eps = 1e-11,
     .code = CCS_ERROR_INVALID, .message_part = "prio_levels"},
    {"NaN tolerance", OP_NET, .prio_levels = 8, .rel_eps = NAN, .code = CCS_ERROR_INVALID,
     .message_part = "rel_eps"},
};
#pragma GCC diagnostic pop

static bool run_case(const err_case *c, net *n, evq *q)
{
    GError *err = NULL;
    bool ok = false;
    switch (c->op) {
    case OP_LINK:
        ok = net_link_add(n, c->cap_Bps, c->latency_s, NULL, &err);
        break;
    case OP_TRANSFER: {
        net_transfer_spec sp = {.size_bytes = c->size_bytes,
                                .links = &c->link,
                                .mult = &c->mult,
                                .n_links = c->n_links,
                                .prio = c->prio,
                                .weight = c->weight,
                                .startup_s = c->startup_s,
                                .tag = c->tag};
        ok = net_transfer_start(n, &sp, NULL, &err);
        break;
    }
    case OP_NET: {
        net_options o = {.prio_levels = c->prio_levels, .rel_eps = c->rel_eps};
        net *other = net_new(&o, q, &err);
        ok = other != NULL;
        net_free(other);
        break;
    }
    }
    bool good = !ok && err != NULL && g_error_matches(err, CCS_ERROR, c->code) &&
                strstr(err->message, c->message_part) != NULL;
    if (!good)
        fprintf(stderr, "error case \"%s\": %s (message: %s)\n", c->name,
                ok ? "succeeded" : "wrong error", err ? err->message : "-");
    g_clear_error(&err);
    return good;
}

/* Every row of the table fails with its code; the net stays usable (a good
 * transfer then starts).  Calls on stale ids fail too. */
void test_net_errors(void)
{
    g_autoptr(evq) q = evq_new();
    g_autoptr(net) n = net_new(NULL, q, NULL);
    GError *err = NULL;
    net_link_id l0, l1, l2;
    CU_ASSERT_TRUE(net_link_add(n, 10, 0, &l0, NULL));
    CU_ASSERT_TRUE(net_link_add(n, 10, 0, &l1, NULL));
    CU_ASSERT_TRUE(net_link_add(n, 10, 0, &l2, NULL));
    CU_ASSERT_TRUE(net_link_remove(n, l2, NULL));
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
        CU_ASSERT_TRUE(run_case(&cases[i], n, q));

    net_link_id l = l0;
    net_transfer_spec sp = {.size_bytes = 10, .links = &l, .n_links = 1, .weight = 1};
    net_transfer_id t;
    CU_ASSERT_TRUE(net_transfer_start(n, &sp, &t, &err));
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FALSE(net_transfer_set_priority(n, t, 8, &err));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    CU_ASSERT_FALSE(net_transfer_set_weight(n, t, 0, &err));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    evq_run_until(q, INFINITY); /* 10 bytes at 10 B/s: done at 1 */
    TEST_ASSERT_CLOSE(evq_now(q), 1.0, 1e-12);
    CU_ASSERT_FALSE(net_transfer_set_priority(n, t, 1, &err));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    CU_ASSERT_FALSE(net_transfer_set_weight(n, t, 2, &err));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    CU_ASSERT_FALSE(net_transfer_cancel(n, NET_TRANSFER_NONE, &err));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    net_link_stats st;
    CU_ASSERT_FALSE(net_link_stats_get(n, 99, &st, &err));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    CU_ASSERT_TRUE(isnan(net_path_latency_s(n, (net_link_id[]){0, 99}, 2)));
}
