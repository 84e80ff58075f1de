/*
 * kb_elf.h -- the dynamic symbols of a shared object (ELF64, little-endian), read directly from
 * the file: what it imports (undefined symbols), what it exports (defined global or weak symbols
 * of default or protected visibility) and which libraries it needs (DT_NEEDED). No external
 * tool needed.
 */
#ifndef KB_ELF_H
#define KB_ELF_H

#include <stddef.h>

#include "core/kb_util.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kb_elf_syms {
    char **imports;
    size_t n_imports;
    char **exports;
    size_t n_exports;
    char **needed;
    size_t n_needed;
} kb_elf_syms;

int kb_elf_read(const char *path, kb_elf_syms *out, kb_err *err);
void kb_elf_free(kb_elf_syms *s);

#ifdef __cplusplus
}
#endif

#endif /* KB_ELF_H */
