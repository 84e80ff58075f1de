/*
 * kb-h5get -- print one attribute of an artifact, or a dataset's values, for scripts.
 *   kb-h5get FILE OBJECT ATTRIBUTE      e.g. kb-h5get sanity-check.h5 / outcome
 *   kb-h5get FILE --dataset PATH        one value per line
 * Exit 0 and the value on stdout; 1 with a message if the file, object or attribute is missing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kb_util.h"

#include "core/kb_h5.h"

int main(int argc, char **argv)
{
    if (kb_version_arg(argc, argv, "kb-h5get"))
        return 0;
    if (argc < 2 || !strcmp(argv[1], "--help")) {
        printf("kb-h5get FILE OBJECT ATTRIBUTE | kb-h5get FILE --dataset PATH\n"
               "Prints an attribute (string or number) or a dataset of an artifact.\n"
               "Exit codes: 0 printed; 1 the file, object or attribute is missing or unreadable; 2 bad command line.\n");
        return argc < 2 ? 2 : 0;
    }
    if (argc != 4) {
        fprintf(stderr, "usage: kb-h5get FILE OBJECT ATTRIBUTE | FILE --dataset PATH\n");
        return 2;
    }
    kb_err err = {0};
    kb_h5r *r = kb_h5r_open(argv[1], &err);
    if (!r) {
        fprintf(stderr, "kb-h5get: %s\n", err.msg);
        return 1;
    }
    int rc = 0;
    if (!strcmp(argv[2], "--dataset")) {
        double *v;
        size_t n;
        char **sv;
        if (kb_h5r_f64(r, argv[3], &v, &n, &err) == 0) {
            for (size_t i = 0; i < n; i++)
                printf("%.17g\n", v[i]);
            free(v);
        } else if (kb_h5r_strv(r, argv[3], &sv, &n, &err) == 0) {
            for (size_t i = 0; i < n; i++)
                printf("%s\n", sv[i]);
            kb_h5r_free_strv(sv, n);
        } else {
            fprintf(stderr, "kb-h5get: %s\n", err.msg);
            rc = 1;
        }
    } else {
        char buf[8192];
        double d;
        if (kb_h5r_attr_str(r, argv[2], argv[3], buf, sizeof buf, NULL) == 0)
            printf("%s\n", buf);
        else if (kb_h5r_attr_f64(r, argv[2], argv[3], &d, &err) == 0)
            printf("%.17g\n", d);
        else {
            fprintf(stderr, "kb-h5get: %s\n", err.msg);
            rc = 1;
        }
    }
    kb_h5r_close(r);
    return rc;
}
