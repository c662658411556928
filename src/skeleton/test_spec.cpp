// SPDX-License-Identifier: Apache-2.0
#include "skeleton/test_spec.hpp"

#include <sstream>

#include "core/choice.hpp"
#include "core/error.hpp"
#include "io/table_reader.hpp"

namespace cudag::skeleton {

namespace {
constexpr Choice<Compat> kCompats[] = {{"pcalg", Compat::Pcalg}, {"causal-learn", Compat::CausalLearn}};
constexpr Choice<ci::DofRule> kDofRules[] = {{"gpupc", ci::DofRule::Gpupc},
                                             {"pcalg", ci::DofRule::Pcalg},
                                             {"causal-learn", ci::DofRule::CausalLearn},
                                             {"bnlearn-adf", ci::DofRule::BnlearnAdf},
                                             {"pcalg-adapt", ci::DofRule::PcalgAdaptDf}};
}  // namespace

std::string to_string(Compat c) { return choice_word(kCompats, c); }
Compat parse_compat(const std::string& name) { return parse_choice(kCompats, "--compat", name); }
ci::DofRule parse_dof(const std::string& name) { return parse_choice(kDofRules, "--dof", name); }

namespace {

const char* dof_name(ci::DofRule r) {
    switch (r) {
        case ci::DofRule::Gpupc:
            return "gpupc: (rx-1)(ry-1)|S|";
        case ci::DofRule::Pcalg:
            return "pcalg: (rx-1)(ry-1)|S|, p = 1 when n < 10 df";
        case ci::DofRule::CausalLearn:
            return "causal-learn: sum over non-empty strata of (seen rx - 1)(seen ry - 1), p = 1 "
                   "when df = 0";
        case ci::DofRule::PcalgAdaptDf:
            return "pcalg-adapt: pcalg's, the df lowered by the zero counts (adaptDF = TRUE)";
        case ci::DofRule::BnlearnAdf:
            return "bnlearn-adf: causal-learn's df, p = 1 (statistic 0) when n < 5 rx ry |S|";
    }
    return "?";
}

/// The result-file entries of a CMIknn run (also what the checkpoint digest covers).
std::vector<std::pair<std::string, std::string>> cmi_config(const ci::CmiKnnSpec& spec, std::int64_t n_samples) {
    std::ostringstream knn;
    knn.precision(17);
    knn << spec.knn;
    return {
        {"cmiknn_knn", knn.str()},
        {"cmiknn_k", std::to_string(ci::cmi_k(spec.knn, n_samples))},
        {"cmiknn_shuffle_neighbors", std::to_string(spec.shuffle_neighbors)},
        {"cmiknn_permutations", std::to_string(spec.permutations)},
        {"cmiknn_transform", ci::to_string(spec.transform)},
        {"cmiknn_permute", spec.permute == ci::CmiPermute::Y ? "y" : "x"},
        {"cmiknn_tie_break", spec.tie_break == ci::CmiTieBreak::Noise ? "noise" : "index"},
        {"cmiknn_seed", std::to_string(spec.seed)},
        {"cmiknn_early_stop", spec.early_stop ? "on: a test stops drawing surrogates once independence is certain; "
                                                "p-values of early-stopped tests are lower bounds"
                                              : "off: every p-value uses all permutations"},
    };
}

/// The oracle's latent nodes, comma-separated ("none" when there are none).
std::string latent_list(const DsepOracle& oracle) {
    std::string out;
    for (const std::string& name : oracle.latent_names()) out += (out.empty() ? "" : ",") + name;
    return out.empty() ? "none" : out;
}

}  // namespace

namespace {

/// The test `options` ask for on `data`: the oracle's, else --test, else the data's default.
TestKind chosen_kind(const TestOptions& options, const Dataset& data) {
    return options.kind.value_or(options.oracle    ? TestKind::DSep
                                 : data.discrete() ? TestKind::ChiSquare
                                 : data.mixed()    ? TestKind::CgLrt
                                                   : TestKind::FisherZ);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> TestSpec::config_entries(std::int64_t n_samples) const {
    if (traits().dof_rule) return {{"dof_rule", dof_name(discrete.dof)}};
    if (traits().data == ci::TestData::Dag && oracle)
        return {{"oracle_dag", oracle->source()}, {"oracle_latent", latent_list(*oracle)}};
    if (kind == TestKind::CmiKnn) return cmi_config(cmi, n_samples);  // its parameters
    return {};
}

std::vector<std::string> TestSpec::digest_entries(std::int64_t n_samples) const {
    std::vector<std::string> out{name()};
    if (traits().dof_rule) out.emplace_back(dof_name(discrete.dof));
    if (kind == TestKind::CmiKnn)
        for (auto& [key, value] : cmi_config(cmi, n_samples)) {
            if (key == "cmiknn_knn") continue;  // k (resolved) decides, not how it was given
            out.push_back(std::move(key));
            out.push_back(std::move(value));
        }
    if (traits().data == ci::TestData::Dag && oracle)
        for (std::string& entry : oracle->digest()) out.push_back(std::move(entry));
    if (bnlearn_missing) out.emplace_back("missing=bnlearn");
    if (student_t) out.emplace_back("student-t");
    return out;
}

TestSpec resolve_test(const TestOptions& options, const Dataset& data, double alpha, Compat compat) {
    TestSpec spec;
    spec.kind = chosen_kind(options, data);
    spec.oracle = options.oracle;
    spec.discrete.stat = spec.kind == TestKind::GSquare ? ci::DiscreteStat::GSquare : ci::DiscreteStat::ChiSquare;
    spec.discrete.dof =
        options.dof.value_or(compat == Compat::CausalLearn ? ci::DofRule::CausalLearn : ci::DofRule::Pcalg);
    spec.cmi = options.cmi;
    spec.cmi.early_stop.reset();
    if (options.cmi_early_stop) spec.cmi.early_stop = ci::CmiEarlyStop{alpha, compat == Compat::CausalLearn};
    spec.bnlearn_missing = options.bnlearn_missing;
    spec.student_t = options.student_t && spec.kind == TestKind::FisherZ;
    return spec;
}

void validate_test(const TestOptions& options, const Dataset& data, int max_level) {
    const TestKind kind = chosen_kind(options, data);
    const ci::TestTraits& t = ci::traits(kind);
    const std::string test = t.name;
    if (options.oracle && t.data != ci::TestData::Dag)
        throw InputError("--oracle answers every test by d-separation: drop --test " + test);
    if (options.dof && !t.dof_rule)
        throw InputError("--dof applies to chi-square and g-square only: " + test + " has no degrees-of-freedom rule");
    switch (t.data) {
        case ci::TestData::Dag:
            if (!options.oracle) throw InputError("the d-separation test needs a DAG (--oracle DAG.tsv)");
            if (data.n_vars != options.oracle->n_vars() || data.names != options.oracle->var_names())
                throw InputError(data.source + ": the variables are not the observed nodes of the oracle's DAG " +
                                 options.oracle->source());
            return;
        case ci::TestData::Continuous:
            if (data.discrete())
                throw InputError(data.source + ": " + test +
                                 " needs continuous data, but the data were read as discrete; use --test "
                                 "chi-square or g-square");
            if (data.mixed())
                for (std::int64_t v = 0; v < data.n_vars; ++v)
                    if (data.is_discrete(v))
                        throw InputError(data.source + ": column '" + data.names[static_cast<std::size_t>(v)] +
                                         "' is discrete (labels or --discrete-columns): " + test +
                                         " needs continuous data (mixed data: --test cg-lrt, regression or mi-cg)");
            break;
        case ci::TestData::Mixed:  // any columns: mixed, continuous or discrete
            break;
        case ci::TestData::Discrete:
            if (data.mixed())
                for (std::int64_t v = 0; v < data.n_vars; ++v)
                    if (!data.is_discrete(v))
                        throw InputError(data.source + ": column '" + data.names[static_cast<std::size_t>(v)] +
                                         "' is continuous (--continuous-columns): --test " + test +
                                         " needs discrete data (mixed data: --test cg-lrt, regression or mi-cg)");
            if (!data.discrete())
                throw InputError(data.source + ": --test " + test +
                                 " needs discrete data (read the file with --discrete)");
            // Labels that are all numbers, one with a fraction, are continuous data read as
            // labels (each value its own level): refused, as BDeu and K2 refuse them.
            io::check_integer_levels(data, test +
                                               " needs discrete data, integer codes or labels (continuous data: "
                                               "--test fisher-z)");
            break;
    }
    if (kind == TestKind::CmiKnn) {  // its parameters
        ci::CmiKnnSpec spec = options.cmi;
        spec.early_stop.reset();  // its alpha is --alpha, checked by the learner (pc::validate())
        ci::validate(spec, data.n_samples, max_level == 0 ? 0 : 1);
    }
}

}  // namespace cudag::skeleton
