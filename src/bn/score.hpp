// SPDX-License-Identifier: Apache-2.0
// Scores of Bayesian networks (DAGs): local scores of a node given a parent set (BDeu and
// K2 on discrete data, counted from it; BGe on continuous data, bn/bge.hpp; the
// conditional-Gaussian BIC on mixed, continuous or discrete data, bn/cg_bic.hpp) and the
// decomposable DAG score (their sum).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ci/discrete_codes.hpp"
#include "core/dataset.hpp"

namespace cudag::bn {

enum class ScoreKind : int { BDeu, K2, BGe, CgBic };

/// BDeu's imaginary sample size must lie in [kIssMin, kIssMax]. Beyond them lgamma of the
/// pseudo-counts overflows (iss ≳ 1e305) or their ratio to the cardinalities underflows to 0,
/// and the local score is NaN or infinite (issue 33 item 7); inside them every lgamma
/// argument is finite and positive and the score keeps about 1e-6 absolute precision.
inline constexpr double kIssMin = 1e-6;
inline constexpr double kIssMax = 1e6;

/// A discrete score and its hyper-parameter.
struct ScoreSpec {
    ScoreKind kind = ScoreKind::BDeu;
    double iss = 1.0;  ///< BDeu's imaginary (equivalent) sample size in [kIssMin, kIssMax]; K2 ignores it
};

/// "bdeu", "k2", "bge" or "cg-bic" (as `--score` spells them); nullopt for anything else.
std::optional<ScoreKind> parse_score_kind(const std::string& name);
/// As parse_score_kind; an unknown name is an InputError naming --score and the choices.
ScoreKind parse_score(const std::string& name);
/// The name parse_score_kind reads.
const char* score_name(ScoreKind kind);

/// A DAG as each node's parent list (node ids 0..n-1).
struct Dag {
    std::vector<std::vector<std::int32_t>> parents;
    std::int64_t n() const { return static_cast<std::int64_t>(parents.size()); }
};

/// A directed cycle of `dag` as its nodes in edge order (c[0] --> c[1] --> ... --> c[0]),
/// or empty when `dag` is acyclic.
std::vector<std::int32_t> find_cycle(const Dag& dag);

/// A decomposable score over a fixed data set: the local score of a node given a parent
/// set, and from it the scores of DAGs.
class LocalScorer {
public:
    virtual ~LocalScorer() = default;
    virtual std::int64_t n_vars() const = 0;
    /// Local score of `node` given `parents` (distinct, not `node`; any order).
    virtual double local(std::int32_t node, std::span<const std::int32_t> parents) const = 0;
    /// local() (the same bits) and, in *bound, an upper bound on local(node, S) over every S
    /// that strictly contains `parents` and has at most `max_size` parents (issue 37: max
    /// mode's pruned table). +inf, the default, where the score has no bound (BGe), and where
    /// the bound is provably above both `floor` and the score (the caller then prunes nothing
    /// with it: a cheap test spares computing it).
    virtual double local_bounded(std::int32_t node, std::span<const std::int32_t> parents, int max_size, double floor,
                                 double* bound) const;
    /// Local score of every node of `dag` (which must have n_vars() nodes); the DAG score
    /// is their sum (dag_score). Acyclicity is the caller's to check (find_cycle).
    std::vector<double> local_scores(const Dag& dag) const;
    double dag_score(const Dag& dag) const;
};

/// BDeu or K2 of discrete data (codes from ci::encode_discrete). Every variable has at
/// least 2 levels (the caller checks; the scores are defined for one, but the command
/// refuses such a column).
class DiscreteScorer final : public LocalScorer {
public:
    DiscreteScorer(ci::DiscreteCodes codes, const ScoreSpec& spec);

    std::int64_t n_vars() const override { return codes_.n_vars; }
    double local(std::int32_t node, std::span<const std::int32_t> parents) const override;
    /// BDeu and K2: bd_superset_bound over the parents' counts (bn/local_score.hpp), with
    /// a_min = 1 (K2) or iss / (r q_max) (BDeu), q_max the configurations of the parents and
    /// the max_size - |parents| most-levelled other variables. The bound is at least
    /// -cells (log r + (r - 1) a_min (1 + log N)) over the nonzero cells (each level's first
    /// sample costs log r, each later one at most (r - 1) a_min / t): when that is above
    /// `floor` and the score, the bound is not computed (+inf).
    double local_bounded(std::int32_t node, std::span<const std::int32_t> parents, int max_size, double floor,
                         double* bound) const override;

    const ci::DiscreteCodes& codes() const { return codes_; }
    const ScoreSpec& spec() const { return spec_; }
    /// Parent sets with at most this many cells (configurations x levels) are counted in a
    /// dense table, every configuration's row.
    static constexpr std::int64_t kDenseCells = 1 << 12;
    /// Larger sets with at most this many configurations are counted through a bitmap of
    /// the observed ones (4 MiB of row numbers a thread at most), the others by sorting
    /// (parent_counts); both give the observed rows in configuration order.
    static constexpr std::int64_t kBitmapConfigs = std::int64_t{1} << 20;

private:
    /// The parents' counts (dense or observed rows, as local() takes them) in *rows.
    const std::uint32_t* counts(std::int32_t node, std::span<const std::int32_t> parents, std::int64_t& rows,
                                std::vector<std::uint32_t>& sparse) const;
    double score(const std::uint32_t* counts, std::int64_t rows, std::int32_t node,
                 std::span<const std::int32_t> parents) const;

    /// bd_term_tables of q configurations and r levels (issue 37), or null when not tabulated.
    const double* term_table(double q, std::int32_t r) const;

    ci::DiscreteCodes codes_;
    ScoreSpec spec_;
    std::vector<std::int32_t> by_levels_;  ///< variables, most levels first (ties by id)
    /// Tabulated terms for q r <= kTermCells (q a product of levels, r a level count), within
    /// kTermBudget doubles: term_slot_[r_row_[r] * (kTermCells + 1) + q] is the offset of the
    /// cell terms in terms_ (the row terms follow), or -1.
    static constexpr std::int64_t kTermCells = 4096;
    static constexpr std::size_t kTermBudget = std::size_t{1} << 21;
    std::vector<std::int32_t> r_row_, term_slot_;
    std::vector<double> terms_;
};

/// The codes that BDeu/K2 score, from data read with io::TableMode::Auto (or Labels):
/// numeric columns must hold integers only, and so must a label column whose labels are
/// all numbers (io::check_integer_levels, the rule of the discrete CI tests: an InputError
/// naming the column, the value and its data row); then each column's distinct values are
/// its levels (io::discretize). A variable with a single level is an InputError naming it.
ci::DiscreteCodes discrete_codes_for_scoring(Dataset data);

/// The counts of `node` against its parents' observed configurations: one row of
/// cards[node] counts per configuration that occurs (rows in increasing mixed-radix order
/// of the configuration, first parent most significant), as bdeu_local_score takes them.
std::vector<std::uint32_t> parent_counts(const ci::DiscreteCodes& codes, std::int32_t node,
                                         std::span<const std::int32_t> parents, std::int64_t& rows);

}  // namespace cudag::bn
