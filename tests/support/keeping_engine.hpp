// SPDX-License-Identifier: Apache-2.0
// A CPU engine behind the optional DeviceResults extension of SkeletonEngine (the CUDA
// engine's way: pMax and the separating sets stay with the engine, the search gets packed
// removal bits, and the engine may build the next snapshots), written out from the
// contract's text on top of any engine that fills the per-entry LevelOutput. Tests run
// searches with it against the plain engine: the same skeleton, separating sets, pMax and
// level statistics must come out.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "skeleton/skeleton_engine.hpp"

namespace cudag::test {

class KeepingEngine final : public skeleton::SkeletonEngine, public skeleton::DeviceResults {
public:
    /// `offers_buffer`: pmax_buffer() hands the table's host values out, so that several
    /// ranks reduce them in place (the CUDA engine's way on NCCL, with device memory).
    /// `builds_snapshots`: next_snapshot() builds the next level's snapshot (an entry stays
    /// unless its own or its mirror's removal bit is set) after every level but level 2,
    /// so that the search also has to catch its graph up in the middle of a run.
    /// `lists_level0`: without dense p-values, level 0's kept pairs of the block come back
    /// as the CUDA engine lists them (an upper-triangle CSR over all rows with the
    /// p-values; the graph left as it came) instead of in the graph and kept_p.
    explicit KeepingEngine(skeleton::SkeletonEngine& inner, bool offers_buffer = false, bool builds_snapshots = false,
                           bool lists_level0 = false)
        : inner_(inner),
          offers_buffer_(offers_buffer),
          builds_snapshots_(builds_snapshots),
          lists_level0_(lists_level0) {}
    std::string name() const override { return inner_.name(); }
    std::int64_t n_vars() const override { return inner_.n_vars(); }
    /// Dense p-values of every row stay here when the search allows it: the search gets
    /// NaNs in their place, so that a run which read them would not match.
    void level0(std::int64_t rb, std::int64_t re, bool dense, Graph& g, skeleton::Level0Output& out) override {
        if (lists_level0_ && !dense) {
            list_level0(rb, re, g, out);
        } else {
            inner_.level0(rb, re, dense, g, out);
        }
        kept0_.clear();
        if (out.p_may_stay && dense && rb == 0 && re == n_vars()) {
            kept0_.assign(out.dense_p.begin(), out.dense_p.end());
            std::fill(out.dense_p.begin(), out.dense_p.end(), std::numeric_limits<double>::quiet_NaN());
            out.p_stayed = true;
        }
    }
    bool level0_on_every_rank() const override { return inner_.level0_on_every_rank(); }
    /// The inner engine's level 0 of rows [rb, re) into a graph of its own, then as a CSR.
    void list_level0(std::int64_t rb, std::int64_t re, const Graph& g, skeleton::Level0Output& out) {
        const std::int64_t n = n_vars();
        Graph mine(n);
        skeleton::Level0Output inner;
        inner_.level0(rb, re, false, mine, inner);
        std::sort(inner.kept_p.begin(), inner.kept_p.end(), [](const skeleton::PairP& a, const skeleton::PairP& b) {
            return a.i != b.i ? a.i < b.i : a.j < b.j;
        });
        out.tests = inner.tests;
        out.kept_offsets.assign(static_cast<std::size_t>(n + 1), 0);
        out.kept_cols.clear();
        out.kept_pvals.clear();
        for (const skeleton::PairP& q : inner.kept_p) {
            ++out.kept_offsets[static_cast<std::size_t>(q.i) + 1];
            out.kept_cols.push_back(q.j);
            out.kept_pvals.push_back(q.p);
        }
        for (std::int64_t i = 0; i < n; ++i) out.kept_offsets[i + 1] += out.kept_offsets[i];
        EXPECT_EQ(g.n_edges(), 0) << "the graph arrives without edges";
    }
    double p_value(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) override {
        return inner_.p_value(i, j, s);
    }

    DeviceResults* device_results() override { return this; }
    void adopt_pmax(const skeleton::PmaxTable& t, bool from_level0) override {
        EXPECT_TRUE(kept0_.empty() || from_level0) << "p-values kept at level 0 are adopted from it";
        table_ = t;
        if (from_level0 && !kept0_.empty()) std::copy(kept0_.begin(), kept0_.end(), table_.values().begin());
        kept0_.clear();
        ++adopted;
        from_level0_count += from_level0 ? 1 : 0;
    }
    /// A packed LevelOutput (the device-results strategy) gets the removal bits; any other
    /// is the inner engine's (the host-results strategy, as for an exhaustive search).
    void run_level(int l, const Adjacency& snap, const skeleton::LevelBlock& block,
                   skeleton::LevelOutput& out) override {
        if (!out.packed) {
            ++unpacked;
            return inner_.run_level(l, snap, block, out);
        }
        const std::int64_t eb = block.entry_begin, ee = block.entry_end;
        full_.reset(snap.nbrs.size(), l, false, eb, ee);
        inner_.run_level(l, snap, block, full_);
        EXPECT_EQ(out.removal_bits.size(), static_cast<std::size_t>((ee - eb + 7) / 8));
        for (std::int64_t e = eb; e < ee; ++e)
            if (full_.flags[static_cast<std::size_t>(e)] & skeleton::kSeparated)
                out.removal_bits[static_cast<std::size_t>((e - eb) / 8)] |= std::byte{1} << ((e - eb) % 8);
        out.tests = full_.tests;
        block_ = block;
        level_ = l;
        ++levels;
    }
    bool splits_rows() const override { return inner_.splits_rows(); }
    void settle_level(const Adjacency& snap, std::span<const std::byte> removal, std::span<const std::int64_t> bit0,
                      skeleton::SepSetLog& log) override {
        const auto bit = [&](std::int64_t a, std::int64_t e) {
            const std::int64_t k = bit0[static_cast<std::size_t>(a)] + e - snap.offsets[static_cast<std::size_t>(a)];
            return (removal[static_cast<std::size_t>(k / 8)] & (std::byte{1} << (k % 8))) != std::byte{0};
        };
        for (std::int64_t a = block_.row_begin; a < block_.row_end; ++a)
            for (std::int64_t e = std::max(block_.entry_begin, snap.offsets[static_cast<std::size_t>(a)]);
                 e < std::min(block_.entry_end, snap.offsets[static_cast<std::size_t>(a) + 1]); ++e) {
                const std::uint8_t f = full_.flags[static_cast<std::size_t>(e)];
                if (!f) continue;
                const auto ia = static_cast<std::int32_t>(a);
                const std::int32_t b = snap.nbrs[static_cast<std::size_t>(e)];
                if (b < ia && bit(b, snap.find(b, ia))) continue;
                const std::int32_t i = std::min(ia, b), j = std::max(ia, b);
                if (f & skeleton::kTested) table_.raise(i, j, full_.pmax[static_cast<std::size_t>(e)]);
                if (f & skeleton::kSeparated) log.add(i, j, full_.set(static_cast<std::size_t>(e)));
            }
    }
    void return_pmax(skeleton::PmaxTable& t, bool overwrite) override {
        ASSERT_EQ(t.values().size(), table_.values().size());
        for (std::size_t k = 0; k < t.values().size(); ++k)
            t.values()[k] = overwrite ? table_.values()[k] : std::max(t.values()[k], table_.values()[k]);
        ++returned;
        overwrites += overwrite ? 1 : 0;
    }

    std::int64_t next_snapshot(const Adjacency& snap, std::span<const std::byte> removal,
                               std::span<const std::int64_t> bit0, Adjacency& next) override {
        if (!builds_snapshots_ || level_ == 2) return -1;
        ++built;
        const auto bit = [&](std::int64_t a, std::int64_t e) {
            const std::int64_t k = bit0[static_cast<std::size_t>(a)] + e - snap.offsets[static_cast<std::size_t>(a)];
            return (removal[static_cast<std::size_t>(k / 8)] & (std::byte{1} << (k % 8))) != std::byte{0};
        };
        next = Adjacency{};
        next.n = snap.n;
        next.offsets.push_back(0);
        std::int64_t removed = 0;
        for (std::int64_t a = 0; a < snap.n; ++a) {
            for (std::int64_t e = snap.offsets[static_cast<std::size_t>(a)];
                 e < snap.offsets[static_cast<std::size_t>(a) + 1]; ++e) {
                const std::int32_t b = snap.nbrs[static_cast<std::size_t>(e)];
                if (bit(a, e) || bit(b, snap.find(b, static_cast<std::int32_t>(a)))) {
                    if (a < b) ++removed;
                } else {
                    next.nbrs.push_back(b);
                }
            }
            next.offsets.push_back(static_cast<std::int64_t>(next.nbrs.size()));
        }
        return removed;
    }

    skeleton::PairPList pmax_pairs() override {
        ++listed;
        return table_.pairs();
    }

    PmaxBuffer pmax_buffer() override {
        if (!offers_buffer_) return {};
        ++offered;
        return {std::span<double>(table_.values().data(), table_.values().size()), false};
    }

    int adopted = 0, from_level0_count = 0, levels = 0, returned = 0, overwrites = 0, listed = 0, offered = 0;
    int built = 0;     ///< levels whose next snapshot this engine built
    int unpacked = 0;  ///< levels run for the host-results strategy

private:
    skeleton::SkeletonEngine& inner_;
    const bool offers_buffer_;
    const bool builds_snapshots_;
    const bool lists_level0_;
    int level_ = 0;  ///< the level of the last run_level()
    skeleton::LevelOutput full_;
    skeleton::PmaxTable table_;
    std::vector<double> kept0_;  ///< level 0's dense p-values, kept here
    skeleton::LevelBlock block_;
};

}  // namespace cudag::test
