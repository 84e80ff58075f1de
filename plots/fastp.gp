# fastp.gp -- Fast@p curves per model under the paper's headline condition (TF32 baseline, verified
# check): the share of ALL problems whose best correct sample is faster than p x the baseline.
#   gnuplot -e "dir='plots/paper'" plots/fastp.gp     (make all / make report run it)
# Reads $dir/fastp.dat (kb-aggregate: one block per model, an exact step function); writes
# $dir/fastp.png and .svg. With no data yet it draws a placeholder saying so, and never fails.
if (!exists("dir")) dir = "plots/paper"
name = "fastp"
f = dir."/".name.".dat"
meta(key) = system(sprintf("awk '/^#%s:/ {print $2; exit}' '%s' 2>/dev/null", key, f))
s = meta("points"); points = (s eq "") ? 0 : int(s + 0)
s = meta("models"); nm = (s eq "") ? 0 : int(s + 0)
proto = meta("protocol")
if (meta("baseline") eq "torch") { proto = proto . ", PyTorch eager baseline" }
set datafile missing "NaN"

do for [ext in "png svg"] {
    if (ext eq "png") {
        set terminal pngcairo size 1000,650 noenhanced font "sans,12"
    } else {
        set terminal svg size 1000,650 dynamic noenhanced font "sans,12" background "white"
    }
    set output dir."/".name.".".ext
    if (points == 0 || nm == 0) {
        unset border; unset tics; unset key
        set xrange [0:1]; set yrange [0:1]
        set title "Fast@p"
        set label 1 "no data yet: run 'make all' (GPU) or 'make report' once artifacts exist" at graph 0.5, 0.5 center
        plot 2 notitle
        unset label 1
    } else {
        set title sprintf("Fast@p under TF32 baseline x verified check (protocol %s), pooled over levels", proto)
        set xlabel "speedup threshold p (x PyTorch eager with TF32 matmul)"
        set ylabel "Fast@p (% of all problems)"
        set xrange [0:3]
        # a little below 0: a model at 0% everywhere is a visible line, not hidden in the axis
        set yrange [-4:102]
        set ytics 0, 20, 100
        set grid
        set key top right box opaque
        set arrow 1 from 1, graph 0 to 1, graph 1 nohead dashtype 2 linecolor rgb "gray40"
        set label 2 "p = 1 (the headline Fast@1)" at 1.03, graph 0.95 left textcolor rgb "gray40"
        plot for [i=0:nm-1] f index i using 1:($2*100) with steps linewidth 2 title columnheader(1)
        unset arrow 1
        unset label 2
    }
    unset output
}
