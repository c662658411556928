// SPDX-License-Identifier: Apache-2.0
#include "cli/option_table.hpp"

#include <memory>
#include <sstream>

#include "cli/info.hpp"
#include "core/error.hpp"

namespace cudag::cli {

void add_commands(CLI::App& app, Commands& c) {
    c.pc_cmd = add_pc_command(app, c.pc);
    c.fci_cmd = add_fci_command(app, c.fci);
    c.simulate_cmd = add_simulate_command(app, c.simulate);
    c.compare_cmd = add_compare_command(app, c.compare);
    c.citest_cmd = add_citest_command(app, c.citest);
    c.score_cmd = add_score_command(app, c.score);
    c.mcmc_cmd = add_mcmc_command(app, c.mcmc);
    c.pcmci_cmd = add_pcmci_command(app, c.pcmci);
    c.info_cmd = add_info_command(app);
}

namespace {

/// "flag", "int", "float", "list" or "text" from CLI11's description of the option.
std::string type_of(const CLI::Option& o) {
    if (o.get_items_expected_max() == 0) return "flag";
    if (o.get_items_expected_max() > 1) return "list";
    std::string name = o.get_type_name();
    name = name.substr(0, name.find(':'));
    if (name == "INT" || name == "UINT") return "int";
    if (name == "FLOAT") return "float";
    return "text";
}

}  // namespace

std::vector<OptionInfo> option_table(const std::string& command) {
    CLI::App app;
    const auto commands = std::make_unique<Commands>();
    add_commands(app, *commands);
    CLI::App* cmd = &app;
    std::istringstream words(command);
    for (std::string word; words >> word;) {
        CLI::App* sub = nullptr;
        for (CLI::App* s : cmd->get_subcommands([](const CLI::App*) { return true; }))
            if (s->get_name() == word) sub = s;
        if (sub == nullptr) {
            std::string list;
            for (const std::string& c : table_commands()) list += (list.empty() ? "" : ", ") + c;
            throw InputError("no command '" + command + "' (available: " + list + ")");
        }
        cmd = sub;
    }
    std::vector<OptionInfo> out;
    for (const CLI::Option* o : cmd->get_options()) {
        if (o->get_lnames().empty() || o->get_lnames().front() == "help") continue;
        OptionInfo info;
        info.option = "--" + o->get_lnames().front();
        info.type = type_of(*o);
        info.default_value = o->get_default_str();  // as --help shows it: where the declaration captured one
        if (info.default_value == "[]") info.default_value.clear();
        info.meaning = o->get_description();
        info.hidden = o->get_group().empty();
        out.push_back(std::move(info));
    }
    return out;
}

std::vector<std::string> table_commands() {
    return {"pc",
            "fci",
            "mcmc",
            "pcmci",
            "citest",
            "score",
            "compare",
            "simulate gaussian",
            "simulate nonlinear",
            "simulate discrete",
            "simulate bif"};
}

}  // namespace cudag::cli
