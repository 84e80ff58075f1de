# check-layout.awk -- the Makefile's parse-time check of submissions/ (nothing a user put there is
# ever silently ignored). Input: `find submissions -mindepth 1 -printf '%y %p\n'` (type, path). Prints
# "path (why)" for every entry the pipeline would not read, separated by "; "; nothing when the
# tree is good. The layout:
#   submissions/<model>/                        <model>: letters, digits, . _ -; not baseline, tables,
#                                               tables-*, report-inputs or report-inputs-* (the artifact
#                                               tree's own: lib/core/kb_schema.h)
#   submissions/<model>/{README.md,manifest.csv,extraction.csv (make extract),mutants.csv (make mutants)}
#   submissions/<model>/levelN/                 N = 1, 2, 3
#   submissions/<model>/levelN/NNN_name/        a problem's directory (names are checked by Make)
#   submissions/<model>/levelN/NNN_name/sK.cu | sK.py | README.md | manifest.csv
function bad(why) { printf "%s (%s); ", $0, why }
BEGIN { FS = "/" }
{
    type = substr($0, 1, 1)
    $0 = substr($0, 3)
    if ($0 ~ /[[:space:]]/) { bad("a name with white space: rename it"); next }
    if ($1 != "submissions") next
    if (NF == 2) {
        if (type != "d") {
            if ($2 != "README.md") bad("not a model directory: samples go in submissions/<model>/levelN/NNN_name/sK.cu or sK.py")
        } else if ($2 !~ /^[A-Za-z0-9._-]+$/) bad("a model name may hold letters, digits, '.', '_', '-'")
        else if ($2 == "baseline" || $2 ~ /^(tables|report-inputs)(-|$)/)
            bad("a name the artifact tree keeps for itself (artifacts/<protocol>/baseline/, tables/, tables-<scope>/, report-inputs/): rename the model")
        else model[$2] = 1
        next
    }
    if (NF == 3) {
        if ($3 ~ /^level[1-3]$/ && type == "d") { has_level[$2] = 1; next }
        if (($3 == "README.md" || $3 == "manifest.csv" || $3 == "extraction.csv" || $3 == "mutants.csv") && type != "d") next
        if (tolower($3) ~ /^level[0-9]+$/) bad("levels are level1, level2, level3, in lower case")
        else bad("not a level directory: samples go in submissions/<model>/levelN/NNN_name/sK.cu or sK.py")
        next
    }
    if ($3 !~ /^level[1-3]$/) next      # reported above
    if (NF == 4) {
        if ($4 ~ /^[0-9][0-9][0-9]_[A-Za-z0-9_]+$/ && type == "d") next
        bad("not a problem directory: samples go in submissions/<model>/" $3 "/NNN_name/sK.cu or sK.py (NNN_name as in problems/" $3 "/)")
        next
    }
    if (NF == 5) {
        if (type != "d" && ($5 ~ /^s[0-9]+\.(cu|py)$/ || $5 == "README.md" || $5 == "manifest.csv")) next
        if (tolower($5) ~ /^s[0-9]+\.(cu|py)$/) bad("a sample is sK.cu or sK.py (lower-case extension)")
        else bad("not a sample: a sample is sK.cu or sK.py, directly in the problem's directory")
        next
    }
    if (NF == 6) bad("too deep: a sample is submissions/<model>/" $3 "/" $4 "/sK.cu or sK.py")
    # deeper: its parent was already reported
}
END {
    for (m in model)
        if (!has_level[m])
            printf "submissions/%s (a model with no level1/, level2/ or level3/ directory: nothing in it would run); ", m
}
