#!/usr/bin/env python3
"""Build data/hardware/gpus.json, glimpse's GPU specification table.

Standard library only. Inputs:
  - the Wikipedia scrape ../shared/reference/gpu-specs/wikipedia-gpu-lists.json.gz (raw material:
    one dict per table row, column names that vary between tables);
  - scripts/hardware/arch_facts.json: per-architecture facts (cores, registers, shared memory,
    threads per SM by NVIDIA compute capability or AMD ISA generation), with their sources;
  - scripts/hardware/gpu_catalog.json: the GPUs, the names their drivers report, aliases, the
    scrape row of each, and per-GPU figures that replace or fill in the scrape's ("set").
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
                       r"^Shaders Base clock \(MHz\)$", r"^Core [Cc]lock \(MHz\)$"],
    "boost_clock_mhz": [r"Boost core clock \(MHz\)$", r"Boost core \(MHz\)$",
                        r"^Clock [Ss]peeds Boost \(MHz\)$", r"^Clock rate Average Boost \(MHz\)$",
                        r"^Shaders Max boost clock \(MHz\)$", r"^Boost clock \(MHz\)$",
                        r"^Core [Cc]lock \(MHz\)$"],
    "memory_bandwidth_gb_per_s": [r"^Memory Bandwidth \(GB/s\)$",
                                  r"^Memory configuration Bandwidth \(GB/s\)$"],
    "memory_type": [r"^Memory Bus type$", r"^Memory configuration DRAM type$",
                    r"^Memory Bus type & width$"],
    "memory_bus_width_bits": [r"^Memory Bus width \(bit\)$",
                              r"^Memory configuration Bus width \(bit\)$",
                              r"^Memory Bus type & width$"],
    "memory_bytes": [r"^Memory Size \(GiB\)$", r"^Memory configuration Size \(GiB\)$",
                     r"^Memory Size \(GB\)$", r"^Memory Size$", r"^Memory$"],
    "l2_bytes": [r"^L2 Cache \(MiB\)$", r"^Cache L2 \(MiB\)$"],
    "l3_bytes": [r"Infinity Cache( Infinity Cache)?( Size)?$", r"^Memory L3 cache$"],
    "fp32_flops": [r"^Processing power \((TFLOPS|GFLOPS)\) Single precision( \(MAD or FMA\))?$",
                   r"^Processing power \(?(TFLOPS|GFLOPS)\)? Single$"],
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
            m = re.search(r"(\d+)-bit", str(cell))
            value = float(m.group(1)) if m else None
        else:
            value = pick(cell, "last")
        if value:
            out["memory_bus_width_bits"] = (value, row.source(column))
    column, cell = row.column(COLUMNS["memory_bytes"])
    if cell is not None:
        value = pick(cell, "last" if "×" in str(cell) else "first")
        out["memory_bytes"] = (int(value * GIB), row.source(column, "nominal GB taken as GiB"))
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
    else:
        architecture_source = facts["sources"]["rocm-gpu-specs"]
    put("architecture", arch["architecture"], architecture_source)
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

    out = {"name": name, "vendor": vendor, "segment": entry["segment"],
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


# ---- The table

def build_table(scrape_path, facts_path, catalog_path):
    with gzip.open(scrape_path, "rt", encoding="utf-8") as f:
        rows = json.load(f)
    with open(facts_path, encoding="utf-8") as f:
        facts = json.load(f)
    with open(catalog_path, encoding="utf-8") as f:
        catalog = json.load(f)
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
    return table, warnings


def render(table):
    """Indented JSON with one GPU's sources block per GPU: diffs stay per figure."""
    return json.dumps(table, indent=1, ensure_ascii=False) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scrape", default=DEFAULT_SCRAPE)
    parser.add_argument("--facts", default=os.path.join(HERE, "arch_facts.json"))
    parser.add_argument("--catalog", default=os.path.join(HERE, "gpu_catalog.json"))
    parser.add_argument("--out", default=DEFAULT_OUT)
    parser.add_argument("--check", action="store_true",
                        help="compare with --out instead of writing; exit 1 when it differs")
    args = parser.parse_args(argv)
    if not os.path.exists(args.scrape):
        print(f"build_gpu_table: scrape not found: {args.scrape} (pass --scrape)", file=sys.stderr)
        return SKIPPED if args.check else 2
    try:
        table, warnings = build_table(args.scrape, args.facts, args.catalog)
    except BuildError as e:
        print(f"build_gpu_table: error: {e}", file=sys.stderr)
        return 2
    for w in warnings:
        print(f"build_gpu_table: note: {w}", file=sys.stderr)
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
