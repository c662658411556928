// SPDX-License-Identifier: Apache-2.0
// A bootstrap's resamples (issue 38), for any learner: B replicates of the rows (bootstrap
// or half-sampling), each drawn from the counter-based generator keyed by (seed, replicate),
// so that a replicate's data do not depend on where it runs; the data set of a replicate as
// its written form reads back, and the columns and knowledge a replicate keeps.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/dataset.hpp"
#include "core/knowledge.hpp"

namespace cudag::bootstrap {

/// How a replicate's rows are drawn from the m rows of the data.
enum class Resample {
    Bootstrap,  ///< m rows with replacement (Efron's bootstrap; bnlearn's boot.strength)
    Half,       ///< floor(m/2) rows without replacement (stability selection's subsamples)
};

/// "bootstrap" or "half".
const char* to_string(Resample r);
/// --resample's value; InputError for another.
Resample parse_resample(const std::string& s);

/// What a bootstrap run is asked.
struct Options {
    std::int64_t replicates = 0;  ///< B >= 1
    Resample resample = Resample::Bootstrap;
    double consensus = 0.5;   ///< adjacency frequency an edge needs in the consensus graph, in (0, 1]
    std::uint64_t seed = 42;  ///< key of the resamples (--seed)
};

/// InputError (one line, naming the option) for B < 1, a consensus outside (0, 1], or data
/// of fewer rows than a resample needs (2 for half-sampling).
void validate(const Options& b, std::int64_t n_samples);

/// The rows a replicate of data with `n_samples` rows holds: n_samples (Resample::Bootstrap)
/// or floor(n_samples / 2) (Resample::Half).
std::int64_t replicate_samples(const Options& b, std::int64_t n_samples);

/// The rows of replicate `replicate` of data with `n_samples` rows, in increasing order
/// (repeated rows adjacent): n_samples draws with replacement (Resample::Bootstrap) or
/// floor(n_samples / 2) distinct rows (Resample::Half), from CounterRng keyed by b.seed
/// (mixed with a bootstrap tag) and stream `replicate`. A pure function of its arguments.
std::vector<std::int64_t> resample_rows(std::int64_t n_samples, const Options& b, std::int64_t replicate);

/// The data set of the rows `rows` of `data`, as reading its written form back gives it
/// (io::write_dataset, then the same read): the values copied; for discrete data the
/// levels no row of the resample holds dropped and the codes renumbered, keeping the
/// levels' order. `source` names it in messages.
Dataset resample_data(const Dataset& data, std::span<const std::int64_t> rows, const std::string& source);

/// resample_data into `d`, whose memory is reused where it has the size already (a
/// worker's replicates one after another), copying the columns on `threads` threads (the
/// same values on any number). `keep_levels`: discrete variables keep every level of `data`
/// (bnlearn resamples a data frame, whose factors keep their declared levels).
void resample_into(const Dataset& data, std::span<const std::int64_t> rows, const std::string& source, Dataset& d,
                   int threads, bool keep_levels = false);

/// The name of replicate `replicate`'s data set: "<source> (bootstrap replicate r)".
std::string replicate_source(const std::string& source, std::int64_t replicate);

/// Whether every value of column v of `d` is the same.
bool constant_column(const Dataset& d, std::int64_t v);

/// `d` less its constant columns; `kept` gets the indices of the columns kept.
Dataset drop_constant_columns(Dataset d, std::vector<std::int32_t>& kept);

/// `k` over the variables `kept` only (renumbered in their order): the constraints among
/// them, the others dropped (a replicate that left constant columns out).
Knowledge knowledge_on(const Knowledge& k, const std::vector<std::int32_t>& kept);

}  // namespace cudag::bootstrap
