// SPDX-License-Identifier: Apache-2.0
#include "run/citest.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <optional>
#include <vector>

#include "ci/ci_test.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "io/dataset_io.hpp"
#include "pc/ci_tests.hpp"
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

    // The test through ci::CiTest (pc/ci_tests.hpp): the statistic, p and the other numbers.
    const std::unique_ptr<ci::CiTest> ci_test = pc::make_ci_test(data, spec, compat, threads, l);
    const std::span<const std::int32_t> z(vars.data() + 2, vars.size() - 2);
    if (a.verbose)
        for (const std::string& note : ci_test->notes(vars[0], vars[1], z))
            std::cerr << "cudag citest: note: " << note << '\n';
    ci::CiOutcome o = ci_test->test(vars[0], vars[1], z);
    return CitestOutput{o.statistic, o.p, data.n_samples, std::move(o.extra)};
}

}  // namespace cudag::run
