#!/usr/bin/env python3
"""Chaos test: kill `glimpse tune` with SIGKILL at random moments, over and over, rerun the same
command each time (it resumes from the database), and check that the database ends with exactly
the records of an uninterrupted run: none lost, none twice.

The run replays a recorded space with the grid strategy, whose proposals are the space's valid
configurations in a fixed order, skipping those already measured, so the uninterrupted run's
records are the ones any resumed sequence of runs must end with (a batch is committed in one
transaction: a kill loses at most the batch in flight, which the next run measures again).
`--pace-ms` makes each measurement take real time, so that kills land mid-run.

Usage: kill_resume.py --glimpse BIN --space FILE --work DIR [--kills 100] [--budget 400]
"""
import argparse
import collections
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time


def tune_command(args, db):
    return [args.glimpse, "tune", "--target", "replay", "--space", args.space, "--tuner", "grid",
            "--budget", str(args.budget), "--batch", "4", "--pace-ms", str(args.pace_ms),
            "--seed", "0", "--progress", "quiet", "--db", db]


def run_to_end(command):
    started = time.monotonic()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"kill_resume: {' '.join(command)} exited {done.returncode}: {done.stderr}")
    return time.monotonic() - started


def records(args, db):
    """The database's records as a multiset of what a measurement decides (not its timestamps)."""
    out = subprocess.run([args.glimpse, "db", "export", "--db", db], capture_output=True,
                         text=True, check=True).stdout
    keys = collections.Counter()
    for line in out.splitlines():
        row = json.loads(line)
        if row.get("type") != "record":
            continue
        keys[(row["workload_key"], row["device"], json.dumps(row["config"], sort_keys=True),
              row["status"], row["time_s"])] += 1
    return keys


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--glimpse", required=True)
    parser.add_argument("--space", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--budget", type=int, default=400)
    parser.add_argument("--pace-ms", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=0, help="the kill times' seed")
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)

    reference_db = os.path.join(args.work, "reference.db")
    reference_s = run_to_end(tune_command(args, reference_db))
    start_s = run_to_end(tune_command(args, reference_db))  # resumes a finished run: start-up alone
    reference = records(args, reference_db)
    if sum(reference.values()) != args.budget:
        sys.exit(f"kill_resume: the uninterrupted run has {sum(reference.values())} records, "
                 f"expected {args.budget}")

    # Kill moments: anywhere in start-up (opening the database, resuming) or up to about two
    # hundredths of the run's work later, so that a hundred lives cover the run.
    rng = random.Random(args.seed)
    work_s = max(reference_s - start_s, 0.05)
    chaos_db = os.path.join(args.work, "chaos.db")
    command = tune_command(args, chaos_db)
    kills = lives = finished = 0
    while kills < args.kills:
        lives += 1
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   text=True)
        time.sleep(rng.uniform(0.0, start_s + 0.02 * work_s))
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            process.communicate()
            kills += 1
        else:
            _, err = process.communicate()
            if process.returncode != 0:
                sys.exit(f"kill_resume: life {lives} exited {process.returncode}: {err}")
            finished += 1
    run_to_end(command)
    chaos = records(args, chaos_db)

    twice = {key: n for key, n in chaos.items() if n > 1}
    lost = reference - chaos
    extra = chaos - reference
    print(f"kill_resume: {kills} kills in {lives} lives ({finished} ran to the end), "
          f"reference run {reference_s:.2f} s ({start_s:.2f} s start-up); "
          f"{sum(chaos.values())} records after the chaos, {sum(reference.values())} without")
    if twice or lost or extra:
        for name, keys in (("twice", twice), ("lost", lost), ("not in the reference", extra)):
            for key in list(keys)[:5]:
                print(f"  {name}: {key}")
        sys.exit("kill_resume: the killed run's records differ from the uninterrupted run's")
    if finished * 2 > lives:
        sys.exit("kill_resume: most lives ran to the end: the kills did not land mid-run")


if __name__ == "__main__":
    main()
