/* test_limits.h - what the limits suite's files share: the case that
 * feeds every limit's ends through a reader (test_limits_probes.c).
 */
#ifndef CCSIM_TESTS_TEST_LIMITS_H
#define CCSIM_TESTS_TEST_LIMITS_H

/* For every row of the limits table (base/limits.h): a value below its
 * range, its ends and a value above, each through a reader of an input
 * the row covers; the ends pass (where cheap), the others are refused, the
 * one above with the row's own range in the message. */
void test_limits_probes(void);

#endif /* CCSIM_TESTS_TEST_LIMITS_H */
