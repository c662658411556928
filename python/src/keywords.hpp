// SPDX-License-Identifier: Apache-2.0
// The keyword arguments of cudag.pc / fci / citest / mcmc, each bound to one member of the
// job struct of src/run/ (run::PcJob, run::FciJob, run::CitestJob, run::McmcJob): a job starts from its
// defaults (the command line's, written once in the struct) and a keyword sets its member
// with a value of the member's type. An unknown keyword or a value of another type is a
// TypeError; a value out of range is the library's InputError, the command line's line.
#pragma once

#include <nanobind/nanobind.h>

#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "core/knowledge.hpp"
#include "run/citest.hpp"
#include "run/fci.hpp"
#include "run/mcmc.hpp"
#include "run/pc.hpp"
#include "run/pcmci.hpp"
#include "run/score_inputs.hpp"

namespace cudag::python {

namespace nb = nanobind;

/// One keyword: its Python name, the command line's option of the same member (for
/// messages and cudag.options(); its type, default and meaning come from the command
/// line's declaration, cli::option_table), and what it does to the job given the data's
/// names. `type` is the Python annotation ("int", "float", "bool", "str", ...; empty: the
/// option's), `meaning` what Python takes where it differs from the option's --help line
/// (empty: that line).
template <class Job>
struct Keyword {
    std::string name, option;
    std::function<void(Job&, nb::handle, const std::vector<std::string>&)> set;
    std::string type = {};
    std::string meaning = {};
};

/// The Python annotation of a keyword setting a member of type T (the types typed() takes).
template <class T>
std::string annotation() {
    if constexpr (std::is_same_v<T, bool>)
        return "bool";
    else if constexpr (std::is_integral_v<T>)
        return "int";
    else if constexpr (std::is_floating_point_v<T>)
        return "float";
    else if constexpr (std::is_same_v<T, std::string>)
        return "str";
    else
        return "str | list[str]";
}

/// `v` as a T, or a TypeError naming the keyword: bool takes True/False only, integers take
/// Python (and numpy) integers, double takes integers and floats, strings take str and
/// os.PathLike, a list of strings takes one str or a sequence of them.
template <class T>
T typed(nb::handle v, const std::string& key);

/// Every keyword of a job (pc_keywords: cudag.pc's, ...).
const std::vector<Keyword<run::PcJob>>& pc_keywords();
/// cudag.fci's: pc_keywords' entries for the skeleton search that `cudag fci` shares (each
/// the same entry, applied to FciJob::pc), then FCI's own (variant, pdsep_max, ...).
const std::vector<Keyword<run::FciJob>>& fci_keywords();
const std::vector<Keyword<run::CitestJob>>& citest_keywords();
const std::vector<Keyword<run::McmcJob>>& mcmc_keywords();
const std::vector<Keyword<run::PcmciJob>>& pcmci_keywords();

/// What cudag.score takes besides the data and the DAG: `cudag score`'s score options and
/// the threads that convert the data.
struct ScoreCall {
    run::ScoreJob score;
    int threads = 0;
};
const std::vector<Keyword<ScoreCall>>& score_keywords();

/// What a keyword shared by the learners means in Python where that differs from its
/// option's --help line (verbose=, quiet=, out=, conflict_resolution=); empty otherwise.
std::string common_meaning(const std::string& name);

/// A keyword of `cudag.simulate` (run through the command line: no job to set), or one
/// `cudag <command>` option that Python does not take, with why.
struct OptionWord {
    std::string name, option;
};

/// cudag.simulate's keywords (each kind's options among them: option_table("simulate <kind>")).
const std::vector<OptionWord>& simulate_keywords();

/// The options of `command` ("pc", "simulate gaussian", ...) that have no keyword, each
/// with what Python has instead (`name`: the reason).
const std::vector<OptionWord>& cli_only_options(const std::string& command);

/// `kwargs` applied to `job` (None leaves a member at its default); an unknown keyword is a
/// TypeError as Python words it ("cudag.pc() got an unexpected keyword argument 'x'").
template <class Job>
void apply_keywords(Job& job, const std::vector<Keyword<Job>>& table, const nb::kwargs& kwargs,
                    const std::vector<std::string>& names, const std::string& function) {
    for (const auto& [key, value] : kwargs) {
        const std::string k = nb::cast<std::string>(key);
        const Keyword<Job>* kw = nullptr;
        for (const Keyword<Job>& entry : table)
            if (entry.name == k) kw = &entry;
        if (!kw) throw nb::type_error((function + "() got an unexpected keyword argument '" + k + "'").c_str());
        if (!value.is_none()) kw->set(job, value, names);
    }
}

/// "cudag.pc(alpha=0.05, backend='cpu')": the call as provenance records it (None values left out).
std::string call_text(const std::string& function, const nb::kwargs& kwargs);

}  // namespace cudag::python
