#!/usr/bin/env bash
# A disk that fills up while tuning. The database lives on a 256 KiB tmpfs mounted in a mount
# namespace of the test's own (`unshare -rm`: no root needed where user namespaces are allowed;
# where they are not, a file-size limit, `ulimit -f`, stands in for the full disk). The run must
# stop with a message that says so, without a crash, keeping every record it committed; the same
# command rerun on a disk with room must resume from those records and finish the budget, with no
# record twice.
#
# Usage: disk_full.sh GLIMPSE SPACE WORK_DIR
set -euo pipefail
glimpse=$1 space=$2 work=$3
budget=3000
rm -rf "$work"
mkdir -p "$work/small" "$work/room"
tune() {  # tune DB: the command both runs give
  "$glimpse" tune --target replay --space "$space" --tuner grid --budget "$budget" --batch 16 \
    --seed 0 --progress quiet --db "$1"
}
export -f tune
export glimpse space budget work

# 1. On the small disk. The script runs inside the namespace, or under the file-size limit.
full_disk_run='
  set -uo pipefail
  tune "$work/small/tuning.db" > "$work/full.out" 2> "$work/full.err"
  echo $? > "$work/full.rc"
  "$glimpse" db export --db "$work/small/tuning.db" > "$work/committed.jsonl" 2> "$work/export.err"
  cp "$work/small/"tuning.db* "$work/room/"
'
if unshare -rm true 2> /dev/null; then
  how="a 256 KiB tmpfs"
  unshare -rm bash -c "mount -t tmpfs -o size=256k tmpfs '$work/small' && $full_disk_run"
else
  how="ulimit -f 256 (no user namespaces here)"
  bash -c "trap '' XFSZ; ulimit -f 256; $full_disk_run"
fi
rc=$(cat "$work/full.rc")
echo "disk_full: on $how: exit $rc; $(tr '\n' ' ' < "$work/full.err" | cut -c1-300)"
if [[ $rc -eq 0 ]]; then
  echo "disk_full: FAILED: the run did not notice the full disk (or the disk was not small enough)"
  exit 1
fi
if [[ $rc -ge 128 ]]; then
  echo "disk_full: FAILED: the run died of a signal ($rc) instead of stopping with a message"
  exit 1
fi
if ! grep -qiE "disk|full|space|write" "$work/full.err"; then
  echo "disk_full: FAILED: the message does not say what happened: $(cat "$work/full.err")"
  exit 1
fi
committed=$(grep -c '"type":"record"' "$work/committed.jsonl" || true)
if [[ $committed -eq 0 || $committed -ge $budget ]]; then
  echo "disk_full: FAILED: $committed records committed before the disk was full (expected some)"
  exit 1
fi

# 2. The same command where there is room: it resumes and finishes.
tune "$work/room/tuning.db" > "$work/room.out" 2> "$work/room.err" || {
  echo "disk_full: FAILED: the rerun exited $?: $(cat "$work/room.err")"; exit 1; }
"$glimpse" db export --db "$work/room/tuning.db" > "$work/final.jsonl"
python3 - "$work/committed.jsonl" "$work/final.jsonl" "$budget" <<'PY'
import collections, json, sys
def keys(path):
    out = collections.Counter()
    for line in open(path):
        row = json.loads(line)
        if row.get("type") == "record":
            out[(row["workload_key"], json.dumps(row["config"], sort_keys=True), row["status"],
                 row["time_s"])] += 1
    return out
committed, final, budget = keys(sys.argv[1]), keys(sys.argv[2]), int(sys.argv[3])
problems = []
if committed - final:
    problems.append(f"{sum((committed - final).values())} committed records lost")
if any(n > 1 for n in final.values()):
    problems.append("records twice")
if sum(final.values()) != budget:
    problems.append(f"{sum(final.values())} records at the end, expected {budget}")
print(f"disk_full: {sum(committed.values())} records committed before the disk was full, "
      f"{sum(final.values())} after the rerun")
if problems:
    sys.exit("disk_full: FAILED: " + "; ".join(problems))
PY
