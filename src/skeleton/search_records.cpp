// SPDX-License-Identifier: Apache-2.0
// The level loop's records (skeleton/search.hpp): separating sets and pMax at checkpoints
// and at the end (gathered on rank 0, or exchanged between the ranks owning their rows),
// and the resume from a checkpoint's state.
#include <algorithm>
#include <cstddef>
#include <future>
#include <span>
#include <utility>
#include <vector>

#include "core/bytes.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "skeleton/search.hpp"

namespace cudag::skeleton::detail {

using mpi::ReduceOp;

void Search::end_level(const LevelStats& st) {
    levels_.push_back(st);
    if (on_level_) on_level_(st);
    if (hooks_.on_checkpoint && distributed_) {
        if (graph_stale_) sync_graph(next_);
        results_->gather_pmax(true, true);
        exchange();
        SkeletonState s;
        mpi::run_agreed(comm_, [&] {
            s.next_level = st.level + 1;
            s.levels = levels_;
            s.pmax = pmax_.pairs(threads_, rows_.begin, rows_.end);
            s.record_rows = rows_;
        });
        s.sepsets = std::move(owned_);
        s.skeleton = std::move(g_);
        struct Restore {  // hand the graph and the records back even when the write throws
            Graph& g;
            SepSets& owned;
            SkeletonState& s;
            ~Restore() {
                g = std::move(s.skeleton);
                owned = std::move(s.sepsets);
            }
        } restore{g_, owned_, s};
        hooks_.on_checkpoint(s);  // every rank: a collective write that agrees itself
    } else if (hooks_.on_checkpoint) {
        if (graph_stale_) sync_graph(next_);
        gather();
        mpi::run_agreed(comm_, [&] {
            if (comm_.rank() != 0) return;
            SkeletonState s;
            s.next_level = st.level + 1;
            s.levels = levels_;
            s.pmax = pmax_.pairs(threads_);
            s.sepsets = gathered_.to_sepsets(threads_);
            s.skeleton = std::move(g_);
            struct Restore {  // hand the graph back even when the callback throws
                Graph& g;
                SkeletonState& s;
                ~Restore() { g = std::move(s.skeleton); }
            } restore{g_, s};
            hooks_.on_checkpoint(s);
        });
    }
    if (hooks_.stop_after_level == st.level) throw StoppedAfterLevel(st.level);
}

void Search::sort_early() {
    if (early_.valid() || hooks_.on_checkpoint || opt_.early_sort_records == 0 || log_.size() < opt_.early_sort_records)
        return;
    early_ =
        std::async(std::launch::async, [log = std::move(log_), threads = threads_] { return log.to_sepsets(threads); });
    log_ = SepSetLog();
}

void Search::gather(bool take_pmax) {
    results_->gather_pmax(take_pmax);
    std::vector<SepSetLog> parts;  // rank 0: the logs to add to gathered_
    if (comm_.size() > 1) {
        // Rank 0 keeps its own log (not sent: no serialised copy of it).
        const auto blobs = comm_.gatherv(comm_.rank() == 0 ? std::vector<std::byte>{} : log_.serialize(), 0);
        trace_.mark("logs gathered");
        for (std::size_t r = 1; r < blobs.size(); ++r) parts.push_back(SepSetLog::deserialize(blobs[r]));
    }
    if (comm_.rank() == 0) {
        // The record order does not matter (to_sepsets sorts): take rank 0's own log
        // over when nothing was gathered yet, and copy the rest on the threads.
        if (gathered_.size() == 0)
            std::swap(gathered_, log_);
        else
            parts.push_back(std::move(log_));
        gathered_.append(parts, threads_);
    }
    log_.clear();
}

void Search::exchange() {
    std::vector<SepSets> tables;
    SepSets mine;
    mpi::run_agreed(comm_, [&] { mine = merge_tables(own_tables()); });
    std::vector<std::size_t> cut(static_cast<std::size_t>(comm_.size()) + 1);
    const auto keys = mine.keys();
    for (int q = 0; q <= comm_.size(); ++q) {
        const std::int64_t row = record_cut_[static_cast<std::size_t>(q)];
        cut[static_cast<std::size_t>(q)] =
            q == comm_.size()
                ? keys.size()
                : static_cast<std::size_t>(
                      std::lower_bound(keys.begin(), keys.end(), SepSets::pack(static_cast<std::int32_t>(row), 0)) -
                      keys.begin());
    }
    if (owned_.size() > 0) tables.push_back(std::move(owned_));
    owned_ = SepSets();
    for (int from = 0; from < comm_.size(); ++from)
        for (int to = 0; to < comm_.size(); ++to) {
            const auto t = static_cast<std::size_t>(to);
            SepSets part =
                transfer_sepsets(comm_, comm_.rank() == from ? &mine : nullptr, comm_.rank() == from ? cut[t] : 0,
                                 comm_.rank() == from ? cut[t + 1] : 0, from, to, threads_);
            if (comm_.rank() == to && part.size() > 0) tables.push_back(std::move(part));
        }
    mine = SepSets();
    trace_.mark("records exchanged");
    mpi::run_agreed(comm_, [&] {
        if (!tables.empty()) owned_ = merge_tables(std::move(tables));
    });
    trace_.mark("records merged");
}

bool Search::resume(int& first) {
    std::int32_t have = hooks_.resume.has_value() ? 1 : 0;
    if (comm_.size() > 1) have = comm_.allreduce(have, ReduceOp::Max);
    if (!have) return false;
    std::vector<std::byte> blob;
    if (comm_.rank() == 0) {
        const SkeletonState& s = *hooks_.resume;
        CUDAG_ASSERT(s.skeleton.n() == n_);
        ByteWriter w;
        w.put(std::int32_t{s.next_level});
        w.put_vector(s.levels);
        w.put_vector(s.pmax);
        w.put_vector(s.skeleton.serialize());
        blob = w.take();
        // Distributed records: rank 0's to hand to their rows' owners at the next exchange.
        if (distributed_)
            log_ = SepSetLog::from_sepsets(s.sepsets);
        else
            gathered_ = SepSetLog::from_sepsets(s.sepsets);
    }
    comm_.bcast_blob(blob, 0);
    ByteReader r(blob);
    first = r.get<std::int32_t>();
    levels_ = r.get_vector<LevelStats>();
    pmax_ = PmaxTable::from_pairs(n_, dense_, r.get_vector<PairP>(), threads_);
    g_ = Graph::deserialize(r.get_vector<std::int64_t>());
    CUDAG_ASSERT(g_.n() == n_);
    return true;
}

std::vector<SepSets> Search::own_tables() {
    std::vector<SepSets> t;
    if (early_.valid()) t.push_back(early_.get());
    t.push_back(log_.to_sepsets(threads_));
    log_.clear();
    return t;
}

SepSets Search::merge_tables(std::vector<SepSets> tables) const {
    if (tables.size() == 1) return std::move(tables[0]);
    std::vector<const SepSets*> views;
    for (const SepSets& t : tables) views.push_back(&t);
    SepSets all;
    if (SepSets::merge_disjoint(std::span<const SepSets* const>(views), all, threads_)) return all;
    SepSetLog log;
    for (const SepSets& t : tables) log.append(SepSetLog::from_sepsets(t));
    return log.to_sepsets(threads_);
}

SepSets Search::collect_sepsets() {
    std::vector<SepSets> tables;
    mpi::run_agreed(comm_, [&] { tables = own_tables(); });
    trace_.mark("own sepsets sorted");
    if (comm_.rank() == 0 && gathered_.size() > 0) tables.push_back(gathered_.to_sepsets(threads_));
    gathered_.clear();
    const std::vector<std::int64_t> counts = comm_.allgather(static_cast<std::int64_t>(tables.size()));
    // Point to point: only rank r and rank 0 take part in rank r's tables (sizes first,
    // so that both make the same calls).
    for (int r = 1; r < comm_.size(); ++r) {
        const bool from = comm_.rank() == r, to = comm_.rank() == 0;
        if (!from && !to) continue;
        for (std::int64_t t = 0; t < counts[static_cast<std::size_t>(r)]; ++t) {
            const SepSets* mine = from ? &tables[static_cast<std::size_t>(t)] : nullptr;
            std::int64_t size[2] = {mine ? static_cast<std::int64_t>(mine->size()) : 0,
                                    mine ? static_cast<std::int64_t>(mine->nodes().size()) : 0};
            comm_.transfer(size, 2, mpi::DataType::Int64, r, 0);
            const auto k = static_cast<std::size_t>(size[0]), v = static_cast<std::size_t>(size[1]);
            if (from) {
                comm_.transfer(const_cast<std::uint64_t*>(mine->keys().data()), k, mpi::DataType::Int64, r, 0);
                comm_.transfer(const_cast<std::int64_t*>(mine->offsets().data()), k + 1, mpi::DataType::Int64, r, 0);
                comm_.transfer(const_cast<std::int32_t*>(mine->nodes().data()), v, mpi::DataType::Int32, r, 0);
                continue;
            }
            // Rank 0 receives into fresh arrays, faulted in on threads first.
            BulkVector<std::uint64_t> keys(k);
            BulkVector<std::int64_t> offs(k + 1);
            BulkVector<std::int32_t> nds(v);
            first_touch(keys.data(), keys.size() * sizeof(std::uint64_t), threads_);
            first_touch(offs.data(), offs.size() * sizeof(std::int64_t), threads_);
            first_touch(nds.data(), nds.size() * sizeof(std::int32_t), threads_);
            comm_.transfer(keys.data(), k, mpi::DataType::Int64, r, 0);
            comm_.transfer(offs.data(), k + 1, mpi::DataType::Int64, r, 0);
            comm_.transfer(nds.data(), v, mpi::DataType::Int32, r, 0);
            tables.push_back(SepSets::adopt(std::move(keys), std::move(offs), std::move(nds)));
        }
    }
    trace_.mark("sepsets gathered");
    SepSets all;
    mpi::run_agreed(comm_, [&] {
        if (comm_.rank() == 0) all = merge_tables(std::move(tables));
    });
    trace_.mark("sepsets merged");
    return all;
}

SkeletonResult Search::finish_distributed() {
    trace_.start();
    results_->gather_pmax(true, true);
    trace_.mark("pmax gathered");
    SkeletonResult res;
    if (graph_stale_) sync_graph(next_);
    res.skeleton = std::move(g_);
    res.levels = std::move(levels_);
    exchange();
    res.sepsets = std::move(owned_);
    mpi::run_agreed(comm_, [&] { res.pmax = pmax_.pairs(threads_, rows_.begin, rows_.end); });
    res.record_rows = rows_;
    trace_.mark("pmax");
    trace_.print("host after the levels");
    return res;
}

SkeletonResult Search::finish() {
    if (distributed_) return finish_distributed();
    trace_.start();
    // One rank may leave pMax out (a bootstrap replicate): neither gathered nor listed.
    const bool want_pmax = opt_.keep_pmax || comm_.size() > 1;
    // The engine lists the pairs when its table is the answer.
    const bool pairs_from_engine = want_pmax && results_->engine_lists_pairs();
    if (want_pmax) {
        results_->gather_pmax(!pairs_from_engine);
        trace_.mark("pmax gathered");
    }
    SkeletonResult res;
    if (graph_stale_) sync_graph(next_);
    res.skeleton = std::move(g_);
    res.levels = std::move(levels_);
    // Rank 0 lists pMax (mostly a copy of fresh memory) beside the separating sets, on a
    // thread of its own where the table is large: for a small one the thread's start and
    // its first CUDA call cost more than the overlap saves (cuPC's example, 60 variables:
    // ~0.3 ms of a 1.6 ms skeleton on one H200), so it is listed after them.
    const bool list_aside = n_ * (n_ - 1) / 2 > kPairsListedInline;
    std::future<PairPList> listed;
    if (pairs_from_engine && comm_.rank() == 0 && list_aside)
        listed = std::async(std::launch::async, [this] { return results_->engine_pairs(); });
    res.sepsets = collect_sepsets();
    if (want_pmax) {
        mpi::run_agreed(comm_, [&] {
            if (comm_.rank() != 0) return;
            if (pairs_from_engine)
                res.pmax = list_aside ? listed.get() : results_->engine_pairs();  // rethrows the engine's error
            else
                res.pmax = pmax_.pairs(threads_);
        });
        trace_.mark(pairs_from_engine ? "pmax pairs (engine)" : "pmax");
    }
    if (comm_.rank() == 0) drop_knowledge_pairs(res);
    trace_.print("host after the levels");
    return res;
}

}  // namespace cudag::skeleton::detail
