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
#include "core/magnitude.hpp"
#include "io/dataset_io.hpp"
#include "pc/run.hpp"
#include "skeleton/ci_tests.hpp"

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

CitestSession::CitestSession(const CitestJob& a, const DataReader& read) : job_(a) {
    const std::string& test = a.test;
    const std::optional<skeleton::TestKind> kind = skeleton::parse_test_kind(test);
    if (!kind) throw InputError("unknown --test '" + test + "' (available: cmiknn, fisher-z, chi-square, g-square)");
    options_.kind = kind;
    options_.cmi = cmi_knn_spec(a.cmi, test);
    options_.cmi_early_stop = false;  // citest reports the exact permutation p-value
    if (a.compat == "causal-learn")
        compat_ = skeleton::Compat::CausalLearn;
    else if (a.compat != "pcalg")
        throw InputError("unknown --compat '" + a.compat + "' (available: pcalg, causal-learn)");
    if (!a.dof.empty()) options_.dof = skeleton::parse_dof(a.dof);
    threads_ = checked_threads(a.threads, a.quiet);
    data_ = read_data(with_na_values(read, a.data, a.dataset, a.na_values), a.data, a.dataset,
                      skeleton::is_discrete(*kind) ? io::TableMode::Labels : io::TableMode::Numeric);
}

CitestSession::~CitestSession() = default;

CitestOutput CitestSession::test(const std::string& x, const std::string& y, const std::vector<std::string>& given) {
    const std::vector<std::int32_t> vars = resolve_names(data_, x, y, given);
    const int l = static_cast<int>(given.size());
    const int spare = ci::traits(*options_.kind).spare_samples;
    if (spare >= 0 && data_.n_samples <= l + spare)
        throw InputError(data_.source + ": " + std::to_string(data_.n_samples) + " samples are too few for " +
                         job_.test + " given " + std::to_string(l) + " variables (it needs more than " +
                         std::to_string(l + spare) + ")");
    skeleton::validate_test(options_, data_, l);
    // alpha decides only the CMIknn early stop, which citest turns off.
    if (!spec_) {
        spec_ = skeleton::resolve_test(options_, data_, pc::PcConfig{}.alpha, compat_);
        // The rule pc follows (core/magnitude.hpp): extreme columns rescaled, exactly.
        if (pc::scale_free(*spec_)) rescaled_ = cudag::rescale_extreme_columns(data_);
    }
    // The test through ci::CiTest (skeleton/ci_tests.hpp): the statistic, p and the other numbers.
    if (!test_ || l > max_cond_) {
        test_ = skeleton::make_ci_test(data_, *spec_, compat_, threads_, l);
        max_cond_ = l;
    }
    const std::span<const std::int32_t> z(vars.data() + 2, vars.size() - 2);
    if (job_.verbose)
        for (const std::string& note : test_->notes(vars[0], vars[1], z))
            std::cerr << "cudag citest: note: " << note << '\n';
    ci::CiOutcome o = test_->test(vars[0], vars[1], z);
    if (!std::isfinite(o.statistic) || !(o.p >= 0.0 && o.p <= 1.0))
        throw InputError(data_.source + ": the " + spec_->name() + " test of '" + x + "' and '" + y +
                         "' gave statistic " + exact_number(o.statistic) + ", p " + exact_number(o.p) +
                         ": not a result (a column without variance among them?)");
    if (job_.verbose && rescaled_ > 0)
        std::cerr << "cudag citest: note: " << rescaled_ << " column" << (rescaled_ == 1 ? "" : "s")
                  << " of extreme magnitude rescaled by a power of two (exact)\n";
    return CitestOutput{o.statistic, o.p, data_.n_samples, std::move(o.extra)};
}

CitestOutput run_citest(const CitestJob& a, const DataReader& read) {
    CitestSession session(a, read);
    return session.test(a.x, a.y, a.given);
}

}  // namespace cudag::run
