"""glimpse: an auto-tuner for tensor programs that knows the hardware it tunes for.

The C++ core's spaces, strategies, recorded spaces, database and tuning loop, as Python objects
(docs/python.md). glimpse.kernel_tuner makes glimpse a Kernel Tuner strategy, glimpse.optuna an
Optuna sampler, glimpse.ray spreads measurements over a Ray cluster.
"""

import os as _os

_here = _os.path.dirname(_os.path.abspath(__file__))


def _use_packaged(variable, path):
    # An installed wheel carries the data folder and the measurement workers beside the module;
    # the C++ core finds them through these variables (a user's own setting wins).
    if _os.path.exists(path) and not _os.environ.get(variable):
        _os.environ[variable] = path


_use_packaged("GLIMPSE_DATA_DIR", _os.path.join(_here, "data"))
_use_packaged("GLIMPSE_CPU_WORKER", _os.path.join(_here, "bin", "glimpse_cpu_worker"))
_use_packaged("GLIMPSE_GPU_WORKER", _os.path.join(_here, "bin", "glimpse_gpu_worker"))

from ._core import (  # noqa: E402
    Database,
    Error,
    Measurer,
    RecordedSpace,
    Space,
    Tuner,
    data_dir,
    gpu,
    known_gpus,
    known_tuners,
    load_recorded,
    local_cpu,
    status_names,
    tune,
    tune_recorded,
    tuner_description,
)

__version__ = "0.1.0"

__all__ = [
    "Database",
    "Error",
    "Measurer",
    "RecordedSpace",
    "Space",
    "Tuner",
    "data_dir",
    "gpu",
    "known_gpus",
    "known_tuners",
    "load_recorded",
    "local_cpu",
    "status_names",
    "tune",
    "tune_recorded",
    "tuner_description",
]
