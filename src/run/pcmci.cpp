// SPDX-License-Identifier: Apache-2.0
#include "run/pcmci.hpp"
#include "run/pcmci_parts.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <unordered_map>

#include "ci/batch.hpp"
#include "core/backend.hpp"
#include "core/choice.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "cudag/config.hpp"
#include "io/output_set.hpp"
#include "io/writers.hpp"
#include "mpi/communicator.hpp"
#include "core/interrupt.hpp"
#include "io/checkpoint_lock.hpp"
#include "pcmci/checkpoint.hpp"
#include "pcmci/lagged.hpp"
#include "pcmci/output.hpp"
#include "mpi/environment.hpp"
#include "pcmci/parcorr_test.hpp"
#include "pcmci/pcmciplus.hpp"
#include "pcmci/rank_split.hpp"
#include "run/pcmci_series.hpp"
#include "skeleton/ci_tests.hpp"
#include "skeleton/progress.hpp"
#include "skeleton/test_spec.hpp"

namespace cudag::run {
namespace {

std::vector<std::string> split_tabs(const std::string& line) {
    std::vector<std::string> out;
    std::string cur;
    for (const char ch : line) {
        if (ch == '\t') {
            out.push_back(cur);
            cur.clear();
        } else if (ch != '\r') {
            cur += ch;
        }
    }
    out.push_back(cur);
    return out;
}

/// The series `what` names: a name, else a 0-based index.
std::int32_t series_index(const std::string& what, const std::vector<std::string>& names,
                          const std::unordered_map<std::string, std::int32_t>& index, const std::string& where) {
    if (const auto it = index.find(what); it != index.end()) return it->second;
    std::size_t used = 0;
    long v = -1;
    try {
        v = std::stol(what, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == what.size() && !what.empty() && v >= 0 && v < static_cast<long>(names.size()))
        return static_cast<std::int32_t>(v);
    throw InputError(where + ": no series named '" + what + "'");
}

/// The pc_alpha of the run: one number, or the list selected among (comma-separated).
std::string pc_alpha_text(const pcmci::Settings& s) {
    if (s.pc_alpha_list.empty()) return exact_number(s.pc_alpha);
    std::string text;
    for (const double a : s.pc_alpha_list) {
        if (!text.empty()) text += ',';
        text += exact_number(a);
    }
    return text;
}

/// The job's settings as the result's config entries (file order).
/// `s`: the settings the run used (the job's, with the method's defaults applied).
std::vector<std::pair<std::string, std::string>> config_of(const PcmciJob& a, const pcmci::Settings& s,
                                                           const pcmci::Result& r, const std::string& command_line) {
    const auto opt = [](std::int32_t v) { return v < 0 ? std::string("none") : std::to_string(v); };
    std::vector<std::pair<std::string, std::string>> c = {
        {"method", to_string(a.method)},
        {"test", to_string(a.test)},
        {"tau_min", std::to_string(s.tau_min)},
        {"tau_max", std::to_string(s.tau_max)},
        {"pc_alpha", pc_alpha_text(s)},
        {"alpha_level", exact_number(s.alpha_level)},
        {"max_conds_dim", opt(s.max_conds_dim)},
        {"max_combinations", std::to_string(s.max_combinations)},
        {"max_conds_py", opt(s.max_conds_py)},
        {"max_conds_px", opt(s.max_conds_px)},
        {"fdr_method", to_string(a.fdr)},
        {"link_assumptions", a.links.empty() ? "default" : a.links},
        {"samples", std::to_string(r.samples)},
        {"input", a.data},
        {"input_dataset", a.dataset},
        {"command_line", command_line},
        {"cudag_version", CUDAG_VERSION},
    };
    if (a.method == PcmciMethod::PcmciPlus) {
        c.emplace_back("contemp_collider_rule", pcmci::to_string(s.contemp_collider_rule));
        c.emplace_back("conflict_resolution", s.conflict_resolution ? "true" : "false");
        c.emplace_back("reset_lagged_links", s.reset_lagged_links ? "true" : "false");
        c.emplace_back("max_conds_px_lagged", opt(s.max_conds_px_lagged));
    }
    if (a.test == PcmciTest::CmiKnn) {
        const ci::CmiKnnSpec spec = cmi_knn_spec(a.cmi, ci::TestKind::CmiKnn);
        c.emplace_back("cmiknn_knn", exact_number(spec.knn));
        c.emplace_back("cmiknn_shuffle_neighbors", std::to_string(spec.shuffle_neighbors));
        c.emplace_back("cmiknn_permutations", std::to_string(spec.permutations));
        c.emplace_back("cmiknn_seed", std::to_string(spec.seed));
        c.emplace_back("cmiknn_transform", ci::to_string(spec.transform));
    }
    // The input's options (run/pcmci_series.hpp), when given.
    if (!a.missing_flag.empty()) c.emplace_back("missing_flag", a.missing_flag);
    if (!a.series_column.empty()) c.emplace_back("series_column", a.series_column);
    if (!a.time_column.empty()) c.emplace_back("time_column", a.time_column);
    return c;
}

/// --checkpoint's options checked, its lock taken into `lock` and an existing checkpoint
/// refused unless --resume or --overwrite-checkpoint (claim_outputs), before any work.
void claim_checkpoint(const PcmciJob& a, mpi::Communicator* comm, io::CheckpointLock& lock) {
    if (a.checkpoint.empty()) {
        if (a.resume) throw InputError("--resume needs --checkpoint FILE");
        if (a.keep_checkpoint) throw InputError("--keep-checkpoint needs --checkpoint FILE");
    }
    if (a.checkpoint == "-") throw InputError("--checkpoint needs a file name, not '-'");
    if (!(a.checkpoint_every >= 0.0))
        throw InputError("--checkpoint-every must be >= 0 seconds, got " + exact_number(a.checkpoint_every));
    mpi::SerialCommunicator one;
    io::OutputSet none;
    claim_outputs(comm ? *comm : one, none, "", {},
                  {a.checkpoint, a.resume, a.overwrite_checkpoint, false, &lock, a.quiet});
}

}  // namespace

void set_pc_alpha(PcmciJob& job, const std::string& text, const std::string& what) {
    job.pc_alpha_given = true;
    job.pc_alpha_auto = false;
    job.settings.pc_alpha_list.clear();
    if (text == "auto") {
        job.pc_alpha_auto = true;
        return;
    }
    std::vector<double> values;
    std::stringstream in(text);
    std::string item;
    bool bad = text.empty() || text.back() == ',';
    while (!bad && std::getline(in, item, ',')) {
        std::size_t used = 0;
        double v = 0.0;
        try {
            v = std::stod(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        bad = used == 0 || used != item.size();
        values.push_back(v);
    }
    if (bad)
        throw InputError(what + " '" + text +
                         "': expected a number in [0, 1], numbers separated by commas (tigramite's pc_alpha "
                         "list, the best chosen) or auto (tigramite's None)");
    if (values.size() == 1)
        job.settings.pc_alpha = values[0];
    else
        job.settings.pc_alpha_list = std::move(values);
}

pcmci::LinkAssumptions read_link_assumptions(const std::string& path, const std::vector<std::string>& names) {
    std::ifstream in(path);
    if (!in) throw InputError("--links '" + path + "': cannot be read");
    std::unordered_map<std::string, std::int32_t> index;
    for (std::size_t v = 0; v < names.size(); ++v) index.emplace(names[v], static_cast<std::int32_t>(v));
    pcmci::LinkAssumptions la;
    la.links.resize(names.size());
    std::string line;
    for (std::int64_t no = 1; std::getline(in, line); ++no) {
        if (line.empty() || line[0] == '#' || line == "\r") continue;
        const std::string where = "--links '" + path + "' line " + std::to_string(no);
        const std::vector<std::string> f = split_tabs(line);
        if (f.size() != 4)
            throw InputError(where + ": expected cause<TAB>effect<TAB>lag<TAB>type, got " + std::to_string(f.size()) +
                             " fields");
        if (f[0] == "cause" && f[1] == "effect") continue;  // a header line
        const std::int32_t cause = series_index(f[0], names, index, where);
        const std::int32_t effect = series_index(f[1], names, index, where);
        std::size_t used = 0;
        int lag = -1;
        try {
            lag = std::stoi(f[2], &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != f[2].size() || lag < 0) throw InputError(where + ": lag '" + f[2] + "' is not an integer >= 0");
        if (!pcmci::is_link_type(f[3]))
            throw InputError(where + ": type '" + f[3] + "' (the types are o-o, o?o, -->, -?>, <--, <?-)");
        for (const auto& [node, type] : la.links[static_cast<std::size_t>(effect)])
            if (node == pcmci::Node{cause, lag}) throw InputError(where + ": the link is given twice");
        la.links[static_cast<std::size_t>(effect)].push_back({{cause, lag}, f[3]});
    }
    return la;
}

namespace {
constexpr Choice<PcmciMethod> kMethods[] = {{"pcmci", PcmciMethod::Pcmci}, {"pcmciplus", PcmciMethod::PcmciPlus}};
constexpr Choice<PcmciTest> kTests[] = {{"parcorr", PcmciTest::ParCorr}, {"cmiknn", PcmciTest::CmiKnn}};
constexpr Choice<FdrMethod> kFdrMethods[] = {{"none", FdrMethod::None}, {"fdr_bh", FdrMethod::FdrBh}};
}  // namespace

PcmciMethod parse_pcmci_method(const std::string& name) { return parse_choice(kMethods, "--method", name); }
std::string to_string(PcmciMethod m) { return choice_word(kMethods, m); }
PcmciTest parse_pcmci_test(const std::string& name) { return parse_choice(kTests, "--test", name); }
std::string to_string(PcmciTest t) { return choice_word(kTests, t); }
FdrMethod parse_fdr(const std::string& name) { return parse_choice(kFdrMethods, "--fdr", name); }
std::string to_string(FdrMethod f) { return choice_word(kFdrMethods, f); }

PcmciRun run_pcmci(const PcmciJob& a, const std::string& command_line, const DataReader& read, mpi::Communicator* comm,
                   int local_rank) {
    const auto start = std::chrono::steady_clock::now();
    const bool ranks = comm && comm->size() > 1;
    const bool lead = !comm || comm->rank() == 0;
    const bool plus = a.method == PcmciMethod::PcmciPlus;
    if (!plus) {
        const pcmci::Settings d;
        if (a.settings.contemp_collider_rule != d.contemp_collider_rule ||
            a.settings.conflict_resolution != d.conflict_resolution ||
            a.settings.reset_lagged_links != d.reset_lagged_links ||
            a.settings.max_conds_px_lagged != d.max_conds_px_lagged)
            throw InputError(
                "--contemp-collider-rule, --no-conflict-resolution, --reset-lagged-links and "
                "--max-conds-px-lagged are settings of PCMCI+ (pcmciplus) only");
    }
    const BackendKind backend = a.backend;
    const int threads = resolve_threads(checked_threads(a.threads, a.quiet));
    std::vector<io::NamedPath> outputs_named;
    const bool to_stdout = a.out.empty() || a.out == "-";
    std::vector<std::string> formats;
    {
        std::stringstream fs(a.formats);
        for (std::string f; std::getline(fs, f, ',');)
            if (!f.empty() && std::find(formats.begin(), formats.end(), f) == formats.end()) formats.push_back(f);
    }
    for (const std::string& f : formats) pcmci_format_paths("", f);  // an unknown one refused
    if (!formats.empty() && to_stdout) throw InputError("--format writes files beside --out: give --out FILE.h5");
    io::check_force(a.force, formats);
    if (!to_stdout) {
        outputs_named.push_back({"--out", a.out});
        for (const std::string& f : formats)
            for (const std::string& path : pcmci_format_paths(a.out, f))
                outputs_named.push_back({"--format " + f, path});
    }
    outputs_named.push_back({"--checkpoint", a.checkpoint});
    io::check_distinct({{"--data", a.data}, {"--links", a.links}},
                       with_checkpoint_side_files(outputs_named, a.checkpoint, false));
    io::CheckpointLock lock;  // held for the run's life (rank 0)
    claim_checkpoint(a, comm, lock);

    // The series: numbers only, rows in time order, missing cells only with --missing-flag,
    // none constant; one or several (run/pcmci_series.hpp).
    const PcmciSeries input =
        read_pcmci_series({a.data, a.dataset, a.missing_flag, a.series_column, a.time_column}, read);
    const Dataset& series = input.data;
    pcmci::Settings s = a.settings;
    s.fdr_bh = a.fdr == FdrMethod::FdrBh;
    s.threads = threads;
    if (plus && !a.pc_alpha_given) s.pc_alpha = 0.01;  // run_pcmciplus's default
    if (a.pc_alpha_auto) s.pc_alpha_list = pcmci::default_pc_alpha_list(plus);
    if (!s.pc_alpha_list.empty() && a.test != PcmciTest::ParCorr)
        throw InputError(
            "--pc-alpha with several values or auto selects by ParCorr's model selection criterion: it needs --test "
            "parcorr (tigramite scores CMIknn by nearest-neighbour cross-validation, which cudag does not build)");
    if (plus)
        pcmci::check_pcmciplus_settings(s, static_cast<std::int32_t>(series.n_vars), input.longest());
    else
        pcmci::check_settings(s, static_cast<std::int32_t>(series.n_vars), input.longest());
    if (!a.links.empty()) s.link_assumptions = read_link_assumptions(a.links, series.names);

    const pcmci::LaggedData lagged = pcmci::make_lagged(series, 2 * s.tau_max, input.starts);
    // Drawing many nodes takes Graphviz minutes: the time-series graph has N·(tau_max + 1).
    if (io::draws(formats) && series.n_vars * (s.tau_max + 1) > kMaxDrawnNodes && !a.force)
        throw InputError("--format png/svg: the time-series graph of " + std::to_string(series.n_vars) +
                         " series at lags 0.." + std::to_string(s.tau_max) + " has " +
                         std::to_string(series.n_vars * (s.tau_max + 1)) + " nodes, more than " +
                         std::to_string(kMaxDrawnNodes) +
                         " (Graphviz takes minutes); add --force to draw anyway, or write --format dot");
    // A series constant on the steps a lag of it covers has no dependence to measure (tigramite
    // would drop the column from the test; cudag refuses it, as a constant series). Missing
    // cells are left out (each test drops the rows missing one of its nodes).
    for (std::int64_t c = 0; c < lagged.data.n_vars; ++c) {
        const double* v = lagged.data.column(c);
        const double* end = v + lagged.data.n_samples;
        const double* seen = std::find_if(v, end, [](double x) { return !std::isnan(x); });
        if (seen == end || std::all_of(seen, end, [&](double x) { return std::isnan(x) || x == *seen; }))
            throw InputError(series.source + ": '" + lagged.data.names[static_cast<std::size_t>(c)] + "' is " +
                             (seen == end ? "missing" : "constant") +
                             " on the time steps the tests use (2*tau_max..T-1 of each series)");
    }
    // The largest conditioning set any test can have: PC1's N·(lags) − 1, MCI's two parent lists
    // (and PCMCI+'s contemporaneous set, up to N − 2 more).
    const auto lags = static_cast<std::int64_t>(s.tau_max - std::max(0, s.tau_min) + 1);
    const int max_cond = static_cast<int>(
        std::min<std::int64_t>(lagged.data.n_vars - 2, 2 * series.n_vars * lags + (plus ? series.n_vars : 0)));
    BackendContext ctx;
    ctx.kind = backend;
    ctx.threads = threads;
    if (const int gpus = visible_gpus(); gpus > 0) ctx.device = mpi::bind_device(local_rank, gpus);
    mpi::SerialCommunicator self;  // each rank's own tests: the ranks split the batches, not the engine
    skeleton::TestOptions options;
    options.kind = a.test == PcmciTest::ParCorr ? skeleton::TestKind::FisherZ : skeleton::TestKind::CmiKnn;
    if (a.test == PcmciTest::CmiKnn) {
        options.cmi = cmi_knn_spec(a.cmi, ci::TestKind::CmiKnn);
        options.cmi_early_stop = false;  // every p-value exact: PC1 keeps the largest
    }
    skeleton::validate_test(options, lagged.data, max_cond);
    const skeleton::TestSpec spec = skeleton::resolve_test(options, lagged.data, 0.05, skeleton::Compat::Pcalg);
    // parcorr: the Fisher-z engines' partial correlations (CPU and GPU alike) with ParCorr's
    // Student-t p-value (pcmci::ParCorrBatch).
    std::unique_ptr<ci::BatchTest> engine;
    if (backend != BackendKind::Cpu)
        engine = skeleton::make_gpu_batch_test(lagged.data, spec, skeleton::TestPolicy{}, max_cond, ctx, self);
    if (!engine)
        engine = std::make_unique<ci::CpuBatchTest>(
            skeleton::ci_test_factory(lagged.data, spec, skeleton::Compat::Pcalg, threads), threads, lagged.data.names);
    std::unique_ptr<ci::BatchTest> tests;
    pcmci::ParCorrBatch* parcorr = nullptr;
    if (a.test == PcmciTest::ParCorr) {
        auto batch = std::make_unique<pcmci::ParCorrBatch>(std::move(engine), lagged, threads);
        parcorr = batch.get();
        tests = std::move(batch);
    } else {
        tests = std::move(engine);
    }
    if (ranks) tests = std::make_unique<pcmci::RankSplitBatch>(std::move(tests), *comm);
    pcmci::CheckpointBatch* checkpoint = nullptr;
    if (!a.checkpoint.empty()) {
        pcmci::CheckpointBatch::Options co;
        co.path = a.checkpoint;
        co.settings = pcmci_checkpoint_settings(a, s, lagged.data, spec);
        co.config_hash = pcmci_checkpoint_hash(co.settings);
        co.resume = a.resume;
        co.every_seconds = a.checkpoint_every;
        co.stop_after_tests = a.stop_after_tests;
        co.on_write = [path = a.checkpoint](std::int64_t answered) {
            interrupt::set_note("the last checkpoint holds " + std::to_string(answered) + " answered tests in '" +
                                path + "' (continue with --resume)");
        };
        auto wrapped = std::make_unique<pcmci::CheckpointBatch>(std::move(tests), std::move(co), comm);
        checkpoint = wrapped.get();
        tests = std::move(wrapped);
        if (a.resume && lead && !a.quiet)
            std::cerr << "cudag pcmci: resuming from checkpoint '" << a.checkpoint
                      << "': " << checkpoint->resumed_tests() << " tests answered\n";
    }

    skeleton::Progress progress(a.quiet || !lead ? skeleton::Progress::Mode::Quiet
                                : a.verbose      ? skeleton::Progress::Mode::Always
                                                 : skeleton::Progress::Mode::Auto,
                                "cudag pcmci");
    // Each phase's rate counts from its start: the run's, then the end of the phase before.
    std::string last_phase;
    auto phase_clock = std::chrono::steady_clock::now(), last_report = phase_clock;
    const pcmci::ProgressFn report = [&](const char* phase, std::int64_t done, std::int64_t planned) {
        const auto now = std::chrono::steady_clock::now();
        if (last_phase != phase) {
            if (!last_phase.empty()) phase_clock = last_report;
            last_phase = phase;
        }
        last_report = now;
        progress.counted(phase, "tests", done, planned, std::chrono::duration<double>(now - phase_clock).count());
    };
    PcmciRun run;
    run.where = tests->where();
    run.result = plus ? pcmci::run_pcmciplus(lagged, s, *tests, report) : pcmci::run_pcmci(lagged, s, *tests, report);
    run.names = series.names;
    if (checkpoint) {
        run.resumed_tests = checkpoint->replayed_tests();
        if (a.keep_checkpoint) checkpoint->flush();  // the finished run's every test
    }

    if (!lead) return run;  // rank 0 writes
    const std::vector<std::pair<std::string, std::string>> config = config_of(a, s, run.result, command_line);
    if (to_stdout) {
        if (a.print_links) pcmci::write_links(run.result, run.names, std::cout);
        std::cout.flush();
    } else {
        io::OutputSet outputs;
        pcmci::write_h5(run.result, run.names, config, outputs.temp_for(a.out));
        write_pcmci_formats(run.result, run.names, config, a.out, formats, outputs, std::cerr);
        outputs.commit();
    }
    if (!a.checkpoint.empty() && !a.keep_checkpoint) remove_served_checkpoint(a.checkpoint);
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!a.quiet) {
        std::int64_t links = 0;
        for (std::int32_t i = 0; i < run.result.n_vars; ++i)
            for (std::int32_t j = 0; j < run.result.n_vars; ++j)
                for (std::int32_t lag = 0; lag <= run.result.tau_max; ++lag)
                    if (!run.result.graph[run.result.at(i, j, lag)].empty() && !(lag == 0 && i > j)) ++links;
        std::ostringstream line;
        line << "cudag pcmci: " << series.n_vars << " series x " << series.n_samples << " steps, tau_max " << s.tau_max
             << ": " << links << " links; " << run.result.pc1_tests << " condition-selection and "
             << run.result.mci_tests << (plus ? " MCI (skeleton and collider) tests (" : " MCI tests (")
             << to_string(a.test) << ", " << run.where << ")"
             << (run.resumed_tests > 0 ? ", " + std::to_string(run.resumed_tests) + " of them from the checkpoint"
                                       : std::string())
             << ", " << skeleton::Progress::duration(run.seconds);
        skeleton::print_line(line.str());
        if (parcorr && parcorr->least_squares_tests() > 0) {
            std::string names;
            const std::vector<char>& ls = parcorr->least_squares_columns();
            for (std::int32_t v = 0; v < lagged.n_vars; ++v)
                if (ls[static_cast<std::size_t>(lagged.column(v, 0))])
                    names += (names.empty() ? "" : ", ") + series.names[static_cast<std::size_t>(v)];
            skeleton::print_line("cudag pcmci: the tests touching series whose lags are nearly collinear (" + names +
                                 ": a trend or a unit root?) ran by least squares on the rows, as tigramite's "
                                 "(the correlation matrix would lose digits there)");
        }
        const pcmci::Result& r = run.result;
        std::ostringstream chosen;
        if (r.optimal_pc_alpha.size() == 1 && plus) {
            chosen << "cudag pcmci: pc_alpha " << r.optimal_pc_alpha[0] << " chosen among "
                   << r.pc_alpha_candidates.size();
        } else if (!r.optimal_pc_alpha.empty()) {
            chosen << "cudag pcmci: pc_alpha chosen per series:";
            for (std::size_t j = 0; j < r.optimal_pc_alpha.size(); ++j)
                chosen << ' ' << run.names[j] << '=' << r.optimal_pc_alpha[j];
        }
        if (!chosen.str().empty()) skeleton::print_line(chosen.str());
    }
    return run;
}

}  // namespace cudag::run
