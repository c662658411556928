# SPDX-License-Identifier: Apache-2.0
"""cudag from Python: PC-stable, FCI/RFCI, single CI tests and order MCMC on numpy arrays and
pandas DataFrames, in-process (the CUDA context and the process's MPI environment are
made once and reused by every later call).

Options are the command line's, named with underscores: ``max_level=3`` is
``--max-level 3``, ``True`` sets a flag, a list gives a list (``format=["edges", "dot"]``),
``None`` leaves the option at its default. They fill the library's job structs (src/run/),
whose defaults and checks the command line shares, so defaults and error messages are the
same: errors raise :class:`cudag.InputError` (bad input, also a ``ValueError``) or
:class:`cudag.Error` with the line the command line prints after ``cudag: error:``, its
options named as keywords (``iterations= must be at least 1``); an unknown keyword or a
value of the wrong type raises ``TypeError``. Each keyword's type, default and meaning come
from the command line's own option declarations: ``print(cudag.options("pc"))``,
``help(cudag.pc)``. ``verbose=True`` logs the progress lines to the ``logging`` logger
"cudag". Ctrl-C ends a search with ``KeyboardInterrupt``, also when it comes while a
handler of that logger runs.
Under an MPI launcher every rank calls the learner; rank 0 gets the result, the others None.
"""

from __future__ import annotations

import contextlib as _contextlib
import csv as _csv
import functools as _functools
import inspect as _inspect
import io as _io
import logging as _logging
import math as _math
import os as _os
import re as _re
import sys as _sys
import tempfile as _tempfile
import warnings as _warnings

import numpy as _np

try:
    from . import _cudag
except ImportError:  # an in-tree build: PYTHONPATH=python:<build>/python
    import _cudag

from . import _cli
from ._results import (CONFIG_TYPES, DRAW_LIMIT, FREQUENCY_COLUMNS, MATRIX_LIMIT, BootstrapResult, CitestBatchResult,
                       CitestResult, FciResult, McmcResult, PcResult, SimulateResult)
from ._fci_bootstrap import PAG_EDGE_KINDS, PAG_FREQUENCY_COLUMNS, FciBootstrapResult

Error = _cudag.Error
InputError = _cudag.InputError
__version__ = _cudag.__version__


class CudagWarning(UserWarning):
    """A note on a result the caller should see: data that look discrete run as Fisher-z,
    MCMC chains that have not converged. ``warnings.simplefilter("error", cudag.CudagWarning)``
    turns them into errors."""


#: The score PSRF above which cudag.mcmc warns that its chains have not converged
#: (Gelman and Rubin's usual 1.1).
PSRF_WARN = 1.1

__all__ = ["pc", "fci", "pcmci", "citest", "tester", "Tester", "mcmc", "score", "simulate", "compare", "load", "resample",
           "resample_rows", "options", "warm_up", "release_gpu_memory", "cuda_compiled", "visible_gpus", "Error",
           "InputError", "CudagWarning", "PcResult", "FciResult", "BootstrapResult", "FciBootstrapResult",
           "CitestResult", "CitestBatchResult", "McmcResult", "SimulateResult", "MATRIX_LIMIT", "DRAW_LIMIT",
           "CONFIG_TYPES", "FREQUENCY_COLUMNS", "PAG_EDGE_KINDS", "PAG_FREQUENCY_COLUMNS", "PSRF_WARN"]


def __dir__() -> list[str]:
    """What ``dir(cudag)`` lists: the package's API and its subpackages, not the modules it
    imports for itself (numpy, sys, csv, ...)."""
    return sorted(set(__all__) | {"compat", "__version__"})


#: The commands whose keywords options() describes.
_COMMANDS = ("pc", "fci", "pcmci", "citest", "mcmc", "score", "simulate")

#: The command line's option types as Python annotations.
_CLI_TYPES = {"flag": "bool", "int": "int", "float": "float", "text": "str", "list": "str | list[str]"}


@_functools.lru_cache(maxsize=None)
def _option_rows(command: str) -> tuple:
    """The keywords of ``command`` as dicts {name, option, type, default, meaning}: each
    keyword bound in the module (its Python type) joined with its command-line option's
    declaration (default and meaning: the line ``cudag <command> --help`` prints), the one
    table both front ends read."""
    if command not in _COMMANDS:
        raise InputError(f"options: no command '{command}' (available: {', '.join(_COMMANDS)})")
    clis = [f"simulate {k}" for k in ("gaussian", "nonlinear", "discrete", "bif")] if command == "simulate" \
        else [command]
    declared = {}
    for cli in clis:
        for option, kind, default, meaning, _hidden in _cudag.option_table(cli):
            declared.setdefault(option, (kind, default, meaning))
    rows = []
    for name, option, annotation, meaning in _cudag.keywords(command):
        kind, default, cli_meaning = declared.get(option, ("", "", ""))
        if option.startswith("--no-") and not name.startswith("no_"):
            default = "True"  # the keyword is the flag's opposite (conflict_resolution=)
        elif kind == "flag":
            default = "False"
        rows.append({"name": name, "option": option if option != "-" else "",
                     "type": annotation or _CLI_TYPES.get(kind, "str"), "default": default,
                     "meaning": meaning or cli_meaning, "cli_meaning": cli_meaning})
    return tuple(rows)


def options(command: str = "pc") -> str:
    """The keyword arguments of ``cudag.<command>`` (pc, fci, pcmci, citest, mcmc, score,
    simulate), each with its type, default, meaning and the command line's option it stands
    for (one table: the command line's ``--help`` prints the same meanings and defaults);
    ``print(cudag.options("pc"))``."""
    return "\n".join(_option_text(row, command) for row in _option_rows(command))


def _option_text(row: dict, command: str, indent: str = "") -> str:
    """One keyword as options() and the docstrings list it (the meaning's options in
    Python's words)."""
    head = f"{indent}{row['name']}: {row['type']}"
    if row["default"] not in ("", None):
        quoted = row["type"].startswith("str") and row["default"] not in ("True", "False")
        head += f' = "{row["default"]}"' if quoted else f" = {row['default']}"
    tail = f" [{row['option']}]" if row["option"] else ""
    return f"{head}\n{indent}    {_in_python_words(row['meaning'], command)}{tail}"


def cuda_compiled() -> bool:
    """Whether this build has the CUDA engines."""
    return _cudag.cuda_compiled()


def visible_gpus() -> int:
    """Number of CUDA devices this build can use (0 without CUDA or a GPU)."""
    return _cudag.visible_gpus()


def warm_up(device: int = 0) -> None:
    """Create the CUDA context of ``device`` now and load the PC skeleton engines' kernels, so
    that the first learner call does not pay for them (a no-op without CUDA or a GPU). Later
    calls reuse them in any case."""
    _cudag.warm_up(device)


def release_gpu_memory() -> None:
    """Hand back to the driver the GPU memory kept after a call for the next one (calls
    reuse the CUDA context and the device buffers of earlier calls; at most a quarter of a
    GPU is kept). For another program that needs the GPU; a no-op without CUDA."""
    _cudag.release_gpu_memory()


# ---- options ------------------------------------------------------------------------

_RESERVED = {"data", "dataset"}


def _options(options: dict, data=None) -> dict:
    """The keyword arguments for the job: data= and dataset= refused (the data come as the
    first argument); the command line's progress lines and notes off unless verbose=True or
    quiet=False (a notebook shows no stderr of C++ code anyway); a DataFrame's categorical
    columns discrete (discrete_columns=, beside the user's)."""
    for key in _RESERVED & options.keys():
        raise TypeError(f"{key}= is not an option here: pass the data as the first argument")
    options = dict(options)
    if _is_frame(data):
        categorical = [str(c) for c, t in zip(data.columns, data.dtypes) if str(t) == "category"]
        named = options.get("discrete_columns")
        named = [named] if isinstance(named, str) else list(named or ())
        extra = [c for c in categorical if c not in named and c not in (options.get("continuous_columns") or ())]
        if extra:
            options["discrete_columns"] = named + extra
    if "quiet" not in options and not options.get("verbose"):
        options["quiet"] = True
    return options


# ---- data ----------------------------------------------------------------------------

def _is_frame(data) -> bool:
    return hasattr(data, "columns") and hasattr(data, "dtypes") and hasattr(data, "to_csv")


def _numeric_dtype(dtype) -> bool:
    try:
        dt = _np.dtype(dtype)
    except TypeError:  # pandas extension types (category, string)
        return False
    return dt.kind in "biuf"


def _table_text(names: list[str], rows) -> str:
    out = _io.StringIO()
    w = _csv.writer(out, lineterminator="\n")
    w.writerow(names)
    for row in rows:
        w.writerow(["" if v is None or (isinstance(v, float) and _math.isnan(v)) else v for v in row])
    return out.getvalue()


def _prepare(data, names=None):
    """(values or None, names, text, source): numbers go as a float64 array, anything
    holding labels as CSV text read by the command line's table reader."""
    if _is_frame(data):
        cols = [str(c) for c in data.columns]
        if names is not None:
            raise TypeError("names= is for numpy arrays: a DataFrame's column names are used")
        if all(_numeric_dtype(t) for t in data.dtypes):
            values = _np.ascontiguousarray(data.to_numpy(dtype=_np.float64))
            return values, cols, "", "<DataFrame>"
        return None, cols, _table_text(cols, data.itertuples(index=False, name=None)), "<DataFrame>"
    arr = _np.asarray(data)
    if arr.ndim != 2:
        raise InputError(f"<array>: the data must be 2-D (samples x variables), not {arr.ndim}-D")
    n_vars = arr.shape[1]
    if names is None:
        names = [f"X{v + 1}" for v in range(n_vars)]  # as an HDF5 file without names
    names = [str(s) for s in names]
    if len(names) != n_vars:
        raise InputError(f"<array>: {len(names)} names for {n_vars} columns")
    if arr.dtype.kind in "biuf":
        return _np.ascontiguousarray(arr, dtype=_np.float64), names, "", "<array>"
    return None, names, _table_text(names, arr.tolist()), "<array>"


def _name_of(key, names: list[str]) -> str:
    if isinstance(key, (int, _np.integer)) and not isinstance(key, (bool, _np.bool_)):
        if not 0 <= key < len(names):
            raise InputError(f"variable index {key} is out of range (0..{len(names) - 1})")
        return names[int(key)]
    return str(key)


# ---- progress ------------------------------------------------------------------------

class _Progress:
    """progress=True: a tqdm bar when tqdm is installed, else a line per update on stderr;
    a callable gets each update's dict; False/None: nothing."""

    def __init__(self, progress, what: str):
        self.fn = progress if callable(progress) else None
        self.bar = None
        self.lines = False
        if progress is True:
            try:
                from tqdm.auto import tqdm
                self.bar = tqdm(desc=what, unit=" levels" if what in ("cudag.pc", "cudag.fci") else "it")
            except ImportError:
                self.lines = True
        self.what = what

    def __call__(self, info: dict):
        if self.fn is not None:
            self.fn(info)
        if self.bar is not None:
            if "done" in info:
                phase = info.get("phase", "chains")
                if phase != getattr(self, "_phase", None):  # a new phase: the bar starts over
                    self._phase = phase
                    self.bar.reset(total=info["total"])
                    self.bar.set_description(f"{self.what}: {phase}")
                self.bar.total = info["total"]  # the phase's work, known from its first update
                self.bar.update(info["done"] - self.bar.n)
            else:
                self.bar.update(1)
                self.bar.set_postfix(edges=info["edges_after"])
        elif self.lines:
            print(f"{self.what}: " + ", ".join(f"{k} {v}" for k, v in info.items()), file=_sys.stderr)

    def callback(self):
        return self if (self.fn or self.bar is not None or self.lines) else None

    def close(self):
        if self.bar is not None:
            self.bar.close()


@_functools.lru_cache(maxsize=None)
def _keywords_of(command: str) -> dict:
    """{"--max-level": (name, type, meaning), ...}: the command line's options of `command`
    that cudag's functions take as keywords."""
    return {row["option"]: (row["name"], row["type"], row["cli_meaning"]) for row in _option_rows(command)
            if row["option"]}


_OPTION_WORD = _re.compile(r"--([a-z][a-z0-9-]*)(?:( '[^']*')|( [^\s,;:()]+))?")
#: A cell of the CSV text a DataFrame (or an array of labels) is read through: line 1 is its
#: header, so line L is row L - 2 of the data.
_FRAME_CELL = _re.compile(r"<(DataFrame|array)>:(\d+):\d+: ")
_NUMBER = _re.compile(r"-?\d+(\.\d*)?([eE][-+]?\d+)?$")


def _in_python_words(message: str, command: str) -> str:
    """`message` with the command line's options that are keywords here written as the
    keywords: "--iterations must be at least 1" -> "iterations= must be at least 1",
    "unknown --backend 'tpu'" -> "unknown backend='tpu'", "give --discrete" -> "give
    discrete=True", "--score bdeu only" -> 'score="bdeu" only'. Whether a word after an
    option is its value is read from the option table: a number for a numeric keyword, one
    of the alternatives the option's meaning lists ("bdeu or k2 (...)", "auto (...), cpu or
    cuda") or a placeholder such as FILE for a text one. Options
    without a keyword (--data, ...) stay."""
    table = _keywords_of(command)

    def word(m):
        option = "--" + m.group(1)
        if option not in table:
            return m.group(0)
        name, kind, meaning = table[option]
        if kind == "bool":
            value = "False" if option.startswith("--no-") and not name.startswith("no_") else "True"
            return f"{name}={value}" + (m.group(3) or "") + (m.group(2) or "")
        if m.group(2):
            return f"{name}={m.group(2)[1:]}"
        after = m.group(3)
        if after:
            token = after[1:]
            if kind in ("int", "float") and _NUMBER.match(token):
                return f"{name}={token}"
            if kind not in ("int", "float"):
                if token.isupper():
                    return f"{name}={token}"
                if _re.search(r"(?:^|: |, | or |\()" + _re.escape(token) + r"(?:$|[,)]| or | \()", meaning):
                    return f'{name}="{token}"'
        return f"{name}=" + (after or "")

    message = _FRAME_CELL.sub(lambda m: f"<{m[1]}> row {int(m[2]) - 2}: ", message)
    return _OPTION_WORD.sub(word, message).replace(" (see --help)", "")


@_contextlib.contextmanager
def _python_words(command: str):
    """Re-raises an InputError of `command`'s call with its options as keywords."""
    try:
        yield
    except InputError as e:
        message = _in_python_words(str(e), command)
        if message == str(e):
            raise
        raise type(e)(message) from None


_log = _logging.getLogger("cudag")


@_contextlib.contextmanager
def _logged(opts: dict):
    """verbose=True: the call's progress lines and notes as INFO records of the logger
    "cudag" (times counted from the call); a handler on stderr is added when logging is not
    configured (no handler anywhere), so that verbose=True shows them as it asks."""
    if not opts.get("verbose"):
        yield
        return
    if not _log.hasHandlers():
        handler = _logging.StreamHandler()
        handler.setFormatter(_logging.Formatter("%(message)s"))
        _log.addHandler(handler)
        if _log.getEffectiveLevel() > _logging.INFO:
            _log.setLevel(_logging.INFO)
    _cudag.set_line_sink(_log.info)
    try:
        yield
    finally:
        _cudag.set_line_sink(None)


def _run_learner(fn, opts: dict, values, names, text, source, bar, *extra):
    """`fn` (_cudag.pc, _cudag.fci or _cudag.mcmc) on the options with `bar`'s callback (and
    `extra` arguments: pc's and fci's oracle DAG); the bar is closed either way."""
    command = {"pc": "pc", "fci": "fci", "mcmc": "mcmc"}.get(getattr(fn, "__name__", ""), "pc")
    try:
        with _python_words(command), _logged(opts):
            return fn(values, names, text, source, bar.callback(), *extra, **opts)
    finally:
        bar.close()


# ---- the d-separation oracle ---------------------------------------------------------

def _is_digraph(g) -> bool:
    """A networkx graph (duck-typed: networkx is not a dependency)."""
    return all(hasattr(g, a) for a in ("nodes", "edges", "is_directed", "adj"))


def _oracle_dag(dag, names, function: str):
    """oracle= as the module takes it: (None, path) for a graph file the command line's
    --oracle reads, or ((node names, int32 rows (parent, child), source), None) for a
    networkx DiGraph (nodes named str(node), in the graph's node order), an n x n 0/1
    adjacency ([i, j] = 1 for i --> j; names X1..Xn unless ``names=``) or a
    :class:`SimulateResult` (its true DAG)."""
    if isinstance(dag, (str, _os.PathLike)):
        if names is not None:
            raise TypeError(f"{function}: names= names an adjacency matrix's nodes, not a DAG file's")
        return None, _os.fspath(dag)
    if isinstance(dag, SimulateResult):
        if names is not None:
            raise TypeError(f"{function}: names= names an adjacency matrix's nodes, not a SimulateResult's")
        edges = _np.asarray(dag.truth_edge_array, dtype=_np.int32).reshape(-1, 3)[:, :2]
        return (list(dag.names), _np.ascontiguousarray(edges), "<SimulateResult truth>"), None
    if _is_digraph(dag):
        if names is not None:
            raise TypeError(f"{function}: names= names an adjacency matrix's nodes; a DiGraph's nodes are its names")
        if not dag.is_directed():
            raise InputError(f"{function}: oracle= is an undirected graph; the d-separation oracle needs a DAG "
                             "(a networkx DiGraph)")
        nodes = list(dag.nodes)
        index = {v: k for k, v in enumerate(nodes)}
        rows = [(index[a], index[b]) for a, b in dag.edges()]
        return ([str(v) for v in nodes], _np.array(rows, dtype=_np.int32).reshape(-1, 2),
                f"<{type(dag).__module__.split('.')[0]}.{type(dag).__name__}>"), None
    a = _np.asarray(dag)
    if a.ndim != 2 or a.shape[0] != a.shape[1] or a.dtype.kind not in "biuf":
        raise InputError(f"{function}: oracle= takes a networkx DiGraph, an n x n 0/1 adjacency matrix or a DAG "
                         f"file, not {type(dag).__name__}" + (f" of shape {a.shape}" if a.ndim else ""))
    if not _np.isin(a, (0, 1)).all():
        raise InputError(f"{function}: the oracle's adjacency matrix holds values other than 0 and 1 "
                         "([i, j] = 1 for i --> j)")
    n = a.shape[0]
    names = [f"X{k + 1}" for k in range(n)] if names is None else [str(v) for v in names]
    if len(names) != n:
        raise InputError(f"{function}: {len(names)} names for the {n} nodes of the oracle's adjacency matrix")
    rows = _np.argwhere(a != 0).astype(_np.int32)
    return (names, _np.ascontiguousarray(rows), "<adjacency>"), None


def _with_oracle(function: str, data, names, oracle, latent, opts: dict):
    """The data arguments and the module's oracle argument for pc/fci: the data (oracle None),
    or no data and the oracle's DAG (in memory, or its file as oracle=) with latent=."""
    if oracle is None:
        if latent is not None:
            raise InputError(f"{function}: latent= names hidden nodes of oracle=DAG: give oracle=")
        if data is None:
            raise TypeError(f"{function}() needs the data (or oracle=DAG for the d-separation oracle)")
        return (*_prepare(data, names), None)
    if data is not None:
        raise InputError(f"{function}: oracle= answers the tests from the DAG, without data: drop the data "
                         "(data=None)")
    dag, path = _oracle_dag(oracle, names, function)
    if path is not None:
        opts["oracle"] = path
    if latent is not None:
        latent = [latent] if isinstance(latent, str) else [str(v) for v in latent]
        opts["latent"] = latent
    observed = [] if dag is None else [v for v in dag[0] if v not in set(latent or ())]
    return None, observed, "", "", dag


# ---- learners ------------------------------------------------------------------------

def pc(data=None, test: str | None = None, alpha: float | None = None, backend: str | None = None, *, names=None,
       progress=None, oracle=None, latent=None, **options) -> PcResult:
    """PC-stable (``cudag pc``) on ``data``: a numpy array (samples x variables; names X1..Xn
    unless ``names=``) or a pandas DataFrame (its column names kept; columns of labels make it
    discrete data as in a CSV file). ``test`` None chooses as the command line does
    (chi-square for labels, else fisher-z); ``alpha`` and ``backend`` None are the command
    line's defaults (0.01, auto). Other options as ``cudag pc``'s: ``max_level``,
    ``compat="causal-learn"``, ``uc_rule``, ``threads``, ``discrete=True``, ``out="r.h5"``
    with ``format=["edges", "dot"]`` (files written as the command line writes them), ...
    Background knowledge: ``forbid=``/``require=`` as pairs ``(a, b)`` (the direction a -> b,
    as causal-learn's BackgroundKnowledge) or lines ``"a -- b"``, ``tiers=`` as lists of
    variables (names or column indices), or each a file as the command line reads it.
    ``progress``: a callable given a dict per level, or True for a tqdm bar.
    Edge confidence: ``bootstrap=B`` runs PC on B resamples of the rows (``resample=``
    "bootstrap" or "half", keyed by ``seed=``) and returns a :class:`BootstrapResult` (the
    consensus graph at ``consensus=`` and the edge frequencies), as ``cudag pc --bootstrap``.
    The d-separation oracle (``cudag pc --oracle DAG --latent ...``): ``cudag.pc(oracle=dag,
    latent=[...])`` with no data answers each test by d-separation in ``dag`` over its nodes
    not in ``latent``: a networkx DiGraph (nodes named ``str(node)``), an n x n 0/1 adjacency
    matrix (``[i, j] = 1`` for i --> j; node names ``names=``, default X1..Xn), a
    :class:`SimulateResult` (its true DAG) or a graph file as the command line reads it."""
    opts = {"test": test, "alpha": alpha, "backend": backend}
    opts.update(_options(options, data))
    values, names, text, source, dag = _with_oracle("cudag.pc", data, names, oracle, latent, opts)
    raw = _run_learner(_cudag.pc, opts, values, names, text, source, _Progress(progress, "cudag.pc"), dag)
    if not raw:
        return None  # an MPI rank other than 0
    for note in raw.get("warnings", ()):
        _warnings.warn(f"cudag.pc: {_in_python_words(note, 'pc')}", CudagWarning, stacklevel=2)
    return BootstrapResult(raw) if "bootstrap" in raw else PcResult(raw)


def fci(data=None, test: str | None = None, alpha: float | None = None, backend: str | None = None, *, names=None,
        variant: str | None = None, progress=None, oracle=None, latent=None, **options) -> FciResult:
    """FCI or RFCI (``cudag fci``) on ``data`` (as :func:`pc` takes it): a partial ancestral
    graph (PAG) allowing hidden common causes, as pcalg's ``fci`` / ``rfci`` learn it.
    ``variant``: "fci" (the default) or "rfci". The skeleton search's options are
    ``cudag.pc``'s (``test``, ``alpha``, ``backend``, ``max_level``, ``threads``, ``out=``
    with ``format=``, ``forbid=``/``require=`` as adjacency knowledge (pcalg's fixedGaps /
    fixedEdges: pairs given as lines ``"a -- b"``), CMIknn's, checkpoints, ...; not its
    collider rules); FCI's own: ``pdsep_max`` (pcalg's pdsep.max),
    ``no_pdsep=True`` (doPdsep = FALSE), ``conservative=True``, ``majority_rule=True``
    (maj.rule), ``no_selection_bias=True`` (selectionBias = FALSE, rules R5-R7 skipped),
    ``type`` "normal", "anytime" or "adaptive". None: the command line's default.
    ``progress``: a callable given a dict per skeleton level, or True for a tqdm bar.
    Returns an :class:`FciResult` (``edges()``, ``pag``, ``edge_array``, ``sepsets``, ...).
    Edge confidence: ``bootstrap=B`` runs the whole FCI (or RFCI) on B resamples of the rows
    (``resample=``, ``seed=``, as :func:`pc`) and returns an :class:`FciBootstrapResult` (the
    consensus PAG at ``consensus=`` and each pair's edge-kind frequencies), as
    ``cudag fci --bootstrap``.
    The d-separation oracle: ``cudag.fci(oracle=dag, latent=[...])`` with no data (as
    :func:`pc` takes them) gives the true PAG of ``dag`` with ``latent`` hidden, as
    ``cudag fci --oracle DAG --latent ...``."""
    opts = {"test": test, "alpha": alpha, "backend": backend, "variant": variant}
    opts.update(_options(options, data))
    values, names, text, source, dag = _with_oracle("cudag.fci", data, names, oracle, latent, opts)
    raw = _run_learner(_cudag.fci, opts, values, names, text, source, _Progress(progress, "cudag.fci"), dag)
    if not raw:
        return None  # an MPI rank other than 0
    for note in raw.get("warnings", ()):
        _warnings.warn(f"cudag.fci: {_in_python_words(note, 'fci')}", CudagWarning, stacklevel=2)
    return FciBootstrapResult(raw) if "bootstrap" in raw else FciResult(raw)


def _stacked_series(data, names):
    """Several series (tigramite's analysis_mode 'multiple': a dict of T_m x N arrays, in the
    dict's order, or an M x T x N array) as one table whose first column names each row's
    series (0, 1, ...): (table, names with that column's name first, the column's name)."""
    parts = list(data.values()) if isinstance(data, dict) else list(_np.asarray(data))
    if not parts:
        raise InputError("cudag.pcmci: no series in the dict")
    arrays = []
    for m, part in enumerate(parts):
        a = _np.asarray(part, dtype=_np.float64)
        if a.ndim != 2 or (arrays and a.shape[1] != arrays[0].shape[1]):
            raise InputError(f"cudag.pcmci: series {m} is of shape {a.shape}; every series must be T_m x N "
                             "with the same N")
        arrays.append(a)
    n_vars = arrays[0].shape[1]
    names = [f"X{v + 1}" for v in range(n_vars)] if names is None else [str(s) for s in names]
    if len(names) != n_vars:
        raise InputError(f"<array>: {len(names)} names for {n_vars} columns")
    column = "series"
    while column in names:
        column = "_" + column
    table = _np.vstack([_np.column_stack([_np.full(len(a), float(m)), a]) for m, a in enumerate(arrays)])
    return _np.ascontiguousarray(table), [column] + names, column


def pcmci(data, tau_max: int = 1, test: str = "parcorr", *, names=None, link_assumptions=None,
          missing_flag=None, **options) -> dict:
    """PCMCI on time series (``cudag pcmci``; tigramite's ``PCMCI.run_pcmci``, or with
    ``method="pcmciplus"`` its ``run_pcmciplus``): ``data`` a T x N array or DataFrame, rows in
    time order. Returns tigramite's result dictionary:
    ``graph`` (N x N x (tau_max + 1) link strings), ``val_matrix``, ``p_matrix`` (``[i, j, lag]``:
    the link (i, -lag) --> j), ``conf_matrix`` (None), and cudag's ``parents`` (the condition
    selection's, ``{j: [(i, -lag), ...]}``), ``names``, ``samples`` (T - 2 tau_max, summed over
    the series; a test leaves out those missing a value) and the test
    counts. ``link_assumptions``: tigramite's ``{j: {(i, -lag): type}}``. Options as ``cudag
    pcmci``'s (``tau_min``, ``pc_alpha``, ``alpha_level``, ``max_conds_dim``, ``max_combinations``,
    ``max_conds_py``, ``max_conds_px``, ``fdr_method``, CMIknn's ``knn``, ...; for PCMCI+ also
    ``contemp_collider_rule``, ``conflict_resolution``, ``reset_lagged_links``,
    ``max_conds_px_lagged``). Each method's defaults are tigramite's (``pc_alpha`` 0.2 for
    PCMCI, 0.01 for PCMCI+). ``pc_alpha`` a list (or tuple, array), or None, is tigramite's
    selection (ParCorr only): PCMCI keeps per variable the value whose condition-selection
    parents score best (ParCorr's model selection criterion), PCMCI+ runs per value and keeps
    the best-scoring result; None selects among tigramite's default list (PCMCI: 0.05, 0.1,
    0.2, 0.3, 0.4, 0.5; PCMCI+: 0.001, 0.005, 0.01, 0.025, 0.05). The result then holds
    ``pc_alpha_candidates`` (the values tried), ``optimal_pc_alpha`` (PCMCI: ``{j: value}``,
    tigramite's ``iterations[j]['optimal_pc_alpha']``; PCMCI+: one value, its
    ``results['optimal_alpha']``) and ``pc_alpha_scores`` (PCMCI: N x K, variable j's score
    with each value; PCMCI+: K mean scores); all three None with one ``pc_alpha``.

    ``missing_flag``: tigramite's: cells equal to it are missing (NaN: the NaN cells are), and
    each test leaves out the time steps where one of its lagged variables is missing. Several
    independent series (tigramite's analysis_mode 'multiple'): ``data`` a dict of T_m x N
    arrays (in its order) or an M x T x N array, or a DataFrame with ``series_column=``
    naming each row's series; ``time_column=`` names a column of times (each series' rows
    must increase in it; not a variable)."""
    if isinstance(data, dict) or (not _is_frame(data) and _np.ndim(data) == 3):
        data, names, options["series_column"] = _stacked_series(data, names)
    values, names, text, source = _prepare(data, names)
    if "pc_alpha" in options and options["pc_alpha"] is None:
        options = dict(options, pc_alpha="auto")  # tigramite's None: the default list
    opts = {"test": test, "tau_max": tau_max}
    if missing_flag is not None:
        flag = float(missing_flag)
        opts["missing_flag"] = "nan" if _np.isnan(flag) else repr(flag)
    if link_assumptions is not None:
        rows = []
        for j, links in dict(link_assumptions).items():
            for (i, lag), kind in dict(links).items():
                if lag > 0:
                    raise InputError(f"cudag.pcmci: link_assumptions: lag {lag} of ({i}, {lag}) -> {j} "
                                     "must be <= 0 (tigramite's (variable, -lag))")
                rows.append((int(i), int(j), int(-lag), str(kind)))
        opts["link_rows"] = rows
    opts.update(_options(options))
    with _python_words("pcmci"), _logged(opts):
        raw = _cudag.pcmci(values, names, text, source, **opts)
    n, tau = raw["n_vars"], raw["tau_max"]
    shape = (n, n, tau + 1)
    return {
        "graph": _np.array(raw["graph"], dtype="<U3").reshape(shape),
        "val_matrix": _np.array(raw["val_matrix"], dtype=float).reshape(shape),
        "p_matrix": _np.array(raw["p_matrix"], dtype=float).reshape(shape),
        "conf_matrix": None,
        "parents": {j: list(p) for j, p in enumerate(raw["parents"])},
        **_pc_alpha_selection(raw, options.get("method", "pcmci") == "pcmciplus"),
        "names": list(raw["names"]),
        "samples": raw["samples"],
        "condition_selection_tests": raw["condition_selection_tests"],
        "mci_tests": raw["mci_tests"],
        "where": raw["where"],
    }


def _pc_alpha_selection(raw: dict, pcmciplus: bool) -> dict:
    """cudag.pcmci's pc_alpha selection entries (None without a selection)."""
    candidates = list(raw["pc_alpha_candidates"])
    if not candidates:
        return {"pc_alpha_candidates": None, "optimal_pc_alpha": None, "pc_alpha_scores": None}
    optimal = list(raw["optimal_pc_alpha"])
    scores = _np.array(raw["pc_alpha_scores"], dtype=float).reshape(len(optimal), len(candidates))
    if pcmciplus:
        return {"pc_alpha_candidates": candidates, "optimal_pc_alpha": optimal[0], "pc_alpha_scores": scores[0]}
    return {"pc_alpha_candidates": candidates, "optimal_pc_alpha": dict(enumerate(optimal)),
            "pc_alpha_scores": scores}


def citest(data, x, y, given=(), test: str = "fisher-z", *, names=None, **options) -> CitestResult:
    """One conditional-independence test x _||_ y | given (``cudag citest``): variables by
    name or column index. Options as ``cudag citest``'s (``knn``, ``permutations``, ``seed``,
    ``dof``, ``compat``, ...)."""
    values, names, text, source = _prepare(data, names)
    if isinstance(given, (str, int, _np.integer)):
        given = (given,)
    opts = {"test": test, "x": _name_of(x, names), "y": _name_of(y, names)}
    given_names = [_name_of(g, names) for g in given]
    if given_names:
        opts["given"] = given_names
    opts.update(_options(options, data))
    with _python_words("citest"), _logged(opts):
        raw = _cudag.citest(values, names, text, source, **opts)
    return CitestResult(raw, opts["x"], opts["y"], given_names,
                        test)


class Tester:
    """Single conditional-independence tests on data read once (:func:`tester`): each
    ``test(x, y, given)`` (variables by name or column index) returns a
    :class:`CitestResult` equal to ``cudag.citest``'s; calling the tester returns the p-value
    alone. The data are converted, checked and (CMIknn) transformed once, not per call."""

    def __init__(self, data, test: str, names, options: dict):
        values, names, text, source = _prepare(data, names)
        self.names = list(names)
        self.test_name = test
        opts = {"test": test}
        opts.update(_options(options, data))
        self._verbose = {"verbose": opts.get("verbose")}
        with _python_words("citest"), _logged(opts):
            self._engine = _cudag.CiTester(values, names, text, source, **opts)

    def test(self, x, y, given=()) -> CitestResult:
        if isinstance(given, (str, int, _np.integer)):
            given = (given,)
        xs, ys = _name_of(x, self.names), _name_of(y, self.names)
        gs = [_name_of(g, self.names) for g in given]
        with _python_words("citest"), _logged(self._verbose):
            raw = self._engine.test(xs, ys, gs)
        return CitestResult(raw, xs, ys, gs, self.test_name)

    def __call__(self, x, y, given=()) -> float:
        return self.test(x, y, given).p_value

    def test_batch(self, queries) -> CitestBatchResult:
        """Every test of ``queries`` (an iterable of ``(x, y)`` or ``(x, y, given)``,
        variables by name or column index) at once: on a GPU when the tester's ``backend``
        picks one, else on the CPU's threads (``cudag citest --queries``). Each statistic and
        p-value is the one ``test`` gives for that query, bit for bit."""
        named = []
        for k, q in enumerate(queries):
            q = tuple(q)
            if len(q) not in (2, 3):
                raise ValueError(f"query {k + 1}: give (x, y) or (x, y, given), got {len(q)} items")
            given = q[2] if len(q) == 3 else ()
            if isinstance(given, (str, int, _np.integer)):
                given = (given,)
            named.append((_name_of(q[0], self.names), _name_of(q[1], self.names),
                          [_name_of(g, self.names) for g in given]))
        if not named:
            raise ValueError("test_batch: no queries")
        with _python_words("citest"):
            raw = self._engine.test_batch(named)
        return CitestBatchResult(raw, named, self.test_name)

    def __repr__(self) -> str:
        return f"cudag.Tester({self.test_name}, {len(self.names)} variables)"


def tester(data, test: str = "fisher-z", *, names=None, **options) -> Tester:
    """A :class:`Tester` for many single tests on ``data`` (as causal-learn's ``CIT`` object):
    ``t = cudag.tester(X); t(0, 1, [2, 3])`` is the p-value of X0 _||_ X1 | X2, X3. Options as
    ``cudag.citest``'s."""
    return Tester(data, test, names, options)


def mcmc(data, score: str, *, names=None, progress=None, **options) -> McmcResult:
    """Order MCMC (``cudag mcmc``): ``score`` bdeu or k2 (discrete data: integer codes or
    labels), bge (continuous) or cg-bic (mixed: label or pandas categorical columns discrete,
    numeric ones continuous; ``discrete_columns=``/``continuous_columns=`` name others). Options as ``cudag mcmc``'s: ``chains``, ``iterations``,
    ``seed``, ``max_parents``, ``order_score="sum"``, ``space``, ``backend``, ...
    ``space``: "auto" (the default: "all" when the whole space's table holds at most 100,000
    parent sets, else "pc"; with ``resume=True`` the checkpoint's), "all", "pc", "iterative"
    or a graph file. Before the table a :class:`CudagWarning` says when its estimate is above
    a minute.
    ``progress``: a callable given a dict per update ({"phase", "done", "total", ...}; the
    phases "pc skeleton", "local-score table", "score-sorted lists", "search space chains",
    "chains", "result"), or True for a tqdm bar. Ctrl-C raises KeyboardInterrupt within about
    a second in every phase.
    ``bootstrap=B``: the best DAG of B resamples (``resample=``, ``seed=``), counted as
    ``cudag mcmc --bootstrap`` counts them, returned as a :class:`BootstrapResult`."""
    values, names, text, source = _prepare(data, names)
    opts = {"score": score}
    # cg-bic reads each column's type: a DataFrame's categorical columns are discrete.
    opts.update(_options(options, data if score == "cg-bic" else None))
    raw = _run_learner(_cudag.mcmc, opts, values, names, text, source, _Progress(progress, "cudag.mcmc"))
    if not raw:
        return None  # an MPI rank other than 0
    if "bootstrap" in raw:
        return BootstrapResult(raw)
    res = McmcResult(raw)
    _warn_convergence(res)
    return res


def _warn_convergence(res: McmcResult) -> None:
    """CudagWarning when the chains disagree: a score PSRF above PSRF_WARN, or an edge whose
    PSRF is infinite (a chain that always has the edge and one that never does)."""
    if _math.isfinite(res.score_psrf) and res.score_psrf > PSRF_WARN:
        _warnings.warn(f"cudag.mcmc: the chains have not converged: score PSRF {res.score_psrf:.3g} > {PSRF_WARN} "
                       "(run more iterations or chains, or check the traces)", CudagWarning, stacklevel=3)
    if _math.isinf(res.edge_max_psrf):
        _warnings.warn("cudag.mcmc: an edge's PSRF is infinite: some chains always hold it and others never do "
                       "(run more iterations)", CudagWarning, stacklevel=3)


# ---- results, graphs, scores, simulation ---------------------------------------------

def load(path) -> PcResult | FciResult | McmcResult:
    """A result file written by ``cudag pc --out``/``cudag fci --out``/``cudag mcmc --out``
    (or ``out=`` of :func:`pc`/:func:`fci`/:func:`mcmc`) read back as the :class:`PcResult`,
    :class:`BootstrapResult` (a ``--bootstrap`` run's file), :class:`FciResult` (a PAG) or
    :class:`McmcResult` the run returned: the same names, edge lists, PAG, separating sets,
    pMax, levels, frequencies, traces and diagnostics
    (configuration keys as the file stores them: characters other than ``[A-Za-z0-9_]``
    become ``_``). Read through the library's own readers."""
    kind, raw = _cudag.load(_os.fspath(path))
    if kind == "pc":
        return BootstrapResult(raw) if "bootstrap" in raw else PcResult(raw)
    if kind == "fci":
        return FciBootstrapResult(raw) if "bootstrap" in raw else FciResult(raw)
    return McmcResult(raw)


def resample_rows(n_samples: int, replicate: int = 0, *, seed: int = 42, resample: str = "bootstrap") -> _np.ndarray:
    """The row indices (int64, increasing, repeats adjacent) replicate ``replicate`` of a
    bootstrap draws from data of ``n_samples`` rows: the rows ``cudag pc --bootstrap B
    --seed S --resample R`` (and ``cudag.pc(..., bootstrap=B, seed=S, resample=R)``) runs
    that replicate on. ``resample``: "bootstrap" (n_samples rows with replacement) or
    "half" (n_samples // 2 distinct rows). A pure function of its arguments. ``seed``
    defaults to cudag pc's; ``cudag mcmc``'s default seed is 1."""
    if isinstance(n_samples, bool) or isinstance(replicate, bool):
        raise TypeError("resample_rows() takes integers")
    return _cudag.resample_rows(int(n_samples), int(replicate), seed, resample)


def resample(data, replicate: int = 0, *, seed: int = 42, resample: str = "bootstrap"):
    """The rows of ``data`` (numpy array: rows; DataFrame: ``iloc`` rows, the index kept)
    of bootstrap replicate ``replicate`` (:func:`resample_rows`): what ``cudag pc
    --write-resample FILE --replicate r`` writes, all columns kept (the command line also
    leaves out the columns constant in the resample, as the replicate's run does)."""
    n = len(data) if _is_frame(data) else _np.asarray(data).shape[0]
    rows = resample_rows(n, replicate, seed=seed, resample=resample)
    return data.iloc[rows] if _is_frame(data) else _np.asarray(data)[rows]


def _graph(g, role: str) -> dict:
    """A graph for compare/score: a result, a SimulateResult (its true DAG), a file in any
    format ``cudag compare`` reads, or an n x n adjacency with ``names``."""
    if isinstance(g, (str, _os.PathLike)):
        return _cudag.read_graph(_os.fspath(g))
    pag = _np.zeros((0, 4), dtype=_np.int32)
    if isinstance(g, McmcResult):  # its best DAG, as the command line reads an MCMC result file
        edges, what = g._graph_edges(), "cudag.mcmc result (its best DAG)"
    elif isinstance(g, PcResult):
        edges, what = g.edge_array, "cudag.pc result"
    elif isinstance(g, SimulateResult):
        edges, what = g.truth_edge_array, "cudag.simulate's true DAG"
    elif isinstance(g, FciResult):  # its PAG: /pag/edges rows
        edges, what, pag = _np.zeros((0, 3)), "cudag.fci result", g.edge_array
    else:
        raise TypeError(f"{role}= takes a cudag result, a cudag.SimulateResult or a graph file's path, "
                        f"not {type(g).__name__}")
    return {"path": f"<{role}>", "format": what, "graph_name": "", "names": list(g.names),
            "edges": _np.ascontiguousarray(edges, dtype=_np.int32).reshape(-1, 3), "lists_every_variable": True,
            "names_by_position": False, "pag": isinstance(g, FciResult),
            "pag_edges": _np.ascontiguousarray(pag, dtype=_np.int32).reshape(-1, 4)}


def compare(truth, estimate) -> dict:
    """``cudag compare``: skeleton precision, recall and F1 and the structural Hamming
    distance of ``estimate`` against ``truth``. Each is a cudag result (:class:`PcResult`;
    an :class:`McmcResult` as its best DAG; an :class:`FciResult` as its PAG), a
    :class:`SimulateResult` (its true DAG) or a graph file the command line reads (edge TSV,
    Tetrad text, pcalg amat CSV, causal-learn matrix, node-link JSON, DOT, a cudag .h5
    result; PAGs with circle marks too). A DAG is compared as its CPDAG, as the command line
    does. Returns a dict: n_true_edges, n_est_edges, tp, fp, fn, precision, recall, f1, shd,
    truth_was_dag, estimate_was_dag, pag. When either side is a PAG (``pag`` true), a CPDAG's
    ``---`` is compared as ``o-o``, shd is the SHD on PAGs (1 per pair adjacent in one graph
    only or with any endpoint mark different), and for each of arrow, tail and circle the dict
    has <kind>_truth, <kind>_estimate, <kind>_correct (endpoints of edges in both graphs with
    that mark), <kind>_precision = correct / estimate and <kind>_recall = correct / truth,
    with shared_endpoints (README, "Comparing with a truth"). The command line's
    ``--truth-pag``/``--estimate-pag`` are for files: give such a graph as a path there."""
    return dict(_cudag.compare(_graph(truth, "truth"), _graph(estimate, "estimate")))


def score(data, dag, score: str, *, names=None, iss: float | None = None, am: float | None = None,
          aw: float | None = None, discrete: bool | None = None, missing: str | None = None,
          discrete_columns=None, continuous_columns=None, threads: int | None = None) -> dict:
    """``cudag score``: the score of a DAG on ``data`` (numpy array or DataFrame, as
    :func:`mcmc` takes it), in total and per node. ``dag``: an :class:`McmcResult` (its
    best DAG), a :class:`SimulateResult` (its true DAG), a graph file (directed edges
    only), an n x n array ([p, v] non-zero for p --> v), or a list of (parent, child)
    pairs (names or column indices). ``score``: bdeu or k2 (discrete data), bge
    (continuous) or cg-bic (mixed); ``iss`` (BDeu), ``am``/``aw`` (BGe), ``discrete``,
    ``missing`` (error or listwise), ``discrete_columns``/``continuous_columns`` (cg-bic) as
    the command line's options; ``threads`` converting the data (None: all). Returns a dict: total, nodes
    ({name: local score}), local (array in column order), score, n_samples."""
    values, names, text, source = _prepare(data, names)
    n = len(names)
    parents: list[list[int]] = [[] for _ in range(n)]
    index = {s: k for k, s in enumerate(names)}

    def node(v) -> int:
        if isinstance(v, (int, _np.integer)) and not isinstance(v, (bool, _np.bool_)):
            if not 0 <= v < n:
                raise InputError(f"dag: variable index {v} is out of range (0..{n - 1})")
            return int(v)
        if str(v) not in index:
            raise InputError(f"dag: the variable '{v}' is not a column of the data")
        return index[str(v)]

    if isinstance(dag, _np.ndarray) and dag.ndim == 2:
        if dag.shape != (n, n):
            raise InputError(f"dag: a {dag.shape[0]} x {dag.shape[1]} matrix for {n} variables")
        for p, v in _np.argwhere(dag != 0).tolist():
            parents[v].append(p)
    elif isinstance(dag, (list, tuple)):
        for pair in dag:
            p, v = pair[0], pair[1]
            parents[node(v)].append(node(p))
    else:
        g = _graph(dag, "dag")
        if g["pag"]:
            raise InputError(f"{g['path']}: a PAG (cudag fci's output: circle marks) is not a DAG to score; "
                             "a DAG to score has only --> edges")
        for a, b, kind in _np.asarray(g["edges"]).reshape(-1, 3).tolist():
            na, nb = g["names"][a], g["names"][b]
            if kind != 1:
                raise InputError(f"{g['path']}: the edge {na} {'---' if kind == 0 else '<->'} {nb} is not directed; "
                                 "a DAG to score has only --> edges")
            parents[node(nb)].append(node(na))
    parents = [sorted(set(p)) for p in parents]
    opts = {"score": score, "iss": iss, "am": am, "aw": aw, "discrete": discrete, "missing": missing,
            "discrete_columns": discrete_columns, "continuous_columns": continuous_columns, "threads": threads}
    if score == "cg-bic":  # a DataFrame's categorical columns are discrete (as mcmc)
        typed = _options({"discrete_columns": discrete_columns, "continuous_columns": continuous_columns}, data)
        opts["discrete_columns"] = typed.get("discrete_columns")
    with _python_words("score"):
        raw = _cudag.score(values, names, text, source, parents, **opts)
    local = raw["local"]
    return {"total": raw["total"], "nodes": dict(zip(names, local.tolist())), "local": local,
            "score": raw["score"], "n_samples": raw["n_samples"]}


#: The kinds of cudag.simulate (the subcommands of ``cudag simulate``).
_SIMULATE_KINDS = ("gaussian", "nonlinear", "discrete", "bif")


@_functools.lru_cache(maxsize=None)
def _simulate_options(kind: str) -> tuple:
    """The keywords ``cudag.simulate(kind)`` takes: those of simulate's keywords that are
    options of ``cudag simulate <kind>``."""
    declared = {row[0] for row in _cudag.option_table(f"simulate {kind}")}
    return tuple(row["name"] for row in _option_rows("simulate") if row["option"] in declared)


def _check_type(function: str, key: str, value, annotation: str) -> None:
    """TypeError naming `key` unless `value` fits the option table's type (int: an integer,
    float: a number, str: a str or path)."""
    if annotation == "int":
        ok = isinstance(value, (int, _np.integer)) and not isinstance(value, (bool, _np.bool_))
        wanted = "an integer"
    elif annotation == "float":
        ok = isinstance(value, (int, float, _np.integer, _np.floating)) and not isinstance(value, (bool, _np.bool_))
        wanted = "a number"
    elif annotation == "bool":
        ok, wanted = isinstance(value, (bool, _np.bool_)), "True or False"
    else:
        ok, wanted = isinstance(value, (str, _os.PathLike)), "a str"
    if not ok:
        raise TypeError(f"{function}: {key}= takes {wanted}, not {type(value).__name__}")


def simulate(kind: str = "gaussian", *, samples: int, vars: int | None = None, density: float | None = None,
             seed: int | None = None, graph: str | None = None, degree: float | None = None,
             hub_exponent: float | None = None, states: int | None = None, max_parents: int | None = None,
             bif=None, threads: int | None = None) -> SimulateResult:
    """``cudag simulate <kind>``: data with a known causal graph, the same values as the
    command line's for the same options. ``kind``: gaussian (linear Gaussian DAG; ``graph``
    cupc, er or scale-free, ``density`` or ``degree``, ``hub_exponent``), nonlinear
    (additive-noise DAG), discrete (random Bayesian network: ``states``, ``max_parents``)
    or bif (forward samples of the BIF network file ``bif``). None: the command line's
    default. Returns a :class:`SimulateResult` (data, names, true DAG). Runs the ``cudag``
    executable installed beside the module (``cudag simulate``) into a temporary folder."""
    given = {"vars": vars, "samples": samples, "density": density, "seed": seed, "graph": graph, "degree": degree,
             "hub_exponent": hub_exponent, "states": states, "max_parents": max_parents, "bif": bif,
             "threads": threads}
    if not isinstance(kind, str):
        raise TypeError(f"cudag.simulate: kind takes a str, not {type(kind).__name__}")
    if kind not in _SIMULATE_KINDS:
        raise InputError(f"cudag.simulate: no kind '{kind}' (available: {', '.join(_SIMULATE_KINDS)})")
    allowed = _simulate_options(kind)
    types = {row["name"]: row["type"] for row in _option_rows("simulate")}
    for key, value in given.items():
        if value is None:
            continue
        if key not in allowed:
            raise TypeError(f"cudag.simulate('{kind}') got an unexpected keyword argument '{key}' "
                            f"(it takes {', '.join(allowed)})")
        _check_type("cudag.simulate", key, value, types[key])
    if kind != "bif" and vars is None:
        raise TypeError(f"cudag.simulate('{kind}') needs vars=")
    if kind == "bif" and bif is None:
        raise TypeError("cudag.simulate('bif') needs bif= (the network file)")
    with _tempfile.TemporaryDirectory(prefix="cudag-simulate-") as d:
        out, truth = _os.path.join(d, "data.csv"), _os.path.join(d, "truth.tsv")
        argv = ["cudag", "simulate", kind, "-q", "--out", out, "--truth", truth]
        for key, value in given.items():
            if value is not None:
                argv += ["--" + key.replace("_", "-"), _os.fspath(value) if isinstance(value, _os.PathLike)
                         else str(value)]
        done = _cli.run(argv[1:])
        if done.returncode != 0:
            lines = [line for line in done.stderr.splitlines() if line.startswith("cudag: error: ")]
            text = lines[-1][len("cudag: error: "):] if lines else done.stderr.strip()
            raise InputError(f"cudag.simulate: {_in_python_words(text, 'simulate')}")
        return SimulateResult.from_files(out, truth, kind)


def _with_options(fn, command: str):
    """Show the command's options on ``fn``: its signature gains each keyword (annotated with
    its type; default None: the command line's default) in place of ``**options``, and its
    docstring each keyword's type, default and meaning from the option table, so that
    ``help()``, ``inspect`` and editors list them. The call itself is unchanged (an unknown
    keyword is a TypeError)."""
    sig = _inspect.signature(fn)
    params = [p for p in sig.parameters.values() if p.kind is not p.VAR_KEYWORD]
    have = {p.name for p in params}
    rows = _option_rows(command)
    for row in rows:
        if row["name"] not in have:
            params.append(_inspect.Parameter(row["name"], _inspect.Parameter.KEYWORD_ONLY, default=None,
                                             annotation=f"{row['type']} | None"))
            have.add(row["name"])
    fn.__signature__ = sig.replace(parameters=params)
    fn.__doc__ = (fn.__doc__ or "") + ("\n\n    Keyword options (None: the default shown, the command line's):\n"
                                       + "\n".join(_option_text(row, command, "    ") for row in rows))
    return fn


for _fn, _command in ((pc, "pc"), (fci, "fci"), (pcmci, "pcmci"), (citest, "citest"), (mcmc, "mcmc"),
                      (tester, "citest"), (score, "score"), (simulate, "simulate")):
    _with_options(_fn, _command)
del _fn, _command
del annotations  # the __future__ import's name: not part of the API
