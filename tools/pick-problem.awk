# pick-problem.awk -- resolves the PROBLEM knob against the problem ids (one per input line,
# levelN/NNN_name): "level1/019", "level1/19", "1/19", "level1/019_relu" or "019_relu" (any level)
# pick that problem; a comma-separated list picks several. Prints the ids picked, one per line.
BEGIN { n = split(want, w, ",") }
{
    id = $0; split(id, p, "/"); lvl = p[1]; sub(/^level/, "", lvl)
    num = p[2]; sub(/_.*/, "", num); name = p[2]; sub(/^[0-9]+_?/, "", name)
    for (i = 1; i <= n; i++) {
        q = w[i]; ql = ""
        if (q ~ /\//) { ql = q; sub(/\/.*/, "", ql); sub(/^level/, "", ql); sub(/^[^\/]*\//, "", q) }
        qn = q; sub(/_.*/, "", qn); qname = q; sub(/^[0-9]+_?/, "", qname)
        if (ql != "" && ql + 0 != lvl + 0) continue
        if (qn !~ /^[0-9]+$/ || qn + 0 != num + 0) continue
        if (qname != "" && qname != name) continue
        print id
        break
    }
}
