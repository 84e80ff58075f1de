# speedup_conditions.gp -- Correct Speedup per model and level under the paper's four conditions
# (FP32 or TF32 baseline x standard or verified check), as grouped bars on a log axis.
#   gnuplot -e "dir='plots/paper'" plots/speedup_conditions.gp     (make all / make report run it)
# Reads $dir/speedup_conditions.dat (written by kb-aggregate); writes $dir/speedup_conditions.png
# and .svg. With no data yet it draws a placeholder saying so, and never fails.
if (!exists("dir")) dir = "plots/paper"
name = "speedup_conditions"
f = dir."/".name.".dat"
meta(key) = system(sprintf("awk '/^#%s:/ {print $2; exit}' '%s' 2>/dev/null", key, f))
s = meta("points"); points = (s eq "") ? 0 : int(s + 0)
s = meta("rows"); rows = (s eq "") ? 0 : int(s + 0)
proto = meta("protocol")
if (meta("baseline") eq "torch") { proto = proto . ", PyTorch eager baseline" }
# NaN (no speedup) stays a NaN value, not a missing field: the labels need to see it

# the y range fits the bars (computed once, before the terminals)
if (points > 0) {
    A_min = A_max = B_min = B_max = C_min = C_max = D_min = D_max = 0   # a column with no value
    stats f using (log10(column(2))) nooutput name "A"
    stats f using (log10(column(3))) nooutput name "B"
    stats f using (log10(column(4))) nooutput name "C"
    stats f using (log10(column(5))) nooutput name "D"
    lmin(a, b) = a < b ? a : b
    lmax(a, b) = a > b ? a : b
    ylo = lmin(lmin(lmin(A_min, B_min), lmin(C_min, D_min)), 0)
    yhi = lmax(lmax(lmax(A_max, B_max), lmax(C_max, D_max)), 0)
    ybot = 10**(ylo - 0.2)
}

do for [ext in "png svg"] {
    if (ext eq "png") {
        set terminal pngcairo size 1400,750 noenhanced font "sans,12"
    } else {
        set terminal svg size 1400,750 dynamic noenhanced font "sans,12" background "white"
    }
    set output dir."/".name.".".ext
    if (points == 0) {
        unset border; unset tics; unset key
        set xrange [0:1]; set yrange [0:1]
        set title "Correct Speedup under the four conditions"
        set label 1 "no data yet: run 'make all' (GPU) or 'make report' once artifacts exist" at graph 0.5, 0.5 center
        plot 2 notitle
        unset label 1
    } else {
        set title sprintf("Correct Speedup under the four conditions (protocol %s): geometric mean over correctly solved problems", proto)
        set ylabel "speedup over PyTorch eager (x, log scale)"
        set xlabel "model and level"
        set logscale y
        set grid ytics
        set style data histograms
        set style histogram clustered gap 1
        set style fill solid 0.85 border -1
        set boxwidth 0.9
        set xtics rotate by 30 right nomirror
        set xrange [-0.6:rows - 0.4]
        set bmargin 9
        set key outside right top box opaque
        set yrange [10**(ylo - 0.25):10**(yhi + 0.25)]
        # each bar is labelled with its n (problems in the geometric
        # mean), a missing bar (no correctly solved problem with a speedup) with "none"
        set label 10 "n on a bar: problems in its geometric mean; none: no correctly solved problem with a speedup" \
            at screen 0.01, screen 0.02 left font ",10"
        plot for [i=2:5] f using i:xtic(1) title columnheader(i), \
             1 with lines dashtype 2 linecolor rgb "black" title "1x (parity with PyTorch)", \
             for [j=0:3] f every ::1 using ($0 + (j - 1.5) / 5.0):(column(j + 2) * 1.12): \
                 (strcol(j + 2) eq "NaN" ? "" : sprintf("%d", column(j + 6))) with labels font ",8" notitle, \
             for [j=0:3] f every ::1 using ($0 + (j - 1.5) / 5.0):(ybot):(strcol(j + 2) eq "NaN" ? "none" : "") \
                 with labels rotate by 90 left font ",8" textcolor rgb "gray30" notitle
        unset label 10
    }
    unset output
}
