"""Deterministic generator of realistic test corpora: `python -m bench.corpus N DEST [--seed S]`.

The shipped sources are a dozen pages; scale, speed and reconciliation need thousands of
documents in the same formats whose truth is known. Every page here copies the *format* of
a real one (older and newer Microsoft Learn size pages, third-party copies) and invents the
numbers, so nothing is quoted and the same (n, seed) always gives byte-identical files.

Layout written under `dest`:

    registry.toml                                  who published what (not a document)
    includes/virtual-machines-common-sizes-table-defs.md, includes/sizes-footer.md
    official-old/<series>-series.md                one size table, `key: value<br>` features
    official-new/<series>-series.md                one table per tab, feature-support table
    official-new/includes/<series>-series-specs.md the `Part | Quantity | Specs` table
    third-party/azure-<family>-series-<k>.txt      rows copied from official series, with mistakes
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from random import Random

# ------------------------------------------------------------------------------ knowledge


@dataclass(frozen=True, slots=True)
class Gpu:
    """A GPU model as pages name it; `memory_gib` are the sizes it is made in (gpus.toml)."""

    name: str
    vendor: str
    long_name: str
    memory_gib: tuple[int, ...]
    partitionable: bool = False
    min_vcpus_per_gpu: int = 4
    """Large training GPUs come with many vCPUs each; nobody sells an H100 with four."""


GPUS: dict[str, Gpu] = {
    g.name: g
    for g in (
        Gpu("P40", "NVIDIA", "NVIDIA Tesla P40", (24,)),
        Gpu("V100", "NVIDIA", "NVIDIA Tesla V100", (16, 32)),
        Gpu("A100", "NVIDIA", "NVIDIA A100 Tensor Core", (40, 80), min_vcpus_per_gpu=12),
        Gpu("H100", "NVIDIA", "NVIDIA H100 Tensor Core", (80, 94), min_vcpus_per_gpu=12),
        Gpu("H200", "NVIDIA", "NVIDIA H200 Tensor Core", (141,), min_vcpus_per_gpu=12),
        Gpu("T4", "NVIDIA", "NVIDIA Tesla T4", (16,)),
        Gpu("K80", "NVIDIA", "NVIDIA Tesla K80", (12,)),
        Gpu("M60", "NVIDIA", "NVIDIA Tesla M60", (8,)),
        Gpu("A10", "NVIDIA", "NVIDIA A10 Tensor Core", (24,), partitionable=True),
        Gpu("MI300X", "AMD", "AMD Instinct MI300X", (192,), min_vcpus_per_gpu=12),
        Gpu("V620", "AMD", "AMD Radeon PRO V620", (32,), partitionable=True),
        Gpu("V710", "AMD", "AMD Radeon PRO V710", (28,), partitionable=True),
    )
}

FAMILIES: dict[str, tuple[str, ...]] = {
    "ND": ("P40", "V100", "A100", "H100", "H200", "MI300X"),
    "NC": ("K80", "V100", "T4", "A100", "H100", "A10"),
    "NG": ("V620", "V710"),
    "NV": ("M60", "A10", "V710"),
}
"""GPU models each family is built with; any of them may also appear in the size name."""

FAMILY_PURPOSE = {
    "ND": "high-end deep learning training and tightly coupled scale-up and scale-out HPC workloads",
    "NC": "compute-intensive, GPU-accelerated applications such as simulations, AI training and inference",
    "NG": "cloud gaming and graphics streaming with high quality, interactive frame rates",
    "NV": "remote visualization, streaming, encoding and virtual desktop (VDI) scenarios",
}

FEATURE_LETTERS = "adimrs"
MAX_FEATURES = 4
"""Series names with more letters stop looking like real ones (`NDamsr`) and stop parsing."""
VERSIONS = 6
INTEL_CPUS = (
    "Intel Xeon E5-2690 v4 (Broadwell)",
    "Intel Xeon Platinum 8168 (Skylake)",
    "Intel Xeon Platinum 8272CL (Cascade Lake)",
    "Intel Xeon Platinum 8480C (Sapphire Rapids)",
)
AMD_CPUS = ("AMD EPYC 7V12 (Rome)", "AMD EPYC 7763 (Milan)", "AMD EPYC 7V13 (Milan)", "AMD EPYC 9V84 (Genoa)")
AUTHORS = (
    ("gpu-docs-writer", "gpudocs"),
    ("vm-sizes-team", "vmsizes"),
    ("hpc-docs", "hpcdocs"),
    ("azure-gpu-pm", "gpupm"),
)
"""Invented (GitHub handle, Microsoft alias) pairs for `author` and `ms.author`."""
FEATURE_ODDS = {"a": 0.4, "d": 0.4, "i": 0.05, "m": 0.15, "r": 0.3, "s": 0.8}
"""How often each letter appears in real GPU size names, roughly: names are drawn in this proportion."""
TABLE_DEFS = "virtual-machines-common-sizes-table-defs"
TABLE_DEFS_PATH = f"../includes/{TABLE_DEFS}.md"
OLD_DATES = (dt.date(2019, 1, 1), dt.date(2024, 12, 28))
NEW_DATES = (dt.date(2022, 6, 1), dt.date(2026, 6, 28))

# ------------------------------------------------------------------------------ the truth


@dataclass(frozen=True, slots=True)
class Size:
    """One size's true values; pages print them in their own formats."""

    name: str
    vcpus: int
    memory_gib: int
    temp_gib: int
    quarters: int
    """GPUs in quarters of one GPU (1 = 1/4, 4 = 1, 32 = 8): exact and cheaper than Fraction."""
    data_disks: int
    iops: int
    mbps: int
    nics: int
    bandwidth_mbps: int
    nvme_disks: int

    def short_name(self, features: str) -> str:
        """The name without `Standard_` and without its feature letters (`ND24` for ND24s)."""
        rest = self.name.removeprefix("Standard_")
        head, _, tail = rest.partition("_")
        if features and head.endswith(features):
            head = head[: -len(features)]
        return head + ("_" + tail if tail else "")


@dataclass(frozen=True, slots=True)
class Series:
    """One invented series: its name parts, hardware and sizes."""

    family: str
    features: str
    accelerator: str | None
    version: int
    gpu: Gpu
    gpu_memory_gib: int
    cpu: str
    sizes: tuple[Size, ...]
    date: dt.date
    author: tuple[str, str]
    generations: tuple[int, ...]
    nvlink: bool
    nvme: bool

    @property
    def infiniband(self) -> bool:
        return "r" in self.features

    @property
    def old_name(self) -> str:
        """As older pages write it: `NDv2`, `NCads A100 v4`, `NDasr v4`, `NGads V620`."""
        v = f"v{self.version}" if self.version > 1 else ""
        base = self.family + self.features
        if self.accelerator:
            return f"{base} {self.accelerator}" + (f" {v}" if v else "")
        if not self.features:
            return base + v
        return base + (f" {v}" if v else "")

    @property
    def new_name(self) -> str:
        """As newer pages write it: `NDv2`, `NCadsA100_v4`, `NC_A100_v4`, `NGads_V620`."""
        v = f"_v{self.version}" if self.version > 1 else ""
        base = self.family + self.features
        if self.accelerator:
            sep = "_" if not self.features or self.version == 1 else ""
            return f"{base}{sep}{self.accelerator}{v}"
        if not self.features:
            return base + v.lstrip("_")
        return base + v

    @property
    def slug(self) -> str:
        return re.sub(r"[^a-z0-9]+", "", self.new_name.lower())


def size_name(family: str, vcpus: int, features: str, accelerator: str | None, version: int) -> str:
    """`Standard_NC24ads_A100_v4`; version 1 is written only beside an accelerator (`NG8ads_V620_v1`)."""
    name = f"Standard_{family}{vcpus}{features}"
    if accelerator:
        name += f"_{accelerator}"
    if version > 1 or accelerator:
        name += f"_v{version}"
    return name


def naming_space() -> list[tuple[str, str, str | None, int]]:
    """Every (family, feature letters, accelerator, version) a series may have, in a fixed order.

    A corpus walks a seeded permutation of this list, so series names look drawn at random
    yet never repeat; past its end the version climbs by VERSIONS per lap.
    """
    features = [""]
    for mask in range(1, 2 ** len(FEATURE_LETTERS)):
        letters = "".join(c for i, c in enumerate(FEATURE_LETTERS) if mask >> i & 1)
        if len(letters) <= MAX_FEATURES:
            features.append(letters)
    space: list[tuple[str, str, str | None, int]] = []
    for family, models in FAMILIES.items():
        for accel in (None, *models):
            for feat in features:
                for version in range(1, VERSIONS + 1):
                    space.append((family, feat, accel, version))
    return space


def _weighted_order(rng: Random, space: Sequence[tuple[str, str, str | None, int]]) -> list[int]:
    """A seeded permutation of `space` in which realistic feature letters come first.

    Efraimidis-Spirakis: sorting by u ** (1 / weight), here its logarithm so that rare
    names do not underflow to ties, draws without replacement in proportion to the weights:
    small corpora look like real ones and large ones still use every name once.
    """
    keys: list[tuple[float, int]] = []
    for i, (_, features, _, _) in enumerate(space):
        weight = 1.0
        for letter, odds in FEATURE_ODDS.items():
            weight *= odds if letter in features else 1 - odds
        keys.append((math.log(1.0 - rng.random()) / weight, i))
    keys.sort(reverse=True)
    return [i for _, i in keys]


def _date(rng: Random, span: tuple[dt.date, dt.date]) -> dt.date:
    return dt.date.fromordinal(rng.randint(span[0].toordinal(), span[1].toordinal()))


def _series(rng: Random, combo: tuple[str, str, str | None, int], span: tuple[dt.date, dt.date]) -> Series:
    """Sizes whose numbers hang together: vCPUs follow the GPU count, memory, disks, IOPS and
    bandwidth follow the vCPUs by per-series ratios, so tables look like one product line."""
    family, features, accel, version = combo
    gpu = GPUS[accel or rng.choice(FAMILIES[family])]
    partitioned = gpu.partitionable and rng.random() < 0.6
    ladder = (1, 2, 4, 8) if partitioned else (4, 8, 16, 32)
    choices = (16, 24, 32, 48) if partitioned else (4, 6, 8, 12, 16, 20, 24)
    per_gpu = rng.choice([c for c in choices if c >= gpu.min_vcpus_per_gpu])
    # vCPUs grow with the GPU count; doubling beyond the largest count gives more vCPUs per GPU.
    candidates: dict[int, int] = {}
    for m in (1, 2, 4):
        for g in ladder:
            v, rest = divmod(g * per_gpu * m, 4)
            if not rest and 4 <= v <= 192 and v not in candidates:
                candidates[v] = g
    chosen = sorted(rng.sample(sorted(candidates), rng.randint(1, min(6, len(candidates)))))
    ratio = rng.choice((4, 7, 8, 9, 14, 16, 18)) * (2 if "m" in features else 1)
    temp_per = rng.choice((12, 16, 28, 32, 56, 62, 122))
    disk_factor, disk_cap = rng.choice((1, 2)), rng.choice((32, 64))
    iops_per, mbps_div = rng.choice((1600, 2000, 2500, 3200, 3333)), rng.choice((64, 100, 125))
    nic_div, bw_per = rng.choice((4, 6, 12)), rng.choice((250, 500, 750, 1250))
    nvme = family in ("NG", "NV") and "d" in features and rng.random() < 0.5
    sizes = []
    for vcpus in chosen:
        quarters = candidates[vcpus]
        iops = min(160_000, round(vcpus * iops_per / 100) * 100)
        sizes.append(
            Size(
                name=size_name(family, vcpus, features, accel, version),
                vcpus=vcpus,
                memory_gib=vcpus * ratio,
                temp_gib=vcpus * temp_per,
                quarters=quarters,
                data_disks=min(disk_cap, max(4, vcpus * disk_factor)),
                iops=iops,
                mbps=iops // mbps_div,
                nics=min(8, max(2, vcpus // nic_div)),
                bandwidth_mbps=max(2000, round(vcpus * bw_per / 500) * 500),
                nvme_disks=max(1, quarters // 2) if nvme else 0,
            )
        )
    amd = "a" in features
    return Series(
        family=family,
        features=features,
        accelerator=accel,
        version=version,
        gpu=gpu,
        gpu_memory_gib=rng.choice(gpu.memory_gib),
        cpu=rng.choice(AMD_CPUS if amd else INTEL_CPUS),
        sizes=tuple(sizes),
        date=_date(rng, span),
        author=rng.choice(AUTHORS),
        generations=(2,) if version >= 4 or rng.random() < 0.3 else (1, 2),
        nvlink=gpu.vendor == "NVIDIA" and max(s.quarters for s in sizes) >= 16 and rng.random() < 0.7,
        nvme=nvme,
    )


# ------------------------------------------------------------------------------ formatting


def _count(quarters: int) -> str:
    """`1/4`, `1/2`, `1`, `8`: a GPU count as pages print it."""
    d = math.gcd(quarters, 4)
    return str(quarters // 4) if d == 4 else f"{quarters // d}/{4 // d}"


def _total_memory(s: Series, size: Size) -> int:
    return size.quarters * s.gpu_memory_gib // 4


def _ms_date(d: dt.date) -> str:
    return f"{d.month:02d}/{d.day:02d}/{d.year}"


def _range(values: Sequence[int], fmt: Callable[[int], str] = "{:,}".format) -> str:
    """`12 - 32` over a series' sizes, or one number when they all agree."""
    lo, hi = min(values), max(values)
    return fmt(lo) if lo == hi else f"{fmt(lo)} - {fmt(hi)}"


def _flag(on: bool) -> str:
    return "Supported" if on else "Not Supported"


def _generations(s: Series) -> str:
    return "Generation 2" if s.generations == (2,) else "Generation 1 and 2"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], old: bool) -> list[str]:
    rule = "|" + "|".join("---" for _ in header) + "|" if old else "| " + " | ".join("---" for _ in header) + " |"
    return ["| " + " | ".join(header) + " |", rule, *("| " + " | ".join(r) + " |" for r in rows)]


def _intro(rng: Random, s: Series, name: str) -> str:
    most = max(size.quarters for size in s.sizes)
    if most < 4:
        gpus = f"a {_count(most)} partition of one {s.gpu.long_name} GPU"
    elif most == 4:
        gpus = f"one {s.gpu.long_name} GPU"
    else:
        gpus = f"{_count(most)} {s.gpu.long_name} GPUs, each with {s.gpu_memory_gib} GB of GPU memory"
    lead = rng.choice(
        (
            f"The {name} series virtual machines are designed for {FAMILY_PURPOSE[s.family]}.",
            f"The {name}-series is an addition to the Azure GPU family built for {FAMILY_PURPOSE[s.family]}.",
            f"{name} virtual machines target {FAMILY_PURPOSE[s.family]}.",
        )
    )
    return f"{lead} The largest size is powered by {gpus}, and the series runs on {s.cpu} processors."


# ------------------------------------------------------------------------------ older pages


def _old_page(rng: Random, s: Series) -> str:
    """One size table, features as `[Key](link): value<br>` lines, a DocFX note, an include."""
    name = s.old_name
    style = rng.choice("ABC")
    suffix = rng.choice(("", " - Azure Virtual Machines"))
    out = [
        "---",
        f"title: {name}-series{suffix}",
        f"description: Specifications for the {name}-series VMs.",
        f"author: {s.author[0]}",
        "ms.service: virtual-machines",
        f"ms.subservice: {rng.choice(('sizes', 'vm-sizes-gpu'))}",
        "ms.topic: conceptual",
        f"ms.date: {_ms_date(s.date)}",
        f"ms.author: {s.author[1]}",
        "---",
        "",
        f"# {name}-series",
        "",
        "**Applies to:** :heavy_check_mark: Linux VMs :heavy_check_mark: Windows VMs "
        ":heavy_check_mark: Flexible scale sets :heavy_check_mark: Uniform scale sets",
        "",
        _intro(rng, s, name),
        "",
    ]
    note = [
        "> [!IMPORTANT]",
        "> For this VM series, the vCPU (core) quota per region in your subscription is initially set to 0. "
        "[Request a vCPU quota increase](../azure-portal/supportability/resource-manager-core-quotas-request.md) "
        "for this series in an [available region](https://azure.microsoft.com/regions/services/).",
        ">",
        "",
    ]
    note_first = rng.random() < 0.5
    if note_first:
        out += note
    out += [
        f"[Premium Storage](premium-storage-performance.md): {_flag('s' in s.features)}<br>",
        f"[Premium Storage caching](premium-storage-performance.md): {_flag('s' in s.features)}<br>",
        "[Ultra Disks](disks-types.md#ultra-disks): Supported ([Learn more](https://techcommunity.microsoft.com/"
        "t5/azure-compute/ultra-disk-storage-for-hpc-and-gpu-vms/ba-p/2189312) about availability, usage, and "
        "performance) <br>",
        "[Live Migration](maintenance-and-updates.md): Not Supported<br>",
        "[Memory Preserving Updates](maintenance-and-updates.md): Not Supported<br>",
        f"[VM Generation Support](generation-2.md): {_generations(s)}<br>",
        f"[Accelerated Networking](../virtual-network/create-vm-accelerated-networking-cli.md): "
        f"{_flag(s.version >= 3)}<br>",
        "[Ephemeral OS Disks](ephemeral-os-disks.md): Supported <br>",
    ]
    if s.infiniband:
        links = max(1, max(size.quarters for size in s.sizes) // 4)
        out.append(
            f"[InfiniBand](./extensions/enable-infiniband.md): Supported, GPUDirect RDMA, {links} x 200 Gigabit HDR<br>"
        )
    if s.gpu.vendor == "NVIDIA":
        out.append(f"NVIDIA NVLink Interconnect: {_flag(s.nvlink)}<br>")
    out += [
        "[Nested Virtualization](/virtualization/hyper-v-on-windows/user-guide/nested-virtualization): "
        "Not Supported <br>",
        "<br>",
        "",
    ]
    if not note_first:
        out += note
    out += _old_table(s, style)
    out.append("")
    if style == "B":
        out += [f"1 GPU = one {s.gpu.name} card.", ""]
    if style == "C":
        out += [
            "<sup>1</sup> Physical Cores.  ",
            "<sup>2</sup> The actual GPU VRAM reported in the operating system will be little less due to "
            "Error Correcting Code (ECC) support.<br>",
            "",
        ]
    out += [
        f"[!INCLUDE [{TABLE_DEFS}]({TABLE_DEFS_PATH})]",
        "",
        "## Supported operating systems and drivers",
        "",
        f"To take advantage of the GPU capabilities of Azure {name} VMs, {s.gpu.vendor} GPU drivers must be "
        "installed. See the [GPU driver extension](./extensions/overview.md) for supported operating systems.",
        "",
        "## Other sizes",
        "",
        "- [General purpose](sizes-general.md)",
        "- [GPU optimized](sizes-gpu.md)",
        "- [Previous generations](sizes-previous-gen.md)",
        "",
        "## Next steps",
        "",
        "Learn more about how [Azure compute units (ACU)](acu.md) can help you compare compute performance "
        "across Azure SKUs.",
        "",
    ]
    return "\n".join(out)


def _old_table(s: Series, style: str) -> list[str]:
    """Three real header shapes: ND A100 v4 (A), ND (B) and NGads V620 (C)."""
    rows: list[list[str]] = []
    if style == "A":
        header = [
            "Size", "vCPU", "Memory: GiB", "Temp Storage (SSD): GiB", "GPU", "GPU Memory: GiB", "Max data disks",
            "Max uncached disk throughput: IOPS / MBps", "Max network bandwidth", "Max NICs",
        ]  # fmt: skip
        for z in s.sizes:
            plural = "GPUs" if z.quarters > 4 else "GPU"
            link = " (NVLink 3.0)" if s.nvlink and z.quarters >= 16 else ""
            gpu = f"{_count(z.quarters)} {s.gpu.name} {s.gpu_memory_gib} GB {plural}{link}"
            memory = _total_memory(s, z) if z.quarters < 4 else s.gpu_memory_gib
            rows.append(
                [
                    z.name, str(z.vcpus), str(z.memory_gib), str(z.temp_gib), gpu, str(memory), str(z.data_disks),
                    f"{z.iops:,} / {z.mbps:,}", f"{z.bandwidth_mbps:,} Mbps", str(z.nics),
                ]
            )  # fmt: skip
    elif style == "B":
        header = [
            "Size", "vCPU", "Memory: GiB", "Temp storage (SSD) GiB", "GPU", "GPU memory: GiB", "Max data disks",
            "Max uncached disk throughput: IOPS/MBps", "Max NICs",
        ]  # fmt: skip
        for z in s.sizes:
            rows.append(
                [
                    z.name, str(z.vcpus), str(z.memory_gib), str(z.temp_gib), _count(z.quarters),
                    str(_total_memory(s, z)), str(z.data_disks), f"{z.iops}/{z.mbps}", str(z.nics),
                ]
            )  # fmt: skip
    else:
        header = [
            "Size", "vCPU<sup>1</sup>", "Memory: GiB", "Temp storage (SSD) GiB", "GPU", "GPU Memory GiB<sup>2</sup>",
            "Max data disks", "Max uncached disk throughput: IOPS/MBps",
        ]  # fmt: skip
        if s.nvme:
            header.append("Direct Disk NVMe")
        header.append("Max NICs / Max network bandwidth (Mbps)")
        for z in s.sizes:
            row = [
                z.name, str(z.vcpus), str(z.memory_gib), str(z.temp_gib), _count(z.quarters), str(_total_memory(s, z)),
                str(z.data_disks), f"{z.iops} / {z.mbps}",
            ]  # fmt: skip
            if s.nvme:
                row.append(f"{z.nvme_disks}x 960 GB")
            row.append(f"{z.nics} / {z.bandwidth_mbps}")
            rows.append(row)
    return _table(header, rows, old=True)


# ------------------------------------------------------------------------------ newer pages


def _front(title: str, description: str, s: Series, extra: Sequence[str]) -> list[str]:
    """Newer front-matter: ms.topic after the author, anything else before the customer intent."""
    return [
        "---",
        f"title: {title}",
        f"description: {description}",
        f"author: {s.author[0]}",
        *extra[:1],
        "ms.service: azure-virtual-machines",
        "ms.subservice: sizes",
        f"ms.date: {_ms_date(s.date)}",
        f"ms.author: {s.author[1]}",
        f"ms.reviewer: {s.author[1]}",
        *extra[1:],
        f"# Customer intent: As a cloud architect, I want to review the {title.split()[0]} series, so that I can "
        "choose the right size for my workloads.",
        "---",
    ]


def _new_specs(s: Series) -> str:
    """The `Part | Quantity | Specs` include: ranges over the series' sizes."""
    z = s.sizes
    name = s.new_name
    out = _front(
        f"{name} series specs include",
        f"Include file containing specifications of {name}-series VM sizes.",
        s,
        ("ms.topic: include", "ms.custom: include file"),
    )
    maker = "Nvidia" if s.gpu.vendor == "NVIDIA" else "AMD"
    gpu_spec = f"{maker} {s.gpu.long_name.split(' ', 1)[1]} GPU ({s.gpu_memory_gib}GB)"
    out += [
        "| Part | Quantity <br><sup>Count Units</sup> | Specs <br><sup>SKU ID, Performance Units, etc.</sup>  |",
        "|---|---|---|",
        f"| Processor      | {_range([x.vcpus for x in z])} vCPUs | {s.cpu} [x86-64] |",
        f"| Memory         | {_range([x.memory_gib for x in z])} GiB |    |",
        f"| Local Storage  | 1 Disk | {_range([x.temp_gib for x in z])} GiB |",
        f"| Remote Storage | {_range([x.data_disks for x in z])} Disks | {_range([x.iops for x in z])} IOPS <br> "
        f"{_range([x.mbps for x in z])} MBps |",
        f"| Network        | {_range([x.nics for x in z])} NICs | {_range([x.bandwidth_mbps for x in z])} Mbps |",
        f"| Accelerators   | {_range([x.quarters for x in z], _count)} GPUs | {gpu_spec} |",
        "",
    ]
    return "\n".join(out)


_TABLE_DEFS_LOCAL = [
    "#### Table definitions",
    "- Storage capacity is shown in units of GiB or 1024^3 bytes. When you compare disks measured in GB (1000^3 "
    "bytes) to disks measured in GiB (1024^3) remember that capacity numbers given in GiB may appear smaller. "
    "For example, 1023 GiB = 1098.4 GB.",
    "- Disk throughput is measured in input/output operations per second (IOPS) and MBps where MBps = 10^6 bytes/sec.",
    "",
]


def _new_page(rng: Random, s: Series, specs: str) -> str:
    """One table per tab (Basics, Local Storage, Remote Storage, Network, Accelerators), then features."""
    name = s.new_name
    z = s.sizes
    out = _front(
        f"{name} size series",
        f"Information on and specifications of the {name}-series sizes",
        s,
        ("ms.topic: concept-article",),
    )
    out += [
        "",
        f"# {name} sizes series",
        "",
        _intro(rng, s, name),
        "",
        "## Host specifications",
        f"[!INCLUDE [{s.slug}-series-specs](./includes/{specs})]",
        "",
        "For features supported by this series, see the [Feature support](#feature-support) section.",
        "",
        "## Sizes in series",
        "",
        "### [Basics](#tab/sizebasic)",
        "",
        "vCPUs (Qty.) and Memory for each size",
        "",
        *_table(
            ["Size Name", "vCPUs (Qty.)", "Memory (GiB)"],
            [[x.name, str(x.vcpus), f"{x.memory_gib:,}"] for x in z],
            old=False,
        ),
        "",
        "#### VM Basics resources",
        "- [Check vCPU quotas](../../../virtual-machines/quotas.md)",
        "",
        "### [Local Storage](#tab/sizestoragelocal)",
        "",
        "Local (temp) storage info for each size",
        "",
    ]
    local_header = ["Size Name", "Temp Storage Disks (Qty.)", "Temp Disk Size (GiB)"]
    local_rows = [[x.name, "1", f"{x.temp_gib:,}"] for x in z]
    if s.nvme:
        local_header += ["Max NVMe Disks (Qty.)", "NVMe Disk Size (GiB)"]
        local_rows = [[*r, str(x.nvme_disks), "960"] for r, x in zip(local_rows, z, strict=True)]
    out += [
        *_table(local_header, local_rows, old=False),
        "",
        *_TABLE_DEFS_LOCAL,
        "### [Remote Storage](#tab/sizestorageremote)",
        "",
        "Remote (uncached) storage info for each size",
        "",
        *_table(
            ["Size Name", "Max Remote Storage Disks (Qty.)", "Uncached Disk IOPS", "Uncached Disk Speed (MBps)"],
            [[x.name, str(x.data_disks), f"{x.iops:,}", f"{x.mbps:,}"] for x in z],
            old=False,
        ),
        "",
        *_TABLE_DEFS_LOCAL,
        "### [Network](#tab/sizenetwork)",
        "",
        "Network interface info for each size",
        "",
        *_table(
            ["Size Name", "Max NICs (Qty.)", "Max Bandwidth (Mbps)"],
            [[x.name, str(x.nics), f"{x.bandwidth_mbps:,}"] for x in z],
            old=False,
        ),
        "",
        "#### Table definitions",
        "- Expected network bandwidth is the maximum aggregated bandwidth allocated per VM type across all NICs, "
        "for all destinations.",
        "",
        "### [Accelerators](#tab/sizeaccelerators)",
        "",
        "Accelerator (GPUs, FPGAs, etc.) info for each size",
        "",
        *_table(
            ["Size Name", "Accelerators (Qty.)", "Accelerator-Memory (GB)"],
            [[x.name, _count(x.quarters), str(_total_memory(s, x))] for x in z],
            old=False,
        ),
        "",
        "---",
        "",
        "## Feature support",
        "",
        "|Feature name | Support status |",
        "| --- | --- |",
        f"|[Premium Storage](../../premium-storage-performance.md)| {_flag('s' in s.features)} |",
        f"|[Premium Storage caching](../../premium-storage-performance.md)| {_flag('s' in s.features)} |",
        "|[Live Migration](../../maintenance-and-updates.md#live-migration)| Not Supported |",
        "|[Memory Preserving Updates](../../maintenance-and-updates.md)| Not Supported |",
        "|[Generation 2 VMs](../../generation-2.md)| Supported |",
        f"|[Generation 1 VMs](../../generation-2.md)| {_flag(1 in s.generations)} |",
        f"|[Accelerated Networking](/azure/virtual-network/create-vm-accelerated-networking-cli)| "
        f"{_flag(s.version >= 3)} |",
        "|[Ephemeral OS Disk](../../ephemeral-os-disks.md)| Supported |",
    ]
    if s.nvme:
        out.append("|[Temporary local NVMe disks](../../enable-nvme-temp-faqs.yml)| Supported |")
    else:
        out.append("|[Local temporary storage](../../overview.md#local-temporary-storage)| Supported |")
    out += [
        "|[Nested Virtualization](/virtualization/hyper-v-on-windows/user-guide/nested-virtualization)| "
        "Not Supported |",
        "",
        "",
        "[!INCLUDE [sizes-footer](../includes/sizes-footer.md)]",
        "",
    ]
    return "\n".join(out)


# ------------------------------------------------------------------------------ third-party pages


def _third_party(rng: Random, family: str, copied: Sequence[Series]) -> str:
    """A family overview that copies official rows with deliberate mistakes.

    Mistakes: names without their feature letters (page-wide, as `ND24` for `Standard_ND24s`),
    a wrong GPU model, and the total GPU memory printed beside the model as if per GPU.
    """
    short = rng.random() < 0.4
    escape = rng.random() < 0.5
    models = sorted(GPUS)
    rows: list[list[str]] = []
    seen: list[str] = []
    mistakes = 0
    for s in copied:
        for z in s.sizes:
            shown = z.short_name(s.features) if short else z.name.removeprefix("Standard_")
            if shown in seen:
                continue
            seen.append(shown)
            model = s.gpu.name
            if rng.random() < 0.3:
                model = rng.choice([m for m in models if m != s.gpu.name])
                mistakes += 1
            total = _total_memory(s, z)
            gpus = f"{_count(z.quarters)} x {model}"
            if z.quarters > 4 and rng.random() < 0.3:
                gpus += f" {total} GB"
                mistakes += 1
            net = "InfiniBand" if s.infiniband else "Ethernet"
            if rng.random() < 0.7:
                net += f" / {z.bandwidth_mbps / 1000:g} Gbps"
            rows.append(
                [shown.replace("_", "\\_") if escape else shown, str(z.vcpus), f"{z.memory_gib} GB", gpus,
                 f"{total} GB", net]
            )  # fmt: skip
    if not mistakes and not (short and any(s.features for s in copied)):
        first = copied[0]
        wrong = rng.choice([m for m in models if m != first.gpu.name])
        rows[0][3] = f"{_count(first.sizes[0].quarters)} x {wrong}"
    head: list[str] = []
    if rng.random() < 0.5:
        head = ["---", "tags:", "  - Cloud compute", "  - Azure", "  - GPU", "---", ""]
    gpu_names = " or ".join(dict.fromkeys(s.gpu.long_name for s in copied))
    out = [
        *head,
        f"# Azure {family}-Series: GPU Virtual Machines for {rng.choice(('AI', 'HPC', 'Graphics', 'Inference'))}",
        "",
        f"Microsoft Azure offers the **{family}-series**, a family of **GPU-optimized virtual machines** designed "
        f"for {FAMILY_PURPOSE[family]}.",
        "",
        f"## Key Features of {family}-Series",
        "",
        "### 1. **Powered by GPUs**",
        "",
        f"* {family}-series VMs use **{gpu_names} GPUs**, optimized for demanding workloads.",
        "* Supports FP32, FP16, and mixed-precision workloads.",
        "",
        "### 2. **High-Speed Networking**",
        "",
        "* Low-latency networking for multi-GPU and clustered workloads.",
        "",
        "## Instance Types and Specifications",
        "",
        "| Instance Type | vCPUs | Memory | GPUs     | GPU Memory | Network    |",
        "| ------------- | ----- | ------ | -------- | ---------- | ---------- |",
        *("| " + " | ".join(r) + " |" for r in rows),
        "",
        f"*Note: Specifications and availability vary by region. See the [Azure {family}-Series VMs]"
        f"(https://learn.microsoft.com/en-us/azure/virtual-machines/{family.lower()}-series) page for current "
        "details.*",
        "",
        "## Conclusion",
        "",
        f"Azure {family}-series VMs provide **highly optimized GPU performance** for enterprises and researchers.",
        "",
    ]
    return "\n".join(out)


# ------------------------------------------------------------------------------ shared files

_REGISTRY = """\
# Who published each generated document (bench.corpus); the first matching entry wins.

[[source]]
path = "official-old/**"
publisher = "Microsoft"
kind = "official_spec"
licence = "CC BY 4.0"

[[source]]
path = "official-new/**"
publisher = "Microsoft"
kind = "official_spec"
licence = "CC BY 4.0"

[[source]]
path = "includes/**"
publisher = "Microsoft"
kind = "official_spec"
licence = "CC BY 4.0"

[[source]]
path = "third-party/**"
publisher = "unknown third party"
kind = "third_party"
licence = "unknown"
"""

_TABLE_DEFS = """\
---
author: vm-sizes-team
ms.service: virtual-machines
ms.topic: include
ms.date: 04/01/2021
ms.author: vmsizes
---
- Storage capacity is shown in units of GiB or 1024^3 bytes. When you compare disks measured in GB (1000^3 bytes) \
to disks measured in GiB (1024^3) remember that capacity numbers given in GiB may appear smaller.
- Disk throughput is measured in input/output operations per second (IOPS) and MBps where MBps = 10^6 bytes/sec.
- Data disks can operate in cached or uncached modes. For uncached data disk operation, the host cache mode is set \
to None.
- Expected network bandwidth is the maximum aggregated bandwidth allocated per VM type across all NICs, for all \
destinations.
"""

_FOOTER = """\
---
author: vm-sizes-team
ms.service: azure-virtual-machines
ms.subservice: sizes
ms.topic: include
ms.date: 02/15/2024
ms.author: vmsizes
---
## Other size information

- [List of all available sizes](../sizes/overview.md)
- [Pricing Calculator](https://azure.microsoft.com/pricing/calculator/)
- [Information on Disk Types](../disks-types.md)
"""


# ------------------------------------------------------------------------------ the corpus


def plan(n: int) -> tuple[int, int, int]:
    """(older pages, newer series, third-party pages) for about n documents.

    Newer series count twice (page and specs include) and the two shared includes once
    each, so the total stays within two of n.
    """
    if n <= 0:
        return 0, 0, 0
    third = round(n * 0.20)
    new = round(n * 0.35 / 2)
    shared = (1 if new else 0) + 1
    old = max(n - third - 2 * new - shared, 0 if new else 1)
    if old == 0 and new == 0:
        old, third = 1, 0
    return old, new, third


def generate(n: int, dest: Path, seed: int = 0) -> list[Path]:
    """Write about n documents under dest (created if missing) and return their paths, sorted.

    The same (n, seed) writes byte-identical files: one `random.Random(seed)` drives every
    choice, in a fixed order, and nothing reads the clock or iterates a set.
    """
    dest = Path(dest)
    rng = Random(seed)
    n_old, n_new, n_third = plan(n)
    if n_old + n_new + n_third == 0:
        return []
    for sub in ("includes", "official-old", "official-new/includes", "third-party"):
        (dest / sub).mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def write(rel: str, text: str) -> None:
        path = dest / rel
        path.write_bytes(text.encode("utf-8"))
        written.append(path)

    (dest / "registry.toml").write_bytes(_REGISTRY.encode("utf-8"))
    write(f"includes/{TABLE_DEFS}.md", _TABLE_DEFS)
    if n_new:
        write("includes/sizes-footer.md", _FOOTER)
    space = naming_space()
    order = _weighted_order(rng, space)
    kinds = ["old"] * n_old + ["new"] * n_new
    rng.shuffle(kinds)
    by_family: dict[str, list[Series]] = {f: [] for f in FAMILIES}
    for k, kind in enumerate(kinds):
        family, feat, accel, version = space[order[k % len(space)]]
        combo = (family, feat, accel, version + VERSIONS * (k // len(space)))
        s = _series(rng, combo, OLD_DATES if kind == "old" else NEW_DATES)
        by_family[family].append(s)
        if kind == "old":
            write(f"official-old/{re.sub(r'[^a-z0-9]+', '-', s.old_name.lower())}-series.md", _old_page(rng, s))
        else:
            specs = f"{s.slug}-series-specs.md"
            write(f"official-new/includes/{specs}", _new_specs(s))
            write(f"official-new/{s.slug}-series.md", _new_page(rng, s, specs))
    families = [f for f in FAMILIES if by_family[f]]
    for k in range(n_third):
        family = rng.choice(families)
        pool = by_family[family]
        copied = [rng.choice(pool)]
        if len(pool) > 1 and rng.random() < 0.5:
            other = rng.choice(pool)
            if other is not copied[0]:
                copied.append(other)
        write(f"third-party/azure-{family.lower()}-series-{k:05d}.txt", _third_party(rng, family, copied))
    return sorted(written)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m bench.corpus N DEST [--seed S]`: write a corpus and say how long it took."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.corpus", description="Write a deterministic, realistic test corpus."
    )
    parser.add_argument("n", type=int, help="about how many documents to write")
    parser.add_argument("dest", type=Path, help="folder to write into (created if missing)")
    parser.add_argument("--seed", type=int, default=0, help="same n and seed give byte-identical files")
    args = parser.parse_args(argv)
    if args.n < 0:
        parser.error("n must be 0 or more")
    start = time.perf_counter()
    paths = generate(args.n, args.dest, args.seed)
    print(f"wrote {len(paths)} documents to {args.dest} in {time.perf_counter() - start:.2f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
