# SPDX-License-Identifier: Apache-2.0
"""The package's surface: what dir(cudag) lists, and simulate's typed options."""

import pytest

import cudag


def test_dir_lists_the_api_not_the_imports():
    listed = dir(cudag)
    for name in ("pc", "fci", "citest", "Tester", "CitestBatchResult", "compat", "__version__"):
        assert name in listed
    for name in ("np", "sys", "csv", "math"):
        assert name not in listed


@pytest.mark.parametrize("kwargs, match", [({"vars": "5"}, "vars= takes an integer, not str"),
                                           ({"vars": 5.0}, "vars= takes an integer, not float"),
                                           ({"vars": 5, "seed": True}, "seed= takes an integer, not bool"),
                                           ({"vars": 5, "density": "0.2"}, "density= takes a number, not str"),
                                           ({"vars": 5, "graph": 3}, "graph= takes a str, not int")])
def test_simulate_refuses_values_of_the_wrong_type(kwargs, match):
    with pytest.raises(TypeError, match=match):
        cudag.simulate("gaussian", samples=50, **kwargs)


def test_errors_name_keywords_not_command_line_options():
    import numpy as np
    x = np.random.default_rng(0).normal(size=(100, 4))
    with pytest.raises(cudag.InputError, match=r"^iterations= must be at least 1"):
        cudag.mcmc(x, "bge", iterations=0)
    with pytest.raises(cudag.InputError, match=r"given twice \(as x= and y=\)"):
        cudag.citest(x, 0, 0)
    with pytest.raises(cudag.InputError, match=r"^max_level= must be >= 0"):
        cudag.pc(x, max_level=-5)
    # options without a keyword stay as they are
    assert cudag._in_python_words("--data d.csv and --max-level", "pc") == "--data d.csv and max_level="
    assert cudag._in_python_words("unknown --test 'kci'", "pc") == "unknown test='kci'"


def test_verbose_lines_count_from_the_call_not_the_process(caplog):
    import logging

    import numpy as np
    x = np.random.default_rng(0).normal(size=(200, 5))
    with caplog.at_level(logging.INFO, logger="cudag"):
        cudag.pc(x, verbose=True)
    err = "\n".join(r.getMessage() for r in caplog.records)
    assert "cudag pc: read <array>: 200 samples x 5 variables" in err
    assert "start-up before the data" not in err  # the Python process's age is not the call's
