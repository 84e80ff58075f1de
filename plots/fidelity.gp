# fidelity.gp -- the C baseline's time against PyTorch eager's, per problem and math mode (robust
# timer, same run): ratio = ours / PyTorch; 1 is parity, the band is 0.95-1.05.
#   gnuplot -e "dir='plots/paper'" plots/fidelity.gp     (make fidelity runs it)
# Reads $dir/fidelity.dat (tools/fidelity-csv.sh: "problem ratio_fp32 ratio_tf32" per line);
# writes $dir/fidelity.png and .svg. With no data yet it draws a placeholder and never fails.
if (!exists("dir")) dir = "plots/paper"
name = "fidelity"
f = dir."/".name.".dat"
s = system(sprintf("cat '%s' 2>/dev/null | wc -l", f)); n = (s eq "") ? 0 : int(s + 0)
set datafile missing "nan"
do for [ext in "png svg"] {
    w = (n * 14 + 200 > 1100) ? n * 14 + 200 : 1100 # 100+ problems stay readable
    if (ext eq "png") {
        set terminal pngcairo size w,600 noenhanced font "sans,10"
    } else {
        set terminal svg size w,600 dynamic noenhanced font "sans,10" background "white"
    }
    set output dir."/".name.".".ext
    if (n == 0) {
        unset border; unset tics; unset key
        set xrange [0:1]; set yrange [0:1]
        set title "C baseline / PyTorch eager"
        set label 1 "no data yet: run 'make fidelity' (GPU)" at graph 0.5, 0.5 center
        plot 2 notitle
        unset label 1
    } else {
        set title "C baseline time / PyTorch eager time (robust timer, same run)"
        set style data histograms
        set style histogram clustered gap 1
        set style fill solid 0.8 border -1
        set boxwidth 0.9
        set xtics rotate by -90 nomirror font "sans,8"
        set ylabel "ours / PyTorch"
        set yrange [0.8:1.2]
        set grid ytics
        set key top left
        # a ratio outside the axis is drawn at its edge and written out above the bars
        clip(y) = y < 0.8 ? 0.8 : y > 1.2 ? 1.2 : y
        off(y) = (y < 0.8 || y > 1.2) ? sprintf("%.2f", y) : ""
        plot f using (clip($2)):xtic(1) title "fp32 (PyTorch defaults)", '' using (clip($3)) title "tf32 (matmul TF32)", \
             '' using 0:(0.83):(off($2)) with labels rotate by 90 font "sans,8" notitle, \
             1 with lines lc rgb "black" notitle, 0.95 with lines lc rgb "gray" notitle, 1.05 with lines lc rgb "gray" notitle
    }
    set output
}
