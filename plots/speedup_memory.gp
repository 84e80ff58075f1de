# speedup_memory.gp -- speedup against memory ratio of the best verified sample, one point per
# model x problem, log-log: top right = faster AND leaner than PyTorch eager.
#   gnuplot -e "dir='plots/paper'" plots/speedup_memory.gp     (make all / make report run it)
# Reads $dir/speedup_memory.dat (kb-aggregate: one block per model: mem_ratio speedup problem);
# writes $dir/speedup_memory.png and .svg. With no data yet it draws a placeholder, never fails.
if (!exists("dir")) dir = "plots/paper"
name = "speedup_memory"
f = dir."/".name.".dat"
meta(key) = system(sprintf("awk '/^#%s:/ {print $2; exit}' '%s' 2>/dev/null", key, f))
s = meta("points"); points = (s eq "") ? 0 : int(s + 0)
s = meta("models"); nm = (s eq "") ? 0 : int(s + 0)
proto = meta("protocol")
if (meta("baseline") eq "torch") { proto = proto . ", PyTorch eager baseline" }
set datafile missing "NaN"

# the axes fit the data (computed once, before the terminals; no valid point: around 1)
SM_min_x = SM_max_x = SM_min_y = SM_max_y = 0
if (points > 0 && nm > 0) {
    stats f using (($1 > 0 && $2 > 0) ? log10($1) : NaN):(($1 > 0 && $2 > 0) ? log10($2) : NaN) nooutput name "SM"
}
xlo = SM_min_x < 0 ? SM_min_x : 0; xhi = SM_max_x > 0 ? SM_max_x : 0
ylo = SM_min_y < 0 ? SM_min_y : 0; yhi = SM_max_y > 0 ? SM_max_y : 0
px = (xhi - xlo) * 0.08 + 0.02; py = (yhi - ylo) * 0.08 + 0.05

do for [ext in "png svg"] {
    if (ext eq "png") {
        set terminal pngcairo size 1000,750 noenhanced font "sans,12"
    } else {
        set terminal svg size 1000,750 dynamic noenhanced font "sans,12" background "white"
    }
    set output dir."/".name.".".ext
    if (points == 0 || nm == 0) {
        unset border; unset tics; unset key
        set xrange [0:1]; set yrange [0:1]
        set title "Speedup vs memory"
        set label 1 "no data yet: run 'make all' (GPU) or 'make report' once artifacts exist" at graph 0.5, 0.5 center
        plot 2 notitle
        unset label 1
    } else {
        set title sprintf("Speedup vs peak memory of the best verified sample (TF32 baseline, protocol %s)", proto)
        set xlabel "memory ratio: baseline peak / kernel peak (x, log scale; > 1 = the kernel uses less)"
        set ylabel "speedup: TF32 baseline time / kernel time (x, log scale)"
        set logscale xy
        # the axes fit the data (and always show 1, parity), not whole decades around it
        set xrange [10**(xlo - px):10**(xhi + px)]
        set yrange [10**(ylo - py):10**(yhi + py)]
        set xtics (0.1, 0.2, 0.25, 0.5, 0.67, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 10, 20, 50, 100)
        set grid
        set key outside right top box
        set arrow 1 from 1, graph 0 to 1, graph 1 nohead dashtype 2 linecolor rgb "gray40"
        set arrow 2 from graph 0, first 1 to graph 1, first 1 nohead dashtype 2 linecolor rgb "gray40"
        # few points: each labelled by its problem (column 3)
        lab = points <= 40
        plot for [i=0:nm-1] f index i using 1:2 with points pointtype (i % 6) + 5 pointsize 1.4 title columnheader(1), \
             for [i=0:nm-1] f index i using 1:2:(lab ? stringcolumn(3) : "") with labels offset char 0.6, char 0.6 \
                 left font ",8" textcolor rgb "gray30" notitle
        unset arrow 1
        unset arrow 2
    }
    unset output
}
