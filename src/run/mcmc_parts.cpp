// SPDX-License-Identifier: Apache-2.0
#include "run/mcmc_parts.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "bn/diagnostics.hpp"
#include "bn/mcmc_run.hpp"
#include "bn/score_table.hpp"
#include "core/choice.hpp"
#include "core/digest.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/parallel.hpp"
#include "cudag/config.hpp"
#include "io/dataset_io.hpp"
#include "io/graph_reader.hpp"
#include "io/hdf5_file.hpp"
#include "io/writers.hpp"
#include "pc/metrics.hpp"
#include "pc/run.hpp"

namespace cudag::run {

namespace {

/// The formats `cudag mcmc --format` writes beside --out.
const std::vector<std::string>& mcmc_formats() {
    static const std::vector<std::string> names = {"edgeprob", "traces", "trace-png", "cpdag", "edges", "dot",
                                                   "json",     "amat",   "cl",        "png",   "svg"};
    return names;
}

std::string fixed(double v, int digits) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

bn::McmcDiagnostics diagnose(const bn::OrderMcmcResult& r, std::int64_t n) {
    bn::McmcDiagnostics d;
    std::vector<std::vector<double>> traces;
    std::vector<double> sums, sumsq;
    for (const auto& c : r.chains) {
        traces.push_back(c.trace);
        sums.insert(sums.end(), c.edge_sum.begin(), c.edge_sum.end());
        sumsq.insert(sumsq.end(), c.edge_sumsq.begin(), c.edge_sumsq.end());
    }
    d.score_psrf = bn::psrf(traces);
    d.score_ess = bn::effective_sample_size(traces);
    d.edges = bn::edge_convergence(sums, sumsq, static_cast<int>(r.chains.size()), r.kept_per_chain, n);
    return d;
}

constexpr Choice<SpaceKind> kSpaces[] = {
    {"auto", SpaceKind::Auto}, {"all", SpaceKind::All}, {"pc", SpaceKind::Pc}, {"iterative", SpaceKind::Iterative}};
}  // namespace

Space parse_space(const std::string& word) {
    if (const std::optional<SpaceKind> kind = find_choice(kSpaces, word)) return {*kind, {}};
    return {SpaceKind::File, word};
}

std::string to_string(const Space& s) { return s.kind == SpaceKind::File ? s.file : choice_word(kSpaces, s.kind); }

void set_space_flags(const McmcJob& a, McmcPlan& plan) {
    // --space iterative starts from --space pc's space and grows it (bn::McmcConfig::iterative).
    const SpaceKind k = a.space.kind;
    plan.space_pc = k == SpaceKind::Pc || k == SpaceKind::Iterative;
    plan.cfg.iterative = k == SpaceKind::Iterative;
    plan.space_all = k == SpaceKind::All;
    plan.space_auto = k == SpaceKind::Auto;
}

double full_table_entries(std::int64_t n, int max_parents) {
    // n nodes, each with the sets of at most max_parents of its n - 1 others.
    double each = 0.0, binom = 1.0;
    for (std::int64_t k = 0; k <= std::min<std::int64_t>(max_parents, n - 1); ++k) {
        each += binom;
        binom = binom * static_cast<double>(n - 1 - k) / static_cast<double>(k + 1);
    }
    return static_cast<double>(n) * each;
}

void resolve_space(McmcJob& a, McmcPlan& plan, std::int64_t n) {
    if (a.space.kind != SpaceKind::Auto) return;
    a.space.kind = full_table_entries(n, a.max_parents) <= kAutoAllEntries ? SpaceKind::All : SpaceKind::Pc;
    set_space_flags(a, plan);
}

std::optional<std::string> recorded_space(const std::string& checkpoint) {
    try {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(checkpoint, ec)) return std::nullopt;
        const io::h5::Handle file = io::h5::open_file(checkpoint);
        const hid_t root = file.get();
        const std::string where = "checkpoint '" + checkpoint + "'";
        if (!io::h5::has_attr(root, "format")) return std::nullopt;
        const auto format = io::h5::read_string_attr(root, "format", where);
        if (format.size() != 1) return std::nullopt;
        // An mcmc --bootstrap checkpoint (a PC bootstrap's format) records its --space always.
        if (io::h5::has_attr(root, "setting_names") && io::h5::has_attr(root, "setting_values")) {
            const auto names = io::h5::read_string_attr(root, "setting_names", where);
            const auto values = io::h5::read_string_attr(root, "setting_values", where);
            for (std::size_t k = 0; k < names.size() && k < values.size(); ++k)
                if (names[k] == "--space") return values[k];
        }
        // A run's checkpoint written before the space was recorded: the default then.
        if (format[0] == "cudag-mcmc-checkpoint-1") return std::string("all");
        return std::nullopt;
    } catch (const std::exception&) {
        return std::nullopt;  // not a checkpoint cudag reads: the resume says why
    }
}

McmcPlan plan_mcmc(McmcJob& a, const mpi::Environment& env) {
    McmcPlan plan;
    // The hidden --tune items (key=value, several per item separated by commas).
    for (const std::string& list : a.tunes)
        for (const std::string& item : split_commas(list)) {
            const std::size_t eq = item.find('=');
            const std::string key = item.substr(0, eq), value = eq == std::string::npos ? "" : item.substr(eq + 1);
            // A finite number >= 0, or the one-line refusal naming what it must be.
            auto non_negative = [&](const std::string& what) {
                std::size_t used = 0;
                double x = -1.0;
                try {
                    x = std::stod(value, &used);
                } catch (const std::exception&) {
                    used = 0;
                }
                if (used == 0 || used != value.size() || !(x >= 0.0) || !std::isfinite(x))
                    throw InputError("--tune " + key + " must be a finite " + what + " >= 0, got '" + value + "'");
                return x;
            };
            if (key == "sum-prune") {
                // Sum mode's pruning (bn::ScoreTable::prune_sum): experimental, the chains
                // still walk every entry.
                a.sum_prune = non_negative("number");
                continue;
            }
            if (key == "sum-rows") {
                // Sum mode's subset rows (bn::ScoreTable::build_subset_rows): GiB, 0 none.
                a.sum_rows_gib = non_negative("number of GiB");
                continue;
            }
            if (key != "table-prune")
                throw InputError("unknown --tune key '" + key +
                                 "' of cudag mcmc (keys: table-prune, sum-prune, sum-rows)");
            if (value != "on" && value != "off")
                throw InputError("--tune table-prune must be on or off, got '" + value + "'");
            plan.cfg.table_prune = value == "on";
        }
    if (a.out == "-") a.out.clear();
    std::vector<std::string>& formats = plan.formats;
    formats = unique_items(split_commas(a.formats));
    for (const std::string& f : formats)
        if (std::find(mcmc_formats().begin(), mcmc_formats().end(), f) == mcmc_formats().end()) {
            std::string list;
            for (const std::string& v : mcmc_formats()) list += (list.empty() ? "" : ", ") + v;
            throw InputError("unknown output format '" + f + "' (valid: " + list + ")");
        }
    io::check_force(a.force, formats);
    if (!formats.empty() && a.out.empty())
        throw InputError("--format needs --out FILE.h5 (the files are written beside it)");
    bn::OrderMcmcOptions& opts = plan.cfg.opts;
    opts.mode = a.order_score;
    opts.moves = a.moves;
    if (a.chains < 1) throw InputError("--chains must be at least 1, got " + std::to_string(a.chains));
    // A run must keep at least one iteration: the outputs and diagnostics are over the kept
    // ones (iterations t with burn_in < t <= iterations and (t - burn_in) % thin == 0).
    if (a.iterations < 1)
        throw InputError("--iterations must be at least 1 (a run keeps iterations after --burn-in), got " +
                         std::to_string(a.iterations));
    if (!a.burn_in) a.burn_in = a.iterations / 5;
    if (*a.burn_in < 0 || *a.burn_in >= a.iterations)
        throw InputError("--burn-in must lie in [0, --iterations - 1 = " + std::to_string(a.iterations - 1) +
                         "] so that an iteration is kept, got " + std::to_string(*a.burn_in));
    if (a.thin < 1 || a.thin > a.iterations - *a.burn_in)
        throw InputError(
            "--thin must lie in [1, --iterations - --burn-in = " + std::to_string(a.iterations - *a.burn_in) +
            "] so that an iteration is kept, got " + std::to_string(a.thin));
    if (a.max_parents < 0) throw InputError("--max-parents must be >= 0, got " + std::to_string(a.max_parents));
    if (!(a.edge_penalty > 0.0) || !std::isfinite(a.edge_penalty))
        throw InputError("--edge-penalty must be a positive number, got " + exact_number(a.edge_penalty));
    // --space auto with --alpha or --hard-limit: the pc space they set; else decided once the
    // data's variables are known (resolve_space).
    if (a.space.kind == SpaceKind::Auto && (a.alpha_given || a.hard_limit_given)) a.space.kind = SpaceKind::Pc;
    set_space_flags(a, plan);
    const bool space_pc = plan.space_pc || plan.space_auto;
    if (a.sum_prune) {
        if (a.order_score != bn::OrderScoreMode::Sum)
            throw InputError("--tune sum-prune applies to --order-score sum only");
        plan.cfg.sum_prune = *a.sum_prune;
    }
    if (a.sum_rows_gib) {
        if (a.order_score != bn::OrderScoreMode::Sum)
            throw InputError("--tune sum-rows applies to --order-score sum only");
        plan.cfg.sum_rows_bytes = *a.sum_rows_gib * static_cast<double>(1ull << 30);
    }
    plan.cfg.hard_limit = a.hard_limit;
    if (!space_pc && (a.alpha_given || a.hard_limit_given))
        throw InputError("--alpha and --hard-limit apply to --space pc and iterative only");
    if (space_pc && !(a.alpha > 0.0 && a.alpha < 1.0))
        throw InputError("--alpha must lie in (0, 1), got " + exact_number(a.alpha));
    if (space_pc && a.hard_limit < 1)
        throw InputError("--hard-limit must be at least 1, got " + std::to_string(a.hard_limit));
    if (a.checkpoint == "-") throw InputError("--checkpoint needs a file name, not '-'");
    if (a.resume && a.checkpoint.empty()) throw InputError("--resume needs --checkpoint FILE");
    if (a.checkpoint_every && a.checkpoint.empty()) throw InputError("--checkpoint-every needs --checkpoint FILE");
    const CheckpointInterval every = a.checkpoint_every.value_or(CheckpointInterval{0, 300.0});  // 5 minutes
    plan.cfg.checkpoint_every = every.iterations;
    plan.cfg.checkpoint_seconds = every.seconds;
    plan.backend = a.backend;
    a.threads = checked_threads(a.threads, a.quiet || env.rank() != 0);
    opts.chains = a.chains;
    opts.iterations = a.iterations;
    opts.burn_in = *a.burn_in;
    opts.thin = a.thin;
    opts.seed = a.seed;
    opts.threads = a.threads;
    if (env.mpi() && opts.threads == 0) opts.threads = std::max(1, resolve_threads(0) / std::max(1, env.local_size()));
    plan.cfg.max_parents = a.max_parents;
    plan.cfg.checkpoint = a.checkpoint;
    plan.cfg.resume = a.resume;
    plan.cfg.stop_after = a.stop_after;
    return plan;
}

skeleton::TestKind space_test(bn::ScoreKind kind) {
    if (kind == bn::ScoreKind::BGe) return skeleton::TestKind::FisherZ;
    if (kind == bn::ScoreKind::CgBic) return skeleton::TestKind::CgLrt;
    return skeleton::TestKind::ChiSquare;
}

MemoryPlan skeleton_memory_plan(const McmcJob& a, bn::ScoreKind kind, std::int64_t n, std::int64_t samples) {
    Dataset shape;  // the plan reads the shape and the test alone
    shape.n_vars = n;
    shape.n_samples = samples;
    pc::PcConfig cfg;
    cfg.test.kind = space_test(kind);
    // The skeleton's engine as run_pc picks it (auto resolved: the CPU's without a GPU).
    const bool gpu = picks_gpu(a.backend);
    cfg.backend.kind = gpu ? BackendKind::Cuda : BackendKind::Cpu;
    cfg.backend.threads = a.threads;
    const pc::HostMemoryPlan p = pc::host_memory_plan(shape, cfg, gpu);
    const std::string nn = std::to_string(n) + " x " + std::to_string(n);
    MemoryPlan plan;
    plan.add("the data read again for it", 8.0 * static_cast<double>(n) * static_cast<double>(samples),
             "give the space as a file (--space FILE), or run on fewer variables or samples");
    plan.add(p.correlation > 0.0 ? "the standardised data and the packed rows computing C"
                                 : "the engine's standardised data",
             p.data, "give the space as a file (--space FILE), or run on fewer variables or samples");
    plan.add("the CPU engine's " + nn + " correlation matrix", p.correlation,
             "run the skeleton on a GPU (--backend cuda), or give the space as a file (--space FILE)");
    plan.add("the graphs", p.graphs);
    plan.add("the pMax table", p.pmax);
    return plan;
}

MemoryPlan sampling_memory_plan(const McmcJob& a, const McmcPlan& plan, std::int64_t n, const bn::ParentSpace* space,
                                int rank, int ranks) {
    const bn::McmcConfig& cfg = plan.cfg;
    const std::string nn = std::to_string(n) + " x " + std::to_string(n);
    MemoryPlan m;
    if (!a.prior.empty())
        m.add("the prior's " + nn + " beliefs", 8.0 * static_cast<double>(n) * static_cast<double>(n));
    // The table: every other node's sets, the space's, or (--space pc before its skeleton)
    // the least a plus1 space holds, every other node an extra parent of each.
    std::vector<std::int64_t> counts, extras;
    std::string which = "the local-score table";
    if (space != nullptr && !space->all) {
        for (const auto& c : space->candidates) counts.push_back(static_cast<std::int64_t>(c.size()));
        for (const auto& x : space->extras) extras.push_back(static_cast<std::int64_t>(x.size()));
    } else if (space != nullptr || plan.space_all) {
        counts.assign(static_cast<std::size_t>(n), std::max<std::int64_t>(n - 1, 0));
    } else if (plan.space_pc && !a.knowledge.any()) {
        counts.assign(static_cast<std::size_t>(n), 0);
        extras.assign(static_cast<std::size_t>(n), std::max<std::int64_t>(n - 1, 0));
        which += " (at least: every other variable an extra parent)";
    }
    double table = counts.empty() ? 0.0 : bn::ScoreTable::estimate_bytes(counts, cfg.max_parents, extras);
    // Max mode on several ranks keeps each rank's block of nodes only (bn/table_split.hpp).
    if (cfg.opts.mode == bn::OrderScoreMode::Max && ranks > 1) {
        table /= static_cast<double>(ranks);
        which += ", this rank's share";
    }
    m.add(which, table, "lower --max-parents, or restrict the parent space (--space pc or FILE)");
    const auto [c0, c1] = bn::chain_block(cfg.opts.chains, rank, ranks);
    const std::int64_t local = c1 - c0;
    const bn::ChainMemory chains = bn::chain_memory(cfg.opts, n, local, rank == 0);
    const std::string here = std::to_string(local) + (local == 1 ? " chain" : " chains") + " here";
    m.add("the chains' " + nn + " edge sums (" + here + (rank == 0 ? ", and their combination" : "") + ")",
          chains.edge_sums,
          "run fewer chains per rank (--chains, or spread them over more ranks: each holds its own chains' "
          "sums); --iterations does not change them");
    m.add("the chains' kept traces (" + here + " x " + std::to_string(bn::kept_iterations(cfg.opts)) +
              " kept iterations)",
          chains.traces, "keep fewer iterations: lower --iterations, or raise --thin or --burn-in");
    return m;
}

CheckpointInterval parse_checkpoint_every(const std::string& text) {
    std::size_t used = 0;
    double v = 0.0;
    try {
        v = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    const std::string unit = text.substr(used);
    const double scale = unit.empty() ? 0.0 : unit == "s" ? 1.0 : unit == "m" ? 60.0 : unit == "h" ? 3600.0 : -1.0;
    if (used == 0 || scale < 0.0 || !(v > 0.0) || !std::isfinite(v) || (unit.empty() && v != std::floor(v)))
        throw InputError("--checkpoint-every takes N iterations or a time such as 90s, 10m, 1h; got '" + text + "'");
    CheckpointInterval every;
    if (unit.empty())
        every.iterations = static_cast<std::int64_t>(v);
    else
        every.seconds = v * scale;
    return every;
}

std::vector<double> read_prior(const std::string& path, const std::vector<std::string>& names) {
    Dataset m;
    try {
        m = io::read_dataset(path, "", io::TableMode::Numeric);
    } catch (const io::NonNumericCell& e) {
        throw InputError(std::string(e.what()) + "; --prior holds beliefs in [0, 1]");
    }
    const auto n = static_cast<std::int64_t>(names.size());
    if (m.n_vars != n || m.n_samples != n)
        throw InputError("--prior " + path + ": a " + std::to_string(n) + " x " + std::to_string(n) +
                         " matrix is needed (one row and column per variable), not " + std::to_string(m.n_samples) +
                         " x " + std::to_string(m.n_vars));
    std::vector<std::int64_t> index(static_cast<std::size_t>(n), -1);  // file column -> data variable
    for (std::int64_t c = 0; c < n; ++c) {
        const auto it = std::find(names.begin(), names.end(), m.names[c]);
        if (it == names.end())
            throw InputError("--prior " + path + ": column '" + m.names[c] + "' is not a variable of the data");
        index[c] = it - names.begin();
    }
    std::vector<double> belief(static_cast<std::size_t>(n * n));
    for (std::int64_t row = 0; row < n; ++row)
        for (std::int64_t col = 0; col < n; ++col) {
            const double r = m.column(col)[row];
            if (!(r >= 0.0 && r <= 1.0))
                throw InputError("--prior " + path + ": row " + std::to_string(row + 1) + " ('" + m.names[row] +
                                 "'), column '" + m.names[col] + "' is " + exact_number(r) + ", outside [0, 1]");
            belief[static_cast<std::size_t>(index[row] * n + index[col])] = r;
        }
    return belief;
}

Pdag read_space_graph(const std::string& path, const std::vector<std::string>& data_names) {
    std::vector<std::string> names = data_names;
    return io::read_graph(path, names);
}

bn::ParentSpace read_space_file(const std::string& path, const std::vector<std::string>& data_names) {
    return bn::space_from_graph(read_space_graph(path, data_names), "file " + path);
}

bn::ParentSpace pc_space(const McmcJob& a, bn::ScoreKind kind, const std::vector<std::string>& names,
                         mpi::Communicator& comm, skeleton::Progress& progress, const DataReader& reader,
                         const bn::ScoreTable::Progress& phase) {
    Dataset data = read_scored_data(reader, a.data, a.dataset, score_table_mode(kind, a.score.discrete), a.score);
    pc::PcConfig cfg;
    cfg.alpha = a.alpha;
    cfg.test.kind = space_test(kind);
    cfg.backend.kind = a.backend;
    cfg.backend.threads = a.threads;
    // The caller hears each level's start and end (levels done of those begun): its progress
    // and, in Python, Ctrl-C between levels.
    if (phase) {
        cfg.on_level_start = [&phase](const skeleton::LevelPlan& p) { phase("pc skeleton", p.level, p.level + 1); };
        cfg.on_level = [&phase](const skeleton::LevelStats& s) { phase("pc skeleton", s.level + 1, s.level + 1); };
    }
    const pc::PcResult r = pc::run_pc(data, cfg, comm);
    // Each skeleton edge once (a < b, sorted), with its pMax (0 when it has none): each pMax
    // pair of an edge found by binary search, not by a scan of the edges.
    std::vector<bn::SkeletonEdge> edges;
    for (std::int32_t v = 0; v < static_cast<std::int32_t>(names.size()); ++v)
        for (const std::int32_t u : r.skeleton.neighbours(v))
            if (u > v) edges.push_back({v, u, 0.0});
    const auto before = [](const bn::SkeletonEdge& e, std::pair<std::int32_t, std::int32_t> k) {
        return std::pair(e.a, e.b) < k;
    };
    std::sort(edges.begin(), edges.end(), [](const bn::SkeletonEdge& x, const bn::SkeletonEdge& y) {
        return std::pair(x.a, x.b) < std::pair(y.a, y.b);
    });
    for (const skeleton::PairP& p : r.pmax) {
        const std::pair<std::int32_t, std::int32_t> key{std::min(p.i, p.j), std::max(p.i, p.j)};
        const auto it = std::lower_bound(edges.begin(), edges.end(), key, before);
        if (it != edges.end() && it->a == key.first && it->b == key.second) it->p = p.p;
    }
    bn::ParentSpace s = bn::space_from_skeleton(static_cast<std::int64_t>(names.size()), edges, a.hard_limit,
                                                "pc (alpha " + exact_number(a.alpha));
    progress.note("search space: " + s.description);
    return s;
}

void set_scored(bn::McmcConfig& cfg, const McmcJob& a, const ScoreInputs& in) {
    // Then the prior, the space and every option that changes a chain (McmcConfig::digest).
    cfg.scored.add_value(in.data_digest)
        .add_string(bn::score_name(a.score.score))
        .add_value(a.score.iss)
        .add_value(a.score.am);
    cfg.scored.add_value(a.score.aw_given ? a.score.aw : -1.0);
    Digest data;
    data.add_value(in.data_digest);
    cfg.scored_settings = {{"the data (--data)", data.hex()},
                           {"--score", bn::score_name(a.score.score)},
                           {"--iss", exact_number(a.score.iss)},
                           {"--am", exact_number(a.score.am)},
                           {"--aw", a.score.aw_given ? exact_number(a.score.aw) : "default"}};
}

bn::McmcObserver mcmc_observer(const McmcJob& a, skeleton::Progress& progress, const McmcHooks& hooks, bool root) {
    using clock = std::chrono::steady_clock;
    struct Clock {
        clock::time_point last_line = clock::now(), chains = clock::now();
        std::int64_t first_done = -1;  ///< the iteration the chains (re)started from
        std::string phase;             ///< the table phase reported last, and when it began
        clock::time_point phase_start = clock::now();
        std::int64_t phase_done = 0;
    };
    const auto at = std::make_shared<Clock>();
    bn::McmcObserver observer;
    observer.note = [&progress](const std::string& line) { progress.note(line); };
    // The estimate's warning: the caller's (Python's warnings), else one line on stderr.
    if (root && hooks.warning)
        observer.warning = hooks.warning;
    else if (root && !a.quiet)
        observer.warning = [](const std::string& line) { std::cerr << "cudag mcmc: warning: " << line << '\n'; };
    observer.on_chains_start = [at] { at->chains = clock::now(); };
    observer.on_progress = [at, &progress, &hooks](const bn::McmcProgress& p) {
        if (at->first_done < 0) at->first_done = 0;
        if (hooks.progress) hooks.progress(p);
        const bool last = p.done == p.total;
        const auto since = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
        if (!progress.enabled() || (!last && since(at->last_line) < 2.0)) return;
        at->last_line = clock::now();
        const double t = since(at->chains);
        const double rate = t > 0.0 ? static_cast<double>(p.done - at->first_done) / t : 0.0;
        const double eta = rate > 0.0 ? static_cast<double>(p.total - p.done) / rate : 0.0;
        progress.note(
            "iteration " + std::to_string(p.done) + " of " + std::to_string(p.total) + " (" + std::to_string(p.chains) +
            " chains), acceptance " +
            fixed(p.done > 0 ? static_cast<double>(p.accepted) / static_cast<double>(p.done * p.chains) : 0.0, 3) +
            ", best order score " + fixed(p.best_score, 3) + ", " + fixed(rate, 1) + " it/s, " + fixed(eta, 0) +
            " s left");
    };
    // The table's and the lists' progress: what is done of what is planned, at most a line a
    // second (the first after a second), with the time left at the rate so far.
    observer.on_table_progress = [at, &progress, &hooks](const char* what, std::int64_t done, std::int64_t total) {
        if (hooks.table_progress) hooks.table_progress(what, done, total);
        const auto since = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
        if (at->phase != what || done < at->phase_done) {
            at->phase = what;
            at->phase_start = at->last_line = clock::now();
        }
        at->phase_done = done;
        if (!progress.enabled() || since(at->last_line) < 1.0) return;
        at->last_line = clock::now();
        const double t = since(at->phase_start);
        const double left = done > 0 ? t * static_cast<double>(total - done) / static_cast<double>(done) : 0.0;
        progress.note(std::string(what) + ": " + skeleton::Progress::count(static_cast<double>(done)) + " of " +
                      skeleton::Progress::count(static_cast<double>(total)) + " entries (" +
                      fixed(total > 0 ? 100.0 * static_cast<double>(done) / static_cast<double>(total) : 100.0, 0) +
                      "%) in " + skeleton::Progress::duration(t) + ", about " + skeleton::Progress::duration(left) +
                      " left");
    };
    const std::string checkpoint = a.checkpoint;
    observer.on_checkpoint = [checkpoint](std::int64_t done) {
        interrupt::set_note("the last checkpoint is iteration " + std::to_string(done) + " in '" + checkpoint +
                            "' (continue with --resume)");
    };
    const bool say = root && !a.quiet;
    observer.on_resume = [at, checkpoint, say](std::int64_t done) {
        at->first_done = done;
        if (say)
            std::cerr << "cudag mcmc: resuming from checkpoint '" << checkpoint << "' at iteration " << done << '\n';
    };
    return observer;
}

namespace {

/// Counts comma-separated ("" when empty).
std::string joined(const std::vector<std::int64_t>& counts) {
    std::string s;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        if (i) s += ',';
        s += std::to_string(counts[i]);
    }
    return s;
}

}  // namespace

bn::McmcOutput mcmc_output(const McmcJob& a, const std::string& command_line, const ScoreInputs& in,
                           const bn::McmcConfig& cfg, bn::McmcOutcome& run, int ranks) {
    const auto n = static_cast<std::int64_t>(in.names.size());
    const bn::OrderMcmcOptions& opts = cfg.opts;
    bn::McmcOutput o;
    o.names = in.names;
    o.n_samples = in.n_samples;
    o.best_chain = run.best_chain;
    const auto& best = run.result.chains[static_cast<std::size_t>(o.best_chain)];
    Graph skeleton(n);
    for (std::int32_t v = 0; v < n; ++v)
        for (const std::int32_t p : best.best_parents[v]) skeleton.add(p, v);
    o.best_dag = Pdag(skeleton);
    for (std::int32_t v = 0; v < n; ++v)
        for (const std::int32_t p : best.best_parents[v]) o.best_dag.orient(p, v);
    o.best_dag_score = best.best_dag_score;
    o.cpdag = pc::dag_to_cpdag(o.best_dag);
    o.diagnostics = diagnose(run.result, n);
    o.burn_in = opts.burn_in;
    o.thin = opts.thin;
    o.config = {{"learner", "order-mcmc"},
                {"score", bn::score_name(a.score.score)},
                {"iss", exact_number(a.score.iss)},
                {"max_parents", std::to_string(a.max_parents)},
                {"space", run.space.description},
                {"order_score", bn::to_string(a.order_score)},
                {"sum_prune", a.sum_prune ? exact_number(*a.sum_prune) : "off"},  // --tune sum-prune
                {"moves", bn::to_string(a.moves)},
                {"chains", std::to_string(opts.chains)},
                {"iterations", std::to_string(opts.iterations)},
                {"burn_in", std::to_string(opts.burn_in)},
                {"thin", std::to_string(opts.thin)},
                {"seed", std::to_string(opts.seed)},
                {"edge_penalty", exact_number(a.edge_penalty)},
                {"prior", a.prior},
                {"input", a.data},
                {"input_dataset", a.dataset},
                {"command_line", command_line},
                {"cudag_version", CUDAG_VERSION},
                {"host", mpi::host_name()},
                {"ranks", std::to_string(ranks)},
                {"backend", run.engines},
                {"table_pruning", cfg.table_prune && opts.mode == bn::OrderScoreMode::Max ? "on" : "off"},
                {"table_entries", std::to_string(run.table_entries)},
                {"table_scored_by_node", joined(run.scored)},
                {"table_kept_by_node", joined(run.kept)},
                // Sum mode's subset rows (--tune sum-rows): the budget and the nodes given rows.
                {"sum_rows_gib", exact_number(cfg.sum_rows_bytes / static_cast<double>(1ull << 30))},
                {"subset_row_nodes", std::to_string(run.subset_row_nodes)}};
    o.seconds_table = run.seconds_table;
    o.seconds_sort = run.seconds_sort;
    o.seconds_chains = run.seconds_chains;
    o.result = std::move(run.result);
    return o;
}

void write_mcmc_outputs(const McmcJob& a, const std::vector<std::string>& formats, const bn::McmcOutput& o,
                        const std::vector<double>& best_local, io::OutputSet& outputs, const std::string& tmp_h5) {
    bn::write_mcmc_result_hdf5(o, best_local, tmp_h5);
    const io::GraphView view{o.names, o.best_dag};  // the graph formats draw the best DAG
    std::vector<std::string> graph_formats;
    for (const std::string& f : formats) {
        if (f == "edgeprob")
            bn::write_edgeprob_tsv(o, outputs.temp_for(io::format_path(a.out, f)));
        else if (f == "traces")
            bn::write_traces_tsv(o, outputs.temp_for(io::format_path(a.out, f)));
        else if (f == "trace-png") {
            const std::string final_path = io::format_path(a.out, f);
            const std::string temp = outputs.temp_for(final_path);
            std::string message;
            if (!bn::write_traces_png(o, temp, message)) {  // gnuplot is optional: warn
                outputs.discard(final_path);
                const std::size_t at = message.rfind(temp);
                if (at != std::string::npos) message.replace(at, temp.size(), final_path);
                std::cerr << "warning: " << message << '\n';
            }
        } else if (f == "cpdag") {
            io::write_edges(io::GraphView{o.names, o.cpdag}, outputs.temp_for(io::format_path(a.out, f)));
        } else
            graph_formats.push_back(f);
    }
    io::write_formats(view, a.out, graph_formats, outputs, std::cerr);
    outputs.commit();
}

std::string mcmc_summary(const McmcJob& a, const bn::McmcConfig& cfg, const bn::McmcOutput& o,
                         const bn::McmcOutcome& run, std::int64_t n_samples, const io::OutputSet& outputs) {
    const auto& d = o.diagnostics;
    double acceptance = 0.0;
    for (const auto& c : o.result.chains) acceptance += c.acceptance_rate;
    acceptance /= static_cast<double>(o.result.chains.size());
    std::ostringstream os;
    os << "cudag mcmc: " << o.names.size() << " variables, " << n_samples << " samples, "
       << bn::score_name(a.score.score) << ", " << cfg.opts.chains << " chains x " << cfg.opts.iterations
       << " iterations (" << bn::to_string(a.order_score) << "): best DAG score " << fixed(o.best_dag_score, 4)
       << " with " << io::cpdag_edges(o.best_dag).size() << " edges, acceptance " << fixed(acceptance, 3);
    if (cfg.opts.chains > 1)
        os << ", score PSRF " << fixed(d.score_psrf, 3)
           << ", edges with PSRF > 1.1: " << fixed(100.0 * d.edges.fraction_above, 1) << "% of "
           << d.edges.edges_counted;
    if (cfg.iterative) os << "; space search " << fixed(run.seconds_space, 3) << " s";
    os << "; table " << fixed(run.seconds_table, 3) << " s";
    if (run.share.ranks > 1)
        os << " (split over " << run.share.ranks << " ranks, rank 0's share " << fixed(run.share.seconds_own, 3)
           << " s)";
    os << ", sort " << fixed(run.seconds_sort, 3) << " s, chains " << fixed(run.seconds_chains, 3) << " s";
    if (!a.out.empty()) {
        os << "; wrote";
        for (const auto& f : outputs.final_paths()) os << ' ' << f;
    }
    return os.str();
}

}  // namespace cudag::run
