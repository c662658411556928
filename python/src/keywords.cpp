// SPDX-License-Identifier: Apache-2.0
#include "keywords.hpp"

#include <nanobind/stl/string.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <type_traits>

#include "bootstrap/resample.hpp"

namespace cudag::python {

namespace {

/// The value's type as Python prints it ("str", "float", "numpy.bool").
std::string python_type(nb::handle v) { return Py_TYPE(v.ptr())->tp_name; }

[[noreturn]] void wrong_type(nb::handle v, const std::string& key, const std::string& wanted) {
    throw nb::type_error((key + "= takes " + wanted + ", not " + python_type(v)).c_str());
}

bool is_bool(nb::handle v) { return PyBool_Check(v.ptr()) != 0 || python_type(v).rfind("numpy.bool", 0) == 0; }

template <class Int>
Int integer(nb::handle v, const std::string& key) {
    Int out{};
    if (is_bool(v) || PyFloat_Check(v.ptr())) wrong_type(v, key, "an integer");
    if (nb::try_cast<Int>(v, out)) return out;
    if (PyLong_Check(v.ptr()))  // an integer too large for the setting
        throw InputError(key + "=" + nb::cast<std::string>(nb::str(v)) + " is out of range (" +
                         std::to_string(std::numeric_limits<Int>::min()) + " .. " +
                         std::to_string(std::numeric_limits<Int>::max()) + ")");
    wrong_type(v, key, "an integer");
}

}  // namespace

template <>
bool typed<bool>(nb::handle v, const std::string& key) {
    if (!is_bool(v)) wrong_type(v, key, "True or False");
    return nb::cast<bool>(v);
}
template <>
int typed<int>(nb::handle v, const std::string& key) {
    return integer<int>(v, key);
}
template <>
std::int64_t typed<std::int64_t>(nb::handle v, const std::string& key) {
    return integer<std::int64_t>(v, key);
}
template <>
double typed<double>(nb::handle v, const std::string& key) {
    double out = 0.0;
    if (is_bool(v) || !nb::try_cast<double>(v, out)) wrong_type(v, key, "a number");
    return out;
}
template <>
std::string typed<std::string>(nb::handle v, const std::string& key) {
    if (PyUnicode_Check(v.ptr())) return nb::cast<std::string>(v);
    if (nb::hasattr(v, "__fspath__")) return nb::cast<std::string>(nb::module_::import_("os").attr("fspath")(v));
    wrong_type(v, key, "a str");
}
template <>
std::vector<std::string> typed<std::vector<std::string>>(nb::handle v, const std::string& key) {
    if (PyUnicode_Check(v.ptr()) || nb::hasattr(v, "__fspath__")) return {typed<std::string>(v, key)};
    if (!nb::isinstance<nb::sequence>(v) && !nb::isinstance<nb::set>(v) && !nb::isinstance<nb::frozenset>(v))
        wrong_type(v, key, "a str or a list of str");
    std::vector<std::string> out;
    for (nb::handle item : v) out.push_back(typed<std::string>(item, key));
    return out;
}
template <>
std::uint64_t typed<std::uint64_t>(nb::handle v, const std::string& key) {
    std::uint64_t big = 0;  // a key of 2^63 or more
    if (!is_bool(v) && PyLong_Check(v.ptr())) {
        if (nb::try_cast<std::uint64_t>(v, big)) return big;
        const nb::int_ zero(0);
        if (PyObject_RichCompareBool(v.ptr(), zero.ptr(), Py_GT) == 1)
            throw InputError(key + "=" + nb::cast<std::string>(nb::str(v)) + " is out of range (0 .. " +
                             std::to_string(std::numeric_limits<std::uint64_t>::max()) + ")");
    }
    const std::int64_t s = integer<std::int64_t>(v, key);
    if (s < 0) throw InputError("--seed: must be 0 or more (an unsigned 64-bit key), got " + std::to_string(s));
    return static_cast<std::uint64_t>(s);
}

namespace {

using Names = std::vector<std::string>;

/// A keyword setting the member `get(job)` to a value of its type.
template <class Job, class Get>
Keyword<Job> kw(std::string name, std::string option, Get get) {
    using T = std::remove_reference_t<decltype(get(std::declval<Job&>()))>;
    return {name, option,
            [get, name](Job& job, nb::handle v, const Names&) {
                auto& member = get(job);
                member = typed<T>(v, name);
            },
            annotation<T>()};
}

/// A keyword setting a member of the job directly.
template <class Job, class T>
Keyword<Job> field(std::string name, std::string option, T Job::*member) {
    return kw<Job>(std::move(name), std::move(option), [member](Job& job) -> T& { return job.*member; });
}

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

/// A keyword of a setting the job holds parsed (an enum): `parse` is the setting's one parse
/// function, the command line's too, so the words and the errors are the same; "" leaves an
/// optional setting unset (its default), as the command line's empty word does.
template <class Job, class Get, class Parse>
Keyword<Job> choice(std::string name, std::string option, Get get, Parse parse) {
    return {name, option,
            [get, parse, name](Job& job, nb::handle v, const Names&) {
                auto& member = get(job);
                const std::string word = typed<std::string>(v, name);
                if constexpr (is_optional<std::remove_reference_t<decltype(member)>>::value)
                    member = run::parse_unless_empty(word, parse);
                else
                    member = parse(word);
            },
            "str"};
}

/// choice() of a member of the job.
template <class Job, class T, class Parse>
Keyword<Job> choice(std::string name, std::string option, T Job::*member, Parse parse) {
    return choice<Job>(
        std::move(name), std::move(option), [member](Job& job) -> T& { return job.*member; }, parse);
}

/// kw, and `option` recorded among `given(job)` (an option refused with another test).
template <class Job, class Get, class Given>
Keyword<Job> tracked(std::string name, std::string option, Get get, Given given) {
    Keyword<Job> k = kw<Job>(name, option, get);
    k.set = [inner = k.set, option, given](Job& job, nb::handle v, const Names& names) {
        inner(job, v, names);
        given(job) = true;
    };
    return k;
}

/// A comma-separated list (--format): a str as it stands, or a list joined with commas.
template <class Job>
Keyword<Job> comma_list(std::string name, std::string option, std::string Job::*member) {
    return {name, option,
            [member, name](Job& job, nb::handle v, const Names&) {
                std::string joined;
                for (const std::string& s : typed<std::vector<std::string>>(v, name))
                    joined += (joined.empty() ? "" : ",") + s;
                job.*member = joined;
            },
            "str | list[str]"};
}

/// A variable of a knowledge item: its name, or its 0-based column index.
std::string variable(nb::handle v, const Names& names, const std::string& key) {
    if (PyLong_Check(v.ptr()) && !is_bool(v)) {
        const std::int64_t k = nb::cast<std::int64_t>(v);
        if (k < 0 || k >= static_cast<std::int64_t>(names.size()))
            throw InputError("variable index " + std::to_string(k) + " is out of range (0.." +
                             std::to_string(static_cast<std::int64_t>(names.size()) - 1) + ")");
        return names[static_cast<std::size_t>(k)];
    }
    if (!PyUnicode_Check(v.ptr())) wrong_type(v, key, "variable names or column indices");
    return nb::cast<std::string>(v);
}

/// forbid= / require= / tiers=: a file (str or path), or values: for pairs, each item a
/// line of the file ("a -- b", "a -> b") or a pair (a, b), the direction a -> b as
/// causal-learn's BackgroundKnowledge takes it; for tiers, each item a tier (a list of
/// variables, or one variable).
template <class Job>
Keyword<Job> knowledge(const std::string& name) {
    return {
        name, "--" + name,
        [name](Job& job, nb::handle v, const Names& names) {
            run::KnowledgeJob& k = job.knowledge;
            std::string& file = name == "forbid" ? k.files.forbid : name == "require" ? k.files.require : k.files.tiers;
            std::vector<KnowledgeLine>& lines = name == "forbid"    ? k.values.forbid
                                                : name == "require" ? k.values.require
                                                                    : k.values.tiers;
            if (PyUnicode_Check(v.ptr()) || nb::hasattr(v, "__fspath__")) {
                file = typed<std::string>(v, name);
                return;
            }
            if (!nb::isinstance<nb::sequence>(v)) wrong_type(v, name, "a file name or a list");
            int item = 0;
            for (nb::handle x : v) {
                KnowledgeLine line{name + "= item " + std::to_string(++item), {}};
                if (name == "tiers") {
                    if (PyUnicode_Check(x.ptr()) || PyLong_Check(x.ptr()))
                        line.tokens.push_back(variable(x, names, name));
                    else
                        for (nb::handle y : x) line.tokens.push_back(variable(y, names, name));
                } else if (PyUnicode_Check(x.ptr())) {
                    line.tokens = knowledge_tokens(nb::cast<std::string>(x));
                } else {
                    const nb::sequence pair = nb::borrow<nb::sequence>(x);
                    if (nb::len(pair) != 2) wrong_type(x, name, "pairs (a, b) or lines 'a -- b'");
                    line.tokens = {variable(pair[0], names, name), "->", variable(pair[1], names, name)};
                }
                lines.push_back(std::move(line));
            }
        },
        "str | os.PathLike | list",
        name == "tiers" ? "tiers of variables, earliest first: a list of tiers (each a list of variable names or "
                          "column indices, or one), or a tiers file in the command line's format"
                        : std::string("pairs ") + (name == "forbid" ? "forbidden" : "required") +
                              ": a list of pairs (a, b) (the direction a -> b, as causal-learn's BackgroundKnowledge) "
                              "or lines 'a -- b' / 'a -> b', or a file of such lines"};
}

/// bootstrap= / resample= / consensus=: the edge-confidence keywords of pc and mcmc (the
/// resamples keyed by seed=). bootstrap= given must be a count, as --bootstrap given: 0
/// would silently run once.
template <class Job>
void add_bootstrap_keywords(std::vector<Keyword<Job>>& t) {
    t.push_back({"bootstrap", "--bootstrap",
                 [](Job& job, nb::handle v, const Names&) {
                     bootstrap::Options b;
                     b.replicates = typed<std::int64_t>(v, "bootstrap");
                     bootstrap::validate(b, std::numeric_limits<std::int64_t>::max());
                     job.bootstrap = b.replicates;
                 },
                 "int"});
    t.push_back(choice("resample", "--resample", &Job::resample, bootstrap::parse_resample));
    t.push_back(field("consensus", "--consensus", &Job::consensus));
}

/// The CMIknn keywords of pc and citest, each recorded as given.
template <class Job>
void add_cmi_keywords(std::vector<Keyword<Job>>& t, bool early_stop) {
    // A keyword set by kw(), or by choice() when a parse function follows.
    const auto cmi_kw = [&t](const std::string& name, const std::string& option, auto get, auto... parse) {
        Keyword<Job> k;
        if constexpr (sizeof...(parse) == 0)
            k = kw<Job>(name, option, get);
        else
            k = choice<Job>(name, option, get, parse...);
        k.set = [inner = k.set, option](Job& job, nb::handle v, const Names& names) {
            inner(job, v, names);
            job.cmi.given.push_back(option);
        };
        t.push_back(std::move(k));
    };
    cmi_kw("knn", "--knn", [](Job& j) -> double& { return j.cmi.spec.knn; });
    cmi_kw("shuffle_neighbors", "--shuffle-neighbors", [](Job& j) -> int& { return j.cmi.spec.shuffle_neighbors; });
    cmi_kw("permutations", "--permutations", [](Job& j) -> int& { return j.cmi.spec.permutations; });
    cmi_kw(
        "transform", "--transform", [](Job& j) -> ci::CmiTransform& { return j.cmi.spec.transform; },
        ci::parse_cmi_transform);
    cmi_kw(
        "permute", "--permute", [](Job& j) -> ci::CmiPermute& { return j.cmi.spec.permute; }, ci::parse_cmi_permute);
    cmi_kw("seed", "--seed", [](Job& j) -> std::uint64_t& { return j.cmi.spec.seed; });
    if (early_stop) cmi_kw("no_early_stop", "--no-early-stop", [](Job& j) -> bool& { return j.cmi.no_early_stop; });
}

}  // namespace

const std::vector<Keyword<run::PcJob>>& pc_keywords() {
    using J = run::PcJob;
    static const std::vector<Keyword<J>> table = [] {
        std::vector<Keyword<J>> t = {
            choice("test", "--test", &J::test, skeleton::parse_test),
            field("discrete", "--discrete", &J::discrete),
            choice("missing", "--missing", &J::missing, parse_missing),
            field("discrete_columns", "--discrete-columns", &J::discrete_columns),
            field("continuous_columns", "--continuous-columns", &J::continuous_columns),
            choice("dof", "--dof", &J::dof, skeleton::parse_dof),
            kw<J>("alpha", "--alpha", [](J& j) -> double& { return j.cfg.alpha; }),
            kw<J>("max_level", "--max-level", [](J& j) -> int& { return j.cfg.max_level; }),
            kw<J>("threads", "--threads", [](J& j) -> int& { return j.cfg.backend.threads; }),
            field("out", "--out", &J::out),
            comma_list("format", "--format", &J::formats),
            field("force", "--force", &J::force),
            choice("compat", "--compat", &J::compat, skeleton::parse_compat),
            {"uc_rule", "--uc-rule", [](J& j, nb::handle v, const Names&) { j.uc_rule = typed<int>(v, "uc_rule"); },
             "int"},
            {"uc_priority", "--uc-priority",
             [](J& j, nb::handle v, const Names&) { j.uc_priority = typed<int>(v, "uc_priority"); }, "int"},
            knowledge<J>("forbid"),
            knowledge<J>("require"),
            knowledge<J>("tiers"),
            choice("backend", "--backend", &J::backend, parse_backend),
            field("tune", "--tune", &J::tunes),
            kw<J>("checkpoint", "--checkpoint", [](J& j) -> std::string& { return j.cfg.checkpoint; }),
            kw<J>("resume", "--resume", [](J& j) -> bool& { return j.cfg.resume; }),
            field("keep_checkpoint", "--keep-checkpoint", &J::keep_checkpoint),
            field("overwrite_checkpoint", "--overwrite-checkpoint", &J::overwrite_checkpoint),
            choice("comm", "--comm", &J::comm, run::parse_comm),
            field("comm_timeout", "--comm-timeout", &J::comm_timeout),
            kw<J>("stop_after_level", "--stop-after-level", [](J& j) -> int& { return j.cfg.stop_after_level; }),
            field("quiet", "--quiet", &J::quiet),
            field("verbose", "--verbose", &J::verbose),
            field("oracle", "--oracle", &J::oracle),
            comma_list("latent", "--latent", &J::latent),
        };
        add_cmi_keywords(t, true);
        add_bootstrap_keywords(t);
        return t;
    }();
    return table;
}

const std::vector<Keyword<run::FciJob>>& fci_keywords() {
    using J = run::FciJob;
    static const std::vector<Keyword<J>> table = [] {
        // PC's keywords that are not `cudag fci` options: its collider rules (FCI orients
        // with R0-R10).
        static const char* const pc_only[] = {"uc_rule", "uc_priority"};
        std::vector<Keyword<J>> t;
        for (const Keyword<run::PcJob>& k : pc_keywords()) {
            if (std::find(std::begin(pc_only), std::end(pc_only), k.name) != std::end(pc_only)) continue;
            t.push_back({k.name, k.option,
                         [set = k.set](J& job, nb::handle v, const Names& names) { set(job.pc, v, names); }, k.type,
                         k.meaning});
        }
        const std::vector<Keyword<J>> own = {
            choice<J>(
                "variant", "--variant", [](J& j) -> fci::Variant& { return j.fci.variant; }, fci::parse_variant),
            kw<J>("pdsep_max", "--pdsep-max", [](J& j) -> int& { return j.fci.pdsep_max; }),
            {"no_pdsep", "--no-pdsep",
             [](J& j, nb::handle v, const Names&) { j.fci.pdsep = !typed<bool>(v, "no_pdsep"); }, "bool"},
            kw<J>("conservative", "--conservative", [](J& j) -> bool& { return j.fci.conservative; }),
            kw<J>("majority_rule", "--majority-rule", [](J& j) -> bool& { return j.fci.majority; }),
            field("no_selection_bias", "--no-selection-bias", &J::no_selection_bias),
            choice<J>(
                "type", "--type", [](J& j) -> fci::FciType& { return j.fci.type; }, fci::parse_fci_type),
            kw<J>("max_path_length", "--max-path-length", [](J& j) -> int& { return j.fci.max_path_length; }),
            kw<J>("python_hash_seed", "--python-hash-seed",
                  [](J& j) -> std::int64_t& { return j.fci.python_hash_seed; }),
        };
        t.insert(t.end(), own.begin(), own.end());
        return t;
    }();
    return table;
}

const std::vector<Keyword<run::PcmciJob>>& pcmci_keywords() {
    using J = run::PcmciJob;
    static const std::vector<Keyword<J>> table = [] {
        std::vector<Keyword<J>> t = {
            choice("method", "--method", &J::method, run::parse_pcmci_method),
            choice("test", "--test", &J::test, run::parse_pcmci_test),
            kw<J>("tau_min", "--tau-min", [](J& j) -> std::int32_t& { return j.settings.tau_min; }),
            kw<J>("tau_max", "--tau-max", [](J& j) -> std::int32_t& { return j.settings.tau_max; }),
            // pc_alpha: a number, a sequence of numbers (tigramite's list: the best chosen) or a
            // str as --pc-alpha takes it ("auto": tigramite's None, which cudag.pcmci passes).
            {"pc_alpha", "--pc-alpha",
             [](J& job, nb::handle v, const Names&) {
                 if (PyUnicode_Check(v.ptr())) {
                     run::set_pc_alpha(job, nb::cast<std::string>(v), "pc_alpha");
                 } else if (nb::isinstance<nb::sequence>(v) || nb::hasattr(v, "tolist")) {
                     const nb::object items = nb::hasattr(v, "tolist") ? v.attr("tolist")() : nb::borrow(v);
                     if (!nb::isinstance<nb::sequence>(items)) {  // a numpy scalar
                         job.settings.pc_alpha = typed<double>(items, "pc_alpha");
                         job.pc_alpha_given = true;
                         return;
                     }
                     std::vector<double> values;
                     for (nb::handle item : items) values.push_back(typed<double>(item, "pc_alpha"));
                     if (values.empty()) throw InputError("pc_alpha: an empty list (give values, or None)");
                     job.pc_alpha_given = true;
                     job.pc_alpha_auto = false;
                     job.settings.pc_alpha_list = std::move(values);
                 } else {
                     job.settings.pc_alpha = typed<double>(v, "pc_alpha");
                     job.pc_alpha_given = true;
                 }
             },
             "float | list[float] | None",
             "significance level of the condition selection; a list: tigramite's selection among the values "
             "(ParCorr), None: among tigramite's default list (default: 0.2 for PCMCI, 0.01 for PCMCI+)"},
            kw<J>("alpha_level", "--alpha-level", [](J& j) -> double& { return j.settings.alpha_level; }),
            kw<J>("max_conds_dim", "--max-conds-dim", [](J& j) -> std::int32_t& { return j.settings.max_conds_dim; }),
            kw<J>("max_combinations", "--max-combinations",
                  [](J& j) -> std::int32_t& { return j.settings.max_combinations; }),
            kw<J>("max_conds_py", "--max-conds-py", [](J& j) -> std::int32_t& { return j.settings.max_conds_py; }),
            kw<J>("max_conds_px", "--max-conds-px", [](J& j) -> std::int32_t& { return j.settings.max_conds_px; }),
            kw<J>("max_conds_px_lagged", "--max-conds-px-lagged",
                  [](J& j) -> std::int32_t& { return j.settings.max_conds_px_lagged; }),
            choice<J>(
                "contemp_collider_rule", "--contemp-collider-rule",
                [](J& j) -> pcmci::ColliderRule& { return j.settings.contemp_collider_rule; },
                pcmci::parse_collider_rule),
            kw<J>("conflict_resolution", "--no-conflict-resolution",
                  [](J& j) -> bool& { return j.settings.conflict_resolution; }),
            kw<J>("reset_lagged_links", "--reset-lagged-links",
                  [](J& j) -> bool& { return j.settings.reset_lagged_links; }),
            choice("fdr_method", "--fdr", &J::fdr, run::parse_fdr),
            field("missing_flag", "--missing-flag", &J::missing_flag),
            field("series_column", "--series-column", &J::series_column),
            field("time_column", "--time-column", &J::time_column),
            choice("backend", "--backend", &J::backend, parse_backend),
            field("threads", "--threads", &J::threads),
            field("quiet", "--quiet", &J::quiet),
            field("verbose", "--verbose", &J::verbose),
            // tigramite's link_assumptions as rows (cause, effect, lag, type), indices 0-based
            // (cudag.pcmci turns tigramite's dictionary into them).
            {"link_rows", "--links",
             [](J& job, nb::handle v, const Names& names) {
                 pcmci::LinkAssumptions la;
                 la.links.resize(names.size());
                 for (nb::handle row : nb::cast<nb::sequence>(v)) {
                     const auto r = nb::cast<nb::tuple>(row);
                     if (r.size() != 4) throw InputError("link_assumptions: each link is (cause, effect, lag, type)");
                     const auto cause = nb::cast<std::int32_t>(r[0]), effect = nb::cast<std::int32_t>(r[1]);
                     const auto lag = nb::cast<std::int32_t>(r[2]);
                     if (effect < 0 || effect >= static_cast<std::int32_t>(names.size()))
                         throw InputError("link_assumptions: no variable " + std::to_string(effect));
                     la.links[static_cast<std::size_t>(effect)].push_back({{cause, lag}, nb::cast<std::string>(r[3])});
                 }
                 job.settings.link_assumptions = std::move(la);
             },
             "list[tuple[int, int, int, str]]",
             "tigramite's link_assumptions as rows (cause, effect, lag, type), 0-based (cudag.pcmci fills it from "
             "link_assumptions=)"},
        };
        add_cmi_keywords(t, false);
        return t;
    }();
    return table;
}

const std::vector<Keyword<run::CitestJob>>& citest_keywords() {
    using J = run::CitestJob;
    static const std::vector<Keyword<J>> table = [] {
        std::vector<Keyword<J>> t = {
            choice("test", "--test", &J::test, skeleton::parse_test),
            field("x", "--x", &J::x),
            field("y", "--y", &J::y),
            field("given", "--given", &J::given),
            choice("missing", "--missing", &J::missing, parse_missing),
            field("discrete_columns", "--discrete-columns", &J::discrete_columns),
            field("continuous_columns", "--continuous-columns", &J::continuous_columns),
            choice("dof", "--dof", &J::dof, skeleton::parse_dof),
            choice("compat", "--compat", &J::compat, skeleton::parse_compat),
            choice("backend", "--backend", &J::backend, parse_backend),
            field("threads", "--threads", &J::threads),
            field("quiet", "--quiet", &J::quiet),
            field("verbose", "--verbose", &J::verbose),
        };
        add_cmi_keywords(t, false);
        return t;
    }();
    return table;
}

namespace {

/// The score options of `cudag mcmc` and `cudag score` (the job's run::ScoreJob `score`
/// member), then `rest`.
template <class J>
std::vector<Keyword<J>> with_score_options(std::vector<Keyword<J>> rest) {
    std::vector<Keyword<J>> out = {
        choice<J>(
            "score", "--score", [](J& j) -> bn::ScoreKind& { return j.score.score; }, bn::parse_score),
        tracked<J>(
            "iss", "--iss", [](J& j) -> double& { return j.score.iss; },
            [](J& j) -> bool& { return j.score.iss_given; }),
        tracked<J>(
            "am", "--am", [](J& j) -> double& { return j.score.am; }, [](J& j) -> bool& { return j.score.am_given; }),
        tracked<J>(
            "aw", "--aw", [](J& j) -> double& { return j.score.aw; }, [](J& j) -> bool& { return j.score.aw_given; }),
        kw<J>("discrete", "--discrete", [](J& j) -> bool& { return j.score.discrete; }),
        choice<J>(
            "missing", "--missing", [](J& j) -> MissingPolicy& { return j.score.missing; }, parse_missing),
        kw<J>("discrete_columns", "--discrete-columns",
              [](J& j) -> std::vector<std::string>& { return j.score.discrete_columns; }),
        kw<J>("continuous_columns", "--continuous-columns",
              [](J& j) -> std::vector<std::string>& { return j.score.continuous_columns; }),
    };
    out.insert(out.end(), rest.begin(), rest.end());
    return out;
}

}  // namespace

const std::vector<Keyword<run::McmcJob>>& mcmc_keywords() {
    using J = run::McmcJob;
    const auto given = [](bool J::*flag) { return [flag](J& j) -> bool& { return j.*flag; }; };
    static const std::vector<Keyword<J>> table = [&given] {
        std::vector<Keyword<J>> t = with_score_options<J>({
            field("max_parents", "--max-parents", &J::max_parents),
            {"space", "--space",
             [](J& j, nb::handle v, const Names&) {
                 j.space = run::parse_space(typed<std::string>(v, "space"));
                 j.space_given = true;
             },
             "str"},
            tracked<J>(
                "alpha", "--alpha", [](J& j) -> double& { return j.alpha; }, given(&J::alpha_given)),
            tracked<J>(
                "hard_limit", "--hard-limit", [](J& j) -> int& { return j.hard_limit; }, given(&J::hard_limit_given)),
            choice("order_score", "--order-score", &J::order_score, bn::parse_order_score),
            choice("moves", "--moves", &J::moves, bn::parse_moves),
            field("chains", "--chains", &J::chains),
            field("iterations", "--iterations", &J::iterations),
            {"burn_in", "--burn-in",
             [](J& j, nb::handle v, const Names&) { j.burn_in = typed<std::int64_t>(v, "burn_in"); }, "int"},
            field("thin", "--thin", &J::thin),
            field("seed", "--seed", &J::seed),
            field("prior", "--prior", &J::prior),
            field("edge_penalty", "--edge-penalty", &J::edge_penalty),
            knowledge<J>("forbid"),
            knowledge<J>("require"),
            knowledge<J>("tiers"),
            field("checkpoint", "--checkpoint", &J::checkpoint),
            choice("checkpoint_every", "--checkpoint-every", &J::checkpoint_every, run::parse_checkpoint_every),
            field("resume", "--resume", &J::resume),
            field("keep_checkpoint", "--keep-checkpoint", &J::keep_checkpoint),
            field("overwrite_checkpoint", "--overwrite-checkpoint", &J::overwrite_checkpoint),
            choice("backend", "--backend", &J::backend, parse_backend),
            field("tune", "--tune", &J::tunes),
            field("threads", "--threads", &J::threads),
            field("out", "--out", &J::out),
            comma_list("format", "--format", &J::formats),
            field("force", "--force", &J::force),
            {"stop_after", "--stop-after",
             [](J& j, nb::handle v, const Names&) { j.stop_after = typed<std::int64_t>(v, "stop_after"); }, "int"},
            field("quiet", "--quiet", &J::quiet),
            field("verbose", "--verbose", &J::verbose),
        });
        add_bootstrap_keywords(t);
        return t;
    }();
    return table;
}

const std::vector<Keyword<ScoreCall>>& score_keywords() {
    using J = ScoreCall;
    static const std::vector<Keyword<J>> table = [] {
        // Python's own: `cudag score` reads its file on one thread.
        Keyword<J> threads = field("threads", "-", &J::threads);
        threads.meaning = "CPU threads converting the data (0 or None: all hardware threads)";
        return with_score_options<J>({threads});
    }();
    return table;
}

const std::vector<OptionWord>& simulate_keywords() {
    static const std::vector<OptionWord> table = {
        {"vars", "--vars"},       {"samples", "--samples"},
        {"density", "--density"}, {"seed", "--seed"},
        {"threads", "--threads"}, {"graph", "--graph"},
        {"degree", "--degree"},   {"hub_exponent", "--hub-exponent"},
        {"states", "--states"},   {"max_parents", "--max-parents"},
        {"bif", "--bif"},
    };
    return table;
}

namespace {

/// Options every data-reading command has and Python does not take: the data come as the
/// first argument (a numpy array or a DataFrame), not as a file.
const std::vector<OptionWord> kDataOptions = {
    {"the data are the first argument (a numpy array or a DataFrame)", "--data"},
    {"the data are the first argument (a numpy array or a DataFrame)", "--dataset"},
    {"NaN cells (a numpy array's or DataFrame's missing values) are what --na-values marks", "--na-values"},
};

/// `more` after the data options.
std::vector<OptionWord> with_data_options(std::vector<OptionWord> more) {
    std::vector<OptionWord> out = kDataOptions;
    out.insert(out.end(), more.begin(), more.end());
    return out;
}

/// pcmci's: the data options but --na-values (missing_flag= marks missing cells), then `more`.
std::vector<OptionWord> with_series_options(std::vector<OptionWord> more) {
    std::vector<OptionWord> out(kDataOptions.begin(), kDataOptions.begin() + 2);
    out.insert(out.end(), more.begin(), more.end());
    return out;
}

/// The bootstrap's file tools of pc and fci: cudag.resample / cudag.resample_rows.
const std::vector<OptionWord> kResampleOptions = {
    {"cudag.resample(data, replicate) gives replicate r's rows", "--write-resample"},
    {"cudag.resample(data, replicate) gives replicate r's rows", "--replicate"},
    {"cudag.resample(data, replicate) gives replicate r's rows", "--overwrite"},
};

/// A simulate kind's outputs: cudag.simulate returns the data and the true DAG.
std::vector<OptionWord> simulate_cli_only() {
    const std::string why = "cudag.simulate returns the data and the true DAG (SimulateResult)";
    return {{why, "--out"}, {why, "--truth"}, {why, "--overwrite"}, {"cudag.simulate is always quiet", "--quiet"}};
}

}  // namespace

const std::vector<OptionWord>& cli_only_options(const std::string& command) {
    static const std::vector<OptionWord> none;
    static const std::vector<OptionWord> pc = [] {
        std::vector<OptionWord> out = with_data_options({});
        out.insert(out.end(), kResampleOptions.begin(), kResampleOptions.end());
        return out;
    }();
    static const std::vector<OptionWord> data = with_data_options({});
    static const std::vector<OptionWord> pcmci = with_series_options({
        {"cudag.pcmci returns the result dictionary (no file)", "--out"},
        {"cudag.pcmci returns the result dictionary (no file)", "--format"},
        {"cudag.pcmci returns the result dictionary (no file)", "--force"},
        {"cudag.pcmci runs without checkpoints", "--checkpoint"},
        {"cudag.pcmci runs without checkpoints", "--checkpoint-every"},
        {"cudag.pcmci runs without checkpoints", "--resume"},
        {"cudag.pcmci runs without checkpoints", "--keep-checkpoint"},
        {"cudag.pcmci runs without checkpoints", "--overwrite-checkpoint"},
        {"cudag.pcmci runs without checkpoints", "--stop-after-tests"},
    });
    static const std::vector<OptionWord> citest = with_data_options({
        {"Tester.test_batch(queries) (cudag.tester) runs many tests at once", "--queries"},
        {"cudag.citest returns a CitestResult (its fields)", "--json"},
    });
    static const std::vector<OptionWord> score = with_data_options({
        {"the DAG is cudag.score's second argument", "--dag"},
        {"cudag.score returns a dict", "--json"},
    });
    static const std::vector<OptionWord> simulate = simulate_cli_only();
    if (command == "pc" || command == "fci") return pc;
    if (command == "mcmc") return data;
    if (command == "pcmci") return pcmci;
    if (command == "citest") return citest;
    if (command == "score") return score;
    if (command.rfind("simulate", 0) == 0) return simulate;
    return none;
}

std::string common_meaning(const std::string& name) {
    if (name == "verbose")
        return "progress lines and notes as records of the logging logger 'cudag' (INFO), times counted from the call";
    if (name == "quiet") return "no notes (the default unless verbose=True; quiet=False: notes on stderr)";
    if (name == "out") return "also write the result to this HDF5 file, as the command line writes it";
    if (name == "conflict_resolution")
        return "PCMCI+: tigramite's conflict_resolution (False: the command line's --no-conflict-resolution)";
    if (name == "format")
        return "extra outputs beside out=: a list (or a comma-separated str) of edges, dot, json, ...";
    return {};
}

std::string call_text(const std::string& function, const nb::kwargs& kwargs) {
    std::string s = function + "(";
    bool first = true;
    for (const auto& [key, value] : kwargs) {
        if (value.is_none()) continue;  // left at its default
        s += (first ? "" : ", ") + nb::cast<std::string>(key) + "=" + nb::cast<std::string>(nb::repr(value));
        first = false;
    }
    return s + ")";
}

}  // namespace cudag::python
