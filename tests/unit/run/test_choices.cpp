// SPDX-License-Identifier: Apache-2.0
// The parse functions the front ends (the command line, the Python module, the R package)
// share for the jobs' choices (issue 57): each accepted word gives its value (and back, where
// the value has a name), and an unknown word is one line naming the option and the choices.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "bn/order_mcmc.hpp"
#include "bn/score.hpp"
#include "bootstrap/resample.hpp"
#include "ci/cmi_knn.hpp"
#include "core/backend.hpp"
#include "core/error.hpp"
#include "core/missing.hpp"
#include "fci/fci.hpp"
#include "pcmci/pcmci.hpp"
#include "run/common.hpp"
#include "run/context.hpp"
#include "run/pcmci.hpp"
#include "skeleton/test_spec.hpp"

namespace cudag {
namespace {

/// Each (word, value) of `words` parses to its value.
template <class E, class Parse>
void expect_parses(const std::vector<std::pair<std::string, E>>& words, Parse parse) {
    for (const auto& [word, value] : words) EXPECT_EQ(parse(word), value) << word;
}

/// Each (word, value) of `words` parses to its value, and `name` gives the word back.
template <class E, class Parse, class Name>
void expect_round_trip(const std::vector<std::pair<std::string, E>>& words, Parse parse, Name name) {
    expect_parses(words, parse);
    for (const auto& [word, value] : words) EXPECT_EQ(std::string(name(value)), word);
}

/// `parse(word)` throws an InputError whose message is `message`, one line.
template <class Parse>
void expect_refused(Parse parse, const std::string& word, const std::string& message) {
    try {
        parse(word);
        ADD_FAILURE() << "'" << word << "' parsed";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), message);
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
}

TEST(Choices, SkeletonSearchWordsRoundTrip) {
    using skeleton::TestKind;
    expect_round_trip<TestKind>({{"fisher-z", TestKind::FisherZ},
                                 {"chi-square", TestKind::ChiSquare},
                                 {"g-square", TestKind::GSquare},
                                 {"cmiknn", TestKind::CmiKnn},
                                 {"cg-lrt", TestKind::CgLrt},
                                 {"regression", TestKind::Regression}},
                                skeleton::parse_test, [](TestKind k) { return skeleton::to_string(k); });
    expect_parses<ci::DofRule>({{"gpupc", ci::DofRule::Gpupc},
                                {"pcalg", ci::DofRule::Pcalg},
                                {"causal-learn", ci::DofRule::CausalLearn},
                                {"bnlearn-adf", ci::DofRule::BnlearnAdf},
                                {"pcalg-adapt", ci::DofRule::PcalgAdaptDf}},
                               skeleton::parse_dof);
    expect_round_trip<skeleton::Compat>(
        {{"pcalg", skeleton::Compat::Pcalg}, {"causal-learn", skeleton::Compat::CausalLearn}}, skeleton::parse_compat,
        [](skeleton::Compat c) { return skeleton::to_string(c); });
    expect_round_trip<BackendKind>(
        {{"auto", BackendKind::Auto}, {"cpu", BackendKind::Cpu}, {"cuda", BackendKind::Cuda}}, parse_backend,
        [](BackendKind k) { return to_string(k); });
    expect_round_trip<MissingPolicy>(
        {{"error", MissingPolicy::Error}, {"testwise", MissingPolicy::Testwise}, {"listwise", MissingPolicy::Listwise}},
        parse_missing, [](MissingPolicy p) { return to_string(p); });
    expect_parses<run::CommChoice>(
        {{"auto", run::CommChoice::Auto}, {"mpi", run::CommChoice::Mpi}, {"nccl", run::CommChoice::Nccl}},
        run::parse_comm);
    expect_round_trip<bootstrap::Resample>(
        {{"bootstrap", bootstrap::Resample::Bootstrap}, {"half", bootstrap::Resample::Half}}, bootstrap::parse_resample,
        [](bootstrap::Resample r) { return bootstrap::to_string(r); });
    expect_round_trip<ci::CmiTransform>({{"ranks", ci::CmiTransform::Ranks},
                                         {"standardize", ci::CmiTransform::Standardize},
                                         {"uniform", ci::CmiTransform::Uniform},
                                         {"none", ci::CmiTransform::None}},
                                        ci::parse_cmi_transform, [](ci::CmiTransform t) { return ci::to_string(t); });
    expect_parses<ci::CmiPermute>({{"x", ci::CmiPermute::X}, {"y", ci::CmiPermute::Y}}, ci::parse_cmi_permute);
    expect_round_trip<fci::Variant>({{"fci", fci::Variant::Fci}, {"rfci", fci::Variant::Rfci}}, fci::parse_variant,
                                    [](fci::Variant v) { return fci::to_string(v); });
    expect_round_trip<fci::FciType>(
        {{"normal", fci::FciType::Normal}, {"anytime", fci::FciType::Anytime}, {"adaptive", fci::FciType::Adaptive}},
        fci::parse_fci_type, [](fci::FciType t) { return fci::to_string(t); });
}

TEST(Choices, PcmciAndMcmcWordsRoundTrip) {
    expect_round_trip<run::PcmciMethod>(
        {{"pcmci", run::PcmciMethod::Pcmci}, {"pcmciplus", run::PcmciMethod::PcmciPlus}}, run::parse_pcmci_method,
        [](run::PcmciMethod m) { return run::to_string(m); });
    expect_round_trip<run::PcmciTest>({{"parcorr", run::PcmciTest::ParCorr}, {"cmiknn", run::PcmciTest::CmiKnn}},
                                      run::parse_pcmci_test, [](run::PcmciTest t) { return run::to_string(t); });
    expect_round_trip<run::FdrMethod>({{"none", run::FdrMethod::None}, {"fdr_bh", run::FdrMethod::FdrBh}},
                                      run::parse_fdr, [](run::FdrMethod f) { return run::to_string(f); });
    expect_round_trip<pcmci::ColliderRule>({{"majority", pcmci::ColliderRule::Majority},
                                            {"conservative", pcmci::ColliderRule::Conservative},
                                            {"none", pcmci::ColliderRule::None}},
                                           pcmci::parse_collider_rule,
                                           [](pcmci::ColliderRule r) { return pcmci::to_string(r); });
    expect_round_trip<bn::ScoreKind>({{"bdeu", bn::ScoreKind::BDeu},
                                      {"k2", bn::ScoreKind::K2},
                                      {"bge", bn::ScoreKind::BGe},
                                      {"cg-bic", bn::ScoreKind::CgBic}},
                                     bn::parse_score, bn::score_name);
    expect_round_trip<bn::OrderScoreMode>({{"max", bn::OrderScoreMode::Max}, {"sum", bn::OrderScoreMode::Sum}},
                                          bn::parse_order_score, [](bn::OrderScoreMode m) { return bn::to_string(m); });
    expect_round_trip<bn::MoveSet>({{"swap", bn::MoveSet::Swap}, {"bidag", bn::MoveSet::Bidag}}, bn::parse_moves,
                                   [](bn::MoveSet m) { return bn::to_string(m); });
}

TEST(Choices, AnUnknownWordNamesTheOptionAndTheChoices) {
    expect_refused(skeleton::parse_test, "kci",
                   "unknown --test 'kci' (available: fisher-z, chi-square, g-square, cmiknn, cg-lrt, regression, "
                   "mi-cg, mi-sh, mi-g-sh)");
    expect_refused(skeleton::parse_dof, "bnlearn",
                   "unknown --dof 'bnlearn' (available: gpupc, pcalg, causal-learn, bnlearn-adf, pcalg-adapt)");
    expect_refused(skeleton::parse_compat, "tetrad", "unknown --compat 'tetrad' (available: pcalg, causal-learn)");
    expect_refused(parse_backend, "tpu", "unknown --backend 'tpu' (available: auto, cpu, cuda)");
    expect_refused(parse_missing, "pairwise", "--missing must be error, testwise or listwise, got 'pairwise'");
    expect_refused(run::parse_comm, "gloo", "unknown --comm 'gloo' (available: auto, mpi, nccl)");
    expect_refused(bootstrap::parse_resample, "jackknife",
                   "unknown --resample 'jackknife' (available: bootstrap, half)");
    expect_refused(ci::parse_cmi_transform, "log",
                   "cmiknn: unknown transform 'log' (expected ranks, standardize, uniform or none)");
    expect_refused(ci::parse_cmi_permute, "z", "cmiknn: unknown permuted variable 'z' (expected x or y)");
    expect_refused(fci::parse_variant, "fci+", "unknown --variant 'fci+' (available: fci, rfci)");
    expect_refused(fci::parse_fci_type, "fast", "unknown --type 'fast' (available: normal, anytime, adaptive)");
    expect_refused(run::parse_pcmci_method, "lpcmci", "unknown --method 'lpcmci' (available: pcmci, pcmciplus)");
    expect_refused(run::parse_pcmci_test, "gpdc", "unknown --test 'gpdc' (available: parcorr, cmiknn)");
    expect_refused(run::parse_fdr, "bonferroni", "unknown --fdr 'bonferroni' (available: none, fdr_bh)");
    expect_refused(pcmci::parse_collider_rule, "minority",
                   "contemp_collider_rule 'minority': the rules are majority, conservative and none");
    expect_refused(bn::parse_score, "bic", "unknown --score 'bic' (available: bdeu, k2, bge, cg-bic)");
    expect_refused(bn::parse_order_score, "mean", "unknown --order-score 'mean' (available: max, sum)");
    expect_refused(bn::parse_moves, "edge", "unknown --moves 'edge' (available: swap, bidag)");
}

TEST(Choices, AnEmptyWordLeavesAnOptionalChoiceUnset) {
    EXPECT_FALSE(run::parse_unless_empty("", skeleton::parse_test).has_value());
    EXPECT_EQ(run::parse_unless_empty("g-square", skeleton::parse_test), skeleton::TestKind::GSquare);
    EXPECT_EQ(run::parse_unless_empty("causal-learn", skeleton::parse_dof), ci::DofRule::CausalLearn);
    expect_refused([](const std::string& w) { return run::parse_unless_empty(w, skeleton::parse_dof); }, "x",
                   "unknown --dof 'x' (available: gpupc, pcalg, causal-learn, bnlearn-adf, pcalg-adapt)");
}

}  // namespace
}  // namespace cudag
