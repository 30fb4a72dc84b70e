"""The suite's outputs: ratios, the printed tables, the machine's description, README's
Speed section (markdown) and the bar chart."""

from __future__ import annotations

import os
import platform
import re
import sys
import textwrap
from typing import Optional

from benchmarks import systems
from benchmarks import workloads as W

PEER_TITLES = {"eager": "eager", "compiled": "compiled (`tf.function`, `jit`, `torch.compile`)"}


def fmt_time(seconds: Optional[float]) -> str:
    """3 significant digits in us, ms or s."""
    if seconds is None:
        return "-"
    for unit, scale in (("us", 1e-6), ("ms", 1e-3), ("s", 1.0)):
        if seconds < 1000 * scale or unit == "s":
            return f"{seconds / scale:.3g} {unit}"
    return "-"


def tapeflow_id(mode: str) -> str:
    return "tapeflow" if mode == "eager" else "tapeflow_fn"


def add_ratios(entry: dict) -> None:
    """Each system's median over tapeflow's in the same mode (the floor's over tapeflow's
    `tf.function`) and over the NumPy floor, where those ran."""
    results = entry["results"]
    floor = results.get("numpy", {}).get("median_s")
    for sid, r in results.items():
        base = results.get(tapeflow_id(systems.BY_ID[sid].mode), {}).get("median_s")
        r["ratio_to_tapeflow"] = r["median_s"] / base if base else None
        r["ratio_to_floor"] = r["median_s"] / floor if floor else None


def _ratio(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.2f}x"


def print_workload(entry: dict, by_id: dict) -> None:
    print(f"  {'system':24s} {'median':>10s} {'x tapeflow':>11s} {'x NumPy':>9s} "
          f"{'first call':>11s}  check")
    for sid, r in entry["results"].items():
        print(f"  {by_id[sid].name:24s} {fmt_time(r['median_s']):>10s} "
              f"{_ratio(r['ratio_to_tapeflow']):>11s} {_ratio(r['ratio_to_floor']):>9s} "
              f"{fmt_time(r['first_call_s']):>11s}  {r['check']:.6g}")
    for sid, why in entry["skipped"].items():
        if why == "not available":
            print(f"  {by_id[sid].name:24s} {'n/a':>10s}")
    sys.stdout.flush()


def machine(versions: dict) -> dict:
    """CPU model, cores, OS, Python, NumPy and its BLAS (threadpoolctl), the peers' versions."""
    import numpy as np
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name"))
    except (OSError, StopIteration):
        pass
    try:
        from threadpoolctl import threadpool_info
        blas = [{k: info.get(k) for k in ("internal_api", "version", "num_threads",
                                          "architecture")} for info in threadpool_info()]
    except ImportError:
        blas = []
    return {"cpu": cpu, "cores": os.cpu_count(), "platform": platform.platform(),
            "python": platform.python_version(), "numpy": np.__version__, "blas": blas,
            "versions": versions}


def machine_line(m: dict) -> str:
    blas = ", ".join(f"{b['internal_api']} {b['version']} ({b['num_threads']} threads)"
                     for b in m["blas"]) or "unknown BLAS"
    load = m.get("load_average", {})
    busy = (f" (load average {load['start'][0]} at the start, {load['end'][0]} at the end: "
            "other jobs shared the cores)" if load.get("start") and load.get("end") else "")
    return (f"{m['cpu']}, {m['cores']} cores, {m['platform']}{busy}; Python {m['python']}, "
            f"NumPy {m['numpy']} with {blas}")


def summary_rows(result: dict) -> list:
    """(label, tapeflow, best peer's name, best peer, ratio, floor) for README's table."""
    rows = []
    names = {sid: s["name"] for sid, s in result["systems"].items()}
    for wname, entry in result["workloads"].items():
        res = entry["results"]
        for mode in W.BY_NAME[wname].modes:
            if mode == "floor":
                continue
            mine = res.get(tapeflow_id(mode), {}).get("median_s")
            peers = {sid: r["median_s"] for sid, r in res.items()
                     if systems.BY_ID[sid].group in systems.PEER_GROUPS
                     and systems.BY_ID[sid].mode == mode}
            best = min(peers, key=peers.get) if peers else None
            label = f"{W.BY_NAME[wname].short}, {'eager' if mode == 'eager' else 'compiled'}"
            rows.append((label, fmt_time(mine), names.get(best, "-"),
                         fmt_time(peers.get(best)),
                         _ratio(mine / peers[best] if mine and best else None),
                         fmt_time(res.get("numpy", {}).get("median_s"))))
    big, gemm = result["workloads"].get("big"), result["workloads"].get("gemm")
    if big and gemm and "tapeflow_fn" in big["results"] and "numpy" in gemm["results"]:
        fn, floor = big["results"]["tapeflow_fn"]["median_s"], gemm["results"]["numpy"]["median_s"]
        rows.append(("big step `tf.function` over the GEMM floor",
                     fmt_time(fn), "GEMM floor", fmt_time(floor), _ratio(fn / floor), "-"))
    for key, unit in (("memory", "MiB"), ("import", "s")):
        if key in result:
            rows += _extra_rows(result, key, unit, names)
    return rows


def _extra_rows(result: dict, key: str, unit: str, names: dict) -> list:
    res = result[key]["results"]
    value = (lambda sid: res[sid]["growth_mib"]) if key == "memory" else (lambda g: res[g])
    fmt = (lambda v: f"{v:.0f} MiB") if key == "memory" else (lambda v: f"{v:.2f} s")
    if key == "memory":
        peers = [sid for sid in res if systems.BY_ID[sid].group in systems.PEER_GROUPS]
        mine = [sid for sid in res if systems.BY_ID[sid].group == "tapeflow"]
        label = lambda sid: f"big step peak memory, {names[sid][9:]}"  # noqa: E731
        peer_name = lambda sid: names[sid]  # noqa: E731
    else:
        peers = [g for g in res if g in systems.PEER_GROUPS]
        mine = [g for g in res if g == "tapeflow"]
        label = lambda g: "`import` time"  # noqa: E731
        peer_name = lambda g: systems.GROUP_LABEL[g]  # noqa: E731
    best = min(peers, key=value) if peers else None
    floor = res.get("numpy")
    floor = None if floor is None else value("numpy")
    return [(label(sid), fmt(value(sid)), peer_name(best) if best else "-",
             fmt(value(best)) if best else "-",
             _ratio(value(sid) / value(best)) if best and value(best) > 0 else "-",
             fmt(floor) if floor is not None else "-") for sid in mine]


def full_table(result: dict) -> list:
    """Markdown lines: every system's median for every workload."""
    ids = [s.id for s in systems.SYSTEMS if s.id in result["systems"]]
    names = [result["systems"][sid]["name"] for sid in ids]
    lines = ["| workload | " + " | ".join(names) + " |", "|---" * (len(ids) + 1) + "|"]
    for entry in result["workloads"].values():
        cells = [fmt_time(entry["results"].get(sid, {}).get("median_s")) for sid in ids]
        lines.append(f"| {entry['title']} | " + " | ".join(cells) + " |")
    if "import" in result:
        res = result["import"]["results"]
        lines.append("| `import` (s) | " + " | ".join(
            f"{res[g]:.2f}" if (g := systems.BY_ID[sid].group) in res else "-"
            for sid in ids) + " |")
    if "memory" in result:
        res = result["memory"]["results"]
        lines.append("| big step peak memory (MiB) | " + " | ".join(
            f"{res[sid]['growth_mib']:.0f}" if sid in res else "-" for sid in ids) + " |")
    return lines


def markdown(result: dict) -> str:
    """README's `## Speed` section for `result`."""
    m, v = result["machine"], result["machine"]["versions"]
    peers = ", ".join(f"{systems.GROUP_LABEL[g]} {v[g]}" for g in systems.PEER_GROUPS
                      if g in v and g != "torch_compile")
    lines = [
        "## Speed", "",
        "`python -m benchmarks` runs every workload on every installed system in one run: "
        "each library in its own process, all from the same data and initial weights (float32), "
        f"timed in {result['rounds']} interleaved rounds; times are medians per step. The "
        "TensorFlow programs are tapeflow's, the same code run with `lib = tensorflow` (Keras "
        "models from `tf.keras`); PyTorch uses `torch.optim.Adam`, JAX and autograd Keras's Adam "
        "formula by hand. \"Best peer\" is the fastest of the others in the same mode: eager "
        "against eager; compiled: tapeflow's `tf.function` against TensorFlow's, `jax.jit` "
        "and (where run) `torch.compile`. Memory: peak RSS growth over "
        f"{result.get('memory', {}).get('steps', '-')} big steps after setup, each system in a "
        "fresh process; `import`: `python -c \"import X\"` wall time, the fastest of 4 with "
        "bytecode cached.",
        "",
        f"Run of {result['date']}{' (--quick)' if result['quick'] else ''} on "
        f"{machine_line(m)}. Peers: {peers or 'none installed'}.", "",
        "| workload | tapeflow | best peer | its time | tapeflow / best peer | NumPy by hand |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    lines += [f"| {a} | {b} | {c} | {d} | {e} | {f} |" for a, b, c, d, e, f in
              summary_rows(result)]
    lines += ["", "![Median time per step of every workload on every system, log scale]"
              "(benchmarks/results/latest.png)", "",
              "<details><summary>Every system's median</summary>", "", *full_table(result), "",
              "</details>", "",
              "Workloads: " + "; ".join(w.title for w in W.WORKLOADS) + ".", "",
              *(["Not yet measured: " + "; ".join(W.NOT_YET.values()) + ".", ""]
                if W.NOT_YET else []),
              *(["Notes from the run: " + "; ".join(result["notes"]) + ".", ""]
                if result["notes"] else []),
              "To reproduce (the `bench` extra installs TensorFlow, PyTorch, JAX, autograd and "
              "matplotlib; a peer that is missing is skipped with a note):", "", "```sh",
              "python -m venv benchenv",
              "benchenv/bin/pip install '.[bench]'",
              "benchenv/bin/python -m benchmarks            # 5-8 min; --quick, --only big,cnn, "
              "--systems tapeflow,torch",
              "benchenv/bin/python -m benchmarks --readme   # this section, from "
              "benchmarks/results/latest.json",
              "```", "",
              "The run writes `benchmarks/results/latest.json` (every sample, the first call's "
              "time, the machine) and `latest.png`. Timings on a shared machine swing; compare "
              "systems within one run, not across runs. How the suite measures, and where its "
              "code is: [docs/benchmarks.md](docs/benchmarks.md).", ""]
    return "\n".join(_wrap(line) for line in lines)


def _wrap(line: str) -> str:
    """Prose lines wrapped at 95 columns as the README's; tables, code, images kept."""
    if not line or line.startswith(("|", "!", "<", "```", "benchenv", "python ")):
        return line
    return textwrap.fill(line, 95, break_long_words=False, break_on_hyphens=False)


def update_readme(path: str, section: str) -> None:
    """Replaces the `## Speed` section of the README at `path` (up to the next `## `)."""
    with open(path) as f:
        text = f.read()
    pattern = re.compile(r"^## Speed\n.*?(?=^## )", re.S | re.M)
    if not pattern.search(text):
        raise SystemExit(f"{path}: no '## Speed' section followed by another '## ' section")
    with open(path, "w") as f:
        f.write(pattern.sub(lambda _: section.rstrip("\n") + "\n\n", text, count=1))


def print_summary(result: dict) -> None:
    print("\nSummary (tapeflow against the fastest peer in the same mode):")
    for label, mine, peer, theirs, ratio, floor in summary_rows(result):
        print(f"  {label[:72]:72s} {mine:>10s}  {peer:24s} {theirs:>10s}  {ratio:>7s}"
              f"  floor {floor}")
    for text in result["notes"]:
        print(f"  note: {text}")


def chart(result: dict, path: str) -> Optional[str]:
    """Bar chart: log-scale time per workload, a bar per system; memory and import time
    beside. None where matplotlib does not import."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    ids = [s.id for s in systems.SYSTEMS if s.id in result["systems"]]
    colors = dict(zip(ids, plt.get_cmap("tab10").colors))
    extras = [k for k in ("memory", "import") if k in result]
    fig, axes = plt.subplots(1, 1 + len(extras), figsize=(13 + 2.5 * len(extras), 5.5),
                             gridspec_kw={"width_ratios": [5] + [1.2] * len(extras)},
                             squeeze=False)
    ax, width = axes[0][0], 0.85 / max(len(ids), 1)
    entries = list(result["workloads"].items())
    labelled = set()
    for i, (_, entry) in enumerate(entries):
        present = [sid for sid in ids if sid in entry["results"]]
        for j, sid in enumerate(present):      # each group's bars side by side, centred
            ax.bar(i + (j - (len(present) - 1) / 2) * width,
                   entry["results"][sid]["median_s"] * 1e3, width, color=colors[sid],
                   label=None if sid in labelled else result["systems"][sid]["name"],
                   edgecolor="black" if sid.startswith("tapeflow") else None)
            labelled.add(sid)
    ax.set_yscale("log")
    ax.set_ylabel("median time per step (ms, log scale)")
    ax.set_xticks(range(len(entries)))
    ax.set_xticklabels([W.BY_NAME[name].short for name, _ in entries], fontsize=8)
    ax.set_title(f"python -m benchmarks, {result['date']}: {result['machine']['cpu']}, "
                 f"{result['machine']['cores']} cores", fontsize=9)
    ax.grid(axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    for ax, key in zip(axes[0][1:], extras):
        res = result[key]["results"]
        if key == "memory":
            keys = [sid for sid in ids if sid in res]
            values = [res[sid]["growth_mib"] for sid in keys]
            ax.set_title("big step peak RSS growth (MiB)", fontsize=9)
        else:
            keys = [sid for sid in ids if systems.BY_ID[sid].group in res
                    and sid not in ("tapeflow_fn", "tensorflow_fn", "jax_jit", "torch_compile")]
            values = [res[systems.BY_ID[sid].group] for sid in keys]
            ax.set_title("import time (s)", fontsize=9)
        ax.bar(range(len(keys)), values, color=[colors[k] for k in keys])
        ax.set_xticks(range(len(keys)))
        names = [result["systems"][k]["name"] if key == "memory"
                 else systems.GROUP_LABEL[systems.BY_ID[k].group] for k in keys]
        ax.set_xticklabels(names, rotation=70, fontsize=7, ha="right")
        ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
