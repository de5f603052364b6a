/* test_json.c - suite "json": the strict JSON reader and the key check
 * (base/json.h).  Not here: each reader's own keys (their suites).
 */
#include "base/json.h"

#include <string.h>

#include "base/ccs.h"
#include "test_util.h"

/* Accepted: one value with whitespace around it; a backslash escaped
 * before "u0000" is text, not a NUL; keys may repeat in different objects
 * and arrays may repeat values. */
static void test_json_accepts(void)
{
    static const char *const good[] = {
        "{}",
        " \n\t{\"a\": 1}\r\n ",
        "[1, 1, \"x\", \"x\"]",
        "{\"a\": {\"k\": 1}, \"b\": {\"k\": 1}}",
        "{\"path\": \"C:\\\\u0000\"}",
        "{\"ok\": \"caf\\u00e9\"}",
        "1e308",
        "{\"a1\":1,\"a2\":2,\"a3\":3,\"a4\":4,\"a5\":5,\"a6\":6,\"a7\":7,\"a8\":8,\"a9\":9,\"b\":0}",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(good); i++) {
        GError *e = NULL;
        cJSON *v = ccs_json_parse(good[i], strlen(good[i]), "f.json", &e);
        if (!v)
            fprintf(stderr, "\ncase %zu refused: %s\n", i, e ? e->message : "?");
        CU_ASSERT_PTR_NOT_NULL(v);
        TEST_ASSERT_NO_ERROR(e);
        cJSON_Delete(v);
    }
}

/* Refused, each with the file, the place and what is wrong:
 *  - trailing data: a second document after the first;
 *  - a duplicate key, at the top, nested, and past 8 members (the hashed path);
 *  - NUL characters: escaped in a string, in a key, raw in a string;
 *  - a number past a double;
 *  - an empty file and bad syntax. */
static void test_json_refuses(void)
{
    static const struct {
        const char *text;
        size_t len; /* 0: strlen */
        int code;
        const char *message;
    } cases[] = {
        {"{\"a\": 1} {\"x\": 1}", 0, CCS_ERROR_PARSE,
         "f.json:1: data after the JSON value (one value per file) near \"{\"x\": 1}\""},
        {"{\"a\": 1}\n\n x", 0, CCS_ERROR_PARSE,
         "f.json:3: data after the JSON value (one value per file) near \"x\""},
        {"{\"sim\": {}, \"sim\": {\"seed\": 2}}", 0, CCS_ERROR_INVALID,
         "f.json: key \"sim\" appears twice"},
        {"{\"trace\": {\"jobs\": [{\"id\": \"a\", \"gpus\": 1, \"gpus\": 2}]}}", 0,
         CCS_ERROR_INVALID, "f.json: trace.jobs[0]: key \"gpus\" appears twice"},
        {"{\"a1\":1,\"a2\":2,\"a3\":3,\"a4\":4,\"a5\":5,\"a6\":6,\"a7\":7,\"a8\":8,\"a9\":9,"
         "\"a3\":0}",
         0, CCS_ERROR_INVALID, "f.json: key \"a3\" appears twice"},
        {"{\"a\": \"x\\u0000y\"}", 0, CCS_ERROR_PARSE,
         "f.json:1: a NUL character (byte 9) in a JSON string: not allowed"},
        {"{\"--out\\u0000x\": [1]}", 0, CCS_ERROR_PARSE,
         "f.json:1: a NUL character (byte 8) in a JSON string: not allowed"},
        {"{\n\"a\": \"x\0y\"}", 12, CCS_ERROR_PARSE,
         "f.json:2: a NUL character (byte 10) in a JSON string: not allowed"},
        {"{\"big\": [1e999]}", 0, CCS_ERROR_INVALID,
         "f.json: big[0]: a number too large for a double"},
        {"", 0, CCS_ERROR_PARSE, "f.json:1: not valid JSON near \"\""},
        {"{\"a\":\n 1,,}", 0, CCS_ERROR_PARSE, "f.json:2: not valid JSON near \"}\""},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        size_t len = cases[i].len ? cases[i].len : strlen(cases[i].text);
        GError *e = NULL;
        cJSON *v = ccs_json_parse(cases[i].text, len, "f.json", &e);
        CU_ASSERT_PTR_NULL(v);
        cJSON_Delete(v);
        CU_ASSERT_PTR_NOT_NULL_FATAL(e);
        if (strcmp(e->message, cases[i].message) != 0)
            fprintf(stderr, "\ncase %zu: got '%s'\n", i, e->message);
        CU_ASSERT_STRING_EQUAL(e->message, cases[i].message);
        TEST_ASSERT_ERROR(e, cases[i].code);
    }
}

/* Declared keys pass; the first undeclared one is named with the list;
 * a non-object is refused (the document itself: a parse error). */
static void test_json_keys(void)
{
    static const char *const keys[] = {"seed", "days", "scale", NULL};
    g_autoptr(cJSON) ok = cJSON_Parse("{\"seed\": 1, \"days\": 2}");
    g_autoptr(cJSON) bad = cJSON_Parse("{\"seed\": 1, \"dayz\": 2}");
    g_autoptr(cJSON) arr = cJSON_Parse("[1]");
    GError *e = NULL;
    CU_ASSERT_TRUE(ccs_json_check_keys(ok, keys, "s.json", "trace.synthetic", &e));
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_FALSE(ccs_json_check_keys(bad, keys, "s.json", "trace.synthetic", &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_STRING_EQUAL(e->message, "s.json: trace.synthetic.dayz: unknown key (expected "
                                       "seed, days or scale)");
    TEST_ASSERT_ERROR(e, CCS_ERROR_INVALID);
    CU_ASSERT_FALSE(ccs_json_check_keys(bad, keys, NULL, "hosts[0]", &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_STRING_EQUAL(e->message,
                           "hosts[0].dayz: unknown key (expected seed, days or scale)");
    TEST_ASSERT_ERROR(e, CCS_ERROR_INVALID);
    CU_ASSERT_FALSE(ccs_json_check_keys(arr, keys, "s.json", "trace.synthetic", &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_STRING_EQUAL(e->message, "s.json: trace.synthetic: expected an object, got an array");
    TEST_ASSERT_ERROR(e, CCS_ERROR_INVALID);
    CU_ASSERT_FALSE(ccs_json_check_keys(arr, keys, "s.json", NULL, &e));
    TEST_ASSERT_ERROR(e, CCS_ERROR_PARSE);
}

/* A number read through a limit: absent keeps the default, a string is
 * refused by type, out of range by the limit's own message. */
static void test_json_number(void)
{
    g_autoptr(cJSON) o = cJSON_Parse("{\"days\": 400, \"scale\": \"x\", \"ok\": 2}");
    double v = 7;
    GError *e = NULL;
    CU_ASSERT_TRUE(ccs_json_number(o, "none", CCS_LIMIT_GEN_DAYS, "s.json", "syn", &v, &e));
    CU_ASSERT_EQUAL(v, 7);
    CU_ASSERT_TRUE(ccs_json_number(o, "ok", CCS_LIMIT_GEN_DAYS, "s.json", "syn", &v, &e));
    CU_ASSERT_EQUAL(v, 2);
    CU_ASSERT_FALSE(ccs_json_number(o, "scale", CCS_LIMIT_GEN_SCALE, "s.json", "syn", &v, &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_STRING_EQUAL(e->message, "s.json: syn.scale: expected a number, got a string");
    TEST_ASSERT_ERROR(e, CCS_ERROR_INVALID);
    CU_ASSERT_FALSE(ccs_json_number(o, "days", CCS_LIMIT_GEN_DAYS, "s.json", "syn", &v, &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_TRUE(g_str_has_prefix(e->message, "s.json: syn.days: 400 is outside (0, 366]"));
    TEST_ASSERT_ERROR(e, CCS_ERROR_INVALID);
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"accepts", test_json_accepts},
        {"refuses", test_json_refuses},
        {"keys", test_json_keys},
        {"number", test_json_number},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("json", cases);
}
