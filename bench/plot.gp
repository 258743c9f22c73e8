# Plots bench/puff-bench results (the TSV of bench/run.sh) as one PNG:
#   left:  CreateItem p50 latency against the number of stored items N
#   right: bytes written to storage per CreateItem against N
# Usage: gnuplot -e "tsv='.build/bench/results/results.tsv'; out='docs/benchmarks.png'" bench/plot.gp
# Measured values are solid lines with points; extrapolated ones (a provider whose fill was
# capped) are dashed and say so in the key.

if (!exists("tsv")) tsv = '.build/bench/results/results.tsv'
if (!exists("out")) out = 'docs/benchmarks.png'

# Providers present in the file, in order of appearance.
providers = system(sprintf("awk -F'\t' 'NR > 1 && !seen[$1]++ { printf \"%%s \", $1 }' '%s'", tsv))

# Rows "n value" of one series, n = the middle of the fill segment; for the extrapolated series the last measured row comes first so
# the dashed line continues the solid one. Values <= floor are raised to floor (log axes).
series(p, stat, src, floor) = sprintf("< awk -F'\t' -v p='%s' -v s='%s' -v src='%s' -v fl=%g -v m=create_segment -v fr=from -v me=measured -v ex=extrapolated -v none= '$1 == p && $3 == m && $4 == fr { from[$2] = $5 } $1 == p && $3 == m && $4 == s { x = (from[$2] + $2) / 2; v = ($5 > fl ? $5 : fl); if ($6 == me) { last = x OFS v; if (src == me) print x, v } else if (src == ex) { if (!started && last != none) print last; started = 1; print x, v } }' '%s'", p, stat, src, floor, tsv)
count(p, src) = int(system(sprintf("awk -F'\t' -v p='%s' -v src='%s' -v m=create_segment '$1 == p && $3 == m && $6 == src' '%s' | wc -l", p, src, tsv)))

set terminal pngcairo size 1500,620 enhanced font 'DejaVu Sans,11'
set output out
set datafile separator whitespace
set multiplot layout 1,2 title "Secret Service providers, filling the default collection 0 → N (CreateItem, plain session)" font ',13'

set logscale xy
set grid xtics ytics mxtics mytics lc rgb '#dddddd'
set key top left box opaque
set xlabel 'items stored (N; each point is one fill segment, drawn at its middle)'
set format x '%.0s%c'
set xrange [40:*]

colour(i) = i == 1 ? '#1f77b4' : i == 2 ? '#d62728' : i == 3 ? '#2ca02c' : '#9467bd'

# The plot command of one panel: measured series for every provider, extrapolated ones where present.
do_panel = 'cmd = "plot "; \
  do for [i=1:words(providers)] { \
    p = word(providers, i); \
    cmd = cmd . sprintf("%s\"%s\" using 1:($2/%g) with linespoints lw 2 pt 7 ps 0.6 lc rgb \"%s\" title \"%s (measured)\"", \
                        (i > 1 ? ", " : ""), series(p, stat, "measured", floor), scale, colour(i), p); \
    if (count(p, "extrapolated") > 0) { \
      cmd = cmd . sprintf(", \"%s\" using 1:($2/%g) with lines lw 2 dt 2 lc rgb \"%s\" title \"%s (extrapolated)\"", \
                          series(p, stat, "extrapolated", floor), scale, colour(i), p) \
    } \
  }; \
  eval cmd'

set title 'CreateItem latency, p50 per fill segment'
set ylabel 'CreateItem p50 latency (ms)'
set format y '%g'
stat = 'p50_us'; scale = 1000; floor = 0.001
eval do_panel

set title 'Bytes written to storage per CreateItem (/proc/PID/io write\_bytes)'
set ylabel 'bytes per CreateItem (0 is drawn as 1)'
set format y '10^{%T}'
set yrange [0.5:*]
stat = 'write_bytes_per_op'; scale = 1; floor = 1
eval do_panel

unset multiplot
