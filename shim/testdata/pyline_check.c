/* Checks pyline.c against CPython: reads one code object per line,
 * "FIRSTLINENO NUNITS HEXTABLE LINE0 LINE1 ..." (the line of every code
 * unit as the interpreter's co_lines() gives it, -1 for none), and prints
 * every unit mpidbg_py_line names differently. python_test.go writes the
 * input with python3.11. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../pyline.h"

int main(void)
{
    static char buf[1 << 20];
    int bad = 0, codes = 0;
    while (fgets(buf, sizeof buf, stdin)) {
        char *save = NULL, *tok = strtok_r(buf, " \n", &save);
        if (!tok)
            continue;
        int first = atoi(tok);
        unsigned n = (unsigned)atoi(strtok_r(NULL, " \n", &save));
        char *hex = strtok_r(NULL, " \n", &save);
        size_t len = strcmp(hex, "-") == 0 ? 0 : strlen(hex) / 2;
        uint8_t *t = malloc(len + 1);
        for (size_t i = 0; i < len; i++)
            sscanf(hex + 2 * i, "%2hhx", &t[i]);
        for (unsigned u = 0; u < n; u++) {
            int want = atoi(strtok_r(NULL, " \n", &save));
            int got = mpidbg_py_line(t, len, first, u);
            if (got != want) {
                printf("code %d unit %u: line %d, python says %d\n", codes, u, got, want);
                bad++;
            }
            if (want > 0 && !mpidbg_py_has_line(t, len, first, want)) {
                printf("code %d: has no line %d\n", codes, want);
                bad++;
            }
        }
        if (mpidbg_py_line(t, len, first, n + 100) != -1) {
            printf("code %d: a line past the end\n", codes);
            bad++;
        }
        free(t);
        codes++;
    }
    printf("%d code objects\n", codes);
    return bad != 0;
}
