"""Measurements spread over a Ray cluster.

    import ray, glimpse.ray
    ray.init(address="auto")                                  # or ray.init() on one machine
    summary = glimpse.ray.tune("conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,pad=1",
                               target="cuda", workers=4, actor_options={"num_gpus": 1},
                               database="tuning.db", budget=256)

Each worker is a Ray actor holding a glimpse.Measurer (its own builder, runner and kernel folder),
placed by Ray where its resources are (``actor_options``: ``num_gpus=1`` puts one per GPU). The
tuning loop and the database stay on the driver: a batch the strategy proposes is split over the
live workers, their results are committed in one transaction, then observed.

A worker lost mid-batch (its process or machine gone) loses nothing recorded: its part of the
batch is measured again on another worker (``retries`` times), and when none is left to take it,
its configurations are recorded as failed measurements (status "unknown", "worker lost: …").
Rerunning the same call resumes from the database: its records count towards the budget and are
given to the strategy, never measured again.
"""

import time

from . import _core

_ACTOR_CLASS = None


def _actor_class():
    # Defined on first use, so that importing glimpse.ray needs Ray only when it is used.
    global _ACTOR_CLASS
    if _ACTOR_CLASS is None:
        import ray

        @ray.remote
        class MeasureWorker:
            def __init__(self, measurer_options, fail_after=None):
                from glimpse import _core as core

                self._measurer = core.Measurer(**measurer_options)
                self._fail_after = fail_after  # tests: the process exits on this call
                self._calls = 0

            def workload(self):
                return self._measurer.workload, self._measurer.device

            def measure(self, configs):
                self._calls += 1
                if self._fail_after is not None and self._calls >= self._fail_after:
                    import os

                    os._exit(1)  # a worker lost mid-batch, as a crash or a lost node is
                return self._measurer.measure(configs)

        _ACTOR_CLASS = MeasureWorker
    return _ACTOR_CLASS


def _split(configs, parts):
    chunks = [configs[i::parts] for i in range(parts)]
    return [chunk for chunk in chunks if chunk]


def tune(op="", *, target="cpu", recorded="", tuner="xgb", budget=64, seed=0, database="",
         tuner_options=None, batch_size=16, workers=2, actor_options=None, retries=1,
         measurer_options=None, _fail_after=None):
    """Tunes one operator (or a recorded space, target="replay") with its measurements spread over
    `workers` Ray actors; returns a summary dict like glimpse.tune's, plus the workers lost."""
    import ray

    if workers < 1:
        raise ValueError(f"workers must be ≥ 1 (got {workers})")
    if budget < 1:
        raise ValueError(f"budget must be ≥ 1 (got {budget})")
    options = dict(measurer_options or {})
    options.update(op=op, target=target, recorded=recorded)
    actor = _actor_class().options(**(actor_options or {}))
    fail_after = list(_fail_after or [])
    pool = [actor.remote(options, fail_after[i] if i < len(fail_after) else None)
            for i in range(workers)]
    workload, device = ray.get(pool[0].workload.remote())
    space = _core.Space.from_json(workload["space"])
    strategy = _core.Tuner(tuner, space, tuner_options, seed=seed, device=device)
    db = _core.Database(database) if database else None

    measured, failed, by_status, best = 0, 0, {}, (None, None)
    resumed = 0
    if db is not None:
        db.put_workload(workload)
        earlier = db.records(workload["key"], device)
        if earlier:
            strategy.observe([r["config"] for r in earlier], [r["time_s"] for r in earlier],
                             [r["status"] for r in earlier])
            resumed = len(earlier)
            for r in earlier:
                if r["time_s"] is not None and (best[1] is None or r["time_s"] < best[1]):
                    best = (r["config"], r["time_s"])
    measured = resumed
    lost = []
    started = time.time()
    while measured < budget:
        batch = strategy.propose(min(batch_size, budget - measured))
        if not batch:
            break
        results = _measure_spread(batch, pool, lost, retries)
        records = []
        for config, result in zip(batch, results):
            by_status[result["status"]] = by_status.get(result["status"], 0) + 1
            if result["time_s"] is None:
                failed += 1
            elif best[1] is None or result["time_s"] < best[1]:
                best = (config, result["time_s"])
            records.append(dict(result, workload_key=workload["key"], device=device,
                                config=config, strategy=tuner))
        if db is not None:
            db.commit(records)  # before observing: a killed driver loses no measurement
        strategy.observe(batch, [r["time_s"] for r in results], [r["status"] for r in results])
        measured += len(batch)
    return {"measurements": measured, "resumed": resumed, "failed": failed,
            "by_status": by_status, "best_config": best[0], "best_time_s": best[1],
            "elapsed_s": time.time() - started, "workers": workers, "workers_lost": len(lost),
            "lost_errors": lost, "workload_key": workload["key"], "device": device}


def _measure_spread(batch, pool, lost, retries):
    """Results of `batch` in its order, measured on the live workers of `pool` (which loses the
    ones that die)."""
    import ray

    results = [None] * len(batch)
    pending = [(list(range(len(batch))), 0)]  # (positions in batch, tries so far)
    while pending:
        if not pool:
            for positions, _ in pending:
                for i in positions:
                    results[i] = _lost_result("no worker left: " + "; ".join(lost[-1:]))
            break
        parts = []
        for positions, tries in pending:
            for chunk in _split(positions, len(pool)):
                parts.append((chunk, tries))
        pending = []
        futures = []
        for n, (chunk, tries) in enumerate(parts):
            worker = pool[n % len(pool)]
            futures.append((worker, chunk, tries,
                            worker.measure.remote([batch[i] for i in chunk])))
        for worker, chunk, tries, future in futures:
            try:
                for i, result in zip(chunk, ray.get(future)):
                    results[i] = result
            except ray.exceptions.RayActorError as error:
                message = str(error).splitlines()[0] if str(error) else type(error).__name__
                if worker in pool:
                    pool.remove(worker)
                    lost.append(message)
                if tries < retries:
                    pending.append((chunk, tries + 1))
                else:
                    for i in chunk:
                        results[i] = _lost_result(message)
    return results


def _lost_result(message):
    now = time.time()
    return {"status": "unknown", "time_s": None, "samples_s": [], "compile_time_s": 0.0,
            "cost_s": 0.0, "error": "worker lost: " + message, "started_at": now,
            "finished_at": now}
