// SPDX-License-Identifier: Apache-2.0
#include "cli/cmi_options.hpp"

#include "cli/common.hpp"
#include "core/error.hpp"

namespace cudag::cli {

void add_cmi_knn_options(CLI::App& cmd, CmiKnnOptions& o, bool early_stop_flag) {
    const std::string g = "CMIknn (--test cmiknn)";
    o.given.push_back(cmd.add_option("--knn", o.spec.knn,
                                     "k of the CMI estimator: below 1 a fraction of the samples "
                                     "(k = max(1, floor(knn*T))), else a count")
                          ->capture_default_str()
                          ->group(g));
    o.given.push_back(cmd.add_option("--shuffle-neighbors", o.spec.shuffle_neighbors,
                                     "neighbours in Z among which the local permutation shuffles "
                                     "(the sample itself included; 2 or more)")
                          ->capture_default_str()
                          ->group(g));
    o.given.push_back(cmd.add_option("--permutations", o.spec.permutations,
                                     "surrogates B of the permutation p-value (1 + #>=)/(1 + B)")
                          ->capture_default_str()
                          ->group(g));
    o.given.push_back(
        cmd.add_option("--transform", o.transform, "column transform: ranks, standardize, uniform or none")
            ->capture_default_str()
            ->group(g));
    o.given.push_back(cmd.add_option("--permute", o.permute, "the variable the surrogates permute: x or y")
                          ->capture_default_str()
                          ->group(g));
    o.given.push_back(
        cmd.add_option("--seed", o.spec.seed, "key of every random number (permutations, tie-break noise)")
            ->check(not_negative, "SEED")
            ->capture_default_str()
            ->group(g));
    if (early_stop_flag)
        o.given.push_back(cmd.add_flag("--no-early-stop", o.no_early_stop,
                                       "draw every surrogate (default: a test stops once "
                                       "independence at alpha is certain; its stored p-value is "
                                       "then a lower bound)")
                              ->group(g));
}

ci::CmiKnnSpec cmi_knn_spec(const CmiKnnOptions& o, const std::string& test) {
    if (test != "cmiknn")
        for (const CLI::Option* opt : o.given)
            if (opt->count() > 0)
                throw InputError(opt->get_name() + " applies to --test cmiknn only" +
                                 (test.empty() ? std::string(" (give --test cmiknn)") : " (the test is " + test + ")"));
    ci::CmiKnnSpec spec = o.spec;
    spec.transform = ci::parse_cmi_transform(o.transform);
    spec.permute = ci::parse_cmi_permute(o.permute);
    spec.early_stop.reset();
    return spec;
}

}  // namespace cudag::cli
