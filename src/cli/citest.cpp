// SPDX-License-Identifier: Apache-2.0
#include "cli/citest.hpp"

#include <iostream>
#include <sstream>

#include "cli/common.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "io/writers.hpp"

namespace cudag::cli {

CLI::App* add_citest_command(CLI::App& app, CitestArgs& args) {
    run::CitestJob& a = args.job;
    auto* cmd = app.add_subcommand(
        "citest", "conditional-independence tests X _||_ Y | Z: statistic and p-value, one test or a batch");
    cmd->add_option("--data", a.data,
                    "input data: CSV/TSV/whitespace text with a header row, or HDF5; '-' reads "
                    "text from standard input")
        ->required();
    cmd->add_option("--dataset", a.dataset, "HDF5 dataset path (default: the only 2-D dataset)");
    add_na_values_option(*cmd, a.na_values);
    add_table_options(*cmd, args.missing, a.discrete_columns, a.continuous_columns);
    cmd->add_option("--test", args.test,
                    "cmiknn, fisher-z, mi-g-sh (continuous; mi-g-sh: bnlearn's shrinkage), chi-square, g-square or "
                    "mi-sh (discrete; mi-sh: bnlearn's "
                    "shrinkage), cg-lrt, regression or mi-cg (mixed: bnlearn's)")
        ->required();
    auto* x = cmd->add_option("--x", a.x, "name of X (a column of --data)");
    auto* y = cmd->add_option("--y", a.y, "name of Y");
    auto* given = cmd->add_option("--given", args.given, "conditioning set Z: names, comma-separated (default: none)");
    cmd->add_option("--queries", args.queries,
                    "a batch of tests instead of --x/--y/--given: a file with a header row x, y, given "
                    "(tab-separated, given's names comma-separated; or comma-separated, given's names "
                    "';'-separated) and one test a row; prints one row (or JSON object) a test")
        ->excludes(x)
        ->excludes(y)
        ->excludes(given);
    cmd->add_option("--backend", args.backend,
                    "where --queries' batch runs: auto (a GPU when one is visible and the test has a GPU "
                    "engine), cpu or cuda; single tests run on the CPU")
        ->capture_default_str();
    cmd->add_option("--dof", args.dof,
                    "chi-square/g-square degrees of freedom: gpupc, pcalg, causal-learn, bnlearn-adf or pcalg-adapt");
    cmd->add_option("--compat", args.compat,
                    "pcalg (default) or causal-learn: fisher-z p arithmetic and the default --dof")
        ->capture_default_str();
    add_cmi_knn_options(*cmd, a.cmi, args.cmi_options, false);
    cmd->add_option("--threads", a.threads, "CPU threads for the cmiknn surrogates (0: all)")->capture_default_str();
    cmd->add_flag("--json", args.json, "print one JSON object (statistic, p_value, ...) instead of text");
    auto* quiet = cmd->add_flag("-q,--quiet", a.quiet, "no notes on stderr");
    cmd->add_flag("-v,--verbose", a.verbose, "notes on stderr (e.g. a constant column)")->excludes(quiet);
    return cmd;
}

namespace {

/// `names` as a JSON array of strings.
std::string json_names(const std::vector<std::string>& names) {
    std::string out = "[";
    for (std::size_t k = 0; k < names.size(); ++k) out += (k ? ", " : "") + io::json_quote(names[k]);
    return out + "]";
}

/// --queries: every test of the file, one line (or JSON object) each, in file order.
int run_batch(const CitestArgs& args, run::CitestJob a) {
    const std::vector<run::CitestQuery> queries = run::read_citest_queries(args.queries);
    run::CitestSession session(a);
    const run::CitestBatchOutput r = session.test_batch(queries);
    if (a.verbose) std::cerr << "cudag citest: " << queries.size() << " tests on " << r.where << '\n';
    std::ostringstream os;
    if (!args.json) os << "x\ty\tgiven\tstatistic\tp_value\n";
    for (std::size_t q = 0; q < queries.size(); ++q) {
        const run::CitestQuery& t = queries[q];
        if (args.json) {
            os << "{\"test\": " << io::json_quote(skeleton::to_string(a.test)) << ", \"x\": " << io::json_quote(t.x)
               << ", \"y\": " << io::json_quote(t.y) << ", \"given\": " << json_names(t.given)
               << ", \"n_samples\": " << r.n_samples << ", \"statistic\": " << exact_number(r.statistic[q])
               << ", \"p_value\": " << exact_number(r.p[q]) << "}\n";
        } else {
            os << t.x << '\t' << t.y << '\t';
            for (std::size_t g = 0; g < t.given.size(); ++g) os << (g ? "," : "") << t.given[g];
            os << '\t' << exact_number(r.statistic[q]) << '\t' << exact_number(r.p[q]) << '\n';
        }
    }
    std::cout << os.str();
    return 0;
}

}  // namespace

int run_citest(const CitestArgs& args) {
    run::CitestJob a = args.job;
    a.test = skeleton::parse_test(args.test);
    a.compat = skeleton::parse_compat(args.compat);
    a.dof = run::parse_unless_empty(args.dof, skeleton::parse_dof);
    a.backend = parse_backend(args.backend);
    a.missing = parse_missing(args.missing);
    a.given = split_commas(args.given);
    apply_cmi_options(args.cmi_options, a.cmi);
    if (!args.queries.empty()) return run_batch(args, a);
    if (a.x.empty() || a.y.empty()) throw InputError("citest needs --x and --y (or --queries FILE)");
    const run::CitestOutput r = run::run_citest(a);
    const std::string test = skeleton::to_string(a.test);
    const std::vector<std::string>& given = a.given;
    const int l = static_cast<int>(given.size());
    if (args.json) {
        std::string js = "{\"test\": " + io::json_quote(test) + ", \"x\": " + io::json_quote(a.x) +
                         ", \"y\": " + io::json_quote(a.y) + ", \"given\": " + json_names(given) +
                         ", \"n_samples\": " + std::to_string(r.n_samples) +
                         ", \"statistic\": " + exact_number(r.statistic) + ", \"p_value\": " + exact_number(r.p);
        for (const auto& [k, v] : r.extra) js += ", " + io::json_quote(k) + ": " + v;
        std::cout << js << "}\n";
    } else {
        std::ostringstream os;
        os << test << ": " << a.x << " _||_ " << a.y;
        for (int t = 0; t < l; ++t) os << (t ? ", " : " | ") << given[t];
        os << "\nstatistic\t" << exact_number(r.statistic) << "\np_value\t" << exact_number(r.p) << '\n';
        for (const auto& [k, v] : r.extra) os << k << '\t' << v << '\n';
        std::cout << os.str();
    }
    return 0;
}

}  // namespace cudag::cli
