"""bench/perf_tuning/study.py (the held-out tuning study) against a fake `glimpse`: the command
line of each strategy, the refusals, the summary's counts and the drift's bins on synthetic runs.

Run: python3 -m unittest discover -p test_perf_study.py -s bench/tests -t bench/tests
Standard library only.
"""

import datetime
import gzip
import json
import os
import subprocess
import sys
import tempfile
import unittest

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(BENCH, "perf_tuning", "study.py")

# A stand-in for `glimpse`: `tune` logs its arguments and appends its run to the --db file (JSON
# lines); `db export` prints that file. A run with --hardware-budget reaches the best time (0.5 s)
# at its 4th measurement on the convolution and never on the dense layer; any other run reaches
# it at its 40th. So the summary's counts are known.
FAKE_GLIMPSE = r'''
import json, os, sys
args = sys.argv[1:]
flag = lambda name: args[args.index(name) + 1] if name in args else None
if args[:2] == ["db", "export"]:
    with open(flag("--db")) as f:
        sys.stdout.write(f.read())
    sys.exit(0)
with open(os.environ["FAKE_GLIMPSE_LOG"], "a") as log:
    log.write(json.dumps(args) + "\n")
op, db = flag("--op"), flag("--db")
hardware = flag("--hardware-budget")
# A recheck adds its measurements to --budget's; --hardware-budget's include it.
count = int(hardware) if hardware else int(flag("--budget")) + int(flag("--recheck") or 0)
reach = (4 if op.startswith("conv2d") else 10**6) if hardware else 40
with open(db, "a") as f:
    f.write(json.dumps({"type": "workload", "key": op, "name": op}) + "\n")
    for i in range(1, count + 1):
        time = 0.5 if i >= reach else 1.0
        f.write(json.dumps({"type": "record", "workload_key": op, "status": "ok",
                            "time_s": time}) + "\n")
print(json.dumps({"tasks": [{"op": op}]}))
print(f"chose a model for {op}", file=sys.stderr)
'''


class PerfStudyTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        d = self.dir.name
        self.glimpse = os.path.join(d, "glimpse")
        with open(self.glimpse, "w") as f:
            f.write(f"#!{sys.executable}\n{FAKE_GLIMPSE}")
        os.chmod(self.glimpse, 0o755)
        self.log = os.path.join(d, "calls.jsonl")
        self.ops = os.path.join(d, "ops.txt")
        with open(self.ops, "w") as f:
            f.write("# a comment\nconv2d:a\ndense:b  # trailing comment\n")
        self.out = os.path.join(d, "study")

    def tearDown(self):
        self.dir.cleanup()

    def study(self, *args):
        env = dict(os.environ, FAKE_GLIMPSE_LOG=self.log)
        return subprocess.run([sys.executable, SCRIPT, *args, "--glimpse", self.glimpse],
                              capture_output=True, text=True, env=env)

    def calls(self):
        with open(self.log) as f:
            return [json.loads(line) for line in f]

    def test_each_hardware_strategy_spends_16_in_its_own_form(self):
        done = self.study("run", "--ops", self.ops, "--model", "M.json", "--xgb-model", "X.json",
                          "--out", self.out, "--seeds", "1",
                          "--strategies",
                          "hardware16,hardware16-oneround,hardware16-transfer,hardware16-mean,"
                          "hardware16-choose,hardware16-recheck,hardware16-diverse,xgb")
        self.assertEqual(done.returncode, 0, done.stderr)
        calls = self.calls()
        self.assertEqual(len(calls), 16)  # 2 operators × 8 strategies × 1 seed
        by_db = {os.path.basename(c[c.index("--db") + 1]): c for c in calls
                 if c[c.index("--op") + 1] == "conv2d:a"}
        rounds = by_db["hardware16-s1.db"]
        self.assertEqual(rounds[rounds.index("--cost-model") + 1], "M.json")
        self.assertEqual(rounds[rounds.index("--hardware-budget") + 1], "16")
        self.assertNotIn("--batch", rounds)  # the flag's own rounds
        self.assertNotIn("--recheck", rounds)
        rechecked = by_db["hardware16-recheck-s1.db"]
        self.assertEqual(rechecked[rechecked.index("--hardware-budget") + 1], "16")
        self.assertEqual(rechecked[rechecked.index("--recheck") + 1], "4")
        self.assertEqual(rechecked[rechecked.index("--cost-model") + 1], "M.json")
        self.assertNotIn("--budget", rounds)  # the two flags exclude each other
        self.assertNotIn("--tuner-option", rounds)
        diverse = by_db["hardware16-diverse-s1.db"]
        self.assertEqual(diverse[diverse.index("--hardware-budget") + 1], "16")
        self.assertEqual(diverse[diverse.index("--tuner-option") + 1],
                         "diversity_filter_ratio=2")
        one_round = by_db["hardware16-oneround-s1.db"]
        self.assertEqual(one_round[one_round.index("--batch") + 1], "16")
        self.assertEqual(one_round[one_round.index("--cost-model") + 1], "M.json")
        transfer = by_db["hardware16-transfer-s1.db"]
        self.assertEqual(transfer[transfer.index("--cost-model") + 1], "X.json")
        self.assertEqual(transfer[transfer.index("--hardware-budget") + 1], "16")
        mean = by_db["hardware16-mean-s1.db"]
        self.assertEqual(mean[mean.index("--cost-model") + 1], "M.json+X.json")
        with open(os.path.join(self.out, "hardware16-choose-s1.log")) as f:
            self.assertEqual(f.read(), "# conv2d:a\nchose a model for conv2d:a\n"
                                       "# dense:b\nchose a model for dense:b\n")
        choose = by_db["hardware16-choose-s1.db"]
        self.assertEqual(choose[choose.index("--cost-model") + 1], "M.json+X.json")
        self.assertEqual(choose[choose.index("--tuner-option") + 1], "pretrained=choose")
        self.assertEqual(choose[choose.index("--hardware-budget") + 1], "16")
        self.assertNotIn("--tuner-option", mean)
        cold = by_db["xgb-s1.db"]
        self.assertEqual(cold[cold.index("--budget") + 1], "64")
        self.assertNotIn("--cost-model", cold)
        # AutoTVM's tuner has no template seeds; glimpse's tuners with a model keep them.
        self.assertEqual(cold[cold.index("--template-seeds") + 1], "0")
        self.assertNotIn("--template-seeds", choose)

    def test_learned_noseeds_is_the_learned_run_without_template_seeds(self):
        done = self.study("run", "--ops", self.ops, "--model", "M.json", "--out", self.out,
                          "--seeds", "1", "--strategies", "learned,learned-noseeds")
        self.assertEqual(done.returncode, 0, done.stderr)
        by_db = {os.path.basename(c[c.index("--db") + 1]): c for c in self.calls()
                 if c[c.index("--op") + 1] == "conv2d:a"}
        learned, noseeds = by_db["learned-s1.db"], by_db["learned-noseeds-s1.db"]
        self.assertEqual(noseeds[noseeds.index("--cost-model") + 1], "M.json")
        seeds_flag = noseeds.index("--template-seeds")
        self.assertEqual(noseeds[seeds_flag + 1], "0")
        self.assertNotIn("--template-seeds", learned)
        # Otherwise the same command: drop the flag and its value, and the databases' names.
        without = noseeds[:seeds_flag] + noseeds[seeds_flag + 2:]
        db = lambda call: call.index("--db") + 1
        self.assertEqual(without[:db(without)] + without[db(without) + 1:],
                         learned[:db(learned)] + learned[db(learned) + 1:])

    def test_learned16_recheck_spends_12_then_measures_its_4_fastest_again(self):
        done = self.study("run", "--ops", self.ops, "--model", "M.json", "--out", self.out,
                          "--seeds", "1", "--budget", "96", "--strategies", "learned16-recheck")
        self.assertEqual(done.returncode, 0, done.stderr)
        call = next(c for c in self.calls() if c[c.index("--op") + 1] == "conv2d:a")
        self.assertEqual(call[call.index("--cost-model") + 1], "M.json")
        self.assertEqual(call.count("--budget"), 1)  # its own 12, not the study's 96
        self.assertEqual(call[call.index("--budget") + 1], "12")
        self.assertEqual(call[call.index("--recheck") + 1], "4")
        summary = self.study("summarize", "--out", self.out, "--json",
                             os.path.join(self.dir.name, "s.json"))
        self.assertEqual(summary.returncode, 0, summary.stderr)
        with open(os.path.join(self.dir.name, "s.json")) as f:
            row = json.load(f)["operators"]["conv2d:a"]["strategies"]["learned16-recheck"]
        # 16 records, all at the run's own best: quality 1 from the first; nothing at 32.
        self.assertEqual(row["quality_at"]["16"], 1.0)
        self.assertIsNone(row["quality_at"]["32"])

    def test_strategies_on_the_xgboost_model_need_its_file(self):
        done = self.study("run", "--ops", self.ops, "--model", "M.json", "--out", self.out,
                          "--strategies", "hardware16-transfer")
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("hardware16-transfer need --xgb-model", done.stderr)
        self.assertFalse(os.path.exists(self.log))  # refused before any run

    def test_default_strategies_leave_out_those_on_the_missing_xgboost_model(self):
        done = self.study("run", "--ops", self.ops, "--model", "M.json", "--out", self.out,
                          "--seeds", "1", "--budget", "8")
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(os.path.join(self.out, "study.json")) as f:
            strategies = json.load(f)["strategies"]
        self.assertIn("hardware16-oneround", strategies)
        self.assertNotIn("hardware16-transfer", strategies)
        self.assertNotIn("hardware16-mean", strategies)
        self.assertNotIn("hardware16-choose", strategies)
        self.assertNotIn("xgb-transfer", strategies)

    def test_summary_counts_against_the_fixed_budget_of_16(self):
        done = self.study("run", "--ops", self.ops, "--model", "M.json", "--out", self.out,
                          "--seeds", "1,2", "--strategies", "hardware16-oneround,xgb")
        self.assertEqual(done.returncode, 0, done.stderr)
        report_path = os.path.join(self.out, "summary.json")
        done = self.study("summarize", "--out", self.out, "--json", report_path)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(report_path) as f:
            summary = json.load(f)["summary"]
        hardware, cold = summary["hardware16-oneround"], summary["xgb"]
        self.assertEqual(hardware["operators"], 2)
        self.assertEqual(hardware["reached_95"], 1)  # the convolution, at its 4th of 16
        # Never reached on the dense layer: counted as 16 + 1, not as --budget + 1.
        self.assertEqual(hardware["to_level"]["0.95"], (4 + 17) / 2)
        self.assertEqual(hardware["quality_at"]["8"], 0.75)  # 1.0 and 0.5
        self.assertIsNone(hardware["quality_at"]["32"])  # it stopped at 16
        self.assertEqual(cold["to_level"]["0.95"], 40)
        self.assertEqual(cold["quality_at"]["32"], 0.5)
        self.assertEqual(hardware["xgb_to_95_ratio"], 10.0)  # 40 / 4, on the convolution only
        self.assertIn("| hardware16-oneround | 2 | 1 | 10.5 | 10.5 | 10.5 |", done.stdout)
        self.assertIn("| `dense:b` | hardware16-oneround | > 16 | > 16 | > 16 |", done.stdout)

    def test_a_label_runs_the_strategies_on_other_models_beside_the_first(self):
        done = self.study("run", "--ops", self.ops, "--model", "M.json", "--out", self.out,
                          "--seeds", "1", "--strategies", "hardware16,xgb")
        self.assertEqual(done.returncode, 0, done.stderr)
        done = self.study("run", "--ops", self.ops, "--model", "M2.json", "--xgb-model", "X2.json",
                          "--out", self.out, "--seeds", "1", "--label", "here",
                          "--strategies", "hardware16,hardware16-transfer")
        self.assertEqual(done.returncode, 0, done.stderr)
        by_db = {os.path.basename(c[c.index("--db") + 1]): c for c in self.calls()
                 if c[c.index("--op") + 1] == "conv2d:a"}
        self.assertEqual(sorted(by_db), ["hardware16-s1.db", "hardware16-transfer@here-s1.db",
                                         "hardware16@here-s1.db", "xgb-s1.db"])
        first, labelled = by_db["hardware16-s1.db"], by_db["hardware16@here-s1.db"]
        self.assertEqual(first[first.index("--cost-model") + 1], "M.json")
        self.assertEqual(labelled[labelled.index("--cost-model") + 1], "M2.json")
        self.assertEqual(labelled[labelled.index("--hardware-budget") + 1], "16")
        with open(os.path.join(self.out, "study.json")) as f:
            study = json.load(f)
        self.assertEqual(study["strategies"],
                         ["hardware16", "xgb", "hardware16@here", "hardware16-transfer@here"])
        self.assertEqual(study["model"], "M.json")  # the unlabelled runs' file is kept
        self.assertEqual(study["labels"], {"here": {"model": "M2.json", "xgb_model": "X2.json"}})
        report_path = os.path.join(self.out, "summary.json")
        done = self.study("summarize", "--out", self.out, "--json", report_path)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(report_path) as f:
            summary = json.load(f)["summary"]
        # A labelled hardware16 run is counted against 16 like its strategy: the dense layer's
        # "never" (xgb found its best time there) is 17, not --budget + 1.
        self.assertEqual(summary["hardware16@here"]["to_level"]["0.95"], (4 + 17) / 2)

    def test_a_label_with_a_separator_is_refused(self):
        done = self.study("run", "--ops", self.ops, "--model", "M.json", "--out", self.out,
                          "--strategies", "hardware16", "--label", "a@b")
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("--label 'a@b' must be a non-empty name", done.stderr)
        self.assertFalse(os.path.exists(self.log))

    def test_drift_bins_each_measurement_against_its_configurations_median(self):
        os.makedirs(self.out)
        at = lambda hour, minute: datetime.datetime(2026, 12, 2, hour, minute,
                                                    tzinfo=datetime.timezone.utc).timestamp()
        record = lambda config, started, time, status="ok": {
            "type": "record", "workload_key": "w", "config_hash": config, "status": status,
            "time_s": time, "started_at": started}
        runs = {  # configuration "a" timed 3 times over two runs, "b" only twice
            "xgb-s1.db": [record("a", at(4, 50), 1.0), record("b", at(4, 51), 5.0),
                          record("a", at(5, 5), 1.0)],
            "random-s1.db": [record("a", at(5, 20), 2.0), record("b", at(5, 21), 9.0),
                             record("a", at(5, 22), None, status="error")],
        }
        for name, records in runs.items():
            with open(os.path.join(self.out, name), "w") as f:
                f.write(json.dumps({"type": "workload", "key": "w", "name": "conv2d:a"}) + "\n")
                f.writelines(json.dumps(r) + "\n" for r in records)
        done = self.study("drift", "--out", self.out)
        self.assertEqual(done.returncode, 0, done.stderr)
        # "a"'s median is 1.0; "b" (2 measurements) and the failed run are left out.
        self.assertEqual(done.stdout.splitlines(), [
            "04:45 1 median ratio 1.000  p10 1.000  p90 1.000",
            "05:00 1 median ratio 1.000  p10 1.000  p90 1.000",
            "05:15 1 median ratio 2.000  p10 2.000  p90 2.000"])

    def write_recheck_study(self):
        """A committed study's folder: study.json and two runs' gzipped exports. The learned run
        measured x=2 fastest (1.0 s, in a fast spell); the xgb run measured x=3 first, at 3.0 s
        in a slow spell. Re-timed side by side (the fake bench), x=3 is the fastest."""
        os.makedirs(self.out)
        with open(os.path.join(self.out, "study.json"), "w") as f:
            json.dump({"ops": ["conv2d:a"], "canonical": {}, "strategies": ["learned", "xgb"],
                       "seeds": [1], "budget": 3}, f)
        record = lambda x, time, status="ok": {
            "type": "record", "workload_key": "w", "status": status, "time_s": time,
            "config": {"x": x}}
        runs = {"learned-s1": [record(1, 2.0), record(2, 1.0), record(3, 1.5)],
                "xgb-s1": [record(3, 3.0), record(1, 2.5), record(4, None, status="error")]}
        for name, records in runs.items():
            with gzip.open(os.path.join(self.out, name + ".jsonl.gz"), "wt") as f:
                f.write(json.dumps({"type": "workload", "key": "w", "name": "conv2d:a"}) + "\n")
                f.writelines(json.dumps(r) + "\n" for r in records)
        # Each configuration's re-timed milliseconds on pass 1 and pass 2.
        bench = os.path.join(self.dir.name, "bench")
        with open(bench, "w") as f:
            f.write(f"#!{sys.executable}\n" + FAKE_BENCH)
        os.chmod(bench, 0o755)
        return bench

    def test_recheck_rates_each_runs_incumbents_by_their_times_side_by_side(self):
        bench = self.write_recheck_study()
        # By the runs' own times the learned run is ahead: its 1.0 s is the best known, and the
        # xgb run's best (3.0 s) reads a third of it.
        measured = os.path.join(self.out, "measured.json")
        done = self.study("summarize", "--out", self.out, "--json", measured)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(measured) as f:
            rows = json.load(f)["operators"]["conv2d:a"]["strategies"]
        self.assertEqual(rows["xgb"]["to_level"]["0.90"], 4)  # never: budget + 1
        self.assertEqual(rows["learned"]["to_level"]["0.99"], 2)
        retimed = os.path.join(self.out, "retimed.json")
        done = self.study("recheck", "--out", self.out, "--passes", "2", "--bench", bench,
                          "--json", retimed)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(retimed) as f:
            report = json.load(f)
        # Only the incumbents are re-timed (x=1, 2 of the learned run, x=3 of the xgb run; not
        # x=4, which failed), each at its fastest pass.
        self.assertEqual(report["retimed"]["conv2d:a"],
                         {json.dumps({"x": 3}): 0.001, json.dumps({"x": 2}): 0.00125,
                          json.dumps({"x": 1}): 0.002})
        with open(os.path.join(self.dir.name, "calls")) as f:
            self.assertEqual(f.read().split(), ["3", "3"])  # two passes of three
        # Every pass's time is kept, in pass order, for crossfit.py --split.
        self.assertEqual(report["passes"]["conv2d:a"],
                         {json.dumps({"x": 1}): [0.0025, 0.002],
                          json.dumps({"x": 2}): [0.0015, 0.00125],
                          json.dumps({"x": 3}): [0.001, 0.0011]})
        self.assertEqual(report["operators"]["conv2d:a"]["best_known_s"], 0.001)
        rows = report["operators"]["conv2d:a"]["strategies"]
        # xgb's incumbent from its first measurement on is the fastest: 1.0 at 1.
        self.assertEqual(rows["xgb"]["to_level"], {"0.90": 1, "0.95": 1, "0.99": 1})
        # The learned run's incumbents read 0.001 / 0.002 = 0.5, then 0.001 / 0.00125 = 0.8.
        self.assertEqual(rows["learned"]["to_level"], {"0.90": 4, "0.95": 4, "0.99": 4})
        self.assertIn("| `conv2d:a` | learned | > 3 | > 3 | > 3 |", done.stdout)

    def test_recheck_only_retimes_the_strategies_named(self):
        bench = self.write_recheck_study()
        retimed = os.path.join(self.out, "retimed.json")
        done = self.study("recheck", "--out", self.out, "--passes", "2", "--bench", bench,
                          "--json", retimed, "--only", "xgb")
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(retimed) as f:
            report = json.load(f)
        # Only the xgb run's incumbents (x=3, then x=1) are timed, and only xgb is scored.
        self.assertEqual(report["passes"]["conv2d:a"], {json.dumps({"x": 1}): [0.0025, 0.002],
                                                        json.dumps({"x": 3}): [0.001, 0.0011]})
        self.assertEqual(list(report["operators"]["conv2d:a"]["strategies"]), ["xgb"])
        done = self.study("recheck", "--out", self.out, "--bench", bench, "--only", "xgb,nope")
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("--only nope: not a strategy", done.stderr)

    def test_recheck_adds_another_retimings_fastest_to_the_best_known(self):
        bench = self.write_recheck_study()
        earlier = os.path.join(self.out, "earlier.json")
        with open(earlier, "w") as f:  # x=5 and x=6 fastest there; x=2 slower
            json.dump({"retimed": {"conv2d:a": {json.dumps({"x": 6}): 0.0009,
                                                json.dumps({"x": 2}): 0.003,
                                                json.dumps({"x": 5}): 0.0004}}}, f)
        retimed = os.path.join(self.out, "retimed.json")
        done = self.study("recheck", "--out", self.out, "--passes", "2", "--bench", bench,
                          "--json", retimed, "--only", "xgb", "--best-from", earlier,
                          "--best-top", "2")
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(retimed) as f:
            report = json.load(f)
        # The earlier re-timing's two fastest (x=5, x=6) are timed beside xgb's incumbents (x=3,
        # x=1): x=5's 0.5 ms is the best known, so xgb's incumbents (0.5 / 1.0, then 0.5 / 2.0)
        # never reach 90 %, where without them x=3 was the best known from its first measurement.
        self.assertEqual(report["retimed"]["conv2d:a"],
                         {json.dumps({"x": 5}): 0.0005, json.dumps({"x": 6}): 0.0007,
                          json.dumps({"x": 3}): 0.001, json.dumps({"x": 1}): 0.002})
        self.assertEqual(report["operators"]["conv2d:a"]["best_known_s"], 0.0005)
        self.assertEqual(report["operators"]["conv2d:a"]["strategies"]["xgb"]["to_level"],
                         {"0.90": 4, "0.95": 4, "0.99": 4})
        self.assertEqual(report["recheck"]["best_top"], 2)
        done = self.study("recheck", "--out", self.out, "--bench", bench, "--best-from",
                          os.path.join(self.out, "study.json"))
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("study.json: not a re-timing's --json file", done.stderr)

    def test_recheck_refuses_a_missing_bench_before_measuring(self):
        self.write_recheck_study()
        done = self.study("recheck", "--out", self.out, "--bench",
                          os.path.join(self.dir.name, "no-bench"))
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("no-bench is not an executable", done.stderr)


# A stand-in for bench_cpu_templates: one row per --config, its time by the configuration's "x"
# and the call (pass) number; it writes the count of configurations of each call to "calls".
FAKE_BENCH = r'''
import json, os, sys
MS = {1: [2.5, 2.0], 2: [1.5, 1.25], 3: [1.0, 1.1], 5: [0.5, 0.6], 6: [0.8, 0.7]}
args = sys.argv[1:]
configs = [json.loads(args[i + 1]) for i, a in enumerate(args) if a == "--config"]
op = args[args.index("--op") + 1]
calls = os.path.join(os.path.dirname(os.path.abspath(__file__)), "calls")
done = open(calls).read().split() if os.path.exists(calls) else []
with open(calls, "a") as f:
    f.write(f"{len(configs)}\n")
for config in configs:
    print(f"| {op} | 1 given | 1/1 | 1.0 | 1 % | 1.0 | {MS[config['x']][len(done)]:.4f} ms | 0 s |")
'''


if __name__ == "__main__":
    unittest.main()
