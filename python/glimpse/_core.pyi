"""glimpse's C++ core (docs/python.md); import glimpse, not this module"""

from collections.abc import Sequence
from typing import Annotated

import numpy
from numpy.typing import NDArray


class Error(ValueError):
    pass

class Space:
    """A search space: knobs (Kernel Tuner's tune_params) and restrictions."""

    def __init__(self, tune_params: dict, restrictions: Sequence[str] = []) -> None:
        """
        tune_params: {name: [values]} (ints/floats → an ordered knob, any str → categorical); restrictions: Kernel Tuner expressions over the names, e.g. 'block_x * block_y <= 1024'.
        """

    @staticmethod
    def from_json(json: object) -> Space:
        """A space from the JSON that to_json() (and glimpse's files) write."""

    def to_json(self) -> object: ...

    @property
    def knob_names(self) -> list[str]: ...

    @property
    def tune_params(self) -> dict: ...

    @property
    def restrictions(self) -> list[str]: ...

    @property
    def raw_size(self) -> int:
        """The product of the knobs' sizes (restrictions ignored)."""

    def count_valid(self) -> int:
        """
        The number of configurations that satisfy every restriction (enumerates).
        """

    def is_valid(self, config: object) -> bool: ...

    def sample(self, n: int, seed: int = 0) -> list:
        """
        n configurations drawn uniformly from the valid ones (with replacement).
        """

    def neighbours(self, config: object) -> list:
        """The valid configurations one knob step away."""

    def features(self, configs: list, kind: str = 'values') -> Annotated[NDArray[numpy.float64], dict(shape=(None, None))]:
        """
        A numpy array (len(configs) × width) of the configurations' knob features.
        """

    def feature_names(self, kind: str = 'values') -> list[str]: ...

    def config_string(self, config: object) -> str: ...

    def __repr__(self) -> str: ...

def known_tuners() -> list[str]:
    """The registered strategies' names, sorted."""

def tuner_description(name: str) -> str: ...

def status_names() -> list[str]:
    """The statuses a measurement may have: 'ok' and the failures."""

class Tuner:
    """
    A strategy over a Space: propose(n) → configurations, observe(configs, times) → it learns.
    """

    def __init__(self, name: str, space: Space, options: object | None = None, seed: int = 0, device: str = '', kernel: str = '', history: object | None = None) -> None:
        """
        name: one of known_tuners(); options: the strategy's options (as --tuner-option); device: the GPU's name (any name the GPU table knows: the hardware-aware strategies read its Blueprint); kernel: the kernel space the pretrained models know it by ('gemm', 'convolution_milo', …); history: (config, seconds or None) measured elsewhere, for the strategies that learn from history.
        """

    def propose(self, n: int) -> list:
        """
        At most n new valid configurations; fewer only when the space is exhausted.
        """

    def observe(self, configs: list, times: list, statuses: object | None = None) -> None:
        """
        Measured results: times in seconds, None for a failure (statuses: its status names, 'unknown' when omitted).
        """

    @property
    def name(self) -> str: ...

    @property
    def space(self) -> Space: ...

    def __repr__(self) -> str: ...

class RecordedSpace:
    """
    A space measured on one device, read from a Kernel Tuner cache (.json or .json.gz) or a T4 results file.
    """

    @property
    def path(self) -> str: ...

    @property
    def device_name(self) -> str: ...

    @property
    def kernel_name(self) -> str: ...

    @property
    def problem_size(self) -> object: ...

    @property
    def space(self) -> Space: ...

    def __len__(self) -> int: ...

    def counts(self) -> dict:
        """Entries by status."""

    def best(self) -> object:
        """(config, seconds) of the fastest ok entry, or None."""

    def lookup(self, config: object) -> object:
        """
        The entry of a configuration: {status, time_s (None unless ok), samples_s, compile_time_s, benchmark_time_s}, or None when the file lacks it.
        """

    def entries(self) -> list:
        """Every (config, entry) pair, in no particular order."""

    def __repr__(self) -> str: ...

def load_recorded(path: str, t1: str = '', device: str = '', restrictions: Sequence[str] = []) -> RecordedSpace:
    """
    Reads a recorded space. t1: a T1 file with the knobs and restrictions; device: names the GPU when the file does not; restrictions: extra Kernel Tuner expressions.
    """

class Database:
    """A glimpse tuning database (SQLite file)."""

    def __init__(self, path: str, read_only: bool = False) -> None:
        """Opens (creating unless read_only) the database at path."""

    @property
    def path(self) -> str: ...

    def put_workload(self, workload: object) -> None:
        """Adds the workload unless its key is there already."""

    def commit(self, records: list) -> list[int]:
        """
        Appends records in one transaction (all or none); returns their ids. A record: workload_key, device, config, status, time_s, samples_s, compile_time_s, cost_s, error, strategy, started_at, finished_at.
        """

    def workloads(self) -> list:
        """
        Every workload: {key, name, description, space (Space.from_json reads it)}.
        """

    def summaries(self) -> list:
        """One line per workload × device, as `glimpse db list` prints them."""

    def records(self, workload_key: str, device: str = '') -> list:
        """The records of a workload (on one device, or all), in commit order."""

    def best(self, workload_key: str, device: str = '', k: int = 1) -> list:
        """The k fastest ok records, one per configuration, fastest first."""

    def export_jsonl(self, path: str, key_prefix: str = '') -> int:
        """
        Writes the workloads and their records as JSON lines; returns the number of records.
        """

    def __repr__(self) -> str: ...

def gpu(name: str) -> object:
    """
    The GPU table's entry for any name a driver, a tool or a file reports ('NVIDIA GeForce RTX 3090', 'RTX_3090', 'A100'), as a dict; an unknown name raises glimpse.Error listing the closest ones.
    """

def known_gpus() -> list[str]:
    """The GPU table's canonical names."""

def local_cpu() -> object:
    """This machine's CPU: model, cores, caches, vector ISA."""

def data_dir() -> str:
    """The data folder glimpse reads (GPU table, models)."""

def tune(op: str, target: str = 'cpu', tuner: str = 'xgb', budget: int = 64, seed: int = 0, database: str = '', tuner_options: object | None = None, batch_size: int = 16, timeout_s: float = 0.0, threads: int = 0, build_only: bool = False, arch: str = '', progress: bool = False) -> dict:
    """
    Tunes one operator ('dense:M=64,N=64,K=64', as `glimpse tune --op` reads it) on this CPU or an NVIDIA GPU (build_only: compile and check against the device's limits, no run). database: a path whose records are resumed and added to ('' keeps none). Returns the summary: best_config, best_time_s, measurements, failed, by_status, stop_reason, trajectory [(measurement, seconds so far, best time)].
    """

def tune_recorded(recorded: RecordedSpace, tuner: str = 'glimpse', budget: int = 64, seed: int = 0, database: str = '', tuner_options: object | None = None, batch_size: int = 16, noise: bool = False, progress: bool = False) -> dict:
    """
    Tunes a recorded space (load_recorded) by replaying its measurements: what a run on its device would have found, and its simulated tuning time.
    """

class Measurer:
    """
    Builds and measures configurations of one operator on a target (cpu, cuda, or a recorded space replayed).
    """

    def __init__(self, op: str = '', target: str = 'cpu', recorded: str = '', threads: int = 0, timeout_s: float = 0.0, build_only: bool = False, arch: str = '', pace_ms: float = 0.0) -> None:
        """
        op: an operator ('dense:M=64,N=64,K=64') for cpu/cuda; recorded: a recorded space for target 'replay' (pace_ms: real milliseconds per replayed measurement).
        """

    def measure(self, configs: list) -> list:
        """
        Builds and measures the configurations; one result dict per configuration: status, time_s (None unless ok), samples_s, compile_time_s, cost_s, error, started_at, finished_at. A failing candidate is a result, never an exception.
        """

    @property
    def workload(self) -> dict:
        """The task as the database keeps it: key, name, description, space."""

    @property
    def device(self) -> str: ...

    @property
    def space(self) -> Space: ...
