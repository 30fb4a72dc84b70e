"""Smoke test of the benchmark suite (`python -m benchmarks`): one cheap workload, tapeflow and
the NumPy floor only (no peer needed), in a subprocess; the JSON it writes has the expected
keys and positive times, and README's Speed section renders from it. No timing assertions."""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_suite(out: str) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(ROOT, "src"), ROOT,
                                         env.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--only", "chain",
         "--systems", "numpy,tapeflow", "--out", out],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with open(os.path.join(out, "latest.json")) as f:
        return json.load(f)


def test_quick_run_writes_times_machine_and_markdown(tmp_path):
    result = run_suite(str(tmp_path))
    for key in ("date", "command", "machine", "systems", "workloads", "notes", "rounds"):
        assert key in result
    for key in ("cpu", "cores", "python", "numpy", "blas", "versions"):
        assert key in result["machine"]
    assert set(result["systems"]) == {"numpy", "tapeflow", "tapeflow_fn"}
    chain = result["workloads"]["chain"]["results"]
    assert set(chain) == {"numpy", "tapeflow", "tapeflow_fn"}
    for entry in chain.values():
        assert entry["median_s"] > 0 and all(t > 0 for t in entry["samples_s"])
        assert len(entry["samples_s"]) == result["rounds"]
    # every system computed the same gradient of the chain from the same start
    checks = [entry["check"] for entry in chain.values()]
    assert max(checks) - min(checks) < 1e-5
    assert chain["tapeflow"]["ratio_to_tapeflow"] == 1.0
    assert chain["numpy"]["ratio_to_floor"] == 1.0

    sys.path.insert(0, ROOT)
    try:
        from benchmarks import report
    finally:
        sys.path.remove(ROOT)
    section = report.markdown(result)
    assert section.startswith("## Speed\n") and "| chain of 100 scalar ops" in section
    readme = tmp_path / "README.md"
    readme.write_text("# t\n\n## Speed\n\nold\n\n## Next\n\nkept\n")
    report.update_readme(str(readme), section)
    text = readme.read_text()
    assert "old" not in text and text.endswith("## Next\n\nkept\n") and "| chain" in text
