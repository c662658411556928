// SPDX-License-Identifier: Apache-2.0
#include "run/pcmci_parts.hpp"

#include <charconv>
#include <fstream>
#include <sstream>

#include "core/digest.hpp"
#include "core/error.hpp"
#include "io/writers.hpp"
#include "pcmci/drawing.hpp"
#include "pcmci/output.hpp"

namespace cudag::run {
namespace {

/// `out` without a trailing .h5/.hdf5 (any case), then `suffix`.
std::string beside(const std::string& out, const std::string& suffix) {
    std::string stem = io::format_path(out, "dot");  // out's stem + ".dot"
    stem.resize(stem.size() - 4);
    return stem + suffix;
}

/// The shortest text that reads back as `v` (0.2, not 0.20000000000000001).
std::string shortest(double v) {
    char buf[32];
    const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
    return std::string(buf, end);
}

void write_text(const std::string& text, const std::string& path, const std::string& temp) {
    std::ofstream os(temp, std::ios::binary);
    os << text;
    os.close();
    if (!os) throw InputError(path + ": cannot be written");
}

}  // namespace

const std::vector<std::string>& pcmci_format_names() {
    static const std::vector<std::string> names = {"links", "json", "dot", "png", "svg"};
    return names;
}

std::vector<std::string> pcmci_format_paths(const std::string& out, const std::string& format) {
    if (format == "links") return {beside(out, ".links.tsv")};
    if (format == "json") return {beside(out, ".json")};
    if (format == "dot" || format == "png" || format == "svg")
        return {beside(out, "." + format), beside(out, ".ts." + format)};
    std::string list;
    for (const std::string& f : pcmci_format_names()) list += (list.empty() ? "" : ", ") + f;
    throw InputError("unknown --format '" + format + "' (available: " + list + ")");
}

void write_pcmci_formats(const pcmci::Result& r, const std::vector<std::string>& names,
                         const std::vector<std::pair<std::string, std::string>>& config, const std::string& out,
                         const std::vector<std::string>& formats, io::OutputSet& outputs, std::ostream& warnings) {
    for (const std::string& f : formats) {
        const std::vector<std::string> paths = pcmci_format_paths(out, f);
        if (f == "links" || f == "json") {
            std::ostringstream os;
            if (f == "links")
                pcmci::write_links(r, names, os);
            else
                pcmci::write_json(r, names, config, os);
            write_text(os.str(), paths[0], outputs.temp_for(paths[0]));
            continue;
        }
        const std::string drawings[2] = {pcmci::process_graph_dot(r, names), pcmci::time_series_graph_dot(r, names)};
        for (std::size_t k = 0; k < 2; ++k) {
            const std::string temp = outputs.temp_for(paths[k]);
            if (f == "dot") {
                write_text(drawings[k], paths[k], temp);
                continue;
            }
            std::string message;
            if (io::render_dot(drawings[k], temp, f, message)) continue;
            outputs.discard(paths[k]);
            // Name the file asked for, not its temporary.
            if (const std::size_t at = message.rfind(temp); at != std::string::npos)
                message.replace(at, temp.size(), paths[k]);
            warnings << "warning: " << message << '\n';
        }
    }
}

io::CheckpointSettings pcmci_checkpoint_settings(const PcmciJob& a, const pcmci::Settings& s, const Dataset& lagged,
                                                 const skeleton::TestSpec& spec) {
    const auto opt = [](std::int32_t v) { return v < 0 ? std::string("none") : std::to_string(v); };
    Digest data, links, test;
    data.add_value(lagged.n_vars).add_value(lagged.n_samples);
    for (const std::string& name : lagged.names) data.add_string(name);
    data.add_bytes(lagged.values.data(), lagged.values.size() * sizeof(double));
    if (s.link_assumptions)
        for (std::size_t j = 0; j < s.link_assumptions->links.size(); ++j)
            for (const auto& [node, type] : s.link_assumptions->links[j])
                links.add_value(static_cast<std::int64_t>(j)).add_value(node.var).add_value(node.lag).add_string(type);
    std::string test_text = to_string(a.test);
    for (const std::string& entry : spec.digest_entries(lagged.n_samples)) {
        test_text += ' ';
        test_text += entry;
    }
    io::CheckpointSettings c = {
        {"--method", to_string(a.method)},
        {"--test and its options", test_text},
        {"--tau-min", std::to_string(s.tau_min)},
        {"--tau-max", std::to_string(s.tau_max)},
        {"--pc-alpha", shortest(s.pc_alpha)},
        {"--alpha-level", shortest(s.alpha_level)},
        {"--max-conds-dim", opt(s.max_conds_dim)},
        {"--max-combinations", std::to_string(s.max_combinations)},
        {"--max-conds-py", opt(s.max_conds_py)},
        {"--max-conds-px", opt(s.max_conds_px)},
        {"--fdr", s.fdr_bh ? "fdr_bh" : "none"},
        {"the link assumptions (--links)", s.link_assumptions ? links.hex() : "default"},
    };
    if (a.method == PcmciMethod::PcmciPlus) {
        c.push_back({"--contemp-collider-rule", pcmci::to_string(s.contemp_collider_rule)});
        c.push_back({"--no-conflict-resolution", s.conflict_resolution ? "no" : "yes"});
        c.push_back({"--reset-lagged-links", s.reset_lagged_links ? "yes" : "no"});
        c.push_back({"--max-conds-px-lagged", opt(s.max_conds_px_lagged)});
    }
    // Last: the lagged table changes with --tau-max too, which is named first then.
    c.push_back({"the series (--data)", data.hex()});
    return c;
}

std::string pcmci_checkpoint_hash(const io::CheckpointSettings& settings) {
    Digest h;
    h.add_string("cudag-pcmci-checkpoint-1");
    for (const io::CheckpointSetting& s : settings) h.add_string(s.name).add_string(s.value);
    return h.hex();
}

}  // namespace cudag::run
