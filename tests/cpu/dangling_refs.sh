#!/usr/bin/env bash
# tests/cpu/dangling_refs.sh -- every file a tracked file cites exists in the repository. No build,
# no GPU, about a second.
#
# Scanned: every tracked text file (git grep -I leaves binaries out), except data, archives and
# captured output: HDF5, tarballs and compressed files, images, CSV/TSV tables, logs, and the
# committed runs' artifact trees, logs and the tables made from them (results/*/artifacts/,
# results/*/logs/, results/*/tables/, results/*/plots/: they name paths of the machine that made them).
# A reference: a word of path characters with a slash in it that ends in an extension (a dot, a
# letter, then letters or digits), as `docs/protocols.md`, `lib/core/stats.c` or `../lib/core/stats.c`;
# also a bare root-level document name in capitals (`REPRODUCE.md`; not the generic
# `README.md` of layout descriptions), which must be at the root or beside the citing file.
# A reference is found when it names a tracked file or directory relative to the repository root,
# to the citing file's directory or one above it, to include/, lib/ or gpu/ (a header name such as
# `kb/ref.h` or `core/kb_util.h`: the -I paths every C file is compiled with), or to submissions/ (a cell written
# `model/levelN/NNN_name/sK.cu`, as the tables and logs name it); a leading ../ is also tried from
# the root with the ../ dropped (scripts cd into a subdirectory first).
#
# Not files of the repository, by rule (the allow-list):
#   1. a word with a shell, Make or printf metacharacter ($ % * ? { } < > @ ~): a variable, a
#      pattern, a placeholder or a system header (`$(BUILD)/...`, `$T/x.h5`, `<model>/...`,
#      `%s/...`, `<cub/...>`);
#   2. an absolute path (/usr/..., /tmp/..., /dev/..., /proc/...): a system path; a URL ends up
#      here too, its "scheme:" stopping the word before "//host/...";
#   3. a word without a directory once a leading ./ or ../ is dropped (`../h.h`);
#   4. the docs' placeholders: a directory levelN, NNN_name or in capitals (DIR/, OUT/), or a file
#      sK.*, NNN_name.* (`problems/levelN/NNN_name.py`, `DIR/kernel.py`);
#   5. a path git ignores (.gitignore): what the build and the pipeline make (build/...,
#      artifacts/..., plots/paper/..., submissions/mutants/..., *.so);
#   6. submissions/<model>/... of a model that is not tracked: a tree made at run time;
#   7. a first directory that is another project's source tree, PyTorch's: torch/, ATen/, aten/,
#      c10/ (`torch/utils/cpp_extension.py`, `aten/src/ATen/...`);
#   8. a first directory `tables/` or `out/`: a stage's output named relative to its output
#      directory (artifacts/<protocol>/tables/, a stage's --out);
#   9. in a test (tests/...), a first directory that is not one of the repository's top-level
#      directories: a file the test makes in its own scratch directory (`r/s0.txt`, `alpha/...`);
#  10. a path at a commit, `<commit>:path` (what `git show <commit>:path` prints): a file the
#      history keeps, cited as such.
# Run from anywhere; prints each missing reference as file:line: path, then PASS or FAIL.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb-dangling.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

git ls-files > "$tmp/tracked"
# what is not scanned (data, archives, captured output)
skip=(':(exclude)*.h5' ':(exclude)*.tgz' ':(exclude)*.txz' ':(exclude)*.tar' ':(exclude)*.tar.*'
      ':(exclude)*.gz' ':(exclude)*.xz' ':(exclude)*.bz2' ':(exclude)*.zip'
      ':(exclude)*.png' ':(exclude)*.svg' ':(exclude)*.pdf' ':(exclude)*.csv' ':(exclude)*.tsv'
      ':(exclude)*.log' ':(exclude,glob)results/*/artifacts/**' ':(exclude,glob)results/*/logs/**'
      ':(exclude,glob)results/*/tables/**' ':(exclude,glob)results/*/plots/**')
# the words, file:line:word, one per line: paths, then bare document names (the character before
# the name dropped)
word='([0-9a-f]{7,40}:)?[A-Za-z0-9_.$%*?{}<>@~+-]*/[A-Za-z0-9_./$%*?{}<>@~+-]*\.[A-Za-z][A-Za-z0-9]*'
git grep -I -n -o -E "$word" -- . "${skip[@]}" > "$tmp/words" || [ $? = 1 ]
git grep -I -n -o -E '(^|[^A-Za-z0-9_./:-])[A-Z][A-Z0-9_-]*\.md\b' -- . "${skip[@]}" |
    sed -E 's/^([^:]*:[0-9]+:)[^A-Z]/\1/' >> "$tmp/words" || [ $? = 1 ]

# the references not found among the tracked files (rules 1-4, 7-9 applied):
# file:line: word <TAB> the word from the root <TAB> the word from the citing file's directory
awk -v out="$tmp/unfound" '
function norm(p,    n, i, k, c, s, r) {   # a/./b/../c -> a/c; "" if it leaves the repository
    n = split(p, c, "/"); k = 0
    for (i = 1; i <= n; i++) {
        if (c[i] == "" || c[i] == ".") continue
        if (c[i] == "..") { if (k == 0) return ""; k--; continue }
        s[++k] = c[i]
    }
    r = ""
    for (i = 1; i <= k; i++) r = r (i > 1 ? "/" : "") s[i]
    return r
}
function have(p) { return p != "" && (p in files || p in dirs) }
FNR == NR {
    files[$0] = 1
    n = split($0, c, "/"); d = ""
    for (i = 1; i < n; i++) { d = d (i > 1 ? "/" : "") c[i]; dirs[d] = 1; if (i == 1) top[d] = 1 }
    next
}
{
    # file:line:word (no tracked name holds a colon)
    f = $0; sub(/:.*/, "", f); rest = substr($0, length(f) + 2)
    ln = rest; sub(/:.*/, "", ln); w = substr(rest, length(ln) + 2)
    if (w ~ /^[A-Z][A-Z0-9_-]*\.md$/) {                                # a bare document name
        fd = f; if (fd ~ /\//) sub(/\/[^\/]*$/, "", fd); else fd = ""
        if (w == "README.md" || have(w) || have(fd "/" w)) next
        print f ":" ln ": " w "\t" w "\t" > out
        next
    }
    if (w ~ /^[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]*:/) next   # rule 10
    if (w ~ /[$%*?{}<>@~]/) next                                        # rule 1
    if (w ~ /^\//) next                                                 # rule 2
    t = w; up = 0
    while (t ~ /^\.\//) t = substr(t, 3)
    while (t ~ /^\.\.\//) { t = substr(t, 4); up = 1 }
    if (t !~ /\//) next                                                 # rule 3
    n = split(t, c, "/"); ph = 0
    for (i = 1; i < n; i++) if (c[i] ~ /^(levelN|NNN.*|[A-Z][A-Z0-9_]*|\.\.\.)$/) ph = 1
    stem = c[n]; sub(/\..*/, "", stem)
    if (ph || stem ~ /^(sK|NNN.*|levelN)$/) next                        # rule 4
    if (c[1] ~ /^(torch|ATen|aten|c10)$/) next                          # rule 7
    if (c[1] ~ /^(tables|out)$/) next                                   # rule 8
    if (f ~ /^tests\// && !(c[1] in top)) next                          # rule 9
    if (have(t) || have("include/" t) || have("lib/" t) || have("gpu/" t) || have("submissions/" t)) next
    fd = f; rel = ""
    while (fd ~ /\//) {                                                 # the citing dir, then up
        sub(/\/[^\/]*$/, "", fd)
        p = norm(fd "/" w)
        if (have(p)) next
        if (rel == "") rel = p
    }
    print f ":" ln ": " w "\t" t "\t" rel > out
}' "$tmp/tracked" "$tmp/words"

: > "$tmp/missing"
if [ -s "$tmp/unfound" ]; then
    # rule 5: what git ignores is generated (one git call for all)
    cut -f2,3 "$tmp/unfound" | tr '\t' '\n' | grep -v '^$' | sort -u |
        git check-ignore --no-index --stdin > "$tmp/ignored" || [ $? = 1 ]
    awk -F '\t' -v tracked="$tmp/tracked" -v ignored="$tmp/ignored" '
    FILENAME == tracked { if ($0 ~ /^submissions\/[^\/]+\//) { split($0, c, "/"); models[c[2]] = 1 }; next }
    FILENAME == ignored { ign[$0] = 1; next }
    {
        if ($2 in ign || ($3 != "" && $3 in ign)) next                              # rule 5
        if ($2 ~ /^submissions\/[^\/]+\//) { split($2, c, "/"); if (!(c[2] in models)) next }   # rule 6
        print $1
    }' "$tmp/tracked" "$tmp/ignored" "$tmp/unfound" | sort -t: -k1,1 -k2,2n > "$tmp/missing"
fi
n=$(wc -l < "$tmp/missing")
cat "$tmp/missing"
if [ "$n" = 0 ]; then
    echo "PASS: every path a tracked file cites exists ($(wc -l < "$tmp/words") path-like words scanned)"
    exit 0
fi
echo "FAIL: $n references to paths that are not in the repository (file:line: path)"
exit 1
