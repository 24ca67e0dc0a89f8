# Sourced by the study's sitting scripts (bench/results/perf_tuning*/*.sh): one re-timing sitting,
# as every sitting of perf_tuning.md ran it.
# recheck_sitting WORK OUT [ARG…]: `study.py recheck` of every run in the study folder WORK (3
# passes, 2 threads, OMP_PROC_BIND and OMP_NUM_THREADS unset) into OUT/recheck.json, .md and .log,
# its start and end appended to OUT/sitting.log. ARG… go to `study.py recheck` after those
# (`--passes 8` overrides the 3; `--best-from F --best-top K`). Needs $G (glimpse) and $BENCH
# (bench_cpu_templates); run from the repository root. The caller compresses recheck.json once it
# has read it.
recheck_sitting() {
  local work=$1 out=$2
  shift 2
  echo "recheck $(date -u +%FT%TZ)" >> "$out/sitting.log"
  env -u OMP_PROC_BIND -u OMP_NUM_THREADS python3 bench/perf_tuning/study.py recheck --out "$work" \
    --threads 2 --passes 3 --bench "$BENCH" --glimpse "$G" --json "$out/recheck.json" "$@" \
    > "$out/recheck.md" 2> "$out/recheck.log"
  echo "done $(date -u +%FT%TZ)" >> "$out/sitting.log"
}
