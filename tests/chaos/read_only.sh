#!/usr/bin/env bash
# A database made read-only, during a run and between runs (chmod of the file and its folder, as
# a user or an administrator would). During a run nothing changes: Unix checks permissions when a
# file is opened, and the run's connection and WAL files are open already, so it must finish its
# budget with every record. The next run that would record into the file must be refused with a
# message that says so (exit 2, no crash) and change nothing; `db list` and `db export` must still
# read it; with write permission back, the same command resumes, with no record twice.
#
# Permissions do not bind root: run as root, the glimpse commands run as nobody (setpriv), in a
# work folder nobody owns. Exit 77 (skipped) where that cannot be arranged.
#
# Usage: read_only.sh GLIMPSE SPACE WORK_DIR
set -euo pipefail
glimpse=$1 space=$2 work=$3
as_user=()
rm -rf "$work"
mkdir -p "$work/db"
if [[ $(id -u) -eq 0 ]]; then
  command -v setpriv > /dev/null || { echo "read_only: SKIPPED: root, and no setpriv"; exit 77; }
  as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  chown -R 65534:65534 "$work"
fi
if ! "${as_user[@]}" test -x "$glimpse" -a -r "$space" -a -w "$work/db"; then
  echo "read_only: SKIPPED: ${as_user[*]:-this user} cannot reach $glimpse, $space or $work"
  exit 77
fi
db=$work/db/tuning.db
tune() {  # tune BUDGET [FLAG…]: the command every run gives
  local budget=$1
  shift
  "${as_user[@]}" "$glimpse" tune --target replay --space "$space" --tuner grid --budget "$budget" \
    --batch 16 --seed 0 --progress quiet --db "$db" "$@"
}
records() {  # records OUT: exports the database (as the runs' user), prints the record count
  "${as_user[@]}" "$glimpse" db export --db "$db" > "$1" 2> "$1.err" || {
    echo "read_only: FAILED: db export: $(cat "$1.err")"; exit 1; }
  grep -c '"type":"record"' "$1" || true
}
fail() { echo "read_only: FAILED: $*"; exit 1; }

# 1. Write permission taken away 1 s into a paced run (2 ms per measurement: about 4 s in all).
tune 2000 --pace-ms 2 > "$work/run1.out" 2> "$work/run1.err" &
pid=$!
for _ in $(seq 50); do [[ -e $db-wal ]] && break; sleep 0.1; done
sleep 1
chmod a-w "$db" "$db"-wal "$db"-shm "$work/db" 2> /dev/null || chmod a-w "$db" "$work/db"
rc=0
wait $pid || rc=$?
[[ $rc -eq 0 ]] || fail "the run exited $rc when its file became read-only: $(cat "$work/run1.err")"
n=$(records "$work/after1.jsonl")
[[ $n -eq 2000 ]] || fail "$n records after the first run, expected 2000"
echo "read_only: made read-only mid-run: the run finished, 2000 records"

# 2. The next run that would record: refused, one clear line, nothing changed.
rc=0
tune 3000 > "$work/run2.out" 2> "$work/run2.err" || rc=$?
[[ $rc -eq 2 ]] || fail "a run on a read-only database exited $rc (expected 2): $(cat "$work/run2.err")"
grep -q "is read-only" "$work/run2.err" || fail "the message does not say why: $(cat "$work/run2.err")"
echo "read_only: the next run: exit 2: $(head -c 200 "$work/run2.err")"
"${as_user[@]}" "$glimpse" db list --db "$db" > "$work/list.out" 2>&1 ||
  fail "db list cannot read a read-only database: $(cat "$work/list.out")"
n=$(records "$work/after2.jsonl")
[[ $n -eq 2000 ]] || fail "$n records after the refused run, expected 2000"
cmp -s "$work/after1.jsonl" "$work/after2.jsonl" || fail "the refused run changed the records"

# 3. Writable again: the same command resumes from the 2000 and stops at 3000, none twice.
chmod u+w "$work/db" "$db"
[[ -e $db-wal ]] && chmod u+w "$db"-wal "$db"-shm
tune 3000 > "$work/run3.out" 2> "$work/run3.err" || fail "the rerun exited $?: $(cat "$work/run3.err")"
records "$work/final.jsonl" > /dev/null
python3 - "$work/after2.jsonl" "$work/final.jsonl" <<'PY'
import collections, json, sys
def keys(path):
    out = collections.Counter()
    for line in open(path):
        row = json.loads(line)
        if row.get("type") == "record":
            out[(row["workload_key"], json.dumps(row["config"], sort_keys=True))] += 1
    return out
before, final = keys(sys.argv[1]), keys(sys.argv[2])
problems = []
if before - final:
    problems.append(f"{sum((before - final).values())} records lost")
if any(n > 1 for n in final.values()):
    problems.append("records twice")
if sum(final.values()) != 3000:
    problems.append(f"{sum(final.values())} records at the end, expected 3000")
print(f"read_only: writable again: the rerun resumed from {sum(before.values())} to "
      f"{sum(final.values())} records")
if problems:
    sys.exit("read_only: FAILED: " + "; ".join(problems))
PY

# 4. Archived: closed cleanly (no -wal or -shm beside it), then file and folder made read-only.
# SQLite cannot make the files WAL mode reads through; the reading commands still read it.
[[ ! -e $db-wal ]] || fail "the WAL file is still there after a clean close"
chmod a-w "$db" "$work/db"
"${as_user[@]}" "$glimpse" db export --db "$db" > "$work/archived.jsonl" 2> "$work/archived.err" ||
  fail "db export of an archived read-only database: $(cat "$work/archived.err")"
cmp -s "$work/final.jsonl" "$work/archived.jsonl" || fail "the archived database reads differently"
[[ ! -e $db-wal ]] || fail "reading the archived database made a WAL file"
echo "read_only: archived read-only (no WAL files): db export reads all $(grep -c '"type":"record"' "$work/archived.jsonl") records"
