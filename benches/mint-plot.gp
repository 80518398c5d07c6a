# docs/mint-throughput.png from the figures benches/mint.rs writes: one block per workload
# (separated by two blank lines), each row tab-separated: workers, library mint,
# (i) prepared, (i) unnamed, (ii) floor. Run by benches/mint.sh:
#   gnuplot -e "data='FILE'; out='docs/mint-throughput.png'" benches/mint-plot.gp
set terminal pngcairo size 1200,520 font "DejaVu Sans,10"
set output out
set datafile separator "\t"
set multiplot layout 1,2
set xlabel "workers (connections)"
set ylabel "mints (transactions) per second"
set key below
set grid ytics
set yrange [0:*]
set offsets 0.3, 0.3, 0, 0
do for [i = 0:1] {
    set title (i == 0 ? "PostgreSQL, one stringer" : "PostgreSQL, 64 stringers") font ",14"
    plot data index i using 0:2:xtic(1) with linespoints lw 2 pt 7 lc rgb "#1f4fd6" title "library mint", \
         data index i using 0:3 with linespoints lw 2 pt 7 lc rgb "#1a9641" title "(i) upsert + update, prepared", \
         data index i using 0:4 with linespoints lw 2 pt 7 lc rgb "#787878" title "(i) the same, unnamed", \
         data index i using 0:5 with linespoints lw 2 pt 7 lc rgb "#d7191c" title "(ii) floor: one-row UPDATE"
}
unset multiplot
