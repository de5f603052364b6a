/* test_net.h - cases of the "net" suite that live in their own files.
 * Not here: the cases in test_net.c.
 */
#ifndef CCSIM_TESTS_TEST_NET_H
#define CCSIM_TESTS_TEST_NET_H

/* test_net_property.c: random workloads against the reference solver. */
void test_net_property_vs_reference(void);

/* test_net_maxmin.c: SimGrid maxmin_bench's systems (maxmin_gen.h). */
void test_net_maxmin_shapes(void);
/* test_net_maxmin.c: the fill stops once every transfer is frozen. */
void test_net_fill_stop(void);

/* test_net_slots.c: a freed slot's link block serves its next transfers. */
void test_net_slot_reuse(void);

/* test_net_errors.c: the table of bad inputs. */
void test_net_errors(void);

#endif /* CCSIM_TESTS_TEST_NET_H */
