// SPDX-License-Identifier: Apache-2.0
#include "cli/cmi_options.hpp"

#include "cli/common.hpp"

namespace cudag::cli {

void add_cmi_knn_options(CLI::App& cmd, run::CmiKnnJob& o, CmiOptions& text, bool early_stop_flag) {
    std::vector<const CLI::Option*>& added = text.added;
    const std::string g = "CMIknn (--test cmiknn)";
    added.push_back(cmd.add_option("--knn", o.spec.knn,
                                   "k of the CMI estimator: below 1 a fraction of the samples "
                                   "(k = max(1, floor(knn*T))), else a count")
                        ->capture_default_str()
                        ->group(g));
    added.push_back(cmd.add_option("--shuffle-neighbors", o.spec.shuffle_neighbors,
                                   "neighbours in Z among which the local permutation shuffles "
                                   "(the sample itself included; 2 or more)")
                        ->capture_default_str()
                        ->group(g));
    added.push_back(cmd.add_option("--permutations", o.spec.permutations,
                                   "surrogates B of the permutation p-value (1 + #>=)/(1 + B)")
                        ->capture_default_str()
                        ->group(g));
    added.push_back(
        cmd.add_option("--transform", text.transform, "column transform: ranks, standardize, uniform or none")
            ->capture_default_str()
            ->group(g));
    added.push_back(cmd.add_option("--permute", text.permute, "the variable the surrogates permute: x or y")
                        ->capture_default_str()
                        ->group(g));
    added.push_back(
        cmd.add_option("--seed", o.spec.seed,
                       "key of every random number (permutations, tie-break noise; pc: also the --bootstrap resamples)")
            ->check(not_negative_seed, "SEED")
            ->capture_default_str()
            ->group(g));
    if (early_stop_flag)
        added.push_back(cmd.add_flag("--no-early-stop", o.no_early_stop,
                                     "draw every surrogate (default: a test stops once "
                                     "independence at alpha is certain; its stored p-value is "
                                     "then a lower bound)")
                            ->group(g));
}

std::vector<std::string> given_names(const std::vector<const CLI::Option*>& added) {
    std::vector<std::string> out;
    for (const CLI::Option* opt : added)
        if (opt->count() > 0) out.push_back(opt->get_name());
    return out;
}

void apply_cmi_options(const CmiOptions& text, run::CmiKnnJob& o) {
    o.given = given_names(text.added);
    o.spec.transform = ci::parse_cmi_transform(text.transform);
    o.spec.permute = ci::parse_cmi_permute(text.permute);
}

}  // namespace cudag::cli
