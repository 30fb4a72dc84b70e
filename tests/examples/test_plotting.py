"""examples/_plotting.py: a PNG where matplotlib imports; without it, nothing printed or saved."""

import sys

import pytest


def draw(plt):
    plt.plot([1, 2, 3])


def test_without_matplotlib_nothing_is_printed_or_saved(monkeypatch, tmp_path, capsys):
    from _plotting import save_plot
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` raises ImportError
    save_plot("curve.png", draw)
    assert capsys.readouterr().out == "" and list(tmp_path.iterdir()) == []


def test_with_matplotlib_the_png_is_saved(monkeypatch, tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="matplotlib is an optional extra of the examples")
    from _plotting import save_plot
    monkeypatch.chdir(tmp_path)
    save_plot("curve.png", draw)
    assert capsys.readouterr().out == "saved curve.png\n"
    assert (tmp_path / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
