#!/usr/bin/env python3
"""Build data/hardware/gpus.json, glimpse's GPU specification table.

Standard library only. Inputs:
  - the Wikipedia scrape ../shared/reference/gpu-specs/wikipedia-gpu-lists.json.gz (raw material:
    one dict per table row, column names that vary between tables);
  - scripts/hardware/arch_facts.json: per-architecture facts (cores, registers, shared memory,
    threads per SM by NVIDIA compute capability or AMD ISA generation), with their sources;
  - scripts/hardware/gpu_catalog.json: the GPUs, the names their drivers report, aliases, the
    scrape row of each, and per-GPU figures that replace or fill in the scrape's ("set");
  - scripts/hardware/chip_facts.json: chip -> architecture, AMD target and L2, for the scrape rows
    the catalog does not name, which become entries of their own when they pass the same checks
    (derive_entries; the rows left out are counted by reason).
Every figure of the output names its source. The script refuses to write a table where a GPU
lacks a field, where the SM count disagrees with the scrape's own count, or where a headline
FLOP/s figure is far from 2 x cores x clock (a sign of a misread column).

  python3 scripts/hardware/build_gpu_table.py            # writes data/hardware/gpus.json
  python3 scripts/hardware/build_gpu_table.py --check    # exit 1 if the file is out of date,
                                                         # 77 if the scrape is not there

Map of this file:
  numbers, pick, to_bytes             parsing the scrape's cells ("29.28 35.58", "2 x 64", "6 MiB")
  ScrapeRow                           one scrape row: find a column by pattern, read a figure
  build_gpu                           one catalog entry -> one table entry (figures + sources)
  build_table, main                   the whole table, checks, output
"""

import argparse
import gzip
import json
import os
import re
import sys

FORMAT = "glimpse-gpu-specs"
SKIPPED = 77  # --check without the scrape: nothing to compare (CTest's SKIP_RETURN_CODE)
VERSION = 1

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_SCRAPE = os.path.join(os.path.dirname(REPO), "shared", "reference", "gpu-specs",
                              "wikipedia-gpu-lists.json.gz")
DEFAULT_OUT = os.path.join(REPO, "data", "hardware", "gpus.json")

SCRAPE_REFERENCE = ("Wikipedia, 'List of Nvidia graphics processing units' and 'List of AMD "
                    "graphics processing units' (CC BY-SA 4.0), as scraped by voidful/gpu-info-api "
                    "branch gpu-data, commit 03a6b34")

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30

# The numeric fields of a table entry, their units and meaning (copied into the output so that
# the file documents itself; docs/hardware.md says the same).
FIELDS = {
    "sm_count": ("count", "streaming multiprocessors (NVIDIA) or compute units (AMD) per device"),
    "cores_per_sm": ("count", "FP32 lanes per SM / CU"),
    "base_clock_mhz": ("MHz", "base (AMD: game or base) core clock"),
    "boost_clock_mhz": ("MHz", "boost (AMD: peak engine) core clock"),
    "memory_bus_width_bits": ("bits", "device memory interface width"),
    "memory_bandwidth_gb_per_s": ("GB/s (1e9 bytes/s)", "peak device memory bandwidth"),
    "memory_bytes": ("bytes", "device memory, nominal size x 2^30 per GB"),
    "l1_shared_per_sm_bytes": ("bytes", "on-chip L1 data cache + shared memory (LDS) per SM / CU"),
    "shared_memory_per_sm_bytes": ("bytes", "largest shared memory (LDS) configurable per SM / CU"),
    "shared_memory_per_block_bytes": ("bytes", "largest shared memory one block may use (opt-in)"),
    "l2_bytes": ("bytes", "L2 cache per device"),
    "l3_bytes": ("bytes", "last-level cache behind L2 (AMD Infinity Cache); 0 when none"),
    "registers_per_sm": ("count", "32-bit registers per SM / CU"),
    "max_threads_per_sm": ("count", "resident threads per SM / CU"),
    "max_threads_per_block": ("count", "threads per block"),
    "warp_size": ("count", "threads per warp / wavefront (AMD RDNA: native wave32)"),
    "fp32_flops": ("FLOP/s", "peak FP32 vector (non-matrix) throughput at the boost clock"),
    "fp16_flops": ("FLOP/s", "peak FP16 vector (non-tensor, non-matrix) throughput"),
}
STRING_FIELDS = ["architecture", "chip", "target", "compute_capability", "memory_type"]
ARCH_FIELDS = ["cores_per_sm", "max_threads_per_sm", "max_threads_per_block", "registers_per_sm",
               "warp_size"]
ARCH_KIB_FIELDS = {"shared_memory_per_sm_bytes": "shared_memory_per_sm_kib",
                   "shared_memory_per_block_bytes": "shared_memory_per_block_kib",
                   "l1_shared_per_sm_bytes": "l1_shared_per_sm_kib"}
INTEGRAL = {"sm_count", "cores_per_sm", "memory_bus_width_bits", "memory_bytes",
            "l1_shared_per_sm_bytes", "shared_memory_per_sm_bytes",
            "shared_memory_per_block_bytes", "l2_bytes", "l3_bytes", "registers_per_sm",
            "max_threads_per_sm", "max_threads_per_block", "warp_size"}


class BuildError(Exception):
    pass


# ---- Parsing the scrape's cells

def numbers(text):
    """All numbers in a cell: '8,227.8 8,872.9' -> [8227.8, 8872.9]; '2 × 64' -> [2, 64]."""
    text = str(text).replace("\u00ad", "")
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)  # thousands separators
    return [float(x) for x in re.findall(r"\d+(?:\.\d+)?", text)]


def pick(text, how):
    values = numbers(text)
    if not values:
        return None
    if " + " in str(text):
        return sum(values)  # GTX 970: "224 + 32" bits, "3.5 + 0.5" GiB, "196.3 + 28.0" GB/s
    if how == "first":
        return values[0]
    if how == "last":
        return values[-1]
    if how == "max":
        return max(values)
    raise ValueError(how)


def to_bytes(value):
    """'6 MiB' / '40 GiB' / '512 KiB' / 1234 -> bytes."""
    if isinstance(value, (int, float)):
        return int(value)
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(KiB|MiB|GiB|KB|MB|GB)\s*", value)
    if not m:
        raise BuildError(f"not a size: {value!r} (write e.g. '6 MiB')")
    scale = {"KiB": KIB, "MiB": MIB, "GiB": GIB, "KB": KIB, "MB": MIB, "GB": GIB}[m.group(2)]
    return int(round(float(m.group(1)) * scale))


class ScrapeRow:
    """One row of the scrape, with the columns the build reads, each found by pattern."""

    def __init__(self, key, row, vendor):
        self.key = key
        self.row = {k: v for k, v in row.items() if str(v) not in ("nan", "None", "")}
        self.vendor = vendor
        self.list_title = "Wikipedia GPU lists (NVIDIA)" if vendor == "nvidia" else \
            "Wikipedia GPU lists (AMD)"
        label = None
        for column in ("Model name", "Model", "Model (Code name)", "Code name"):
            if column in self.row:
                label = self.row[column]
                break
        if label is None:
            for column, value in self.row.items():
                if column.startswith("Model (Code name)"):
                    label = value
        if label is None:
            for column in ("Model (Codename)", "Model (codename)", "Branding and Model",
                           "Model name (Architecture)"):
                if column in self.row:
                    label = self.row[column]
                    break
        self.label = label or key

    def column(self, patterns):
        for pattern in patterns:
            for column, value in self.row.items():
                if re.search(pattern, column):
                    return column, value
        return None, None

    def source(self, column, note=""):
        text = f"{self.list_title}, row '{self.label}', column '{column}'"
        return text + (f" ({note})" if note else "")


# Column patterns per figure, tried in order. Wikipedia's tables name the same column differently
# for each generation and product line.
COLUMNS = {
    "shaders": [r"^Core [Cc]onfig", r"^Shaders CUDA cores \(total\)$"],
    "base_clock_mhz": [r"Base core clock \(MHz\)$", r"Base core \(MHz\)$",
                       r"^Clock [Ss]peeds Base \(MHz\)$", r"^Clock rate Base \(MHz\)$",
                       r"^Clock rate Core \(MHz\)$",
                       r"^Shaders Base clock \(MHz\)$", r"^Core [Cc]lock \(MHz\)$",
                       r"^Clock speed Core \(MHz\)$", r"^Clock rate \(MHz\) Core \(MHz\)$",
                       r"^Core Clock \(MHz\) Base$", r"^Clock Speeds Base \(MHz\)$"],
    "boost_clock_mhz": [r"Boost core clock \(MHz\)$", r"Boost core \(MHz\)$",
                        r"^Clock [Ss]peeds Boost \(MHz\)$", r"^Clock rate Average Boost \(MHz\)$",
                        r"^Shaders Max boost clock \(MHz\)$", r"^Boost clock \(MHz\)$",
                        r"^Core [Cc]lock \(MHz\)$", r"^Clock rate \(MHz\) Boost \(MHz\)$",
                        r"^Clock Speeds Boost \(MHz\)$", r"^Clock speeds Boost clock \(MHz\)$",
                        r"^Core Clock \(MHz\) Turbo$"],
    "memory_bandwidth_gb_per_s": [r"^Memory Bandwidth \(GB/s\)$",
                                  r"^Memory configuration Bandwidth \(GB/s\)$"],
    "memory_type": [r"^Memory Bus type$", r"^Memory configuration DRAM type$",
                    r"^Memory Bus type & width$", r"^Memory Bus type & width \(bit\)$",
                    r"^Memory Type$", r"^Memory RAM type$"],
    "memory_bus_width_bits": [r"^Memory Bus width \(bit\)$",
                              r"^Memory configuration Bus width \(bit\)$",
                              r"^Memory Bus type & width$", r"^Memory Bus width \(Bit\)$",
                              r"^Memory Bus type & width \(bit\)$"],
    "memory_bytes": [r"^Memory Size \(GiB\)$", r"^Memory configuration Size \(GiB\)$",
                     r"^Memory Size \(GB\)$", r"^Memory Size$", r"^Memory$",
                     r"^Memory Size \(MiB\)$", r"^Memory configuration Size \(MiB\)$"],
    "l2_bytes": [r"^L2 Cache \(MiB\)$", r"^Cache L2 \(MiB\)$"],
    "l3_bytes": [r"Infinity Cache( Infinity Cache)?( Size)?$", r"^Memory L3 cache$"],
    "fp32_flops": [r"^Processing power \((TFLOPS|GFLOPS)\) Single precision( \(MAD or FMA\))?$",
                   r"^Processing power \(?(TFLOPS|GFLOPS)\)? Single$",
                   r"^Processing power \(GFLOPS\)$", r"^Performance \(GFLOPS FP32\)$",
                   r"^Processing power \(GFLOPS\) Single precision \(Boost\)$"],
    "fp16_flops": [r"^Processing power \((TFLOPS|GFLOPS)\) Half precision$"],
    # Workstation rows' "Supported API version CUDA" mixes compute capabilities with CUDA versions,
    # so only the datacenter tables' column is trusted to check the catalog.
    "compute_capability": [r"^CUDA compute capability$"],
    "smx_count": [r"^SMX? count$"],
}


# ---- One GPU

def range_note(cell, how):
    if how == "max" and re.search(r"\d-\d", str(cell)):
        return "top of the range: the highest-power configuration"
    return ""


def scraped_figures(row):
    """The figures a scrape row gives: field -> (value, source)."""
    out = {}

    column, cell = row.column(COLUMNS["shaders"])
    if cell is not None:
        out["shaders"] = (pick(cell, "first"), row.source(column, "first number: FP32 lanes"))
        m = re.search(r"(\d+)\s*CU\b", str(cell))
        if m:
            out["cu_count"] = (int(m.group(1)), row.source(column, "compute units"))
        m = re.search(r"\((\d+)\)", str(cell))
        if m and row.vendor == "nvidia":
            out["sm_count_scraped"] = (int(m.group(1)), row.source(column, "SM count"))
    column, cell = row.column(COLUMNS["smx_count"])
    if cell is not None:
        out["sm_count_scraped"] = (int(pick(cell, "first")), row.source(column))

    column, cell = row.column(COLUMNS["base_clock_mhz"])
    if cell is not None:
        # Laptop ranges "817-1387": the highest-power configuration, as for the boost clock.
        how = "max" if re.search(r"Base core", column) else "first"
        out["base_clock_mhz"] = (pick(cell, how), row.source(column, range_note(cell, how)))
    column, cell = row.column(COLUMNS["boost_clock_mhz"])
    if cell is not None:
        # AMD's "Core Clock" cell is "base boost"; NVIDIA's H100 cell is "1980 CUDA 1830 TC".
        how = "last" if re.search(r"^Core [Cc]lock", column) else "first"
        if re.search(r"Boost core", column) or re.search(r"^Clock [Ss]peeds Boost", column):
            how = "max"  # laptop ranges "1282-1702": the highest-power configuration
        out["boost_clock_mhz"] = (pick(cell, how), row.source(column, range_note(cell, how)))

    column, cell = row.column(COLUMNS["memory_bandwidth_gb_per_s"])
    if cell is not None:
        out["memory_bandwidth_gb_per_s"] = (pick(cell, "last"), row.source(column))
    column, cell = row.column(COLUMNS["memory_type"])
    if cell is not None:
        m = re.search(r"(HBM\d?E?|GDDR\d+X?|DDR\d)", str(cell))
        if m:
            out["memory_type"] = (m.group(1), row.source(column))
    column, cell = row.column(COLUMNS["memory_bus_width_bits"])
    if cell is not None:
        if "&" in column:
            m = re.search(r"(\d+)[- ]?bit", str(cell))
            value = float(m.group(1)) if m else None
        else:
            value = pick(cell, "last")
        if value:
            out["memory_bus_width_bits"] = (value, row.source(column))
    column, cell = row.column(COLUMNS["memory_bytes"])
    if cell is not None:
        value = pick(cell, "last" if "×" in str(cell) else "first")
        if "MiB" in column:
            out["memory_bytes"] = (int(value * MIB), row.source(column))
        else:
            out["memory_bytes"] = (int(value * GIB),
                                   row.source(column, "nominal GB taken as GiB"))
    column, cell = row.column(COLUMNS["l2_bytes"])
    if cell is not None:
        out["l2_bytes"] = (int(pick(cell, "first") * MIB), row.source(column))
    if row.vendor == "amd":
        column, cell = row.column(COLUMNS["l3_bytes"])
        if cell is not None:
            out["l3_bytes"] = (int(pick(cell, "first") * MIB),
                               row.source(column, "MB taken as MiB"))
    column, cell = row.column(COLUMNS["fp32_flops"])
    if cell is not None:
        scale = 1e12 if "TFLOPS" in column else 1e9
        out["fp32_flops"] = (pick(cell, "max") * scale, row.source(column, "boost-clock figure"))
    column, cell = row.column(COLUMNS["fp16_flops"])
    if cell is not None:
        scale = 1e12 if "TFLOPS" in column else 1e9
        out["fp16_flops_scraped"] = (pick(cell, "max") * scale, row.source(column))
    column, cell = row.column(COLUMNS["compute_capability"])
    if cell is not None:
        out["cc_scraped"] = (str(cell), row.source(column))
    return {k: v for k, v in out.items() if v[0] is not None}  # "?" and "Unknown" cells


def build_gpu(entry, rows, facts, catalog_sources, warnings):
    name, vendor = entry["name"], entry["vendor"]
    figures, sources = {}, {}

    def put(field, value, source):
        figures[field] = value
        sources[field] = source

    scraped = {}
    if entry.get("row"):
        if entry["row"] not in rows:
            raise BuildError(f"{name}: scrape row {entry['row']!r} not found")
        scraped = scraped_figures(ScrapeRow(entry["row"], rows[entry["row"]], vendor))

    # Per-GPU figures from the catalog win over the scrape.
    overrides = {}
    for field, (value, source) in entry.get("set", {}).items():
        key, _, rest = source.partition(" ")
        if key in catalog_sources:  # "key" or "key (a note)"
            source = catalog_sources[key] + (" " + rest if rest else "")
        if field.endswith("_bytes"):
            value = to_bytes(value)
        overrides[field] = (value, source)

    arch_key = entry["arch"]
    arch_table = facts[vendor]
    if arch_key not in arch_table:
        raise BuildError(f"{name}: unknown architecture {arch_key!r}; known: "
                         + ", ".join(sorted(arch_table)))
    arch = arch_table[arch_key]
    field_sources = facts["field_sources"][vendor]

    def arch_source(field):
        key = field_sources[field]
        if isinstance(key, dict):
            key = key.get(arch_key, key["*"])
        cc = f"compute capability {arch_key}" if vendor == "nvidia" else arch_key
        return f"{facts['sources'][key]}; {cc}"

    # Strings.
    if vendor == "nvidia":
        architecture_source = (f"{facts['sources']['cuda-guide-specs']}; "
                               f"compute capability {arch_key}")
    elif "architecture" in field_sources:
        architecture_source = arch_source("architecture").rsplit("; ", 1)[0]
    else:
        architecture_source = facts["sources"]["rocm-gpu-specs"]
    put("architecture", arch["architecture"], architecture_source)
    if entry.get("derived"):
        put("chip", entry["chip"], f"Wikipedia GPU lists ({vendor.upper() if vendor == 'amd' else 'NVIDIA'}), "
            f"row '{entry['row_label']}' (code name or product), mapped by "
            "scripts/hardware/chip_facts.json")
    else:
        put("chip", entry["chip"], "glimpse catalog (scripts/hardware/gpu_catalog.json), after the "
            "vendor's product specifications")
    if vendor == "nvidia":
        put("compute_capability", arch_key, facts["sources"]["cuda-guide-specs"])
        put("target", "sm_" + arch_key.replace(".", ""),
            "nvcc -arch name of the compute capability")
        if "cc_scraped" in scraped:
            cc = scraped["cc_scraped"][0]
            if abs(float(cc) - float(arch_key)) > 1e-6:
                raise BuildError(f"{name}: catalog says compute capability {arch_key}, "
                                 f"{scraped['cc_scraped'][1]} says {cc}")
    else:
        put("compute_capability", "", "not applicable to AMD GPUs")
        put("target", entry["target"], facts["sources"]["rocm-gpu-specs"] + " (LLVM target name)")

    # Architecture facts.
    for field in ARCH_FIELDS:
        put(field, arch[field], arch_source(field))
    for field, key in ARCH_KIB_FIELDS.items():
        put(field, arch[key] * KIB, arch_source(field))

    # Scraped figures.
    for field in ("base_clock_mhz", "boost_clock_mhz", "memory_bandwidth_gb_per_s", "memory_type",
                  "memory_bus_width_bits", "memory_bytes", "l2_bytes", "l3_bytes"):
        if field in scraped:
            put(field, *scraped[field])
    # AMD's headline FP32 counts dual issue (RDNA 3/4) or packed FP32 (CDNA 3) as AMD decides, so
    # it is taken as quoted; NVIDIA's is 2 x cores x boost clock, derived below for every GPU
    # (Kepler figures are quoted at the base clock) and checked against the scrape.
    if vendor == "amd" and "fp32_flops" in scraped:
        put("fp32_flops", *scraped["fp32_flops"])
    if vendor == "nvidia" and "l3_bytes" not in overrides:
        put("l3_bytes", 0, "NVIDIA GPUs have no cache level behind L2 (architecture whitepapers)")
    if vendor == "amd" and "l3_bytes" not in figures and "l3_bytes" not in overrides:
        put("l3_bytes", 0, f"{arch['architecture']} has no Infinity Cache "
            "(AMD ROCm 'AMD GPU specifications')")

    # SM / CU count: the scrape's lanes / lanes per SM, checked against the scrape's own count.
    shaders = overrides.pop("shaders", None) or scraped.get("shaders")
    if "sm_count" in overrides:
        put("sm_count", *overrides.pop("sm_count"))
    elif shaders:
        lanes, lanes_source = shaders
        count = lanes / arch["cores_per_sm"]
        if abs(count - round(count)) > 1e-9:
            raise BuildError(f"{name}: {lanes} lanes is not a multiple of {arch['cores_per_sm']}")
        put("sm_count", int(round(count)),
            f"derived: {int(lanes)} FP32 lanes ({lanes_source}) / {arch['cores_per_sm']} per "
            f"{'SM' if vendor == 'nvidia' else 'CU'} ({arch_source('cores_per_sm')})")
    for check in ("sm_count_scraped", "cu_count"):
        if check in scraped and "sm_count" in figures:
            per_board = entry.get("devices_per_board", 1)
            if scraped[check][0] != figures["sm_count"] * per_board:
                raise BuildError(f"{name}: derived SM/CU count {figures['sm_count']} x "
                                 f"{per_board} disagrees with {scraped[check][1]}: "
                                 f"{scraped[check][0]}")

    for field, (value, source) in overrides.items():
        if field not in FIELDS and field not in STRING_FIELDS and field != "devices_per_board":
            raise BuildError(f"{name}: 'set' names unknown field {field!r}")
        put(field, value, source)

    if vendor == "nvidia" and "fp32_flops" not in figures and "sm_count" in figures \
            and "boost_clock_mhz" in figures:
        lanes = figures["sm_count"] * figures["cores_per_sm"]
        put("fp32_flops", 2.0 * lanes * figures["boost_clock_mhz"] * 1e6,
            f"derived: 2 FLOP per FMA x {lanes} cores x boost clock "
            f"({sources['boost_clock_mhz']})")
        if "fp32_flops" in scraped:
            value, source = scraped["fp32_flops"]
            at_base = 2.0 * lanes * figures.get("base_clock_mhz", 0) * 1e6
            if abs(value / figures["fp32_flops"] - 1) > 0.03 and abs(value / at_base - 1) > 0.03:
                warnings.append(f"{name}: FP32 {figures['fp32_flops']:.4g} at the boost clock vs "
                                f"{value:.4g} in {source}")

    # FP16: the ratio of the architecture unless the catalog sets it.
    if "fp16_flops" not in figures and "fp32_flops" in figures:
        ratio = arch["fp16_per_fp32"]
        put("fp16_flops", figures["fp32_flops"] * ratio,
            f"derived: fp32_flops x {ratio:g} ({arch_source('fp16_per_fp32')})")
        if "fp16_flops_scraped" in scraped and vendor == "nvidia":
            value, source = scraped["fp16_flops_scraped"]
            if abs(value / figures["fp16_flops"] - 1) > 0.05:
                warnings.append(f"{name}: FP16 {figures['fp16_flops']:.4g} vs {value:.4g} in "
                                f"{source}")

    missing = [f for f in list(FIELDS) + STRING_FIELDS if f not in figures]
    if missing:
        raise BuildError(f"{name}: no figure for {', '.join(missing)} (add them to 'set' in "
                         "scripts/hardware/gpu_catalog.json with their source)")

    # Sanity: the headline FP32 figure against 2 x lanes x boost clock (dual issue and packed
    # FP32 double it on RDNA 3/4 and CDNA 3; some of those are quoted below the boost clock).
    lanes = figures["sm_count"] * figures["cores_per_sm"]
    expected = 2.0 * lanes * figures["boost_clock_mhz"] * 1e6
    ratio = figures["fp32_flops"] / expected
    if not (0.93 < ratio < 1.07 or 1.7 < ratio < 2.14):
        raise BuildError(f"{name}: fp32_flops {figures['fp32_flops']:.4g} is {ratio:.2f} x "
                         f"2 x {lanes} lanes x {figures['boost_clock_mhz']} MHz "
                         f"({sources['fp32_flops']})")
    if figures["memory_bandwidth_gb_per_s"] <= 0:
        raise BuildError(f"{name}: no memory bandwidth")

    # "catalog": a hand entry of gpu_catalog.json (the Blueprint is fitted on these); "wikipedia":
    # derived from a row of the scrape alone.
    out = {"name": name, "vendor": vendor, "segment": entry["segment"],
           "listing": "wikipedia" if entry.get("derived") else "catalog",
           "aliases": entry.get("aliases", []),
           "devices_per_board": figures.pop("devices_per_board", entry.get("devices_per_board", 1))}
    sources.pop("devices_per_board", None)
    for field in STRING_FIELDS:
        out[field] = figures[field]
    for field in FIELDS:
        value = figures[field]
        out[field] = int(round(value)) if field in INTEGRAL else float(f"{value:.6g}")
    out["source"] = {field: sources[field] for field in STRING_FIELDS + list(FIELDS)}
    return out


# Words glimpse's C++ lookup (NormalizeGpuName in src/hardware/gpu_table.cc) ignores: two names
# equal once normalised would make the table unloadable.
DROPPED_WORDS = {"nvidia", "amd", "ati", "geforce", "tesla", "radeon", "instinct", "pro", "gpu",
                 "graphics", "tm", "r", "with", "design", "oem", "compute", "engine"}


def normalise(name):
    words = re.sub(r"[-_/,()\s]+", " ", name.lower()).split()
    out, i = [], 0
    while i < len(words):
        if words[i].isdigit() and i + 1 < len(words) and words[i + 1] == "gb":
            out.append(words[i] + "gb")
            i += 2
            continue
        if words[i] not in DROPPED_WORDS:
            out.append(words[i])
        i += 1
    return " ".join(out)


def variant_base(normalised):
    """A normalised name without form-factor and memory words (as SplitVariant in C++)."""
    return " ".join(w for w in normalised.split()
                    if not re.fullmatch(r"pcie|sxm[245]?|nvl|hbm(2e?|3e?)|\d+gb", w))


# ---- GPUs without a hand entry: derived from their scrape rows

SKIP_NAME = re.compile(r"Xbox|PlayStation|\bPS[345]\b|Nintendo|Switch|Wii|Steam Deck|\bSoC\b|"
                       r"\bAPU\b|Computing (Server|System)|Deskside|Visual Computing", re.I)
TESLA_VARIANTS = {"mezzanine": " SXM2", "PCIe card": " PCIe", "SXM card": " SXM",
                  "PCIe FHHL card": " PCIe FHHL", "12 GB card": "-PCIE-12GB",
                  "16 GB card": "-PCIE-16GB"}
GCN_GENERATIONS = {"1": "gfx6", "2": "gfx7", "3": "gfx8", "4": "gfx8", "5": "gfx9"}


def clean_label(label):
    label = re.sub(r"\[[^\]]*\]", "", str(label)).replace("\u00ad", "")
    label = re.sub(r"(\d{3})(\d{4}SP)\b", r"\1 \2", label)  # "RX 5802048SP" -> "RX 580 2048SP"
    return re.sub(r"\s+", " ", label).strip(" *")


def nvidia_identity(row, chips):
    """(name, aliases, chip, segment) of an NVIDIA row, or a reason to skip it."""
    label = clean_label(row.label)
    code = re.sub(r"\([^)]*\)", " ", str(row.row.get("Code name", "")))  # "(N18P-G62-A1)"
    aliases = []
    tesla = re.match(r"^(\w+) GPU (?:accelerator|Computing Module)(?: \((.*)\))?$", label)
    if tesla:
        product, variant = tesla.group(1), tesla.group(2) or ""
        chip = chips["nvidia_products"].get(product)
        if chip is None:
            return "chip before Kepler or unknown"
        brand = "Tesla" if product[0] in "KMPVT" else "NVIDIA"
        name = f"{brand} {product}{TESLA_VARIANTS.get(variant, '')}"
        if product[0] == "K":  # drivers add the cooling: "Tesla K20m" (passive), "K20c" (active)
            aliases = [f"{name}m", f"{name}c"]
        return name, aliases, chip, "datacenter"
    found = re.findall(r"\b(G[KMPV]\d{3}[A-Z]?|TU\d{3}|GA\d{3}|AD\d{3}|GH\d{3}|GB\d{3}|GF\d{3}|"
                       r"G\d{2}|NV\d+|MCP\w*|C\d{2})", code)
    found = [f if f in chips["nvidia"] else f[:-1] for f in found]  # "GM200GL" -> "GM200"
    if len(set(f.rstrip("B") for f in found)) != 1 or found[0] not in chips["nvidia"]:
        return "chip before Kepler, unknown or ambiguous"
    chip = found[0]
    laptop = re.search(r"Laptop|Mobile|Max-Q|Notebook|\d+M[X]?\b|\bMX\d", label)
    base = re.sub(r"\s*(\(Laptop\)|Mobile/ Laptop|Mobile|Laptop)\s*$", "", label)
    if re.match(r"^\d", base):
        base = "GeForce RTX " + base  # "5070 Laptop"
    if re.search(r"Laptop|Mobile", label) and not re.search(r"Max-Q|\d+M[X]?\b", label):
        base += " Laptop GPU"
    if "Max-Q" in base:
        aliases.append(re.sub(r"\s*Max-Q", " with Max-Q Design", base))
    if base.startswith(("Quadro", "Tesla", "GRID")):
        name = base
    else:
        name = base if base.startswith("NVIDIA") else "NVIDIA " + base
    aliases = [a if a.startswith(("Quadro", "NVIDIA")) else "NVIDIA " + a for a in aliases]
    if laptop:
        segment = "laptop"
    elif re.search(r"Quadro|RTX A\d|RTX PRO|NVS", name):
        segment = "workstation"
    elif re.search(r"Tesla|GRID", name):
        segment = "datacenter"
    else:
        segment = "consumer"
    return name, aliases, chip, segment


def amd_identity(row, chips):
    label = clean_label(row.label)
    m = re.match(r"^(.*?)\s*\(([^)]*)\)\s*$", label)
    product, chip_text = (m.group(1), m.group(2)) if m else (label, str(row.row.get("Code name", "")))
    chip = None
    for key in sorted(chips["amd"], key=len, reverse=True):
        if re.match(re.escape(key) + r"\b", chip_text):
            chip = key
            break
    if chip is None:
        return "chip before GCN, unknown, or a mobile code name"
    name = product if product.startswith("AMD") else "AMD " + product
    if re.search(r"Instinct|FirePro S|Radeon Pro V|Radeon Sky", name):
        segment = "datacenter"
    elif re.search(r"FirePro|Radeon Pro|Radeon PRO", name) and not re.search(r"\d+M\b", name):
        segment = "workstation"
    elif re.search(r"\d+M\b|Mobile|\bM\d{3}X?\b", name):
        segment = "laptop"
    else:
        segment = "consumer"
    return name, [], chip, segment


def derive_entries(rows, chips, taken_rows, taken_names):
    """Catalog-style entries for the scrape rows of NVIDIA (Kepler on) and AMD (GCN on) GPUs that
    the catalog does not cover, and why each other row was left out."""
    entries, skipped = [], {}

    def skip(reason, key):
        skipped.setdefault(reason, []).append(key)

    for key, raw in rows.items():
        vendor = {"NVIDIA": "nvidia", "AMD": "amd"}.get(key.split("_", 1)[0])
        if vendor is None or key in taken_rows:
            continue
        row = ScrapeRow(key, raw, vendor)
        if row.label == key or SKIP_NAME.search(str(row.label)):
            skip("no product name, or a console, SoC or server", key)
            continue
        shaders = str(row.column(COLUMNS["shaders"])[1] or "")
        if re.search(r"\d\s*[x×]\s*\d|^\d+\s*[x×]", shaders) or re.match(r"2x ", str(row.label)):
            skip("dual-GPU board", key)
            continue
        identity = (nvidia_identity if vendor == "nvidia" else amd_identity)(row, chips)
        if isinstance(identity, str):
            skip(identity, key)
            continue
        name, aliases, chip, segment = identity
        facts = chips[vendor][chip]
        chip_name = facts.get("same_as", chip)
        entry = {"name": name, "vendor": vendor, "arch": facts["arch"], "chip": chip_name,
                 "segment": segment, "row": key, "aliases": aliases, "set": {}, "derived": True,
                 "row_label": clean_label(row.label)}
        if vendor == "amd":
            entry["target"] = facts["target"]
            column, cell = row.column([r"^Architecture", r"^Micro-?archi", r"^GPU arch"])
            gen = re.match(r"GCN (\d)", str(cell or ""))
            if gen and GCN_GENERATIONS[gen.group(1)] != facts["arch"]:
                skip("chip and architecture column disagree", key)
                continue
        try:
            scraped = scraped_figures(row)
        except (TypeError, ValueError):  # a cell that is "?" or words where a figure belongs
            skip("a figure cell without a number", key)
            continue
        if "boost_clock_mhz" not in scraped and "base_clock_mhz" in scraped:
            value, source = scraped["base_clock_mhz"]
            entry["set"]["boost_clock_mhz"] = [value, f"{source} (no boost clock listed: the base "
                                                      "clock)"]
        if "l2_bytes" not in scraped:
            chip_source = chips["sources"].get(facts.get("source"), facts.get("source"))
            if "l2_kib" in facts:
                entry["set"]["l2_bytes"] = [facts["l2_kib"] * KIB, f"{chip_source} ({chip_name})"]
            elif "l2_kib_per_32bit" in facts and "memory_bus_width_bits" in scraped:
                bits, bits_source = scraped["memory_bus_width_bits"]
                per = facts["l2_kib_per_32bit"]
                entry["set"]["l2_bytes"] = [
                    int(bits) // 32 * per * KIB,
                    f"derived: {int(bits)}-bit memory interface ({bits_source}) x {per} KiB L2 "
                    f"per 32 bits of {chip_name} ({chip_source})"]
        norm = normalise(name)
        if norm in taken_names:
            skip("same name as an entry already in the table", key)
            continue
        # A plain name whose boards the catalog lists ("GTX 1060" beside "GTX 1060 6GB") would
        # take the lookups that now find those boards.
        if norm in {variant_base(n) for n in taken_names if variant_base(n) != n}:
            skip("a plain name of GPUs the catalog lists by board", key)
            continue
        entries.append(entry)
        taken_names.add(norm)
    return entries, skipped


# ---- The table

def build_table(scrape_path, facts_path, catalog_path, chips_path):
    with gzip.open(scrape_path, "rt", encoding="utf-8") as f:
        rows = json.load(f)
    with open(facts_path, encoding="utf-8") as f:
        facts = json.load(f)
    with open(catalog_path, encoding="utf-8") as f:
        catalog = json.load(f)
    with open(chips_path, encoding="utf-8") as f:
        chips = json.load(f)
    chips["sources"] = {**catalog["sources"], **chips["sources"]}
    warnings, gpus, seen, errors = [], [], {}, []
    for entry in catalog["gpus"]:
        try:
            gpu = build_gpu(entry, rows, facts, catalog["sources"], warnings)
        except BuildError as e:
            errors.append(str(e))
            continue
        for key in [gpu["name"]] + gpu["aliases"]:
            norm = key.lower()
            if norm in seen:
                raise BuildError(f"{key!r} names both {seen[norm]!r} and {gpu['name']!r}")
            seen[norm] = gpu["name"]
        gpus.append(gpu)
    if errors:
        raise BuildError("\n  ".join([f"{len(errors)} GPU(s) could not be built:"] + errors))

    # Then every scrape row of a GPU since Kepler / GCN that the catalog does not name, where the
    # row has the essentials and they agree with each other (the checks of build_gpu).
    taken_names = {normalise(k) for gpu in gpus for k in [gpu["name"]] + gpu["aliases"]}
    entries, skipped = derive_entries(rows, chips, {e.get("row") for e in catalog["gpus"]},
                                      taken_names)
    derived_notes = []
    for entry in entries:
        try:
            gpu = build_gpu(entry, rows, facts, chips["sources"], derived_notes)
        except BuildError as e:
            reason = re.sub(r"^[^:]*: ", "", str(e))
            reason = ("no figure for " + reason.split("no figure for ")[1].split(" (")[0]
                      if "no figure for" in reason else
                      "figures disagree with each other" if " x " in reason or "disagree" in reason
                      or "not a multiple" in reason else reason)
            skipped.setdefault(reason, []).append(entry["row"])
            continue
        for key in [gpu["name"]] + gpu["aliases"]:
            seen[key.lower()] = gpu["name"]
        gpus.append(gpu)
    derived = len(gpus) - len(catalog["gpus"])
    warnings.append(f"derived {derived} GPUs from scrape rows; {len(derived_notes)} FP32/FP16 "
                    "notes on them not shown")
    table_skips = {reason: len(keys) for reason, keys in sorted(skipped.items())}
    table = {
        "format": FORMAT,
        "version": VERSION,
        "generated_by": "scripts/hardware/build_gpu_table.py from scripts/hardware/"
                        "arch_facts.json, scripts/hardware/gpu_catalog.json and the Wikipedia "
                        "scrape; do not edit by hand",
        "references": {"Wikipedia GPU lists": SCRAPE_REFERENCE},
        "fields": {name: {"unit": unit, "description": text}
                   for name, (unit, text) in FIELDS.items()},
        "gpus": gpus,
    }
    return table, warnings, table_skips


def render(table):
    """Indented JSON with one GPU's sources block per GPU: diffs stay per figure."""
    return json.dumps(table, indent=1, ensure_ascii=False) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scrape", default=DEFAULT_SCRAPE)
    parser.add_argument("--facts", default=os.path.join(HERE, "arch_facts.json"))
    parser.add_argument("--catalog", default=os.path.join(HERE, "gpu_catalog.json"))
    parser.add_argument("--chips", default=os.path.join(HERE, "chip_facts.json"))
    parser.add_argument("--out", default=DEFAULT_OUT)
    parser.add_argument("--check", action="store_true",
                        help="compare with --out instead of writing; exit 1 when it differs")
    args = parser.parse_args(argv)
    if not os.path.exists(args.scrape):
        print(f"build_gpu_table: scrape not found: {args.scrape} (pass --scrape)", file=sys.stderr)
        return SKIPPED if args.check else 2
    try:
        table, warnings, skips = build_table(args.scrape, args.facts, args.catalog, args.chips)
    except BuildError as e:
        print(f"build_gpu_table: error: {e}", file=sys.stderr)
        return 2
    for w in warnings:
        print(f"build_gpu_table: note: {w}", file=sys.stderr)
    for reason, count in skips.items():
        print(f"build_gpu_table: left out {count} scrape row(s): {reason}", file=sys.stderr)
    text = render(table)
    counts = {}
    for gpu in table["gpus"]:
        counts[gpu["vendor"]] = counts.get(gpu["vendor"], 0) + 1
    summary = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
    if args.check:
        with open(args.out, encoding="utf-8") as f:
            if f.read() != text:
                print(f"build_gpu_table: {args.out} is out of date; rerun "
                      "scripts/hardware/build_gpu_table.py", file=sys.stderr)
                return 1
        print(f"{args.out} is up to date ({summary})")
        return 0
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(args.out + ".tmp", args.out)
    print(f"wrote {args.out} ({summary})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
