# hidden_failures.gp -- how many samples each hidden distribution rejects, per model: over all
# samples (top) and over the best standard-correct sample per problem (bottom: the samples the
# standard protocol would have reported). D4 (x -1) catches the most in the paper.
#   gnuplot -e "dir='plots/paper'" plots/hidden_failures.gp     (make all / make report run it)
# Reads $dir/hidden_failures.dat (kb-aggregate); writes $dir/hidden_failures.png and .svg. With no
# data yet it draws a placeholder saying so, and never fails.
if (!exists("dir")) dir = "plots/paper"
name = "hidden_failures"
f = dir."/".name.".dat"
meta(key) = system(sprintf("awk '/^#%s:/ {print $2; exit}' '%s' 2>/dev/null", key, f))
s = meta("points"); points = (s eq "") ? 0 : int(s + 0)
s = meta("models"); nm = (s eq "") ? 0 : int(s + 0)
s = meta("max"); maxf = (s eq "") ? 0 : int(s + 0)
proto = meta("protocol")
ytop = (maxf < 1) ? 1 : ceil(maxf * 1.15)

do for [ext in "png svg"] {
    if (ext eq "png") {
        set terminal pngcairo size 1100,850 noenhanced font "sans,12"
    } else {
        set terminal svg size 1100,850 dynamic noenhanced font "sans,12" background "white"
    }
    set output dir."/".name.".".ext
    if (points == 0 || nm == 0) {
        unset border; unset tics; unset key
        set xrange [0:1]; set yrange [0:1]
        set title "Hidden-distribution failures"
        set label 1 "no data yet: run 'make all' (GPU) or 'make report' once artifacts exist" at graph 0.5, 0.5 center
        plot 2 notitle
        unset label 1
    } else {
        # every code on the figure, explained on it (docs/protocols.md has the why)
        codes = "D1-D4: the paper's inputs scaled x1, x3, x0.01, x-1.  P1: inputs as generated, parameters U(-1,1).  " . \
                "S1: inputs U(-1,1).  S2: +-10^U(-3,3).\nS3: U(-1,1) x 1e-6.  S4: U(-1,1) with 50% exact zeros.  " . \
                "S5: U(-100,100).  S6: U(-1,0).  (S1, S2, S4, S6 also draw parameters U(-1,1); P1 and S only in strict; docs/protocols.md)"
        set multiplot layout 2,1 title sprintf("Samples failing each hidden distribution (protocol %s)\n%s", proto, codes) \
            font ",10"
        set style data histograms
        set style histogram clustered gap 1
        set style fill solid 0.85 border -1
        set boxwidth 0.9
        set yrange [0:ytop]
        if (ytop <= 10) { set ytics 1 } else { set ytics autofreq }
        set grid ytics
        set key top right box opaque
        set xlabel "hidden distribution"
        set ylabel "failing samples (count)"
        set title "over all samples"
        plot for [i=2:nm+1] f index 0 using i:xtic(1) title columnheader(i)
        set title "over the best standard-correct sample per problem"
        plot for [i=2:nm+1] f index 1 using i:xtic(1) title columnheader(i)
        unset multiplot
    }
    unset output
}
