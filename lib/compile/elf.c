/* elf.c -- see kb_elf.h. Every offset read from the file is bounds-checked: a submission's
 * object is untrusted input. */
#include "compile/kb_elf.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

static int in_bounds(size_t off, size_t len, size_t size) { return off <= size && len <= size - off; }

static int push(char ***v, size_t *n, const char *s)
{
    char **nv = realloc(*v, (*n + 1) * sizeof **v);
    if (!nv)
        return -1;
    *v = nv;
    nv[*n] = strdup(s);
    if (!nv[*n])
        return -1;
    (*n)++;
    return 0;
}

/* A NUL-terminated string at strtab + off, or NULL if it runs past the table. */
static const char *str_at(const char *strtab, size_t strsz, size_t off)
{
    if (off >= strsz)
        return NULL;
    if (!memchr(strtab + off, '\0', strsz - off))
        return NULL;
    return strtab + off;
}

int kb_elf_read(const char *path, kb_elf_syms *out, kb_err *err)
{
    memset(out, 0, sizeof *out);
    size_t size;
    char *buf = kb_read_file(path, &size, err);
    if (!buf)
        return -1;
    int rc = -1;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)buf;
    if (size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0) {
        kb_errf(err, KB_EXIT_FAIL, "%s: not an ELF file", path);
        goto done;
    }
    if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB) {
        kb_errf(err, KB_EXIT_FAIL, "%s: not a 64-bit little-endian ELF file", path);
        goto done;
    }
    if (eh->e_shentsize != sizeof(Elf64_Shdr) || !in_bounds(eh->e_shoff, (size_t)eh->e_shnum * sizeof(Elf64_Shdr), size)) {
        kb_errf(err, KB_EXIT_FAIL, "%s: corrupt section header table", path);
        goto done;
    }
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(buf + eh->e_shoff);
    for (size_t i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_DYNSYM && sh[i].sh_type != SHT_DYNAMIC)
            continue;
        if (sh[i].sh_link >= eh->e_shnum) {
            kb_errf(err, KB_EXIT_FAIL, "%s: corrupt section link", path);
            goto done;
        }
        const Elf64_Shdr *strs = &sh[sh[i].sh_link];
        if (!in_bounds(sh[i].sh_offset, sh[i].sh_size, size) || !in_bounds(strs->sh_offset, strs->sh_size, size)) {
            kb_errf(err, KB_EXIT_FAIL, "%s: corrupt section bounds", path);
            goto done;
        }
        const char *strtab = buf + strs->sh_offset;
        size_t strsz = strs->sh_size;
        if (sh[i].sh_type == SHT_DYNSYM) {
            size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
            const Elf64_Sym *sym = (const Elf64_Sym *)(buf + sh[i].sh_offset);
            for (size_t k = 1; k < n; k++) {
                const char *name = str_at(strtab, strsz, sym[k].st_name);
                if (!name || !name[0])
                    continue;
                int bind = ELF64_ST_BIND(sym[k].st_info), vis = ELF64_ST_VISIBILITY(sym[k].st_other);
                if (sym[k].st_shndx == SHN_UNDEF) {
                    if (push(&out->imports, &out->n_imports, name))
                        goto oom;
                } else if ((bind == STB_GLOBAL || bind == STB_WEAK) && (vis == STV_DEFAULT || vis == STV_PROTECTED)) {
                    /* protected symbols are exported too: dlsym finds them, they only cannot be
                     * interposed */
                    if (push(&out->exports, &out->n_exports, name))
                        goto oom;
                }
            }
        } else {
            size_t n = sh[i].sh_size / sizeof(Elf64_Dyn);
            const Elf64_Dyn *dyn = (const Elf64_Dyn *)(buf + sh[i].sh_offset);
            for (size_t k = 0; k < n && dyn[k].d_tag != DT_NULL; k++) {
                if (dyn[k].d_tag != DT_NEEDED)
                    continue;
                const char *name = str_at(strtab, strsz, dyn[k].d_un.d_val);
                if (name && push(&out->needed, &out->n_needed, name))
                    goto oom;
            }
        }
    }
    rc = 0;
    goto done;
oom:
    kb_errf(err, KB_EXIT_FAIL, "out of memory reading %s", path);
done:
    free(buf);
    if (rc)
        kb_elf_free(out);
    return rc;
}

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void kb_elf_free(kb_elf_syms *s)
{
    free_list(s->imports, s->n_imports);
    free_list(s->exports, s->n_exports);
    free_list(s->needed, s->n_needed);
    memset(s, 0, sizeof *s);
}
