# SPDX-License-Identifier: Apache-2.0
"""Bad options and bad data raise cudag.InputError (a ValueError) carrying the one line the
command line prints after 'cudag: error: ' for the same options."""

import numpy as np
import pytest

import cudag
from conftest import cli_error, read_csv


@pytest.mark.parametrize("options, cli", [
    ({"alpha": 1.5}, ["--alpha", "1.5"]),
    ({"compat": "bogus"}, ["--compat", "bogus"]),
    ({"test": "t-test"}, ["--test", "t-test"]),
    ({"backend": "tpu"}, ["--backend", "tpu"]),
    ({"threads": -1}, ["--threads", "-1"]),
    ({"format": ["edges"]}, ["--format", "edges"]),
    ({"knn": 5}, ["--knn", "5"]),
    ({"uc_rule": 7}, ["--uc-rule", "7"]),
])
def test_pc_option_errors_are_the_cli_lines(gaussian_csv, options, cli):
    x, names = read_csv(gaussian_csv)
    with pytest.raises(cudag.InputError) as e:
        cudag.pc(x, names=names, **options)
    expect = cli_error("pc", "--data", gaussian_csv, *cli, "-q").replace(str(gaussian_csv), "<array>")
    assert str(e.value) == expect
    assert isinstance(e.value, ValueError) and isinstance(e.value, cudag.Error)


@pytest.mark.parametrize("options, message", [
    ({"no_such_option": 3}, "cudag.pc() got an unexpected keyword argument 'no_such_option'"),
    ({"max_level": "abc"}, "max_level= takes an integer, not str"),
    ({"max_level": 2.5}, "max_level= takes an integer, not float"),
    ({"alpha": "0.1"}, "alpha= takes a number, not str"),
    ({"discrete": 1}, "discrete= takes True or False, not int"),
    ({"format": 3}, "format= takes a str or a list of str, not int"),
])
def test_unknown_keyword_or_wrong_type_is_a_type_error(options, message):
    x = np.random.default_rng(4).normal(size=(30, 3))
    with pytest.raises(TypeError) as e:
        cudag.pc(x, **options)
    assert str(e.value) == message


def test_nan_names_row_and_column():
    x = np.random.default_rng(1).normal(size=(50, 4))
    x[2, 1] = np.nan
    with pytest.raises(cudag.InputError, match=r"<array>: missing value \(NaN\) at row 3, column 2 'X2'"):
        cudag.pc(x)


def test_constant_column_as_cli(tmp_path):
    x = np.random.default_rng(2).normal(size=(40, 3))
    x[:, 2] = 1.0
    csv = tmp_path / "c.csv"
    np.savetxt(csv, x, delimiter=",", header="a,b,c", comments="")
    with pytest.raises(cudag.InputError) as e:
        cudag.pc(x, names=["a", "b", "c"])
    assert str(e.value) == cli_error("pc", "--data", csv, "-q").replace(str(csv), "<array>")


def test_shape_and_names():
    with pytest.raises(cudag.InputError, match="2-D"):
        cudag.pc(np.zeros(10))
    with pytest.raises(cudag.InputError, match="2 names for 3 columns"):
        cudag.pc(np.zeros((10, 3)), names=["a", "b"])
    with pytest.raises(cudag.InputError, match="duplicate column name 'a'"):
        cudag.pc(np.random.default_rng(3).normal(size=(30, 2)), names=["a", "a"])
    with pytest.raises(TypeError):
        cudag.pc(np.zeros((10, 3)), data="x.csv")


def test_citest_unknown_variable(gaussian_csv):
    x, names = read_csv(gaussian_csv)
    with pytest.raises(cudag.InputError) as e:
        cudag.citest(x, names[0], "nope", names=names)
    expect = cli_error("citest", "--data", gaussian_csv, "--test", "fisher-z", "--x", names[0], "--y", "nope",
                       "-q").replace(str(gaussian_csv), "<array>")
    assert str(e.value) == expect


def test_mcmc_option_error(discrete_csv):
    x, names = read_csv(discrete_csv)
    with pytest.raises(cudag.InputError) as e:
        cudag.mcmc(x, "bdeu", names=names, order_score="median")
    assert str(e.value) == cli_error("mcmc", "--data", discrete_csv, "--score", "bdeu", "--order-score", "median",
                                     "-q")


def test_options_lists_the_cli_options():
    text = cudag.options("pc")
    for option in ("--max-level", "--alpha", "--compat", "--uc-rule", "--knn"):
        assert option in text
    assert "--score" in cudag.options("mcmc") and "--given" in cudag.options("citest")
    assert "--iss" in cudag.options("score")  # cudag.score's keywords
    with pytest.raises(cudag.InputError, match="no command 'info'"):
        cudag.options("info")


@pytest.mark.parametrize("fn, command, option", [(cudag.pc, "pc", "max_level"), (cudag.mcmc, "mcmc", "chains"),
                                                 (cudag.citest, "citest", "permutations"),
                                                 (cudag.tester, "citest", "knn")])
def test_options_are_in_the_signature_and_the_help(fn, command, option):
    import inspect

    params = inspect.signature(fn).parameters
    assert params[option].kind is inspect.Parameter.KEYWORD_ONLY and params[option].default is None
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    assert "--" + option.replace("_", "-") in fn.__doc__
    meaning = next(row["meaning"] for row in cudag._option_rows(command) if row["name"] == option)
    assert meaning in cudag._cudag.option_table(command)[[r[0] for r in cudag._cudag.option_table(command)].index(
        "--" + option.replace("_", "-"))][3]  # the command line's own line
    assert cudag._in_python_words(meaning, command) in fn.__doc__
