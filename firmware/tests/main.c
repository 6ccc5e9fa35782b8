/* Test runner: runs every suite, prints one line per failure and the final tally. */
#include <stdint.h>
#include <stdio.h>

#include "harness.h"

static uint64_t ws_mem[UX_WORDS(UX_WORKSPACE_BYTES(UX_MAX_ETA))];
ux_workspace ux_test_ws = {ws_mem, sizeof ws_mem};

static int passed, failed;
int ux_test_failed_now;
static const char *current;

void ux_test_fail(const char *file, int line, const char *what)
{
    ux_test_failed_now = 1;
    printf("FAIL %s (%s:%d): %s\n", current, file, line, what);
}

void ux_test_run(const char *name, ux_test_fn fn)
{
    current = name;
    ux_test_failed_now = 0;
    fn();
    if (ux_test_failed_now)
        ++failed;
    else
        ++passed;
}

int main(void)
{
    suite_ttr();
    suite_laws();
    suite_lift();
    suite_stats();
    suite_pdf();
    suite_bayes();
    suite_filter();
    suite_joint();
    suite_joint_filter();
    suite_uxm();
    printf("ctest: %d passed, %d failed\n", passed, failed);
    return failed == 0 && passed > 0 ? 0 : 1;
}
