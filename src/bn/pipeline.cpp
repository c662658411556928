// SPDX-License-Identifier: Apache-2.0
#include "bn/pipeline.hpp"

#include <chrono>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <utility>

#include "bn/engines.hpp"
#include "bn/score_table.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "core/memory.hpp"
#include "core/parallel.hpp"

namespace cudag::bn {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string fixed3(double v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    return buf;
}

/// Each node's candidate parents and extras: the search space as the table holds it.
void add_space(Digest& d, const ScoreTable& table) {
    for (std::int32_t v = 0; v < table.n_nodes(); ++v) {
        const auto c = table.candidates(v), x = table.extras(v);
        d.add_value(static_cast<std::uint64_t>(c.size())).add_bytes(c.data(), c.size() * sizeof(std::int32_t));
        d.add_value(static_cast<std::uint64_t>(x.size())).add_bytes(x.data(), x.size() * sizeof(std::int32_t));
        if (table.has_required()) {
            const auto r = table.required(v);
            d.add_value(static_cast<std::uint64_t>(r.size())).add_bytes(r.data(), r.size() * sizeof(std::int32_t));
        }
    }
}

/// Each node's list length (candidates or extras; none when the lists are absent).
std::vector<std::int64_t> space_counts(const std::vector<std::vector<std::int32_t>>& lists) {
    std::vector<std::int64_t> counts;
    for (const auto& l : lists) counts.push_back(static_cast<std::int64_t>(l.size()));
    return counts;
}

void add_prior(Digest& d, const StructurePrior& prior) {
    if (!prior.belief.empty()) d.add_bytes(prior.belief.data(), prior.belief.size() * sizeof(double));
}

}  // namespace

std::string McmcConfig::digest(const ScoreTable& table, const StructurePrior& prior) const {
    Digest d = scored;
    d.add_value(max_parents);
    d.add_value(prior.edge_penalty).add_value(static_cast<std::uint64_t>(prior.belief.size()));
    add_prior(d, prior);
    add_space(d, table);
    d.add_value(static_cast<int>(opts.mode)).add_value(static_cast<int>(opts.moves)).add_value(opts.chains);
    d.add_value(opts.iterations);
    d.add_value(opts.burn_in).add_value(opts.thin).add_value(opts.seed);
    if (sum_prune >= 0.0) d.add_value(sum_prune);  // (unchanged digests without it)
    // The subset rows' budget decides which nodes' sums come from rows (other last bits):
    // sum-mode checkpoints from before the rows are refused, not continued another way.
    if (opts.mode == OrderScoreMode::Sum) d.add_value(sum_rows_bytes);
    return d.hex();
}

io::CheckpointSettings McmcConfig::settings(const ScoreTable& table, const StructurePrior& prior) const {
    Digest prior_digest, space_digest;
    add_prior(prior_digest, prior);
    add_space(space_digest, table);
    io::CheckpointSettings s = scored_settings;
    s.push_back({"--max-parents", std::to_string(max_parents)});
    s.push_back({"--edge-penalty", exact_number(prior.edge_penalty)});
    s.push_back({"the prior (--prior)", prior_digest.hex()});
    s.push_back({"the search space (--space, --forbid, --require, --tiers)", space_digest.hex()});
    if (!space_name.empty()) s.push_back({"--space", space_name});
    s.push_back({"--order-score", opts.mode == OrderScoreMode::Sum ? "sum" : "max"});
    s.push_back({"--moves", opts.moves == MoveSet::Bidag ? "bidag" : "swap"});
    s.push_back({"--chains", std::to_string(opts.chains)});
    s.push_back({"--iterations", std::to_string(opts.iterations)});
    s.push_back({"--burn-in", std::to_string(opts.burn_in)});
    s.push_back({"--thin", std::to_string(opts.thin)});
    s.push_back({"--seed", std::to_string(opts.seed)});
    if (sum_prune >= 0.0) s.push_back({"--tune sum-prune", exact_number(sum_prune)});
    if (opts.mode == OrderScoreMode::Sum) s.push_back({"--tune sum-rows", exact_number(sum_rows_bytes / (1ull << 30))});
    return s;
}

TableEstimate estimate_table(const ScoreTable& table, const LocalScorer& scorer, int threads, double share, bool gpu,
                             bool bounded) {
    TableEstimate e;
    e.entries = static_cast<std::int64_t>(static_cast<double>(table.total_entries()) * share);
    std::vector<std::int64_t> counts, extras;
    bool any_extra = false;
    for (std::int32_t v = 0; v < table.n_nodes(); ++v) {
        counts.push_back(static_cast<std::int64_t>(table.candidates(v).size()));
        extras.push_back(static_cast<std::int64_t>(table.extras(v).size()));
        any_extra = any_extra || !table.extras(v).empty();
    }
    if (!any_extra) extras.clear();
    e.bytes = ScoreTable::estimate_bytes(counts, table.max_parents(), extras) * share;
    e.threads = resolve_threads(threads);
    e.gpu = gpu;
    const std::int64_t n = table.n_nodes();
    if (gpu || n == 0 || e.entries == 0) return e;
    // The largest sets of a few nodes spread over the table (the bulk of its entries are
    // the largest): the first call warms the scorer and is not counted.
    using clock = std::chrono::steady_clock;
    std::vector<std::int32_t> parents;
    double spent = 0.0;
    for (int i = 0; i <= 64 && (i < 2 || spent < 0.02); ++i) {
        const auto v = static_cast<std::int32_t>((static_cast<std::int64_t>(i) * 7919) % n);
        const auto c = table.candidates(v);
        const auto x = table.extras(v);
        const std::size_t room = static_cast<std::size_t>(std::max(table.max_parents(), 0));
        parents.clear();
        for (std::size_t k = 0; k < c.size() && parents.size() < room; ++k)
            parents.push_back(c[(k + static_cast<std::size_t>(i)) % c.size()]);
        if (parents.size() < room && !x.empty()) parents.push_back(x[static_cast<std::size_t>(i) % x.size()]);
        const auto t0 = clock::now();
        // The pruned fill also bounds each set's supersets (local_bounded): timed with it.
        double bound = 0.0;
        const double value = bounded ? scorer.local_bounded(v, parents, table.max_parents(),
                                                            std::numeric_limits<double>::infinity(), &bound)
                                     : scorer.local(v, parents);
        const double dt = std::chrono::duration<double>(clock::now() - t0).count();
        if (std::isnan(value)) break;  // a NaN: the fill reports it, not the estimate
        if (i == 0) continue;
        spent += dt;
        ++e.calls;
    }
    if (e.calls == 0) return e;
    e.per_call = spent / e.calls;
    e.seconds = static_cast<double>(e.entries) * e.per_call / e.threads;
    return e;
}

namespace {

using Note = std::function<void(const std::string&)>;

std::string fixed1(double v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

/// The table's estimate as a -v line, and the warning when it is above kSlowTableSeconds.
void report_estimate(const TableEstimate& e, bool max_mode, const Note& note, const Note& warn) {
    const std::string memory = fixed3(e.bytes / (1ull << 30)) + " GiB";
    if (e.gpu) {
        note("local-score table estimate: " + std::to_string(e.entries) + " entries, " + memory +
             " (a GPU fills it: no time estimate)");
        return;
    }
    char per[48];
    std::snprintf(per, sizeof per, "%.3g", e.per_call * 1e6);
    const std::string time = "about " + fixed1(e.seconds) + " s" + (max_mode ? " at most" : "") + " on " +
                             std::to_string(e.threads) + (e.threads == 1 ? " thread" : " threads");
    note("local-score table estimate: " + std::to_string(e.entries) + " entries, " + memory + ", " + time + " (" + per +
         " us a set, timed on " + std::to_string(e.calls) + " sets of the data)");
    if (e.seconds > kSlowTableSeconds && warn)
        warn("the local-score table (" + std::to_string(e.entries) + " parent sets, " + memory + ") will take " + time +
             "; a smaller space (--space pc, or lower --max-parents) takes seconds");
}

/// The table over `space` for `mode`, on every rank: laid out alike, each rank computing
/// its block of nodes (balanced by entries; sum mode makes it whole everywhere, max mode
/// shares only the sorted lists, unless they do not fit), then each node's undominated sets
/// sorted by score when they fit in half of the free memory (the least of any rank). Fills
/// out's table fields.
/// `prev` (or null): an earlier table over the same scorer whose entries this one takes
/// where it can (ScoreTable::reuse_from); `keep`: this table keeps what a later one needs.
ScoreTable prepare_table(const ParentSpace& space, OrderScoreMode mode, const PriorScorer& scorer,
                         const McmcConfig& cfg, const McmcEngines& engines, mpi::Communicator& comm, McmcOutcome& out,
                         const Note& note, const ScoreTable::Progress& progress, const ScoreTable* prev = nullptr,
                         bool keep = false, const Note& warn = {}) {
    const std::int64_t n = scorer.n_vars();
    const int threads = cfg.opts.threads;
    const auto t_table = std::chrono::steady_clock::now();
    ScoreTable table = [&] {
        std::optional<ScoreTable> t;
        mpi::run_agreed(comm, [&] {
            t = space.all ? ScoreTable::layout(n, cfg.max_parents)
                          : ScoreTable::layout(n, space.candidates, cfg.max_parents, space.extras);
            t->require_parents(space.required);
        });
        return std::move(*t);
    }();
    out.table_entries = table.total_entries();
    table.set_progress(progress);
    const bool max_mode = mode == OrderScoreMode::Max;
    table.set_pruning(max_mode && cfg.table_prune);
    // Before the fill: its time and memory (the first table of a run; an iterative round's
    // takes most of its entries from the round before). Scores a few sets, changes nothing.
    if (prev == nullptr) {
        const double share = 1.0 / comm.size();  // each rank fills its block of nodes
        const bool pruned = max_mode && cfg.table_prune;
        report_estimate(estimate_table(table, scorer, threads, share, static_cast<bool>(engines.filler), pruned),
                        pruned, note, warn);
    }
    // Max mode needs only the sorted lists (the chains, the MAP DAG and the result read
    // nothing else; a split table keeps only its own block already): when they will be built
    // (the same checks as build_sorted's, the budget the least of any rank's, taken now) and
    // both the table and the lists are the GPU's, each node is sorted on the device right
    // after its kernel and only its lists come back (issue 37). A node with a non-finite entry
    // comes back whole and takes the path below.
    if (max_mode && engines.filler && engines.sorter && table.sortable()) {
        const double budget = comm.allreduce(0.5 * static_cast<double>(available_host_bytes()), mpi::ReduceOp::Min);
        table.set_sort_on_fill(table.sorted_bytes() <= budget);
    }
    table.keep_for_reuse(keep);
    table.reuse_from(prev);
    out.share = fill_table_split(table, scorer, threads, engines.filler, comm,
                                 max_mode ? TableGather::OwnBlock : TableGather::Whole);
    table.reuse_from(nullptr);
    out.seconds_table = seconds_since(t_table);
    note("local-score table: " + std::to_string(table.total_entries()) + " entries (" + std::to_string(n) +
         " nodes, parent sets of size <= " + std::to_string(cfg.max_parents) + ") in " + fixed3(out.seconds_table) +
         " s");
    {
        // Where the phase's time went (issue 37): this rank's filler (device kernels and
        // copies, as the device timed them; the host's copies into the table and its waits),
        // the host's pass after it (or the whole CPU fill), and the rest (layout, the split's
        // exchanges).
        const ScoreTable::FillTimes& ft = table.fill_times();
        const double rest = std::max(0.0, out.seconds_table - ft.filler - ft.host_pass);
        note("local-score table phase: " +
             (engines.filler
                  ? "filler " + fixed3(ft.filler) + " s (device kernels " + fixed3(ft.device_kernels) +
                        " s, device-to-host copies " + fixed3(ft.device_copies) + " s, host copies into the table " +
                        fixed3(ft.host_copies) + " s, host waits " + fixed3(ft.host_waits) + " s), then "
                  : std::string()) +
             "the host " + fixed3(ft.host_pass) + " s over " + std::to_string(ft.host_nodes) +
             " nodes, layout and the rest " + fixed3(rest) + " s");
        if (table.sort_on_fill())
            note("local-score table sorted on the device: " + std::to_string(ft.sorted_nodes) + " of " +
                 std::to_string(out.share.nodes.end - out.share.nodes.begin) +
                 " nodes' score-sorted lists built right after their kernels (device " + fixed3(ft.device_sort) +
                 " s), their full table not copied to the host; the others' entries copied and sorted below");
    }
    if (prev != nullptr)
        note("local-score table: " + std::to_string(table.reused_entries()) + " entries " +
             (out.share.ranks > 1 ? std::string("of this rank's nodes ") : std::string()) +
             "taken from the previous table (the same sets of the same nodes), the others scored");
    out.scored.resize(static_cast<std::size_t>(n));
    for (std::int32_t v = 0; v < n; ++v) out.scored[static_cast<std::size_t>(v)] = table.scored(v);
    if (table.scored_entries() < table.total_entries())
        note("local-score table: " + std::to_string(table.scored_entries()) + " of " +
             std::to_string(table.total_entries()) + " entries scored" +
             (table.pruning() ? " (the others' subsets are provably as good, or they lack a required parent)"
                              : " (the others lack a required parent)"));
    const TableShare& share = out.share;
    if (share.ranks > 1)
        note("local-score table split over " + std::to_string(share.ranks) + " ranks by node: this rank scored " +
             std::to_string(share.entries) + " of " + std::to_string(table.total_entries()) + " entries (nodes " +
             std::to_string(share.nodes.begin) + " to " + std::to_string(share.nodes.end - 1) + ") in " +
             fixed3(share.seconds_own) + " s, the most any rank scored " + std::to_string(share.heaviest) +
             (table.holds_all() ? "; whole on every rank after " + fixed3(share.seconds_total) + " s"
                                : std::string("; each rank keeps its block")));

    // Sum mode's opt-in pruning (--sum-prune): on the whole table, alike on every rank.
    if (!max_mode && cfg.sum_prune >= 0.0) {
        CUDAG_EXPECTS(table.holds_all(), "--sum-prune needs the whole table");
        const auto t_prune = std::chrono::steady_clock::now();
        out.sum_pruned = table.prune_sum(cfg.sum_prune, threads);
        note("sum-mode pruning (--tune sum-prune=" + exact_number(cfg.sum_prune) +
             "): " + std::to_string(out.sum_pruned) + " of " + std::to_string(table.total_entries()) +
             " entries left out (each weighs less than e^-" + exact_number(cfg.sum_prune) +
             " of a subset that every order allowing it allows) in " + fixed3(seconds_since(t_prune)) + " s");
    }
    // Sum mode's subset rows: every rank alike (the plan depends on the table alone).
    if (!max_mode) {
        const auto t_rows = std::chrono::steady_clock::now();
        std::int64_t given = 0;
        mpi::run_agreed(comm, [&] { given = table.build_subset_rows(threads, cfg.sum_rows_bytes); });
        out.subset_row_nodes = given;
        note("sum-mode subset rows: " + std::to_string(given) + " of " + std::to_string(n) +
             " nodes read their log-sums from rows (" + std::to_string(table.all_rows().size()) + " values, " +
             fixed3(8.0 * static_cast<double>(table.all_rows().size()) / (1ull << 30)) + " GiB), " +
             std::to_string(n - given) + " enumerate their sets, in " + fixed3(seconds_since(t_rows)) + " s");
    }
    // Max mode's chains walk the lists; both modes take each chain's best DAG from them.
    const auto t_sort = std::chrono::steady_clock::now();
    const bool built =
        build_sorted_split(table, threads, 0.5 * static_cast<double>(available_host_bytes()), engines.sorter, comm);
    out.kept.clear();
    if (built) {
        out.kept.resize(static_cast<std::size_t>(n));
        for (std::int32_t v = 0; v < n; ++v)
            out.kept[static_cast<std::size_t>(v)] = static_cast<std::int64_t>(table.sorted_offsets(v).size());
        note("score-sorted parent sets: " + std::to_string(table.sorted_entries()) + " of " +
             std::to_string(table.total_entries()) + " kept (the others have a subset scoring as high) in " +
             fixed3(seconds_since(t_sort)) + " s");
        std::string by_node = "parent sets scored/kept by node (variables from 1):";
        for (std::int32_t v = 0; v < n; ++v) {
            by_node += ' ';
            by_node += std::to_string(v + 1);
            by_node += ": ";
            by_node += std::to_string(out.scored[static_cast<std::size_t>(v)]);
            by_node += '/';
            by_node += std::to_string(out.kept[static_cast<std::size_t>(v)]);
        }
        note(by_node);
    } else {
        note("score-sorted parent sets do not fit: each node's sets are enumerated");
    }
    // Without the lists, max mode's chains enumerate every node's sets: the whole table.
    if (!built && !table.holds_all())
        note("local-score table made whole on every rank in " + fixed3(gather_table_split(table, comm)) + " s");
    out.seconds_sort = seconds_since(t_sort);
    table.set_progress({});  // its captures belong to this run's observer
    return table;
}

/// The chains' engine for `table`: the GPU's where it applies.
void pick_chain_engine(McmcRunConfig& run, const ScoreTable& table, const McmcEngines& engines,
                       mpi::Communicator& comm) {
    if (engines.chains_on_gpu(table, run.opts.mode))
        mpi::run_agreed(comm, [&] { run.advance = cuda_chain_advancer(table, run.opts, engines.device); });
}

/// BiDAG's iterative search space (--space iterative): from a plus1 space, rounds of max-mode
/// chains (the run's chains, iterations and seed) whose MAP DAG (the best chain's best DAG,
/// rank 0's, broadcast) makes each of its edges p --> v that came through the plus1 extras a
/// candidate edge both ways (p of v, v of p, where the other is an extra of its node too:
/// knowledge never re-enters), while a node has fewer than cfg.hard_limit candidates; until
/// a round adds nothing. Chain 0 of each round after the first starts from the last round's
/// best order (BiDAG's startorder): the space only grows, so the MAP DAG's score never falls
/// and the space settles once no better DAG takes an extra. Returns the final space; `last`
/// gets the last round's table (each
/// round's table takes the entries of the one before: ScoreTable::reuse_from) and
/// `best_order` the last round's MAP order (every rank's alike), where the run's chain 0
/// starts too.
ParentSpace iterate_space(ParentSpace space, const PriorScorer& scorer, const McmcConfig& cfg,
                          const McmcEngines& engines, mpi::Communicator& comm, const Note& note,
                          const ScoreTable::Progress& progress, std::optional<ScoreTable>& last,
                          std::vector<std::int32_t>& best_order, const Note& warn) {
    CUDAG_EXPECTS(!space.all && space.extras.size() == space.candidates.size(),
                  "the iterative search space starts from a plus1 space (--space pc)");
    const std::int64_t n = scorer.n_vars();
    std::int64_t added_total = 0;
    int round = 0;
    for (;;) {
        ++round;
        const std::string head = "iterative search space, round " + std::to_string(round) + ": ";
        McmcOutcome scratch;
        // The previous round's table lends its entries while both fit in this host's memory.
        if (last &&
            ScoreTable::estimate_bytes(space_counts(space.candidates), cfg.max_parents, space_counts(space.extras)) >
                0.8 * static_cast<double>(available_host_bytes())) {
            note(head + "the previous round's table is let go (both do not fit in memory)");
            last.reset();
        }
        ScoreTable table = prepare_table(
            space, OrderScoreMode::Max, scorer, cfg, engines, comm, scratch,
            [&](const std::string& line) { note(head + line); }, progress, last ? &*last : nullptr, true, warn);
        McmcRunConfig search;
        search.opts = cfg.opts;
        search.opts.mode = OrderScoreMode::Max;
        search.opts.start_order = best_order;
        // The round's chains report as a phase of their own (in Python: progress and Ctrl-C).
        if (progress)
            search.on_progress = [&progress](const McmcProgress& p) {
                progress("search space chains", p.done, p.total);
            };
        pick_chain_engine(search, table, engines, comm);
        const OrderMcmcResult r = run_mcmc(table, search, comm);
        // The MAP DAG as (parent count, parents...) per node, from rank 0 to every rank.
        std::vector<std::int32_t> flat;
        double map_score = 0.0;
        if (comm.rank() == 0) {
            std::size_t best = 0;
            for (std::size_t c = 1; c < r.chains.size(); ++c)
                if (r.chains[c].best_dag_score > r.chains[best].best_dag_score) best = c;
            map_score = r.chains[best].best_dag_score;
            best_order = r.chains[best].best_order;
            for (const auto& ps : r.chains[best].best_parents) {
                flat.push_back(static_cast<std::int32_t>(ps.size()));
                flat.insert(flat.end(), ps.begin(), ps.end());
            }
        }
        std::int64_t size = static_cast<std::int64_t>(flat.size());
        comm.bcast(&size, 1, mpi::DataType::Int64, 0);
        flat.resize(static_cast<std::size_t>(size));
        comm.bcast(flat.data(), flat.size(), mpi::DataType::Int32, 0);
        best_order.resize(static_cast<std::size_t>(n));
        comm.bcast(best_order.data(), best_order.size(), mpi::DataType::Int32, 0);
        std::int64_t added = 0;
        const auto admit = [&](std::int32_t child, std::int32_t parent) {
            auto& x = space.extras[static_cast<std::size_t>(child)];
            auto& c = space.candidates[static_cast<std::size_t>(child)];
            const auto it = std::find(x.begin(), x.end(), parent);
            if (it == x.end() || static_cast<std::int64_t>(c.size()) >= cfg.hard_limit) return;
            x.erase(it);
            c.push_back(parent);
            ++added;
        };
        std::size_t at = 0;
        for (std::int32_t v = 0; v < n; ++v) {
            const std::int32_t k = flat[at++];
            for (std::int32_t i = 0; i < k; ++i) {
                const std::int32_t p = flat[at++];
                admit(v, p);
                admit(p, v);
            }
        }
        added_total += added;
        note(head + (comm.rank() == 0 ? "MAP DAG score " + fixed3(map_score) + ", " : std::string()) +
             std::to_string(added) + " candidate parents added");
        last.reset();  // before the move: one table less at a time
        last.emplace(std::move(table));
        if (added == 0) break;
    }
    space.description += ", iterative: " + std::to_string(round) + " rounds of max-mode chains added " +
                         std::to_string(added_total) + " candidate parents (hard limit " +
                         std::to_string(cfg.hard_limit) + ")";
    return space;
}

}  // namespace

McmcOutcome run_order_mcmc(const LocalScorer& base, const StructurePrior& prior, const McmcConfig& cfg,
                           mpi::Communicator& comm, const McmcObserver& observer) {
    const Note note = [&](const std::string& line) {
        if (observer.note) observer.note(line);
    };
    const OrderMcmcOptions& opts = cfg.opts;
    const PriorScorer scorer(base, prior);
    McmcOutcome out;
    const McmcEngines engines = pick_mcmc_engines(base, scorer, cfg.max_parents, cfg.gpu, cfg.device);
    out.engines = engines.filler ? "table cuda" : "table cpu";

    // The space sampled: the configured one, or where BiDAG's iterative search ends.
    const auto t_space = std::chrono::steady_clock::now();
    std::optional<ScoreTable> last;       // the iterative search's last table, over the same space
    std::vector<std::int32_t> map_order;  // and its MAP order
    const ScoreTable::Progress& progress = observer.on_table_progress;
    const Note warn = [&](const std::string& line) {
        if (observer.warning) observer.warning(line);
    };
    out.space = cfg.iterative
                    ? iterate_space(cfg.space, scorer, cfg, engines, comm, note, progress, last, map_order, warn)
                    : cfg.space;
    out.seconds_space = seconds_since(t_space);
    if (cfg.iterative)
        note("search space sampled: " + out.space.description + " in " + fixed3(out.seconds_space) + " s");
    ScoreTable table = prepare_table(out.space, opts.mode, scorer, cfg, engines, comm, out, note, progress,
                                     last ? &*last : nullptr, false, warn);
    last.reset();

    McmcRunConfig run;
    run.opts = opts;
    if (cfg.iterative) run.opts.start_order = map_order;  // after the iterative search, chain 0 starts there
    out.start_order = run.opts.start_order;
    pick_chain_engine(run, table, engines, comm);
    if (run.advance) {
        out.engines += ", chains cuda";
    } else {
        if (cfg.gpu) note("the chains run on the CPU threads");
        out.engines += ", chains cpu";
    }
    note("engines: " + out.engines);

    run.config_hash = cfg.digest(table, prior);
    run.settings = cfg.settings(table, prior);
    run.checkpoint = cfg.checkpoint;
    run.resume = cfg.resume;
    run.checkpoint_every = cfg.checkpoint_every;
    run.checkpoint_seconds = cfg.checkpoint_seconds;
    run.stop_after = cfg.stop_after;
    run.collective_checkpoints = cfg.collective_checkpoints;
    run.on_progress = observer.on_progress;
    run.on_checkpoint = observer.on_checkpoint;
    run.on_resume = observer.on_resume;
    const auto t_chains = std::chrono::steady_clock::now();
    if (observer.on_chains_start) observer.on_chains_start();
    out.result = run_mcmc(table, run, comm);
    out.seconds_chains = seconds_since(t_chains);
    if (comm.rank() == 0 && !out.result.chains.empty()) {
        // The best DAG's local scores, as finish_chains found its parents (from the sorted
        // lists where they exist: a split table holds only this rank's entries).
        const auto& chains = out.result.chains;
        for (std::size_t c = 1; c < chains.size(); ++c)
            if (chains[c].best_dag_score > chains[static_cast<std::size_t>(out.best_chain)].best_dag_score)
                out.best_chain = static_cast<std::int64_t>(c);
        out.best_local = order_score_max(table, chains[static_cast<std::size_t>(out.best_chain)].best_order).node_score;
    }
    return out;
}

}  // namespace cudag::bn
