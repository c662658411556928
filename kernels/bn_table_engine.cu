// SPDX-License-Identifier: Apache-2.0
// The order-MCMC score table on a GPU (issue 21): fill_discrete_table, fill_bge_table and
// fill_cg_bic_table
// (bn_engines.hpp) run the table kernels (bn_table_kernels.cu) node by node, and sort_table
// the sorter's kernels (bn_sort_kernels.cu), on the device context's stream. The fillers
// copy each node's entries back to the host table, with a count of its non-finite ones,
// while the next node's kernel runs (TableSink); or, when the table asks for it (max mode,
// bn::ScoreTable::sort_on_fill), sort each node on the device right after its kernel and
// copy back only its sorted lists (SortSink, issue 37).
#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bn_engines.hpp"
#include "bn_sort_kernels.cuh"
#include "bn_table_kernels.cuh"
#include "core/combinations.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "cuda_check.hpp"
#include "device_context.hpp"
#include "device_memory.hpp"

namespace cudag::cuda {
namespace {

/// What the per-node table kernels share: the candidates and extras of the nodes `nodes`
/// on the device (uploaded once, node after node), the binomial table, and the largest
/// entry count of those nodes.
class NodeLists {
public:
    NodeLists(const bn::ScoreTable& table, bn::NodeRange nodes, cudaStream_t stream) : table_(table), nodes_(nodes) {
        std::vector<std::int32_t> cands, extras;
        for (std::int32_t v = nodes.begin; v < nodes.end; ++v) {
            most_ = std::max(most_, table.node_entries(v));
            const auto c = table.candidates(v);
            const auto x = table.extras(v);
            cand_at_.push_back(static_cast<std::int64_t>(cands.size()));
            extra_at_.push_back(static_cast<std::int64_t>(extras.size()));
            cands.insert(cands.end(), c.begin(), c.end());
            extras.insert(extras.end(), x.begin(), x.end());
        }
        cands_.resize_discard(std::max<std::size_t>(cands.size(), 1));
        cands_.upload(cands.data(), cands.size(), stream);
        extras_.resize_discard(std::max<std::size_t>(extras.size(), 1));
        extras_.upload(extras.data(), extras.size(), stream);
        const std::vector<std::int64_t> binom = binomial_table(table.n_nodes(), table.max_parents());
        binom_.resize_discard(binom.size());
        binom_.upload(binom.data(), binom.size(), stream);
        CUDAG_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    /// Node v's layout.
    NodeLayout node(std::int32_t v) const { return layout_of(table_, v); }
    std::int64_t most() const { return most_; }
    /// Node v's candidates and extras on the device.
    const std::int32_t* cands(std::int32_t v) { return cands_.data() + cand_at_[v - nodes_.begin]; }
    const std::int32_t* extras(std::int32_t v) { return extras_.data() + extra_at_[v - nodes_.begin]; }
    Binomials binomials() { return {binom_.data(), table_.max_parents() + 2}; }

private:
    const bn::ScoreTable& table_;
    bn::NodeRange nodes_;
    std::int64_t most_ = 1;
    std::vector<std::int64_t> cand_at_, extra_at_;
    DeviceBuffer<std::int32_t> cands_, extras_;
    DeviceBuffer<std::int64_t> binom_;
};

/// The entries of a table's nodes from the device to the host table, overlapping the
/// kernels (issue 37). Node after node, a kernel writes one of two device buffers
/// (buffer_for), and a count of its non-finite entries follows it on the stream (queued);
/// then, while the next node's kernel runs, a second stream copies the node out in chunks
/// into a ring of pinned buffers, which the host threads copy into the table. finish()
/// reports every node to the table (bn::ScoreTable::NodeFill: Finite when its count is 0,
/// so that the host reads none of its entries) with the times.
class TableSink {
public:
    TableSink(bn::ScoreTable& table, bn::NodeRange nodes, std::int64_t most, cudaStream_t stream, cudaStream_t copies,
              int sms)
        : table_(table), nodes_(nodes), stream_(stream), sms_(sms), copies_(copies) {
        for (auto& b : buffers_) b.resize_discard(static_cast<std::size_t>(std::max<std::int64_t>(most, 1)));
        // A third of the largest node, at most kChunk: a node's copies and the host's copies
        // into the table overlap, and every table (a small one too) cycles through the ring.
        chunk_ = std::clamp<std::int64_t>((most + 2) / 3, 1, kChunk);
        for (auto& r : ring_) r.stage.resize_discard(static_cast<std::size_t>(chunk_));
        counts_.resize_discard(static_cast<std::size_t>(nodes.end - nodes.begin));
        counts_.fill_bytes(0, stream);
        copied_.assign(counts_.size(), 0);
    }
    ~TableSink() {
        // Nothing may still copy into the pinned buffers (an exception left the loop).
        CUDAG_CUDA_CHECK_NOTHROW(cudaStreamSynchronize(copies_));
        CUDAG_CUDA_CHECK_NOTHROW(cudaStreamSynchronize(stream_));
    }
    TableSink(const TableSink&) = delete;
    TableSink& operator=(const TableSink&) = delete;

    /// The device buffer node v's kernel is to write next on the stream (of room for the
    /// most entries): the stream waits until the copies out of its previous node are done.
    double* buffer_for(std::int32_t v) {
        Slot& s = slots_[next_ % 2];
        if (s.node >= 0) {  // its kernel queued two nodes ago: its time
            s.kernel_done.synchronize();
            kernels_ms_ += s.kernel_done.elapsed_ms_since(s.kernel_start);
        }
        CUDAG_CUDA_CHECK(cudaStreamWaitEvent(stream_, s.copied.get(), 0));
        s.kernel_start.record(stream_);
        s.node = v;
        return buffers_[next_ % 2].data();
    }
    /// Node v's kernel (into buffer_for(v)) is queued: its count follows, and the previous
    /// node's copies go out while it runs.
    void queued(std::int32_t v) {
        const std::size_t b = next_ % 2;
        CUDAG_ASSERT(slots_[b].node == v);
        launch_count_non_finite(buffers_[b].data(), table_.node_entries(v), counts_.data() + (v - nodes_.begin), sms_,
                                stream_);
        slots_[b].kernel_done.record(stream_);
        if (next_ > 0) copy_out(slots_[1 - b]);
        ++next_;
    }
    /// Copies the last node out, waits for every copy, and reports the nodes and times.
    void finish() {
        if (next_ > 0) copy_out(slots_[(next_ - 1) % 2]);
        for (std::size_t i = 0; i < ring_.size(); ++i) drain(ring_[(ring_next_ + i) % ring_.size()]);
        for (Slot& s : slots_)
            if (s.node >= 0) {
                s.kernel_done.synchronize();
                kernels_ms_ += s.kernel_done.elapsed_ms_since(s.kernel_start);
                s.node = -1;
            }
        std::vector<unsigned long long> bad(counts_.size());
        counts_.download(bad.data(), bad.size(), stream_);
        CUDAG_CUDA_CHECK(cudaStreamSynchronize(stream_));
        for (std::int32_t v = nodes_.begin; v < nodes_.end; ++v) {
            const auto i = static_cast<std::size_t>(v - nodes_.begin);
            if (copied_[i])
                table_.report_filled(
                    v, bad[i] == 0 ? bn::ScoreTable::NodeFill::Finite : bn::ScoreTable::NodeFill::Written);
        }
        table_.add_filler_times(kernels_ms_ / 1e3, copies_ms_ / 1e3, host_copies_s_, host_waits_s_);
    }

private:
    /// Doubles in one pinned chunk at most: 16 MiB.
    static constexpr std::int64_t kChunk = std::int64_t{1} << 21;
    /// Host threads copy a chunk in pieces of this many doubles (256 KiB).
    static constexpr std::int64_t kPiece = std::int64_t{1} << 15;

    struct Slot {
        std::int32_t node = -1;
        Event kernel_start, kernel_done, copied;  ///< copied: the last chunk of the node is out
    };
    struct Chunk {
        PinnedBuffer<double> stage;
        Event start, done;
        double* dst = nullptr;  ///< where in the table; null: free
        std::int64_t count = 0;
    };

    using Clock = std::chrono::steady_clock;
    static double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

    /// Queues the copies of slot s's node out of its buffer, chunk by chunk, the host
    /// copying the oldest chunks into the table to make room in the ring.
    void copy_out(Slot& s) {
        const std::int32_t v = s.node;
        const std::size_t b = static_cast<std::size_t>(&s - slots_.data());
        const std::span<double> dst = table_.mutable_node_scores(v);
        const auto total = static_cast<std::int64_t>(dst.size());
        CUDAG_CUDA_CHECK(cudaStreamWaitEvent(copies_, s.kernel_done.get(), 0));
        for (std::int64_t at = 0; at < total; at += chunk_) {
            Chunk& c = ring_[ring_next_];
            ring_next_ = (ring_next_ + 1) % ring_.size();
            drain(c);
            c.dst = dst.data() + at;
            c.count = std::min<std::int64_t>(chunk_, total - at);
            c.start.record(copies_);
            CUDAG_CUDA_CHECK(cudaMemcpyAsync(c.stage.data(), buffers_[b].data() + at,
                                             static_cast<std::size_t>(c.count) * sizeof(double), cudaMemcpyDeviceToHost,
                                             copies_));
            c.done.record(copies_);
        }
        s.copied.record(copies_);
        copied_[static_cast<std::size_t>(v - nodes_.begin)] = 1;
    }
    /// Waits for chunk c's copy and copies it into the table (host threads); c is free after.
    void drain(Chunk& c) {
        if (c.dst == nullptr) return;
        const auto t0 = Clock::now();
        c.done.synchronize();
        host_waits_s_ += since(t0);
        copies_ms_ += c.done.elapsed_ms_since(c.start);
        const auto t1 = Clock::now();
        const double* src = c.stage.data();
        double* dst = c.dst;
        const std::int64_t count = c.count;
        parallel_for(0, (count + kPiece - 1) / kPiece, table_.fill_threads(), 1, [&](std::int64_t p, int) {
            const std::int64_t from = p * kPiece;
            std::memcpy(dst + from, src + from,
                        static_cast<std::size_t>(std::min(kPiece, count - from)) * sizeof(double));
        });
        host_copies_s_ += since(t1);
        c.dst = nullptr;
    }

    bn::ScoreTable& table_;
    bn::NodeRange nodes_;
    cudaStream_t stream_;
    int sms_;
    cudaStream_t copies_;  ///< the device context's copy stream
    std::array<DeviceBuffer<double>, 2> buffers_;
    std::array<Slot, 2> slots_;
    std::array<Chunk, 4> ring_;
    std::size_t ring_next_ = 0;
    std::int64_t chunk_ = 1;                   ///< doubles per chunk
    std::size_t next_ = 0;                     ///< nodes queued so far
    DeviceBuffer<unsigned long long> counts_;  ///< non-finite entries by node
    std::vector<char> copied_;                 ///< by node: its entries are on their way out
    double kernels_ms_ = 0.0, copies_ms_ = 0.0, host_copies_s_ = 0.0, host_waits_s_ = 0.0;
};

/// One node's score-sorted lists built on the device from its entries (bn::ScoreTable::
/// build_sorted's lists, bit for bit): select() flags the dominated sets and compacts the
/// others' offsets, their number into kept() (device); sort() sorts those `count` by score,
/// stably, and writes their parents and scores (offsets(), parents(), scores()).
class NodeSorter {
public:
    NodeSorter(std::int64_t most, int w, cudaStream_t stream) : w_(w) {
        const auto cap = static_cast<std::size_t>(std::max<std::int64_t>(most, 1));
        best_.resize_discard(cap), keys_.resize_discard(cap), keys_out_.resize_discard(cap);
        dom_.resize_discard(cap), offs_.resize_discard(cap), offs_out_.resize_discard(cap);
        scores_.resize_discard(cap), parents_.resize_discard(cap * static_cast<std::size_t>(w));
        kept_.resize_discard(1);
        // Temporary storage for the compaction and the sort at the largest size.
        std::size_t select_bytes = 0, sort_bytes = 0;
        select_flagged(nullptr, select_bytes, dom_.data(), offs_.data(), kept_.data(), static_cast<int>(cap), stream);
        sort_pairs_descending(nullptr, sort_bytes, keys_.data(), keys_out_.data(), offs_.data(), offs_out_.data(),
                              static_cast<int>(cap), stream);
        temp_.resize_discard(std::max<std::size_t>({select_bytes, sort_bytes, 1}));
    }
    /// The undominated sets of the node (L, `extras` extras) with entries `scores` (device).
    void select(const NodeLayout& L, const Binomials& B, std::int64_t extras, const double* scores, int sms,
                cudaStream_t stream) {
        const int s = L.s;
        // Dominated sets, by size: a set's immediate subsets are settled before it.
        for (int k = 0; k <= s && k <= L.m; ++k) {
            launch_dominate(L, B, scores, best_.data(), dom_.data(), k, -1, sms, stream);
            if (k <= s - 1 && extras > 0)
                launch_dominate(L, B, scores, best_.data(), dom_.data(), k, extras, sms, stream);
        }
        // The undominated offsets (dom = 0), increasing.
        launch_flip(dom_.data(), L.entries, sms, stream);
        std::size_t bytes = temp_.size();
        select_flagged(temp_.data(), bytes, dom_.data(), offs_.data(), kept_.data(), static_cast<int>(L.entries),
                       stream);
    }
    const std::int64_t* kept() const { return kept_.data(); }
    /// The `count` sets select() kept, sorted by score (highest first, ties by offset).
    void sort(const NodeLayout& L, const Binomials& B, const std::int32_t* cands, const std::int32_t* extras,
              const double* scores, std::int64_t count, int sms, cudaStream_t stream) {
        launch_sort_keys(scores, offs_.data(), count, keys_.data(), sms, stream);
        std::size_t bytes = temp_.size();
        sort_pairs_descending(temp_.data(), bytes, keys_.data(), keys_out_.data(), offs_.data(), offs_out_.data(),
                              static_cast<int>(count), stream);
        launch_sort_parents(L, B, cands, extras, offs_out_.data(), count, w_, parents_.data(), sms, stream);
        launch_gather_scores(scores, offs_out_.data(), count, scores_.data(), sms, stream);
    }
    const DeviceBuffer<std::uint32_t>& offsets() const { return offs_out_; }
    const DeviceBuffer<std::uint16_t>& parents() const { return parents_; }
    const DeviceBuffer<double>& scores() const { return scores_; }

private:
    int w_;
    DeviceBuffer<double> best_, keys_, keys_out_, scores_;
    DeviceBuffer<std::uint8_t> dom_;
    DeviceBuffer<std::uint32_t> offs_, offs_out_;
    DeviceBuffer<std::int64_t> kept_;
    DeviceBuffer<std::uint16_t> parents_;
    DeviceBuffer<unsigned char> temp_;
};

/// TableSink's counterpart in max mode with bn::ScoreTable::sort_on_fill (issue 37): each
/// node's sorted lists are built on the device from its kernel's buffer, and only they come
/// back (set_sorted; the node reported NodeFill::Sorted): its entries never reach the host.
/// Node after node, on the one stream: K(v) the node's kernel (into buffer_for(v), one of
/// two buffers), then the previous node p's sort S2(p) and the copy of its lists into
/// pinned buffers, then v's count of non-finite entries, its mandatory parents' -inf and
/// its dominance pass and compaction S1(v), whose kept count and non-finite count come
/// back; the host reads p's counts while K(v) runs. A node with a non-finite entry (NaN:
/// left to the CPU, or an error) is not sorted here: its entries are copied into the table
/// as TableSink does (reported Written), and the host pass and build_sorted take it as
/// before, so its error stays the CPU's one line.
class SortSink {
public:
    SortSink(bn::ScoreTable& table, bn::NodeRange nodes, NodeLists& lists, cudaStream_t stream, cudaStream_t copies,
             int sms)
        : table_(table),
          nodes_(nodes),
          lists_(lists),
          stream_(stream),
          sms_(sms),
          copies_(copies),
          sorter_(lists.most(), std::max(table.max_parents(), 1), stream) {
        const auto most = static_cast<std::size_t>(std::max<std::int64_t>(lists.most(), 1));
        for (auto& b : buffers_) b.resize_discard(most);
        counts_.resize_discard(static_cast<std::size_t>(nodes.end - nodes.begin));
        counts_.fill_bytes(0, stream);
        status_kept_.resize_discard(1);
        status_bad_.resize_discard(1);
        // The mandatory parents of the nodes, on the device.
        std::vector<std::int32_t> req;
        for (std::int32_t v = nodes.begin; v < nodes.end; ++v) {
            req_at_.push_back(static_cast<std::int64_t>(req.size()));
            const auto r = table.required(v);
            req.insert(req.end(), r.begin(), r.end());
        }
        req_at_.push_back(static_cast<std::int64_t>(req.size()));
        required_.resize_discard(std::max<std::size_t>(req.size(), 1));
        required_.upload(req.data(), req.size(), stream);
        grow_lists(std::min<std::int64_t>(lists.most(), kFirstLists));
        CUDAG_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    ~SortSink() {
        // Nothing may still copy into the pinned buffers (an exception left the loop).
        CUDAG_CUDA_CHECK_NOTHROW(cudaStreamSynchronize(copies_));
        CUDAG_CUDA_CHECK_NOTHROW(cudaStreamSynchronize(stream_));
    }
    SortSink(const SortSink&) = delete;
    SortSink& operator=(const SortSink&) = delete;

    /// The device buffer node v's kernel is to write next on the stream (stream order keeps
    /// the sort of its previous node ahead of it).
    double* buffer_for(std::int32_t v) {
        Slot& s = slots_[next_ % 2];
        s.node = v;
        s.kernel_start.record(stream_);
        return buffers_[next_ % 2].data();
    }
    /// Node v's kernel is queued: the previous node's sort follows it, then v's first pass.
    void queued(std::int32_t v) {
        const std::size_t b = next_ % 2;
        Slot& s = slots_[b];
        CUDAG_ASSERT(s.node == v);
        s.kernel_done.record(stream_);
        if (next_ > 0) settle(slots_[1 - b]);
        // v's count, mandatory parents, dominance pass and compaction; the counts come back.
        const NodeLayout L = lists_.node(v);
        const auto i = static_cast<std::size_t>(v - nodes_.begin);
        double* sc = buffers_[b].data();
        s.select_start.record(stream_);
        launch_count_non_finite(sc, L.entries, counts_.data() + i, sms_, stream_);
        launch_require_parents(L, lists_.binomials(), lists_.cands(v), lists_.extras(v), required_.data() + req_at_[i],
                               static_cast<int>(req_at_[i + 1] - req_at_[i]), sc, sms_, stream_);
        sorter_.select(L, lists_.binomials(), static_cast<std::int64_t>(table_.extras(v).size()), sc, sms_, stream_);
        CUDAG_CUDA_CHECK(cudaMemcpyAsync(status_kept_.data(), sorter_.kept(), sizeof(std::int64_t),
                                         cudaMemcpyDeviceToHost, stream_));
        CUDAG_CUDA_CHECK(cudaMemcpyAsync(status_bad_.data(), counts_.data() + i, sizeof(unsigned long long),
                                         cudaMemcpyDeviceToHost, stream_));
        s.select_done.record(stream_);
        ++next_;
    }
    /// Settles the last node, takes the last lists, and reports the times.
    void finish() {
        if (next_ > 0) settle(slots_[(next_ - 1) % 2]);
        take_lists();
        CUDAG_CUDA_CHECK(cudaStreamSynchronize(stream_));
        table_.add_filler_times(kernels_ms_ / 1e3, copies_ms_ / 1e3, 0.0, host_waits_s_);
        table_.add_filler_sort_time(sort_ms_ / 1e3);
    }

private:
    /// Lists room at first (entries), grown as a node keeps more.
    static constexpr std::int64_t kFirstLists = std::int64_t{1} << 10;

    struct Slot {
        std::int32_t node = -1;
        Event kernel_start, kernel_done, select_start, select_done;
    };

    using Clock = std::chrono::steady_clock;
    static double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

    void grow_lists(std::int64_t entries) {
        const auto e = static_cast<std::size_t>(std::max<std::int64_t>(entries, 1));
        const auto w = static_cast<std::size_t>(std::max(table_.max_parents(), 1));
        h_offs_.resize_discard(e), h_scores_.resize_discard(e), h_parents_.resize_discard(e * w);
    }

    /// Node s.node's first pass is done (or about to be): with no non-finite entry its sort
    /// and lists' copy are queued (pending_); else its entries go to the table now.
    void settle(Slot& s) {
        const std::int32_t p = s.node;
        const auto t0 = Clock::now();
        s.select_done.synchronize();
        host_waits_s_ += since(t0);
        kernels_ms_ += s.kernel_done.elapsed_ms_since(s.kernel_start);
        sort_ms_ += s.select_done.elapsed_ms_since(s.select_start);
        const std::int64_t kept = *status_kept_.data();
        const unsigned long long bad = *status_bad_.data();
        take_lists();  // the pinned lists are free after
        const std::size_t b = static_cast<std::size_t>(&s - slots_.data());
        const NodeLayout L = lists_.node(p);
        s.node = -1;
        if (bad != 0) {
            // Not sorted here: its entries (with the mandatory parents' -inf, which the host
            // pass sets again) into the table, reported Written, as TableSink does.
            const std::span<double> dst = table_.mutable_node_scores(p);
            const auto t1 = Clock::now();
            CUDAG_CUDA_CHECK(cudaStreamWaitEvent(copies_, s.select_done.get(), 0));
            CUDAG_CUDA_CHECK(cudaMemcpyAsync(dst.data(), buffers_[b].data(), dst.size() * sizeof(double),
                                             cudaMemcpyDeviceToHost, copies_));
            CUDAG_CUDA_CHECK(cudaStreamSynchronize(copies_));
            copies_ms_ += 1e3 * since(t1);
            table_.report_filled(p, bn::ScoreTable::NodeFill::Written);
            return;
        }
        if (kept > static_cast<std::int64_t>(h_offs_.size()))
            grow_lists(std::max(kept, 2 * static_cast<std::int64_t>(h_offs_.size())));
        sort_start_.record(stream_);
        sorter_.sort(L, lists_.binomials(), lists_.cands(p), lists_.extras(p), buffers_[b].data(), kept, sms_, stream_);
        const auto w = static_cast<std::size_t>(std::max(table_.max_parents(), 1));
        const auto count = static_cast<std::size_t>(kept);
        sorter_.offsets().download(h_offs_.data(), count, stream_);
        sorter_.parents().download(h_parents_.data(), count * w, stream_);
        sorter_.scores().download(h_scores_.data(), count, stream_);
        sort_done_.record(stream_);
        pending_ = p;
        pending_count_ = kept;
    }
    /// The lists of the pending node from the pinned buffers into the table (set_sorted).
    void take_lists() {
        if (pending_ < 0) return;
        const auto t0 = Clock::now();
        sort_done_.synchronize();
        host_waits_s_ += since(t0);
        sort_ms_ += sort_done_.elapsed_ms_since(sort_start_);
        const auto count = static_cast<std::size_t>(pending_count_);
        const auto w = static_cast<std::size_t>(std::max(table_.max_parents(), 1));
        table_.set_sorted(pending_, std::vector<std::uint32_t>(h_offs_.data(), h_offs_.data() + count),
                          std::vector<std::uint16_t>(h_parents_.data(), h_parents_.data() + count * w),
                          std::vector<double>(h_scores_.data(), h_scores_.data() + count));
        table_.report_filled(pending_, bn::ScoreTable::NodeFill::Sorted);
        pending_ = -1;
    }

    bn::ScoreTable& table_;
    bn::NodeRange nodes_;
    NodeLists& lists_;
    cudaStream_t stream_;
    int sms_;
    cudaStream_t copies_;  ///< the device context's copy stream
    NodeSorter sorter_;
    std::array<DeviceBuffer<double>, 2> buffers_;
    std::array<Slot, 2> slots_;
    std::size_t next_ = 0;                     ///< nodes queued so far
    DeviceBuffer<unsigned long long> counts_;  ///< non-finite entries by node
    DeviceBuffer<std::int32_t> required_;      ///< the nodes' mandatory parents, req_at_ by node
    std::vector<std::int64_t> req_at_;
    PinnedBuffer<std::int64_t> status_kept_;       ///< the last first pass's kept count
    PinnedBuffer<unsigned long long> status_bad_;  ///< and its non-finite count
    PinnedBuffer<std::uint32_t> h_offs_;           ///< the pending node's lists
    PinnedBuffer<std::uint16_t> h_parents_;
    PinnedBuffer<double> h_scores_;
    Event sort_start_, sort_done_;
    std::int32_t pending_ = -1;  ///< the node whose lists are on their way to h_*
    std::int64_t pending_count_ = 0;
    double kernels_ms_ = 0.0, copies_ms_ = 0.0, sort_ms_ = 0.0, host_waits_s_ = 0.0;
};

/// The one-hot sample bitsets of `codes` (bn::SampleBits' layout): the sets, then offs.
struct HostBits {
    std::vector<std::uint32_t> bits;
    std::vector<std::int32_t> offs;
    std::int64_t words = 0;
};

HostBits sample_bits(const ci::DiscreteCodes& codes) {
    HostBits h;
    h.words = ((codes.n_samples + 31) / 32) | 1;  // odd: a warp's sets fall in different banks
    std::int32_t sets = 1;
    for (const std::int32_t c : codes.cards) h.offs.push_back(sets - 1), sets += c;
    h.bits.assign(static_cast<std::size_t>(sets * h.words), 0u);
    const auto set_bit = [&](std::int64_t set, std::int64_t s) {
        h.bits[static_cast<std::size_t>(set * h.words + s / 32)] |= 1u << (s % 32);
    };
    for (std::int64_t s = 0; s < codes.n_samples; ++s) set_bit(0, s);
    for (std::int64_t u = 0; u < codes.n_vars; ++u) {
        const std::uint8_t* x = codes.column(u);
        for (std::int64_t s = 0; s < codes.n_samples; ++s) set_bit(1 + h.offs[static_cast<std::size_t>(u)] + x[s], s);
    }
    return h;
}

/// Parent-configuration counts q a node's entries can have: products of at most `s` levels
/// of its candidates and extras with q r <= cap (a superset: a level may repeat).
std::vector<std::int64_t> reachable_q(const std::vector<std::int64_t>& levels, int s, std::int64_t r, int cap) {
    std::vector<std::int64_t> distinct(levels);
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    std::vector<std::int64_t> qs{1}, frontier{1};
    for (int k = 0; k < s && !frontier.empty(); ++k) {
        std::vector<std::int64_t> next;
        for (const std::int64_t q : frontier)
            for (const std::int64_t c : distinct)
                if (q * c * r <= cap && std::find(qs.begin(), qs.end(), q * c) == qs.end()) {
                    qs.push_back(q * c);
                    next.push_back(q * c);
                }
        frontier = std::move(next);
    }
    return qs;
}

/// Doubles the tabulated terms may take (larger: the kernels compute the rest directly).
constexpr std::size_t kTermBudget = std::size_t{1} << 24;
/// The bitset kernel runs a node whose largest parent table has at most this many rows per
/// counting pass (rows × max(r - 1, 1)); beyond, the warp kernel's counting costs less.
constexpr std::int64_t kBitsetRows = 64;

/// bd_term_tables for each (q, r) the nodes ask for, in one host array: slot(q, r) is the
/// offset of its cell terms (its row terms follow), or -1 past kTermBudget.
class TermTables {
public:
    TermTables(const bn::ScoreSpec& spec, std::int64_t samples) : spec_(spec), samples_(samples) {}
    std::int32_t slot(std::int64_t q, std::int32_t r) {
        const bool k2 = spec_.kind == bn::ScoreKind::K2;
        const std::pair<std::int64_t, std::int32_t> key{k2 ? 0 : q, r};
        for (std::size_t i = 0; i < keys_.size(); ++i)
            if (keys_[i] == key) return at_[i];
        const std::size_t per = 2 * static_cast<std::size_t>(samples_ + 1);
        if (terms_.size() + per > kTermBudget) return -1;
        const double a_jk = k2 ? 1.0 : spec_.iss / (static_cast<double>(q) * static_cast<double>(r));
        const std::size_t at = terms_.size();
        terms_.resize(at + per);
        bn::bd_term_tables(a_jk, r, samples_, terms_.data() + at, terms_.data() + at + samples_ + 1);
        keys_.push_back(key);
        at_.push_back(static_cast<std::int32_t>(at));
        return static_cast<std::int32_t>(at);
    }
    const std::vector<double>& terms() const { return terms_; }

private:
    const bn::ScoreSpec& spec_;
    std::int64_t samples_;
    std::vector<std::pair<std::int64_t, std::int32_t>> keys_;
    std::vector<std::int32_t> at_;
    std::vector<double> terms_;
};

}  // namespace

void fill_discrete_table(const ci::DiscreteCodes& codes, const bn::ScoreSpec& spec, double per_parent,
                         std::span<const double> prior_terms, bn::ScoreTable& table, bn::NodeRange nodes, int device) {
    if (table.max_parents() > kMaxParentsGpu || nodes.empty()) return;  // all on the CPU, or nothing to do
    DeviceGuard guard(device);
    DeviceContext& ctx = DeviceContext::for_device(device);
    const cudaStream_t stream = ctx.stream();
    DeviceBuffer<std::uint8_t> d_codes(std::max<std::size_t>(codes.codes.size(), 1));
    d_codes.upload(codes.codes.data(), codes.codes.size(), stream);
    DeviceBuffer<std::int32_t> d_cards(codes.cards.size());
    d_cards.upload(codes.cards.data(), codes.cards.size(), stream);
    DeviceBuffer<double> d_prior(std::max<std::size_t>(prior_terms.size(), 1));
    d_prior.upload(prior_terms.data(), prior_terms.size(), stream);
    const HostBits hb = sample_bits(codes);
    DeviceBuffer<std::uint32_t> d_bits(hb.bits.size());
    d_bits.upload(hb.bits.data(), hb.bits.size(), stream);
    DeviceBuffer<std::int32_t> d_offs(hb.offs.size());
    d_offs.upload(hb.offs.data(), hb.offs.size(), stream);
    // Each node's cell cap, kernel and term slots (max_cells + 1 a node: slot[q]), every
    // table tabulated before the first launch.
    const int max_cells = table_cells(device);
    struct Plan {
        std::int32_t v;
        int cap;
        bool bits;
    };
    std::vector<Plan> plans;
    const std::size_t per = static_cast<std::size_t>(max_cells) + 1;
    std::vector<std::int32_t> slots;
    TermTables tables(spec, codes.n_samples);
    for (std::int32_t v = nodes.begin; v < nodes.end; ++v) {
        if (table.node_entries(v) == 0) continue;
        // Cells for the largest parent table of the node (levels of its s most-levelled parents).
        std::vector<std::int64_t> levels;
        for (const std::int32_t u : table.candidates(v)) levels.push_back(codes.cards[u]);
        for (const std::int32_t u : table.extras(v)) levels.push_back(codes.cards[u]);
        std::sort(levels.begin(), levels.end(), std::greater<>());
        const std::int32_t r = codes.cards[v];
        std::int64_t cells = r;
        for (int k = 0; k < table.max_parents() && k < static_cast<int>(levels.size()) && cells <= max_cells; ++k)
            cells *= levels[k];
        const int cap = static_cast<int>(std::min<std::int64_t>(cells, max_cells));
        const std::size_t at = slots.size();
        slots.resize(at + per, -1);
        bool all = true;
        for (const std::int64_t q : reachable_q(levels, table.max_parents(), r, cap)) {
            slots[at + static_cast<std::size_t>(q)] = tables.slot(q, r);
            all = all && slots[at + static_cast<std::size_t>(q)] >= 0;
        }
        const std::int64_t rows = cap / std::max(r, 1);
        plans.push_back(
            {v, cap, all && table.max_parents() <= bn::kBitsetMaxParents && rows * std::max(r - 1, 1) <= kBitsetRows});
    }
    DeviceBuffer<double> d_terms(std::max<std::size_t>(tables.terms().size(), 1));
    d_terms.upload(tables.terms().data(), tables.terms().size(), stream);
    DeviceBuffer<std::int32_t> d_slots(std::max<std::size_t>(slots.size(), 1));
    d_slots.upload(slots.data(), slots.size(), stream);
    NodeLists lists(table, nodes, stream);
    TableArgs a{d_codes.data(),
                d_cards.data(),
                prior_terms.empty() ? nullptr : d_prior.data(),
                codes.n_vars,
                codes.n_samples,
                spec.kind == bn::ScoreKind::K2 ? 1 : 0,
                spec.iss,
                per_parent,
                lists.binomials(),
                max_cells,
                d_terms.data(),
                d_slots.data(),
                bn::SampleBits{d_bits.data(), d_offs.data(), d_cards.data(), hb.words},
                static_cast<std::int64_t>(hb.bits.size())};
    prepare_table_kernel(max_cells);
    const int sms = ctx.multiprocessors();
    const auto run = [&](auto& sink) {
        for (std::size_t i = 0; i < plans.size(); ++i) {
            const Plan& p = plans[i];
            const NodeLayout L = lists.node(p.v);
            a.cap = p.cap;
            a.slot = d_slots.data() + i * per;
            double* out = sink.buffer_for(p.v);
            // NaN: the entries the kernel leaves to the CPU.
            CUDAG_CUDA_CHECK(cudaMemsetAsync(out, 0xff, static_cast<std::size_t>(L.entries) * sizeof(double), stream));
            if (p.bits)
                launch_bitset_table(L, lists.cands(p.v), lists.extras(p.v), a, out, sms, stream);
            else
                launch_table(L, lists.cands(p.v), lists.extras(p.v), a, out, sms, stream);
            sink.queued(p.v);
        }
        sink.finish();
    };
    if (table.sort_on_fill()) {
        SortSink sink(table, nodes, lists, stream, ctx.copy_stream(), sms);
        run(sink);
    } else {
        TableSink sink(table, nodes, lists.most(), stream, ctx.copy_stream(), sms);
        run(sink);
    }
}

void fill_bge_table(const bn::BgeScorer& scorer, double per_parent, std::span<const double> prior_terms,
                    bn::ScoreTable& table, bn::NodeRange nodes, int device) {
    if (table.max_parents() > kMaxParentsGpu || nodes.empty()) return;  // all on the CPU, or nothing to do
    DeviceGuard guard(device);
    DeviceContext& ctx = DeviceContext::for_device(device);
    const cudaStream_t stream = ctx.stream();
    const std::int64_t n = table.n_nodes();
    DeviceBuffer<double> d_tn(scorer.tn().size()), d_consts(scorer.consts().size());
    d_tn.upload(scorer.tn().data(), scorer.tn().size(), stream);
    d_consts.upload(scorer.consts().data(), scorer.consts().size(), stream);
    DeviceBuffer<double> d_prior(std::max<std::size_t>(prior_terms.size(), 1));
    d_prior.upload(prior_terms.data(), prior_terms.size(), stream);
    NodeLists lists(table, nodes, stream);
    const int sms = ctx.multiprocessors();
    const auto run = [&](auto& sink) {
        for (std::int32_t v = nodes.begin; v < nodes.end; ++v) {
            if (table.node_entries(v) == 0) continue;
            const NodeLayout L = lists.node(v);
            double* out = sink.buffer_for(v);
            launch_bge_table(L, lists.binomials(), lists.cands(v), lists.extras(v), d_tn.data(), n, d_consts.data(),
                             scorer.awpn_n(), per_parent, prior_terms.empty() ? nullptr : d_prior.data(), out, sms,
                             stream);
            sink.queued(v);
        }
        sink.finish();
    };
    if (table.sort_on_fill()) {
        SortSink sink(table, nodes, lists, stream, ctx.copy_stream(), sms);
        run(sink);
    } else {
        TableSink sink(table, nodes, lists.most(), stream, ctx.copy_stream(), sms);
        run(sink);
    }
}

void fill_cg_bic_table(const bn::CgBicScorer& scorer, double per_parent, std::span<const double> prior_terms,
                       bn::ScoreTable& table, bn::NodeRange nodes, int device) {
    if (table.max_parents() > kMaxParentsGpu || nodes.empty()) return;  // all on the CPU, or nothing to do
    DeviceGuard guard(device);
    DeviceContext& ctx = DeviceContext::for_device(device);
    const cudaStream_t stream = ctx.stream();
    const Dataset& data = scorer.data();
    DeviceBuffer<double> d_values(std::max<std::size_t>(data.values.size(), 1)), d_observed(scorer.observed().size());
    DeviceBuffer<std::int32_t> d_radix(scorer.radix().size());
    d_values.upload(data.values.data(), data.values.size(), stream);
    d_observed.upload(scorer.observed().data(), scorer.observed().size(), stream);
    d_radix.upload(scorer.radix().data(), scorer.radix().size(), stream);
    DeviceBuffer<double> d_prior(std::max<std::size_t>(prior_terms.size(), 1));
    d_prior.upload(prior_terms.data(), prior_terms.size(), stream);
    NodeLists lists(table, nodes, stream);
    // Threads: enough for the largest node's entries, at most 16,384 and at most 1 GiB of
    // scratch; a multiple of the block (128).
    const std::int64_t per_thread = cg_bic_thread_doubles(table.max_parents());
    const std::int64_t by_memory = std::max<std::int64_t>((std::int64_t{1} << 27) / per_thread / 128 * 128, 128);
    const std::int64_t threads =
        std::min<std::int64_t>({(lists.most() + 127) / 128 * 128, std::int64_t{16384}, by_memory});
    DeviceBuffer<double> d_scratch(static_cast<std::size_t>(threads * per_thread));
    const CgBicArgs a{
        d_values.data(), d_radix.data(),   d_observed.data(),   prior_terms.empty() ? nullptr : d_prior.data(),
        data.n_vars,     data.n_samples,   scorer.half_log_n(), scorer.one_log_2pi(),
        per_parent,      d_scratch.data(), per_thread};
    const auto run = [&](auto& sink) {
        for (std::int32_t v = nodes.begin; v < nodes.end; ++v) {
            if (table.node_entries(v) == 0) continue;
            const NodeLayout L = lists.node(v);
            double* out = sink.buffer_for(v);
            launch_cg_bic_table(L, lists.binomials(), lists.cands(v), lists.extras(v), a, threads, out, stream);
            sink.queued(v);
        }
        sink.finish();
    };
    if (table.sort_on_fill()) {
        SortSink sink(table, nodes, lists, stream, ctx.copy_stream(), ctx.multiprocessors());
        run(sink);
    } else {
        TableSink sink(table, nodes, lists.most(), stream, ctx.copy_stream(), ctx.multiprocessors());
        run(sink);
    }
}

void sort_table(bn::ScoreTable& table, bn::NodeRange nodes, int device) {
    CUDAG_EXPECTS(table.max_parents() <= kMaxParentsGpu,
                  "the CUDA sort takes at most " + std::to_string(kMaxParentsGpu) + " parents");
    if (nodes.empty()) return;
    DeviceGuard guard(device);
    DeviceContext& ctx = DeviceContext::for_device(device);
    const cudaStream_t stream = ctx.stream();
    const int w = std::max(table.max_parents(), 1);
    NodeLists lists(table, nodes, stream);
    DeviceBuffer<double> scores(static_cast<std::size_t>(lists.most()));
    NodeSorter sorter(lists.most(), w, stream);
    const Binomials B = lists.binomials();
    const int sms = ctx.multiprocessors();
    for (std::int32_t v = nodes.begin; v < nodes.end; ++v) {
        if (table.node_entries(v) == 0) continue;
        const NodeLayout L = lists.node(v);
        const auto sc = table.node_scores(v);
        scores.upload(sc.data(), sc.size(), stream);
        sorter.select(L, B, static_cast<std::int64_t>(table.extras(v).size()), scores.data(), sms, stream);
        std::int64_t count = 0;
        CUDAG_CUDA_CHECK(cudaMemcpyAsync(&count, sorter.kept(), sizeof(std::int64_t), cudaMemcpyDeviceToHost, stream));
        CUDAG_CUDA_CHECK(cudaStreamSynchronize(stream));
        sorter.sort(L, B, lists.cands(v), lists.extras(v), scores.data(), count, sms, stream);
        std::vector<std::uint32_t> so(static_cast<std::size_t>(count));
        std::vector<std::uint16_t> sp(static_cast<std::size_t>(count) * w);
        sorter.offsets().download(so.data(), so.size(), stream);
        sorter.parents().download(sp.data(), sp.size(), stream);
        CUDAG_CUDA_CHECK(cudaStreamSynchronize(stream));
        std::vector<double> ss(so.size());  // the entries' scores, bit for bit the table's
        for (std::size_t i = 0; i < so.size(); ++i) ss[i] = sc[so[i]];
        table.set_sorted(v, std::move(so), std::move(sp), std::move(ss));
    }
}

}  // namespace cudag::cuda
