# roofline.gp -- how close each problem's kernel and baseline come to the H200's roofline floor.
#   floor (s) = max(FLOPs / 67e12, bytes / 4.3e12): 67 TFLOP/s is the H200's FP32 SIMT peak (no
#   tensor cores), 4.3 TB/s its measured device-to-device copy bandwidth (HBM3e, 4.8 TB/s nominal);
#   FLOPs and bytes are the problem's minimal counts (baseline-time.h5 @flops, @bytes).
#   fraction = floor / measured time: 1 = at the roofline; above 1 is possible with TF32 tensor
#   cores (the FP32 SIMT ceiling does not bound them).
#   gnuplot -e "dir='plots/paper'" plots/roofline.gp     (make all / make report run it)
# Reads $dir/roofline.dat (kb-aggregate: block 0 the baseline in both math modes, then one block
# per model with its best verified sample); writes $dir/roofline.png and .svg. With no data yet it
# draws a placeholder saying so, and never fails.
if (!exists("dir")) dir = "plots/paper"
name = "roofline"
f = dir."/".name.".dat"
meta(key) = system(sprintf("awk '/^#%s:/ {print $2; exit}' '%s' 2>/dev/null", key, f))
s = meta("points"); points = (s eq "") ? 0 : int(s + 0)
s = meta("models"); nm = (s eq "") ? 0 : int(s + 0)
s = meta("problems"); np = (s eq "") ? 0 : int(s + 0)
proto = meta("protocol")
if (meta("baseline") eq "torch") { proto = proto . ", PyTorch eager baseline" }
set datafile missing "NaN"

do for [ext in "png svg"] {
    if (ext eq "png") {
        set terminal pngcairo size 1400,750 noenhanced font "sans,12"
    } else {
        set terminal svg size 1400,750 dynamic noenhanced font "sans,12" background "white"
    }
    set output dir."/".name.".".ext
    if (points == 0 || np == 0) {
        unset border; unset tics; unset key
        set xrange [0:1]; set yrange [0:1]
        set title "Roofline fraction"
        set label 1 "no data yet: run 'make all' (GPU) or 'make report' once artifacts exist" at graph 0.5, 0.5 center
        plot 2 notitle
        unset label 1
    } else {
        set title sprintf("Roofline fraction per problem (protocol %s): floor = max(FLOPs / 67 TFLOP/s, bytes / 4.3 TB/s)", proto)
        set xlabel "problem"
        set ylabel "floor time / measured time (log scale; 1 = at the roofline)"
        set logscale y
        set grid ytics
        set xrange [-0.5:np - 0.5]
        set xtics rotate by -45 left nomirror
        set key outside right top box
        w = 0.5 / (nm + 2)
        # above 1 a time beats the floor (TF32 tensor cores, or a kernel that does not do the work):
        # the axis stops at ycap so one such point cannot squash the rest; a point above it is
        # drawn at the top as a triangle with its value
        ycap = 20
        set yrange [*:ycap * 1.6]
        cl(v) = v > ycap ? ycap : v
        plot f index 0 using ($1 - w):(cl($3)):xtic(2) with points pointtype 4 pointsize 1.6 linecolor rgb "black" title columnheader(3), \
             f index 0 using ($1 - w):(cl($4)) with points pointtype 6 pointsize 1.6 linecolor rgb "gray50" title columnheader(4), \
             for [i=1:nm] f index i using ($1 + w * i):(cl($3)) with points pointtype 7 pointsize 1.3 title columnheader(3), \
             for [i=1:nm] f index i using ($1 + w * i):($3 > ycap ? ycap : NaN) with points pointtype 9 pointsize 2 \
                 linecolor rgb "red" notitle, \
             for [i=0:nm] f index i using ($1 + w * (i ? i : -1)):(ycap):($3 > ycap ? sprintf("%.0f", $3) : "") \
                 with labels offset char 0, char 1 font ",9" textcolor rgb "red" notitle, \
             1 with lines dashtype 2 linecolor rgb "black" title "roofline (H200 FP32 SIMT, copy bandwidth)", \
             NaN with points pointtype 9 pointsize 2 linecolor rgb "red" title sprintf("above %g (value printed): faster than the floor", ycap)
    }
    unset output
}
