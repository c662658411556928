// SPDX-License-Identifier: Apache-2.0
#include "bn/mcmc_result.hpp"

#include <cstdio>
#include <filesystem>

#include "core/error.hpp"
#include "core/format.hpp"
#include "core/interrupt.hpp"
#include "cudag/config.hpp"
#include "io/hdf5_file.hpp"
#include "io/result_formats.hpp"
#include "io/writers.hpp"

namespace cudag::bn {

namespace h5 = io::h5;
using io::cpdag_edges;
using io::CpdagEdge;
using io::mcmc_result_format;
using io::run_helper;
using io::TextFile;
using io::tsv_escape;

namespace {

void scalar(hid_t obj, const char* name, double v, const std::string& where) {
    h5::write_scalar_attr(obj, name, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, &v, where);
}
void scalar(hid_t obj, const char* name, std::int64_t v, const std::string& where) {
    h5::write_scalar_attr(obj, name, H5T_NATIVE_INT64, H5T_STD_I64LE, &v, where);
}

}  // namespace

void write_mcmc_result_hdf5(const McmcOutput& o, const std::vector<double>& local_scores, const std::string& path) {
    const auto n = static_cast<std::int64_t>(o.names.size());
    const auto un = static_cast<hsize_t>(n);
    const std::string where = "cannot write '" + path + "'";
    h5::Handle file = h5::create_file(path);
    const hid_t root = file.get();
    h5::write_string_attr(root, "cudag_version", CUDAG_VERSION, where);
    h5::write_string_attr(root, "format", mcmc_result_format, where);
    scalar(root, "n_vars", n, where);
    scalar(root, "n_samples", o.n_samples, where);
    scalar(root, "best_score", o.best_dag_score, where);
    scalar(root, "best_order_score", o.result.chains[o.best_chain].best_score, where);
    scalar(root, "best_chain", o.best_chain, where);
    scalar(root, "seconds_table", o.seconds_table, where);
    scalar(root, "seconds_sort", o.seconds_sort, where);
    scalar(root, "seconds_chains", o.seconds_chains, where);
    scalar(root, "seconds_total", o.seconds_total, where);
    {
        h5::Handle g = h5::create_group(root, "variables", where);
        h5::write_strings(g.get(), "names", o.names, where);
    }
    {
        std::vector<std::int32_t> rows;
        for (const CpdagEdge& e : cpdag_edges(o.best_dag)) rows.insert(rows.end(), {e.a, e.b});
        h5::Handle g = h5::create_group(root, "best_dag", where);
        h5::write_array(g.get(), "edges", rows, {rows.size() / 2, 2}, where);
        h5::write_array(g.get(), "local_scores", local_scores, {local_scores.size()}, where);
    }
    {
        std::vector<std::int32_t> rows;
        for (const CpdagEdge& e : cpdag_edges(o.cpdag))
            rows.insert(rows.end(), {e.a, e.b, static_cast<std::int32_t>(e.kind)});
        h5::Handle g = h5::create_group(root, "cpdag", where);
        h5::write_array(g.get(), "edges", rows, {rows.size() / 3, 3}, where);
    }
    const auto& prob = o.result.edge_prob;
    h5::write_array(root, "edge_prob", prob, prob.empty() ? std::vector<hsize_t>{0, 0} : std::vector<hsize_t>{un, un},
                    where);
    {
        const auto c = static_cast<hsize_t>(o.result.chains.size());
        const auto k = static_cast<hsize_t>(o.result.kept_per_chain);
        std::vector<double> trace, acceptance, best;
        std::vector<std::int32_t> best_order, final_order;
        for (const auto& ch : o.result.chains) {
            trace.insert(trace.end(), ch.trace.begin(), ch.trace.end());
            acceptance.push_back(ch.acceptance_rate);
            best.push_back(ch.best_score);
            best_order.insert(best_order.end(), ch.best_order.begin(), ch.best_order.end());
            final_order.insert(final_order.end(), ch.final_order.begin(), ch.final_order.end());
        }
        h5::Handle g = h5::create_group(root, "chains", where);
        h5::write_array(g.get(), "trace", trace, {c, k}, where);
        h5::write_array(g.get(), "acceptance", acceptance, {c}, where);
        h5::write_array(g.get(), "best_score", best, {c}, where);
        h5::write_array(g.get(), "best_order", best_order, {c, un}, where);
        h5::write_array(g.get(), "final_order", final_order, {c, un}, where);
        scalar(g.get(), "burn_in", o.burn_in, where);
        scalar(g.get(), "thin", o.thin, where);
    }
    {
        h5::Handle g = h5::create_group(root, "diagnostics", where);
        const McmcDiagnostics& d = o.diagnostics;
        scalar(g.get(), "score_psrf", d.score_psrf, where);
        scalar(g.get(), "score_ess", d.score_ess, where);
        scalar(g.get(), "edge_psrf_max", d.edges.max_psrf, where);
        scalar(g.get(), "edge_psrf_fraction_above", d.edges.fraction_above, where);
        scalar(g.get(), "edges_counted", d.edges.edges_counted, where);
        scalar(g.get(), "max_chain_difference", d.edges.max_chain_difference, where);
    }
    io::h5::write_config(root, o.config, where);
    h5::check(H5Fflush(root, H5F_SCOPE_LOCAL), where);
}

void write_edgeprob_tsv(const McmcOutput& o, const std::string& path) {
    TextFile f(path);
    f.write("source\ttarget\tprobability\n");
    const auto n = o.names.size();
    const auto& prob = o.result.edge_prob;
    if (!prob.empty())
        for (std::size_t p = 0; p < n; ++p)
            for (std::size_t v = 0; v < n; ++v) {
                const double x = prob[p * n + v];
                if (p == v || x == 0.0) continue;
                f.write(tsv_escape(o.names[p]) + '\t' + tsv_escape(o.names[v]) + '\t' + exact_number(x) + '\n');
            }
    f.close();
}

void write_traces_tsv(const McmcOutput& o, const std::string& path) {
    TextFile f(path);
    std::string line = "iteration";
    for (std::size_t c = 0; c < o.result.chains.size(); ++c) line += "\tchain_" + std::to_string(c);
    f.write(line + '\n');
    for (std::int64_t k = 0; k < o.result.kept_per_chain; ++k) {
        line = std::to_string(o.burn_in + (k + 1) * o.thin);
        for (const auto& ch : o.result.chains) line += '\t' + exact_number(ch.trace[static_cast<std::size_t>(k)]);
        f.write(line + '\n');
    }
    f.close();
}

bool write_traces_png(const McmcOutput& o, const std::string& path, std::string& message) {
    const std::string tsv = path + ".tsv.tmp", script = path + ".gp.tmp";
    interrupt::add_temporary(tsv);
    interrupt::add_temporary(script);
    struct Remove {
        std::vector<std::string> files;
        ~Remove() {
            for (const std::string& f : files) {
                std::error_code ec;
                std::filesystem::remove(f, ec);
                interrupt::forget_temporary(f);
            }
        }
    } cleanup{{tsv, script}};
    write_traces_tsv(o, tsv);
    // gnuplot strings in single quotes: a quote is doubled.
    auto quoted = [](const std::string& s) {
        std::string q = "'";
        for (const char c : s) q += c == '\'' ? std::string("''") : std::string(1, c);
        return q + "'";
    };
    TextFile f(script);
    f.write("set terminal png size 1200,600\nset output " + quoted(path) +
            "\nset datafile separator '\\t'\nset key outside autotitle columnheader\n"
            "set xlabel 'iteration'\nset ylabel 'order score'\nset title 'cudag mcmc: score traces'\n"
            "plot for [i=2:" +
            std::to_string(o.result.chains.size() + 1) + "] " + quoted(tsv) + " using 1:i with lines\n");
    f.close();
    return run_helper("gnuplot", {script}, path, message);
}

}  // namespace cudag::bn
