"""Keras documentation programs (keras.io vision, generative and recipe examples, shortened,
seeded, on synthetic data) run unchanged under tapeflow's Keras and print what Keras 3.15.1
printed for them: text exactly, numbers to float32 rounding after a short seeded training.
Keras's output is recorded in fixtures/ by tools/record_keras_programs.py (TF 2.21 / Keras
3.15.1); each program runs in a fresh interpreter through _keras_programs_runner.py."""

import pytest
from _keras_programs_runner import compare_lines, load_fixture, program_files, run_program

PROGRAMS = program_files(prefix="a_")
# Programs that do not (yet) print what Keras printed, with the reason.
XFAIL: dict[str, str] = {}


def _param(program):
    marks = [pytest.mark.xfail(strict=True, reason=XFAIL[program.stem])] if (
        program.stem in XFAIL) else []
    return pytest.param(program, id=program.stem, marks=marks)


def test_every_program_has_a_fixture():
    assert len(PROGRAMS) == 10
    for program in PROGRAMS:
        assert load_fixture(program)["stdout"], program.name


@pytest.mark.parametrize("program", [_param(p) for p in PROGRAMS])
def test_program_prints_what_keras_printed(program, record_property):
    fixture = load_fixture(program)
    run = run_program(program, "tapeflow")
    assert run.returncode == 0, run.stderr[-4000:]
    record_property("wall_s", run.wall_s)
    record_property("keras_wall_s", fixture["wall_s"])
    assert compare_lines(run.lines, fixture["stdout"]) == []


def test_the_comparison_allows_float32_rounding_and_nothing_else():
    want = ["3/3 - 4s - 1s/step - accuracy: 0.0781 - loss: 2.3930"]
    assert compare_lines(["3/3 - 1s - 612ms/step - accuracy: 0.0781 - loss: 2.3931"], want) == []
    assert compare_lines(["3/3 - 1s - 612ms/step - accuracy: 0.0781 - loss: 2.3950"], want)
    assert compare_lines(["3/3 - 1s - 612ms/step - accuracy: 0.0781 - los: 2.3930"], want)
    assert compare_lines(["4/3 - 1s - 612ms/step - accuracy: 0.0781 - loss: 2.3930"], want)
    assert compare_lines(want + ["extra"], want)
    assert compare_lines(["z: nan"], ["z: nan"]) == []
    assert compare_lines(["z: 1.0"], ["z: nan"])


def test_the_runner_puts_tapeflow_in_place_of_keras_and_tensorflow(tmp_path):
    program = tmp_path / "p.py"
    program.write_text(
        "import keras\nimport keras.layers as kl\nfrom keras.layers import Dense\n"
        "from keras import ops\nimport tensorflow as tf\n"
        "print(keras.__name__, kl is keras.layers, Dense.__module__, ops.__name__, tf.__name__)\n"
        "print(keras.layers.__spec__.name)\n")
    run = run_program(program, "tapeflow")
    assert run.returncode == 0, run.stderr
    assert run.lines == ["tapeflow.keras True tapeflow.keras.layers.core tapeflow.keras.ops "
                         "tapeflow", "tapeflow.keras.layers"]
    assert run.wall_s > 0


def test_a_program_that_fails_reports_its_error(tmp_path):
    program = tmp_path / "p.py"
    program.write_text("import keras\nprint('before')\nkeras.layers.NoSuchLayer\n")
    run = run_program(program, "tapeflow")
    assert run.returncode != 0 and run.wall_s is None
    assert run.lines == ["before"] and "AttributeError" in run.stderr
