// SPDX-License-Identifier: Apache-2.0
#include "run/citest.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <optional>
#include <vector>

#include "ci/cmi_knn.hpp"
#include "ci/fisher_z.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "io/dataset_io.hpp"
#include "pc/cpu/discrete_engine.hpp"
#include "pc/cpu/fisher_engine.hpp"
#include "pc/run.hpp"

namespace cudag::run {

namespace {

/// Index of each name in `data`, checking that the variables are distinct.
std::vector<std::int32_t> resolve_names(const Dataset& data, const std::string& x, const std::string& y,
                                        const std::vector<std::string>& given) {
    std::map<std::string, std::int32_t> index;
    for (std::size_t v = 0; v < data.names.size(); ++v) index.emplace(data.names[v], static_cast<std::int32_t>(v));
    std::vector<std::int32_t> out;
    std::map<std::int32_t, std::string> role;
    auto add = [&](const std::string& name, const std::string& option, const std::string& as) {
        const auto it = index.find(name);
        if (it == index.end())
            throw InputError(data.source + ": unknown variable '" + name + "' in " + option +
                             " (no column of the header row has that name)");
        const auto [at, fresh] = role.emplace(it->second, as);
        if (!fresh) throw InputError("variable '" + name + "' is given twice (as " + at->second + " and " + as + ")");
        out.push_back(it->second);
    };
    add(x, "--x", "--x");
    add(y, "--y", "--y");
    for (const std::string& z : given) add(z, "--given", "in --given");
    return out;
}

/// The columns `vars` of `data` as a data set of their own (levels kept).
Dataset columns(const Dataset& data, const std::vector<std::int32_t>& vars) {
    Dataset d;
    d.n_samples = data.n_samples;
    d.n_vars = static_cast<std::int64_t>(vars.size());
    d.source = data.source;
    for (const std::int32_t v : vars) {
        d.names.push_back(data.names[v]);
        d.values.insert(d.values.end(), data.column(v), data.column(v) + data.n_samples);
        if (data.discrete()) d.levels.push_back(data.levels[v]);
    }
    return d;
}

}  // namespace

CitestOutput run_citest(const CitestJob& a, const DataReader& read) {
    const std::string& test = a.test;
    const std::optional<pc::TestKind> kind = pc::parse_test_kind(test);
    if (!kind) throw InputError("unknown --test '" + test + "' (available: cmiknn, fisher-z, chi-square, g-square)");
    pc::TestOptions options;
    options.kind = kind;
    options.cmi = cmi_knn_spec(a.cmi, test);
    options.cmi_early_stop = false;  // citest reports the exact permutation p-value
    pc::Compat compat = pc::Compat::Pcalg;
    if (a.compat == "causal-learn")
        compat = pc::Compat::CausalLearn;
    else if (a.compat != "pcalg")
        throw InputError("unknown --compat '" + a.compat + "' (available: pcalg, causal-learn)");
    if (!a.dof.empty()) options.dof = pc::parse_dof(a.dof);
    const int threads = checked_threads(a.threads, a.quiet);
    const std::vector<std::string>& given = a.given;

    const Dataset data = read_data(with_na_values(read, a.data, a.dataset, a.na_values), a.data, a.dataset,
                                   pc::is_discrete(*kind) ? io::TableMode::Labels : io::TableMode::Numeric);
    const std::vector<std::int32_t> vars = resolve_names(data, a.x, a.y, given);
    const int l = static_cast<int>(given.size());
    if (kind == pc::TestKind::FisherZ && data.n_samples <= l + 3)
        throw InputError(data.source + ": " + std::to_string(data.n_samples) +
                         " samples are too few for fisher-z given " + std::to_string(l) +
                         " variables (it needs more than " + std::to_string(l + 3) + ")");
    pc::validate_test(options, data, l);
    // alpha decides only the CMIknn early stop, which citest turns off.
    const pc::TestSpec spec = pc::resolve_test(options, data, pc::PcConfig{}.alpha, compat);

    // name, value (JSON number or quoted string) pairs, in print order.
    std::vector<std::pair<std::string, std::string>> out;
    double statistic = 0.0, p = 1.0;
    const std::vector<std::int32_t> sub_z = [&] {
        std::vector<std::int32_t> z(static_cast<std::size_t>(l));
        for (int t = 0; t < l; ++t) z[t] = t + 2;
        return z;
    }();
    if (spec.kind == pc::TestKind::CmiKnn) {
        // On the whole data set: tie-break noise is keyed by the variable's column, as in
        // `cudag pc`, so `citest --x A --y B` with A before B repeats pc's test exactly.
        const ci::CmiKnn cmi(data, spec.cmi, l);
        std::vector<std::int32_t> z(vars.begin() + 2, vars.end());
        std::sort(z.begin(), z.end());
        for (const std::int32_t v : vars)
            if (cmi.constant(v) && a.verbose)
                std::cerr << "cudag citest: note: '" << data.names[v] << "' is constant: "
                          << (v == vars[0] || v == vars[1] ? "the test gives statistic 0, p = 1 (as tigramite's)"
                                                           : "dropped from the conditioning set (as tigramite does)")
                          << '\n';
        const std::uint64_t id = ci::cmi_test_id(vars[0], vars[1], ci::cmi_set_key(z.data(), l));
        const ci::CmiKnnResult r = cmi.test(vars[0], vars[1], z, id, resolve_threads(threads));
        statistic = r.statistic;
        p = r.p;
        out.emplace_back("k", std::to_string(cmi.k()));
        out.emplace_back("permutations", std::to_string(cmi.spec().permutations));
        out.emplace_back("surrogates", std::to_string(r.surrogates));
        out.emplace_back("exceedances", std::to_string(r.exceedances));
        out.emplace_back("seed", std::to_string(cmi.spec().seed));
    } else if (spec.kind == pc::TestKind::FisherZ) {
        const pc::CpuFisherEngine engine(columns(data, vars), pc::TestPolicy{}, 1);
        statistic = engine.partial_correlation(0, 1, sub_z);
        p = ci::fisher_z_pvalue(statistic, data.n_samples, l, compat == pc::Compat::CausalLearn);
        const double r = std::clamp(statistic, -ci::kMaxAbsCorrelation, ci::kMaxAbsCorrelation);
        out.emplace_back(
            "z", exact_number(std::sqrt(static_cast<double>(data.n_samples - l - 3)) * std::fabs(std::atanh(r))));
    } else {
        pc::CpuDiscreteEngine engine(columns(data, vars), pc::TestPolicy{}, spec.discrete, 1);
        const pc::CpuDiscreteEngine::TestResult r = engine.test(0, 1, sub_z);
        statistic = r.statistic;
        p = r.p;
        out.emplace_back("dof", exact_number(r.dof));
    }

    return CitestOutput{statistic, p, data.n_samples, out};
}

}  // namespace cudag::run
