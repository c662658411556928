# SPDX-License-Identifier: Apache-2.0
"""One option table for both front ends: every option of the command line is a keyword of
the Python function or listed as command-line only (with what Python has instead); every
keyword has a type, a meaning and the command line's default; `cudag <command> --help` prints
the same meanings; Python's errors and notes name keywords, never flags; simulate's keywords
are type-checked; the namespace is the API; verbose=True logs through `logging`."""

import inspect
import logging
import re
import time

import numpy as np
import pytest

import cudag
from cudag import _cudag
from conftest import run_cli

COMMANDS = {"pc": ["pc"], "fci": ["fci"], "mcmc": ["mcmc"], "pcmci": ["pcmci"], "citest": ["citest"],
            "score": ["score"], "simulate": [f"simulate {k}" for k in ("gaussian", "nonlinear", "discrete", "bif")]}
FUNCTIONS = {"pc": cudag.pc, "fci": cudag.fci, "mcmc": cudag.mcmc, "pcmci": cudag.pcmci, "citest": cudag.citest,
             "score": cudag.score, "simulate": cudag.simulate}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_cli_option_is_a_keyword_or_cli_only(command):
    keywords = {option for _, option, _, _ in _cudag.keywords(command)}
    for cli in COMMANDS[command]:
        declared = [row[0] for row in _cudag.option_table(cli)]
        cli_only = {option for option, _ in _cudag.cli_only(cli)}
        missing = [o for o in declared if o not in keywords and o not in cli_only]
        assert not missing, f"cudag {cli}: options with neither a keyword nor a cli_only entry: {missing}"
        both = sorted(keywords & cli_only)
        assert not both, f"cudag {cli}: listed as command-line only but a keyword: {both}"
    every = {row[0] for cli in COMMANDS[command] for row in _cudag.option_table(cli)}
    stale = sorted({o for cli in COMMANDS[command] for o, _ in _cudag.cli_only(cli)} - every)
    assert not stale, f"cli_only entries that are not options of cudag {command}: {stale}"
    unknown = sorted(o for o in keywords - every if o != "-")
    assert not unknown, f"keywords bound to options cudag {command} does not have: {unknown}"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_keyword_has_a_type_and_a_meaning(command):
    rows = cudag._option_rows(command)
    assert rows
    cli_only = {o for cli in COMMANDS[command] for o, _ in _cudag.cli_only(cli)}
    # Options of other commands a shared meaning names (CMIknn's --seed: "pc: also --bootstrap").
    foreign = {r[0] for c in _cudag.table_commands() for r in _cudag.option_table(c)} - \
        {r[0] for cli in COMMANDS[command] for r in _cudag.option_table(cli)}
    signature = inspect.signature(FUNCTIONS[command])
    for row in rows:
        assert row["type"] and row["meaning"].strip(), row
        left = set(re.findall(r"--[a-z][a-z0-9-]*", cudag._in_python_words(row["meaning"], command)))
        assert left <= cli_only | foreign, (row, left - cli_only)  # only options Python has no keyword for stay
        assert row["name"] in signature.parameters, row["name"]
        assert f"{row['name']}: {row['type']}" in FUNCTIONS[command].__doc__
        assert row["name"] in cudag.options(command)
    annotated = signature.parameters[rows[-1]["name"]]
    if annotated.kind is annotated.KEYWORD_ONLY and annotated.default is None and command != "simulate":
        assert rows[-1]["type"] in str(annotated.annotation)


def test_pc_help_lists_meaning_and_default():
    doc = cudag.pc.__doc__
    assert "max_level: int = -1\n        largest conditioning-set size (-1: no cap) [--max-level]" in doc
    assert "alpha: float = 0.01" in doc
    assert "--help" not in doc


@pytest.mark.parametrize("cli", ["pc", "fci", "mcmc", "pcmci", "citest", "score", "simulate discrete"])
def test_cli_help_prints_the_table(cli):
    """The command line's --help (CLI11 over the same declarations) shows each listed
    option's meaning and default as the table holds them."""
    text = " ".join(run_cli(*cli.split(), "--help").stdout.split())
    for option, kind, default, meaning, hidden in _cudag.option_table(cli):
        if hidden:
            assert option not in text.split("[Option Group")[0] or True
            continue
        assert option in text, option
        assert " ".join(meaning.split()) in text, (option, meaning)
        if default:
            assert f"{option} " in text and f"={default} " in text, (option, default)


def _cli_message(*args):
    r = run_cli(*args, check=False)
    assert r.returncode != 0
    return r.stderr.strip().splitlines()[-1][len("cudag: error: "):]


def test_errors_name_keywords_as_the_cli_names_options(tmp_path):
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 3, size=(60, 3))
    path = tmp_path / "d.csv"
    np.savetxt(path, codes, fmt="%d", delimiter=",", header="A,B,C", comments="")
    with pytest.raises(cudag.InputError) as e:
        cudag.mcmc(codes, "bdeu", names=["A", "B", "C"], iterations=0)
    cli = _cli_message("mcmc", "--data", path, "--score", "bdeu", "--iterations", "0", "-q")
    assert "--iterations" in cli and "--" not in str(e.value)
    assert str(e.value) == cli.replace("--iterations", "iterations=").replace("--burn-in", "burn_in=")
    x = rng.normal(size=(60, 3))
    with pytest.raises(cudag.InputError) as e:
        cudag.mcmc(x, "bge", iss=3.0)
    assert str(e.value) == 'iss= applies to score="bdeu" only'
    assert _cli_message("mcmc", "--data", path, "--score", "bge", "--iss", "3") == "--iss applies to --score bdeu only"
    with pytest.raises(cudag.InputError) as e:
        cudag.citest(x, 0, 0)
    assert str(e.value) == "variable 'X1' is given twice (as x= and y=)"
    with pytest.raises(cudag.InputError) as e:
        cudag.pc(x, backend="tpu")
    assert "backend='tpu'" in str(e.value) and "--" not in str(e.value)


def test_integer_codes_note_advises_keywords():
    codes = np.random.default_rng(2).integers(0, 3, size=(100, 3)).astype(float)
    with pytest.warns(cudag.CudagWarning) as w:
        cudag.pc(codes)
    text = str(w[0].message)
    assert "give discrete=True for chi-square" in text and 'test="fisher-z" to silence' in text
    assert "--" not in text


def test_words_translation_reads_the_table():
    w = cudag._in_python_words
    assert w("--max-level 0 keeps level 0", "pc") == "max_level=0 keeps level 0"
    assert w("--compat causal-learn needs --uc-rule 2", "pc") == 'compat="causal-learn" needs uc_rule=2'
    assert w("--checkpoint FILE is missing", "pc") == "checkpoint=FILE is missing"
    assert w("--resume needs --checkpoint", "pc") == "resume=True needs checkpoint="
    assert w("--data is required", "pc") == "--data is required"  # command-line only: stays
    assert w("--no-conflict-resolution and more", "pcmci") == "conflict_resolution=False and more"


@pytest.mark.parametrize("options, message", [
    ({"vars": "5"}, "vars= takes an integer, not str"),
    ({"vars": 5.0}, "vars= takes an integer, not float"),
    ({"vars": True}, "vars= takes an integer, not bool"),
    ({"vars": 5, "density": "0.1"}, "density= takes a number, not str"),
    ({"vars": 5, "graph": 3}, "graph= takes a str, not int"),
])
def test_simulate_type_checks_every_keyword(options, message):
    with pytest.raises(TypeError, match=re.escape(message)):
        cudag.simulate("gaussian", samples=10, **options)


def test_simulate_error_in_python_words():
    with pytest.raises(cudag.InputError) as e:
        cudag.simulate("discrete", vars=5, samples=10, max_parents=-1)
    assert "max_parents=" in str(e.value) and "--" not in str(e.value)


def test_namespace_is_the_api():
    public = {n for n in vars(cudag) if not n.startswith("_")}
    assert public <= set(cudag.__all__) | {"compat"}, public - set(cudag.__all__)
    assert all(hasattr(cudag, n) for n in cudag.__all__)
    for name in ("np", "sys", "csv", "math", "annotations"):
        assert name not in dir(cudag) and not hasattr(cudag, name)


def test_verbose_logs_through_logging_from_the_call(caplog, capfd):
    x = np.random.default_rng(3).normal(size=(300, 5))
    capfd.readouterr()
    with caplog.at_level(logging.INFO, logger="cudag"):
        start = time.perf_counter()
        cudag.pc(x, verbose=True)
        wall = time.perf_counter() - start
    lines = [r.getMessage() for r in caplog.records if r.name == "cudag"]
    assert any(re.match(r"cudag pc: level 0: 10 tests", line) for line in lines), lines
    assert any("peak memory per rank" in line for line in lines)
    assert not any("start-up before the data" in line for line in lines)
    totals = [float(t) for line in lines for t in re.findall(r"\(([0-9.]+) s total\)", line)]
    assert totals and max(totals) <= wall + 1e-3  # counted from the call, not the process's start
    assert "cudag pc:" not in capfd.readouterr().err
    caplog.clear()
    cudag.pc(x)  # not verbose: nothing logged
    assert not [r for r in caplog.records if r.name == "cudag"]


def test_dataframe_label_column_is_named_with_its_row():
    pd = pytest.importorskip("pandas", reason="pandas is optional: DataFrame input not tested")
    x = np.random.default_rng(5).normal(size=(6, 2))
    df = pd.DataFrame({"a": x[:, 0], "b": x[:, 1], "c": ["u", "v", "u", "v", "u", "v"]}, index=range(10, 16))
    with pytest.raises(cudag.InputError) as e:
        cudag.citest(df, "a", "b")
    assert str(e.value) == "<DataFrame> row 0: non-numeric value 'u' in column 'c'"


def test_verbose_notes_of_citest_and_pcmci_are_logged(caplog, capfd):
    x = np.random.default_rng(6).normal(size=(200, 3))
    x[:, 2] *= 1e200  # a column of extreme magnitude: citest's verbose note
    capfd.readouterr()
    with caplog.at_level(logging.INFO, logger="cudag"):
        cudag.citest(x, 0, 1, [2], verbose=True)
        cudag.pcmci(np.random.default_rng(7).normal(size=(100, 2)), tau_max=1, verbose=True)
    lines = [r.getMessage() for r in caplog.records if r.name == "cudag"]
    assert "cudag citest: note: 1 column of extreme magnitude rescaled by a power of two (exact)" in lines
    assert any(line.startswith("cudag pcmci: 2 series x 100 steps, tau_max 1:") for line in lines), lines
    err = capfd.readouterr().err
    assert "cudag citest" not in err and "cudag pcmci" not in err
